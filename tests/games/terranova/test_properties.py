"""Hypothesis invariants over random Terra Nova games (2-4 players, random seeds and flags)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.ai.agent import random_move
from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig, OptionValue
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.games.terranova import GAME, PASS, State
from tabletop.games.terranova.moves import Move
from tabletop.games.terranova.ruleset import OPTIONS
from tabletop.games.terranova.scoring import landscape_count, zones
from tabletop.games.terranova.state import PIONEERS_PER_PLAYER, TOTAL_STONES

from .helpers import d37, holey

SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(state: State) -> None:
    """Piece conservation, disjointness and the derived lattice caches."""
    board = state.board
    n = state.num_players
    seen = state.stones | state.closed
    assert not state.stones & state.closed
    for own in state.pioneers:
        assert not own & seen, "two pieces on one cell"
        seen |= own
    assert not seen & ~board.all_cells
    each = PIONEERS_PER_PLAYER[n]
    for p in range(n):
        assert state.pioneers[p].bit_count() + state.removed[p] + state.in_hand[p] == each
    assert state.stones.bit_count() + state.supply == TOTAL_STONES
    assert state.line_pioneers == tuple(board.to_lines(own) for own in state.pioneers)
    assert state.lattice_blocked == board.to_lattice(state.stones | state.closed)
    assert state.filled == seen
    assert state.line_free == board.to_lines(board.all_cells & ~seen)
    assert sum(area.size for area in state.areas) == state.closed.bit_count()
    for cur, _start in state.movers:
        assert state.pioneers[state.current_player] >> cur & 1
    rules = state.rules
    # Without type reduction (A18 off) a zone covered down to 3 landscapes stays open ground.
    settled = rules.score_on_type_reduction
    if state.action == 0 and settled and state.phase == "play":
        for zone in zones(board, state.open_cells):  # §4.1 invariant: unscored zones are open ground
            assert landscape_count(board, rules, board.lands_of(zone)) >= 4


def reference_legal(state: State) -> set[Move]:
    """The legal actions by a direct reading of spec §3 (no bitsets, no lattice)."""
    board = state.board
    if state.phase == "over":
        return set()
    occupied = state.stones | state.closed
    for own in state.pioneers:
        occupied |= own
    empty = [i for i in range(board.num_cells) if not occupied >> i & 1]
    if state.phase == "placement":
        return {board.place_moves[i] for i in empty}
    own_cells = [i for i in range(board.num_cells) if state.pioneers[state.current_player] >> i & 1]
    if state.action == 0 and not any(set(board.neighbors[c]) & set(empty) for c in own_cells):
        return {PASS}
    rule = state.rules.return_rule
    legal: set[Move] = set()
    for c in own_cells:
        if state.pending_return >= 0 and c != state.pending_return:
            continue
        start = state.start_cell(c)
        for ray in board.rays[c]:
            for dst in ray:
                if occupied >> dst & 1:
                    break
                if dst == start != c:
                    if rule == "strict" or (rule == "end_of_turn" and state.action != 1):
                        continue
                    if rule == "three_moves_only" and (state.action, state.moves_made, len(state.movers)) == (2, 2, 1):
                        continue
                legal.add(board.slide(c, dst))
    if state.action and state.pending_return < 0 and state.supply > 0:
        for cur, _ in state.movers:
            legal |= {board.stone_moves[j] for j in board.neighbors[cur] if j in empty}
    return legal


def play(state: State, rng: random.Random, *, deep: bool) -> tuple[State, list[Move]]:
    """Plays a kind-first random game to the end, checking every step."""
    moves: list[Move] = []
    seen: list[Move] = []
    while not state.is_terminal():
        check_invariants(state)
        legal = list(state.legal_moves())
        assert legal
        assert len(set(legal)) == len(legal)
        assert set(legal) == reference_legal(state)
        assert set(state.legal_kinds()) == {m.kind for m in legal}
        if deep:
            for move in rng.sample(legal, min(4, len(legal))):
                assert state.is_legal(move)
                assert state.parse_move(state.move_to_str(move)) == move
                state.apply(move)
            illegal = [m for m in seen[-40:] if m not in legal]
            if illegal:
                move = rng.choice(illegal)
                before = state.to_json()
                assert not state.is_legal(move)
                try:
                    state.apply(move)
                except IllegalMoveError:
                    pass
                else:
                    raise AssertionError(f"illegal {move} accepted")
                assert state.to_json() == before
        snapshot = [getattr(state, name) for name in state.FIELDS]
        move = random_move(state, rng)
        following = state.apply(move)
        assert [getattr(state, name) for name in state.FIELDS] == snapshot, "apply mutated the old state"
        assert all(a <= b for a, b in zip(state.scores(), following.scores(), strict=True)), "a score decreased"
        assert following.ply == state.ply + 1
        moves.append(move)
        seen.append(move)
        state = following
    check_invariants(state)
    assert state.legal_moves() == [] and state.legal_kinds() == ()
    return state, moves


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), num_players=st.sampled_from([2, 3, 4]))
def test_random_games_keep_invariants(seed: int, num_players: int) -> None:
    initial = GAME.new_initial_state(GameConfig(num_players, seed=seed))
    final, moves = play(initial, random.Random(seed), deep=True)
    outcome = final.outcome()
    assert outcome is not None and outcome.scores == final.scores()
    players = [PlayerInfo(f"p{i}", "random") for i in range(num_players)]
    record = GameRecord.from_states(initial, moves, players)
    again = replay(GameRecord.loads(record.dumps()))
    assert again.outcome() == outcome
    assert again == final


@st.composite
def variants(draw: st.DrawFn) -> dict[str, OptionValue]:
    flags: dict[str, OptionValue] = {}
    for spec in OPTIONS:
        if draw(st.booleans()):
            if spec.choices is None:
                flags[spec.name] = draw(st.sampled_from([1, 3, 10]))
            else:
                flags[spec.name] = draw(st.sampled_from(spec.choices))
    return flags


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    num_players=st.sampled_from([2, 3, 4]),
    flags=variants(),
    holey_map=st.booleans(),
)
def test_every_variant_combination_ends(
    seed: int, num_players: int, flags: dict[str, OptionValue], holey_map: bool
) -> None:
    config = GameConfig(num_players, variants=flags, seed=seed, map=holey() if holey_map else None)
    final, moves = play(GAME.new_initial_state(config), random.Random(seed), deep=False)
    assert final.is_terminal()
    assert len(moves) < 5000


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 300))
def test_notation_round_trips_for_every_legal_action(seed: int, steps: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_initial_state(GameConfig(2, seed=seed))
    for _ in range(steps):
        if state.is_terminal():
            break
        state = state.apply(random_move(state, rng))
    for move in state.legal_moves():
        text = state.move_to_str(move)
        assert state.parse_move(text) == move
        assert GAME.parse_move(text) == move
        assert str(move) == text
        assert state.is_legal(move)


def reference_scoring(before: State, x: int) -> tuple[int, tuple[int, ...]]:
    """Spec §4.2-4.3 done the slow, obvious way: (cells closed, points gained per seat)."""
    board = before.board
    rules = before.rules
    open_cells = {i for i in range(board.num_cells) if not (before.stones | before.closed) >> i & 1}

    def component(start: int, allowed: set[int]) -> set[int]:
        seen, stack = {start}, [start]
        while stack:
            for j in board.neighbors[stack.pop()]:
                if j in allowed and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return seen

    rest = component(x, open_cells) - {x}
    parts = []
    while rest:
        part = component(next(iter(rest)), rest)
        parts.append(part)
        rest -= part
    if len(parts) == 1 and not rules.score_on_type_reduction:
        return 0, (0,) * before.num_players
    closed = 0
    gains = [0] * before.num_players
    for part in parts:
        lands = {board.land[i] for i in part}
        dry = {k for k in lands if not board.landscapes[k].water}
        t = len(lands) if rules.lake_is_landscape else (len(dry) or 1)
        if t > 3:
            continue
        value = len(part) * (4 - t)
        counts = [sum(1 for i in part if own >> i & 1) for own in before.pioneers]
        top = max(counts)
        if top:
            leaders = [p for p, c in enumerate(counts) if c == top]
            for p in leaders:
                gains[p] += value // len(leaders)
        for i in part:
            closed |= 1 << i
    return closed, tuple(gains)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    num_players=st.sampled_from([2, 3, 4]),
    reduce_types=st.booleans(),
    lake=st.booleans(),
    board=st.sampled_from(["isola", "holey", "d37"]),
)
def test_scoring_matches_a_reference(seed: int, num_players: int, reduce_types: bool, lake: bool, board: str) -> None:
    flags: dict[str, OptionValue] = {"score_on_type_reduction": reduce_types, "lake_is_landscape": lake}
    board_map = {"isola": None, "holey": holey(), "d37": d37()}[board]
    if board == "d37":
        num_players = 2  # 37 cells: room for 26 pioneers only
    rng = random.Random(seed)
    state = GAME.new_initial_state(GameConfig(num_players, variants=flags, seed=seed, map=board_map))
    while not state.is_terminal():
        move = random_move(state, rng)
        following = state.apply(move)
        if move.kind == "stone":
            closed, gains = reference_scoring(state, move.cell)  # type: ignore[union-attr]
            assert following.closed & ~state.closed == closed
            assert tuple(b - a for a, b in zip(state.points, following.points, strict=True)) == gains
        state = following
