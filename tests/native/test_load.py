"""Loading positions into the native engine (``NativeGame.load_state``, ``native_state_of``
and the Rust classes' ``load``, the inverse of their ``export``).

Random games are played on both engines at once; at positions along the way the Python
state is loaded into the native engine, and the loaded state must be the native state the
same moves reached: the same legal moves in the same order, kinds, seat to act, ply,
scores, outcome, exported fields and ``to_json``, and the moves that follow go on alike.
Every player count, presets, flag values and random flag mixes, Terra Nova on several
maps (both bitset sizes).  Then what is not a position: fields missing or of the wrong
type, pieces off the board or on one cell, counts that do not add up, a phase that does
not fit, another game's state.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.ai.agent import make_agent, random_move
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tabletop.grid.hex import disc
from tabletop.native import InvalidPositionError, NativeState, native_game, native_state_of
from tabletop.native.check import configs, random_variants
from tests.games.terranova.helpers import d37, holey, map_from_cells, parallelogram
from tests.native import midgame, needs_native

pytestmark = needs_native("terranova", "medina")

LARGE_MAP = map_from_cells("disc331", [(q, r, "FMAPSHRL"[(q * 5 + r * 3) % 8]) for q, r in disc(10)])
"""331 cells: the native engine's large boards (16-word bitsets)."""

TERRA_NOVA_MAPS: dict[str, Any] = {
    "d37": d37(),
    "holey": holey(),
    "parallelogram": parallelogram(8, 6, "FMAPSHRL", missing=[(3, 2), (4, 4)]),
    "disc331": LARGE_MAP,
}


def _cases() -> list[tuple[str, GameConfig, int]]:
    cases = []
    for game_id, count in (("terranova", 9), ("medina", 12)):
        for i, config in enumerate(configs(make(game_id, engine="python"), count, seed=500)):
            cases.append((game_id, config, 500 + i))
    python = make("terranova", engine="python")
    for i, island in enumerate(TERRA_NOVA_MAPS.values()):
        variants = random_variants(python, random.Random(i))
        cases.append(("terranova", GameConfig(num_players=2 + i % 3, variants=variants, map=island, seed=i), i))
    return cases


def lockstep(game_id: str, config: GameConfig, seed: int) -> Iterator[tuple[State, NativeState]]:
    """The positions of one random game, on the Python and on the native engine."""
    python_game = make(game_id, engine="python")
    native = native_game(python_game).new_initial_state(config)
    python = python_game.new_initial_state(native.config)
    rng = random.Random(seed)
    while True:
        yield python, native
        if python.is_terminal():
            return
        move = random_move(python, rng)
        python, native = python.apply(move), native.apply(move)


def assert_same(loaded: NativeState, played: NativeState, where: str) -> None:
    assert loaded.native.export() == played.native.export(), where
    assert loaded.legal_moves() == played.legal_moves(), where
    assert loaded.legal_kinds() == played.legal_kinds(), where
    for kind in played.legal_kinds():
        assert list(loaded.legal_moves_of_kind(kind)) == list(played.legal_moves_of_kind(kind)), where
    got = (loaded.current_player, loaded.ply, loaded.turn, loaded.scores(), loaded.returns(), loaded.outcome())
    assert got == (played.current_player, played.ply, played.turn, played.scores(), played.returns(), played.outcome())


@pytest.mark.parametrize(("game_id", "config", "seed"), _cases(), ids=lambda value: None)
def test_a_loaded_python_position_is_the_native_state_the_moves_reached(
    game_id: str, config: GameConfig, seed: int
) -> None:
    rng = random.Random(seed)
    loaded_positions = 0
    for step, (python, played) in enumerate(lockstep(game_id, config, seed)):
        if step % 7 != seed % 7 and not python.is_terminal():
            continue
        where = f"{game_id} {config} seed {seed} step {step}"
        loaded = native_state_of(python)
        assert loaded.python_state() is python
        assert loaded.to_json() == played.to_json(), where
        assert_same(loaded, played, where)
        # The export loads back as itself (the Rust classes' own round trip), through JSON too.
        exported = played.native.export()
        assert played.native.load(exported).export() == exported, where
        assert played.native.load(json.loads(json.dumps(exported))).export() == exported, where
        # The moves that follow go on alike, the Python side included.
        for _ in range(4):
            if played.is_terminal():
                break
            move = rng.choice(played.legal_moves())
            loaded, played = loaded.apply(move), played.apply(move)
            assert_same(loaded, played, f"{where} + {move}")
        assert loaded.to_json() == played.to_json(), where
        loaded_positions += 1
    assert loaded_positions >= 3


def test_a_native_state_is_its_own_native_state() -> None:
    state = make("medina", engine="native").new_initial_state(GameConfig(num_players=3, seed=1))
    assert native_state_of(state) is state


def _fields(game_id: str, players: int, wanted: Callable[[dict[str, Any]], bool]) -> tuple[Any, dict[str, Any]]:
    """The Rust state and exported fields of the first position of a random game where
    ``wanted(fields)`` holds."""
    for _, played in lockstep(game_id, GameConfig(num_players=players, seed=2), 2):
        fields = dict(played.native.export())
        if wanted(fields):
            return played.native, fields
    raise AssertionError("no such position in the game")


def _terra_nova_turn(fields: dict[str, Any]) -> bool:
    """The start of a turn in the play phase, with stones and a closed area on the board."""
    return fields["phase"] == "play" and fields["action"] == 0 and fields["stones"] and fields["closed"]


def _medina_with_a_dome(fields: dict[str, Any]) -> bool:
    """The play phase, with a domed palace of at least two pieces."""
    return fields["phase"] == "play" and any(p[4] >= 0 and p[1].bit_count() >= 2 for p in fields["palaces"])


TERRA_NOVA_BREAKS: list[tuple[str, Any, str]] = [
    ("pioneers", None, 'the field "pioneers" is missing'),
    ("supply", "many", 'the field "supply" is not of the expected type'),
    ("stones", -1, "negative or names a cell beyond the board"),
    ("stones", 1 << 4000, "negative or names a cell beyond the board"),
    ("closed", 1 << 200, "closed names a cell beyond the board"),
    ("phase", "setup", 'unknown phase "setup"'),
    ("current_player", 5, "current_player is 5"),
    ("supply", 79, "not the 80 stones"),
    ("in_hand", [1, 0, 0], "pioneers on the board, 1 in hand"),
    ("in_hand", [0, 0], "in_hand has 2 entries for 3 players"),
    ("movers", [(0, 1)], "movers after 0 moves"),
    ("movers", [[0, 1, 2]], "a mover is not a (cell, start cell) pair"),
    ("turn_stones", lambda f: ~f["stones"] & (f["stones"] + 1), "turn_stones names a cell without a stone"),
    ("termination", "stall", "a termination (stall) in the play phase"),
]


@pytest.mark.parametrize(("field", "value", "message"), TERRA_NOVA_BREAKS)
def test_a_terra_nova_position_that_breaks_an_invariant_is_refused(field: str, value: Any, message: str) -> None:
    native, fields = _fields("terranova", 3, _terra_nova_turn)
    if value is None:
        del fields[field]
    else:
        fields[field] = value(fields) if callable(value) else value
    with pytest.raises(ValueError, match="^invalid Terra Nova position: .*" + re.escape(message)):
        native.load(fields)


def test_terra_nova_pioneers_on_one_cell_are_refused() -> None:
    native, fields = _fields("terranova", 2, _terra_nova_turn)
    fields["pioneers"] = [fields["pioneers"][0], fields["pioneers"][0]]
    with pytest.raises(ValueError, match="a pioneer of seat 1 shares a cell"):
        native.load(fields)


MEDINA_BREAKS: list[tuple[str, Any, str]] = [
    ("num_players", 4, "a 4-player position in a 3-player game"),
    ("phase", "setup", "unknown phase"),
    ("merchants", 1, "merchants has a square where it cannot stand"),
    ("walls", 1 << 300, "negative or names a cell beyond the board"),
    ("runs", [0] * 7, "runs has 7 entries, not 8"),
    ("owned", [-1] * 12, "owned does not say so"),
    ("forbid", 0, "forbid or contested"),
    ("start_square", -1, "the starting merchant at -1 in the play phase"),
    ("palace_tiles", [2, 2, 2, 2], "is not with a largest domed palace of it"),
    ("current_player", -1, "current_player is -1"),
    ("placements_left", 0, "placements_left is 0"),
]


@pytest.mark.parametrize(("field", "value", "message"), MEDINA_BREAKS)
def test_a_medina_position_that_breaks_an_invariant_is_refused(field: str, value: Any, message: str) -> None:
    native, fields = _fields("medina", 3, _medina_with_a_dome)
    fields[field] = value
    with pytest.raises(ValueError, match="^invalid Medina position: .*" + re.escape(message)):
        native.load(fields)


def test_a_medina_palace_tile_with_a_seat_that_has_no_such_palace_is_refused() -> None:
    # Found by the spoiled-field test below: seat 0 given a palace tile of a colour no
    # seat owns, at the start, panicked on the next palace of that colour.
    native, fields = _fields("medina", 3, lambda fields: fields["palace_tiles"] == [-1, -1, -1, -1])
    fields["palace_tiles"] = [0, -1, -1, -1]
    with pytest.raises(ValueError, match=r"^invalid Medina position: the palace tile of colour 0 is not with a"):
        native.load(fields)


def test_medina_supplies_that_do_not_add_up_are_refused() -> None:
    native, fields = _fields("medina", 4, _medina_with_a_dome)
    supply = list(fields["supply"])
    supply[8 + 7] -= 1  # a wall of seat 1 gone
    fields["supply"] = supply
    with pytest.raises(ValueError, match=r"supply slot 7: .* not the 32 of a 4-player game"):
        native.load(fields)


def test_a_medina_palace_that_is_not_a_whole_group_is_refused() -> None:
    native, fields = _fields("medina", 3, _medina_with_a_dome)
    palaces = [list(p) for p in fields["palaces"]]
    big = next(p for p in palaces if p[1].bit_count() >= 2)
    big[1] &= big[1] - 1  # one piece less
    fields["palaces"] = palaces
    with pytest.raises(ValueError, match="is not a whole group of palace pieces"):
        native.load(fields)


def test_a_python_state_that_breaks_an_invariant_is_refused() -> None:
    state = midgame("terranova", 2, 40, engine="python", seed=2)
    broken = state.replace(supply=state.supply - 1)  # type: ignore[attr-defined]
    with pytest.raises(InvalidPositionError, match="not the 80 stones"):
        native_state_of(broken)
    broken = state.replace(points=(3, 0))  # type: ignore[attr-defined]
    with pytest.raises(InvalidPositionError, match=re.escape("points [3, 0] are not the scored areas' awards [0, 0]")):
        native_state_of(broken)
    medina = midgame("medina", 3, 30, engine="python", seed=2)
    broken = medina.replace(obligation=True, phase="over", current_player=-1)  # type: ignore[attr-defined]
    with pytest.raises(InvalidPositionError, match="invalid Medina position: placements_left"):
        native_state_of(broken)


def test_a_game_that_the_rules_have_ended_is_refused_as_a_turn() -> None:
    game = lockstep("terranova", GameConfig(num_players=2, seed=4), 4)
    python, played = next((p, n) for p, n in game if p.is_terminal())
    outcome = python.outcome()
    assert outcome is not None
    fields = dict(played.native.export())
    fields.update(phase="play", current_player=0)
    with pytest.raises(ValueError, match="a turn starts, but the game is over"):
        played.native.load(fields)
    wrong = "stall" if outcome.termination != "stall" else "board_divided"
    fields.update(phase="over", current_player=-1, termination=wrong)
    with pytest.raises(ValueError, match=f"the termination is {wrong}, but the rules end this game by"):
        played.native.load(fields)


@functools.cache
def _positions(game_id: str) -> list[tuple[Any, dict[str, Any]]]:
    """Some positions of two random games (players 2-4 or 3-4), as Rust states and fields."""
    out = []
    for players in (2, 4) if game_id == "terranova" else (3, 4):
        game = list(lockstep(game_id, GameConfig(num_players=players, seed=players), players))
        for _, played in game[:: max(1, len(game) // 12)] + game[-1:]:
            out.append((played.native, dict(played.native.export())))
    return out


def _mutations() -> st.SearchStrategy[Callable[[Any], Any]]:
    """Ways to spoil one field: another value, a bit flipped, an item changed, none at all."""
    values = st.one_of(
        st.integers(-3, 300), st.integers(2**70, 2**300), st.text(max_size=3), st.lists(st.integers(-1, 3), max_size=9)
    )
    flip = st.integers(0, 340).map(lambda bit: lambda v: v ^ (1 << bit) if isinstance(v, int) else v)
    nudge = st.tuples(st.integers(0, 40), st.sampled_from([-1, 1])).map(
        lambda c: (
            lambda v: (
                [x + c[1] if i == c[0] and isinstance(x, int) else x for i, x in enumerate(v)]
                if isinstance(v, list)
                else v
            )
        )
    )
    return st.one_of(values.map(lambda new: lambda _: new), flip, nudge, st.just(lambda _: _MISSING))


_MISSING = object()


@pytest.mark.parametrize("game_id", ["terranova", "medina"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_spoiled_field_is_refused_or_loads_a_playable_position(game_id: str, data: st.DataObject) -> None:
    native, fields = data.draw(st.sampled_from(_positions(game_id)))
    fields = dict(fields)
    name = data.draw(st.sampled_from(sorted(fields)))
    new = data.draw(_mutations())(fields[name])
    if new is _MISSING:
        del fields[name]
    else:
        fields[name] = new
    try:
        loaded = native.load(fields)
    except ValueError as exc:
        assert str(exc).startswith(("invalid Terra Nova position: ", "invalid Medina position: "))
        return
    # Not refused: a position the engine plays like any other (no panic, no wrong count).
    assert len(loaded.legal_actions()) > 0 or loaded.is_terminal()
    assert len(loaded.scores()) == loaded.num_players
    assert loaded.random_playouts(1, 1)[0] == 1


def test_another_games_position_is_refused() -> None:
    with pytest.raises(InvalidPositionError, match="a 'medina' position is not a 'terranova' one"):
        native_game(make("terranova", engine="python")).load_state(midgame("medina", 3, 5, engine="python", seed=2))


@pytest.mark.parametrize(
    ("game_id", "players", "plies"), [("terranova", 2, 40), ("terranova", 4, 60), ("medina", 3, 25)]
)
def test_the_native_bot_plays_mid_game_on_the_python_engine(
    monkeypatch: pytest.MonkeyPatch, game_id: str, players: int, plies: int
) -> None:
    monkeypatch.setenv("TABLETOP_ENGINE", "python")
    agent = make_agent("native:1", seed=1)
    state = make(game_id).new_initial_state(GameConfig(num_players=players, seed=3))
    assert not isinstance(state, NativeState)
    rng = random.Random(3)
    for _ in range(plies):
        state = state.apply(random_move(state, rng))
    for _ in range(3):
        if state.is_terminal():
            break
        move = agent.choose_move(state)
        assert state.is_legal(move) and move in state.legal_moves()
        state = state.apply(move)
