"""Invariants over random Medina games (kind-first random play), for 3 and 4 players."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.ai.agent import random_move
from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig, Move
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.core.registry import make
from tabletop.games.medina import State
from tabletop.games.medina.moves import (
    DOME_MOVES,
    MERCHANT_MOVES,
    PALACE_MOVES,
    STABLE_MOVES,
    START_MOVES,
    WALL_MOVES,
)
from tabletop.games.medina.placement import claimable, merchant_squares, stable_squares, wall_squares
from tabletop.games.medina.rules import BOX, SUPPLY
from tabletop.games.medina.scoring import score_breakdown
from tests.builders import medina_position

GAME = make("medina", engine="python")
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BOOL_FLAGS = [
    "abandoned_palace_claimable",
    "new_chain_may_touch_one",
    "tower_reconnect_per_run",
    "last_player_by_supply",
    "dome_obligation_lookahead",
    "start_merchant_anywhere",
    "stable_adjacency_scores",
]


def play(num_players: int, seed: int, variants: dict[str, Any] | None = None) -> tuple[list[State], list[Move]]:
    """Plays a kind-first random game; returns every state and the moves between them."""
    rng = random.Random(seed)
    state: State = GAME.new_initial_state(GameConfig(num_players=num_players, variants=variants or {}))
    states, moves = [state], []
    while not state.is_terminal():
        assert len(moves) < 1000, "the game must end"
        move = random_move(state, rng)
        state = state.apply(move)  # type: ignore[assignment]
        states.append(state)
        moves.append(move)
    return states, moves


def _xy(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("A"), int(name[1:])


def _adjacent(a: str, b: str) -> bool:
    (ax, ay), (bx, by) = _xy(a), _xy(b)
    return abs(ax - bx) + abs(ay - by) == 1


def _touching(a: str, b: str) -> bool:
    (ax, ay), (bx, by) = _xy(a), _xy(b)
    return max(abs(ax - bx), abs(ay - by)) == 1


def naive_scores(view: dict[str, Any], stable_adjacency: bool = True) -> list[int]:
    """Final scores recomputed from the JSON view with plain loops (independent of the engine)."""
    totals = [0] * view["num_players"]
    merchants = [p["square"] for p in view["pieces"] if p["type"] == "merchant"]
    walls = [w["square"] for w in view["walls"]]
    for pal in view["palaces"]:
        if pal["owner"] is None:
            continue
        merchant_reach = pal["pieces"] + (pal["stables"] if stable_adjacency else [])
        wall_reach = pal["pieces"] + pal["stables"]  # A11 concerns merchants only
        points = len(pal["pieces"]) + len(pal["stables"])
        points += sum(1 for m in merchants if any(_adjacent(m, c) for c in merchant_reach))
        points += sum(1 for w in walls if any(_adjacent(w, c) for c in wall_reach))
        totals[pal["owner"]] += points
    for tile in [*view["palace_tiles"].values(), *view["tower_tiles"].values()]:
        if tile["holder"] is not None:
            totals[tile["holder"]] += tile["value"]
    return totals


def check_invariants(state: State) -> None:
    view = state.to_json()
    n = state.num_players
    # Box counts: board + supplies + retired (+ what stays in the box) = the box.
    dealt = [SUPPLY[n][slot] * n for slot in range(8)]
    if view["start_merchant"] is not None:
        dealt[6] += 1  # the starting merchant comes from the box
    on_board = [0] * 8
    for piece in view["pieces"]:
        if piece["type"] == "palace":
            on_board[["gray", "black", "brown", "orange"].index(piece["color"])] += 1
        else:
            on_board[{"stable": 5, "merchant": 6}[piece["type"]]] += 1
    on_board[4] = len(view["domes"])
    on_board[7] = len(view["walls"])
    supplies = [sum(state.supply[p * 8 + slot] for p in range(n)) for slot in range(8)]
    retired = [*state.retired, 0, 0, 0, 0]
    for slot in range(8):
        assert on_board[slot] + supplies[slot] + retired[slot] == dealt[slot] <= BOX[slot]
    # Palaces never touch each other, not even diagonally (components = pieces + stables).
    comps = [pal["pieces"] + pal["stables"] for pal in view["palaces"]]
    for i in range(len(comps)):
        for j in range(i + 1, len(comps)):
            assert not any(_touching(a, b) for a in comps[i] for b in comps[j])
    # Every merchant chain is a simple path (default rules).
    if not state.rules.new_chain_may_touch_one:
        merchants = [p["square"] for p in view["pieces"] if p["type"] == "merchant"]
        degree = {m: sum(_adjacent(m, o) for o in merchants) for m in merchants}
        assert max(degree.values(), default=0) <= 2
        edges = sum(degree.values()) // 2
        groups = _groups(merchants)
        assert edges == len(merchants) - len(groups)  # a forest with max degree 2 = paths
    # Each side keeps a gate.
    walls = {w["square"] for w in view["walls"]}
    sides = [
        [f"{c}1" for c in "BCDEFGHIJKLMNOPQ"],
        [f"{c}13" for c in "BCDEFGHIJKLMNOPQ"],
        [f"A{r}" for r in range(2, 13)],
        [f"R{r}" for r in range(2, 13)],
    ]
    for side in sides:
        assert any(sq not in walls for sq in side)
    # No player owns two palaces of one colour.
    owned = [(pal["owner"], pal["color"]) for pal in view["palaces"] if pal["owner"] is not None]
    assert len(owned) == len(set(owned))
    # Palace tiles: the holder's palace of that colour is at least as large as every other owned one.
    for colour, tile in view["palace_tiles"].items():
        sizes = {
            pal["owner"]: pal["size"] for pal in view["palaces"] if pal["color"] == colour and pal["owner"] is not None
        }
        assert (tile["holder"] is None) == (not sizes)
        if sizes:
            assert sizes[tile["holder"]] == max(sizes.values())
    # Tower tiles: held exactly when an owned palace touches that tower's walls, by such an owner.
    for tower, tile in view["tower_tiles"].items():
        tower_walls = [w["square"] for w in view["walls"] if w["tower"] == tower]
        connected = {
            pal["owner"]
            for pal in view["palaces"]
            if pal["owner"] is not None
            and any(_adjacent(w, c) for w in tower_walls for c in pal["pieces"] + pal["stables"])
        }
        assert (tile["holder"] is None) == (not connected)
        assert tile["holder"] is None or tile["holder"] in connected
    # Scores = per-palace breakdown + tiles, and match an independent recomputation.
    sheet = score_breakdown(state)
    assert list(state.scores()) == list(sheet.totals())
    assert list(state.scores()) == naive_scores(view, state.rules.stable_adjacency_scores)
    # legal_kinds / legal_moves_of_kind agree with legal_moves.
    legal = list(state.legal_moves())
    assert legal == [m for k in state.legal_kinds() for m in state.legal_moves_of_kind(k)]
    assert bool(legal) != state.is_terminal()
    # Lazy per-kind sequences index exactly like the listed moves.
    for kind in state.legal_kinds():
        of_kind = state.legal_moves_of_kind(kind)
        assert [of_kind[i] for i in range(len(of_kind))] == list(of_kind)
        assert of_kind[-1] == list(of_kind)[-1]
        assert all(state.is_legal(m) for m in of_kind)


def _groups(squares: list[str]) -> list[set[str]]:
    rest, groups = set(squares), []
    while rest:
        todo, group = [rest.pop()], set()
        while todo:
            sq = todo.pop()
            group.add(sq)
            near = {o for o in rest if _adjacent(sq, o)}
            rest -= near
            todo.extend(near)
        groups.append(group)
    return groups


def check_rebuild(state: State) -> None:
    """The incremental bookkeeping equals a from-scratch rebuild of the position."""
    view = state.to_json()
    layout = [f"{pal['color']}:{' '.join(pal['pieces'])}" for pal in view["palaces"]]
    layout.append("S:" + " ".join(sq for pal in view["palaces"] for sq in pal["stables"]))
    layout.append("W:" + " ".join(w["square"] for w in view["walls"]))
    chain = view["merchant_chain"]["squares"]
    others = [p["square"] for p in view["pieces"] if p["type"] == "merchant" and p["square"] not in chain]
    layout.append("M:" + " ".join(others + chain))
    domes = {d["square"]: d["player"] for d in view["domes"]}
    rebuilt = medina_position(*layout, num_players=state.num_players, domes=domes, variants=dict(state.config.variants))

    def shape(s: State) -> set[tuple[int, int, int, int, bool]]:
        return {(p.color, p.pieces, p.stables, p.owner, p.abandoned) for p in s.palaces}

    assert shape(rebuilt) == shape(state)
    assert (rebuilt.forbid, rebuilt.contested, rebuilt.ext, rebuilt.chain, rebuilt.chain_ends) == (
        state.forbid,
        state.contested,
        state.ext,
        state.chain,
        state.chain_ends,
    )
    assert rebuilt.runs == state.runs


def random_illegal_move(state: State, rng: random.Random) -> Move:
    legal = set(state.legal_moves())
    tables = [START_MOVES, DOME_MOVES, STABLE_MOVES, MERCHANT_MOVES, WALL_MOVES, *PALACE_MOVES]
    while True:
        table = rng.choice(tables)
        move = table[rng.randrange(len(table))]
        if move not in legal:
            return move


@SETTINGS
@given(num_players=st.sampled_from([3, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_invariants(num_players: int, seed: int) -> None:
    states, _ = play(num_players, seed)
    rng = random.Random(seed)
    for state in states:
        check_invariants(state)
    for state in states[:: max(1, len(states) // 12)]:
        check_rebuild(state)
        move = random_illegal_move(state, rng)
        before = (state._values(), state.to_json())
        try:
            state.apply(move)
        except IllegalMoveError as exc:
            assert str(move) in str(exc)
        else:
            raise AssertionError(f"{move} was accepted")
        assert (state._values(), state.to_json()) == before


@SETTINGS
@given(
    num_players=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32 - 1),
    flags=st.fixed_dictionaries({name: st.booleans() for name in BOOL_FLAGS}),
)
def test_random_games_under_every_variant(num_players: int, seed: int, flags: dict[str, bool]) -> None:
    states, _ = play(num_players, seed, flags)
    for state in states[::5] + states[-1:]:
        check_invariants(state)
    assert states[-1].outcome() is not None


@SETTINGS
@given(
    num_players=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32 - 1),
    flags=st.fixed_dictionaries({name: st.booleans() for name in BOOL_FLAGS}),
)
def test_handed_on_values_match_a_fresh_computation(num_players: int, seed: int, flags: dict[str, bool]) -> None:
    """What a new state gets from the move that made it (the square sets ``rules.py`` hands
    on, the legal moves found while ending the turn) equals what it computes from scratch."""
    rng = random.Random(seed)
    state: State = GAME.new_initial_state(GameConfig(num_players=num_players, variants=flags))  # type: ignore[assignment]
    while not state.is_terminal():
        state = state.apply(random_move(state, rng))  # type: ignore[assignment]
        fresh = state.replace()  # the same position, nothing derived yet
        handed_on = [
            (state.known_wall_squares, wall_squares),
            (state.known_stable_squares, stable_squares),
            (state.known_merchant_squares, merchant_squares),
            (state.known_claimable, claimable),
        ]
        for value, compute in handed_on:
            assert value is None or value == compute(fresh)
        assert state.legal_kinds() == fresh.legal_kinds()
        for kind in state.legal_kinds():
            assert list(state.legal_moves_of_kind(kind)) == list(fresh.legal_moves_of_kind(kind))


@SETTINGS
@given(num_players=st.sampled_from([3, 4]), seed=st.integers(0, 2**32 - 1))
def test_notation_and_records_round_trip(num_players: int, seed: int) -> None:
    states, moves = play(num_players, seed)
    for state in states[::3]:
        for move in state.legal_moves():
            text = state.move_to_str(move)
            assert state.parse_move(text) == move
            assert GAME.parse_move(text) == move or move.kind == "merchant_start"
    record = GameRecord.from_states(states[0], moves, [PlayerInfo(f"p{i}", "random") for i in range(num_players)])
    loaded = GameRecord.loads(record.dumps())
    assert loaded == record
    final = replay(loaded)
    assert final == states[-1]
    assert final.outcome() == states[-1].outcome()


def test_every_game_ends_with_scores_and_winners() -> None:
    for n in (3, 4):
        states, _ = play(n, 12345)
        outcome = states[-1].outcome()
        assert outcome is not None
        assert max(outcome.scores) == outcome.scores[outcome.winners[0]]
        assert states[-1].legal_moves() == ()


def test_obligation_states_from_random_games() -> None:
    """In games that reach the last-player dome obligation, every non-dome first placement
    leaves a dome placement, and the second placement is then forced to be a dome."""
    found = 0
    for seed in (55, 85, 261):  # seeds whose 4-player random game reaches the obligation
        for state in play(4, seed)[0]:
            if not (state.obligation and state.placements_left == 2):
                continue
            found += 1
            for kind in state.legal_kinds():
                for move in state.legal_moves_of_kind(kind):
                    after = state.apply(move)
                    if kind == "dome":
                        assert not after.obligation or after.turn != state.turn
                    else:
                        assert after.current_player == state.current_player
                        assert after.legal_kinds() == ("dome",)
    assert found >= 3


def test_copied_and_unpickled_states_keep_their_moves() -> None:
    """Copies made with ``copy.deepcopy`` or pickling play on like the original, whether
    they were made before anything was derived or after."""
    states, _ = play(3, 7)
    for state in states[::10]:
        fresh = state.replace()  # nothing derived known yet
        state.legal_kinds()  # derived values cached
        clones = [copy.deepcopy(s) for s in (fresh, state)]
        clones += [pickle.loads(pickle.dumps(s)) for s in (fresh, state)]
        for clone in clones:
            assert clone == state
            assert clone.legal_kinds() == state.legal_kinds()
            assert list(clone.legal_moves()) == list(state.legal_moves())
            for kind in state.legal_kinds():
                assert list(clone.legal_moves_of_kind(kind)) == list(state.legal_moves_of_kind(kind))
