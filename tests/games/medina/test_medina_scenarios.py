"""Medina's spec §8 conformance scenarios and §7 worked scoring example, and the second
edition's §9 scenarios: the data in ``scenarios.py`` and ``scenarios_2e.py``, run by the
shared scenario runner (``tests/scenarios.py``) with Medina's own step words, on both
engines: the native one checked after every step to hold the fields and legal moves of
its Python state (:func:`native_agrees`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tabletop.core.errors import InvalidMoveError
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.games.medina import State
from tabletop.games.medina.board import NEUTRAL, SQUARE_NAMES, parse_square, squares_of
from tabletop.games.medina.moves import NUM_SLOTS, PALACE_COLORS, PALACE_COLORS_2E, SLOT_NAMES, color_names
from tabletop.games.medina.scoring import palace_score, score_breakdown
from tests.builders import medina_with_turn
from tests.native import needs_native
from tests.scenarios import ScenarioRunner, StepFunction, expect, fields

from .scenarios import SCENARIOS
from .scenarios_2e import SCENARIOS_2E

TOWERS = ("A1", "R1", "A13", "R13")
"""The tower squares, in ``State.tower_tiles`` order."""
TOWERS_2P = ("A1", "P1", "A12", "P12")
"""The same towers on the second edition's 2-player board."""


def _tower(name: str) -> int:
    return TOWERS.index(name) if name in TOWERS else TOWERS_2P.index(name)


def _color(name: str) -> int:
    return PALACE_COLORS.index(name) if name in PALACE_COLORS else PALACE_COLORS_2E.index(name)


def _square(name: str) -> int:
    sq = parse_square(name)
    assert sq is not None, f"bad square {name!r}"
    return sq


def _palace_at(state: State, name: str) -> int:
    sq = _square(name)
    found = [i for i, p in enumerate(state.palaces) if p.pieces >> sq & 1]
    assert found, f"no palace on {name}"
    return found[0]


def _holder(seat: int) -> int | str | None:
    return "N" if seat == NEUTRAL else None if seat < 0 else seat


def turn_to(state: State, seat: int) -> State:
    return medina_with_turn(state, seat)


def tiles(state: State, holders: Mapping[str, int | str | None]) -> None:
    got = {}
    for name in holders:
        if name in PALACE_COLORS or name in PALACE_COLORS_2E:
            got[name] = _holder(state.palace_tiles[_color(name)])
        else:
            got[name] = _holder(state.tower_tiles[_tower(name)])
    expect(got, dict(holders), "tile holders")


def palace(state: State, square: str, breakdown: Sequence[int]) -> None:
    ps = palace_score(state, _palace_at(state, square))
    got = (ps.pieces, ps.stables, ps.merchants, ps.walls, ps.well)[: len(breakdown)]
    expect(got, tuple(breakdown), f"palace {square} (pieces, stables, merchants, walls[, well])")


def sheet(state: State, totals: Mapping[str, int]) -> None:
    s = score_breakdown(state)
    names = color_names(state.rules.edition)
    expect({names[p.color]: p.total for p in s.palaces}, dict(totals), "score sheet palaces")
    expect(s.totals(), state.scores(), "score sheet totals")


def palace_status(state: State, square: str, status: str) -> None:
    pid = _palace_at(state, square)
    p = state.palaces[pid]
    got = "owned" if p.owner != -1 else "abandoned" if p.abandoned else "unfinished"
    expect(got, status, f"palace {square}")
    if status == "unfinished":
        expect(state.unfinished[p.color], pid, f"the unfinished {PALACE_COLORS[p.color]} palace")


def unfinished(state: State, colour: str, square: str | None) -> None:
    pid = state.unfinished[_color(colour)]
    expected = -1 if square is None else _palace_at(state, square)
    expect(pid, expected, f"the unfinished {colour} palace (palace id)")


def supply(state: State, slot: str, counts: Sequence[int]) -> None:
    if slot in ("neutral", "tea"):
        got = list(getattr(state, slot))
    else:
        i = _color(slot) if slot in PALACE_COLORS_2E else SLOT_NAMES.index(slot)
        got = [state.supply[seat * NUM_SLOTS + i] for seat in range(state.num_players)]
    expect(got, list(counts), f"{slot} supply per seat")
    expect([s[slot] for s in state.to_json()["supplies"]], list(counts), f"{slot} supply per seat in to_json()")


def retired(state: State, colour: str, n: int) -> None:
    expect(state.retired[_color(colour)], n, f"retired {colour} pieces")


def tea_pool(state: State, n: int) -> None:
    expect(state.tea_pool, n, "tea pool")
    expect(state.tea_pool + sum(state.tea) <= 6, True, "tea pool + held <= 6")


def tower_merchants(state: State, counts: Mapping[str, int]) -> None:
    got = {name: state.tower_merchants[_tower(name)] for name in counts}
    expect(got, dict(counts), "merchants on the tower tiles")


def well(state: State, square: str | None, red: Sequence[str], yellow: Sequence[str]) -> None:
    view = state.to_json()["well"]
    expect(
        view,
        None
        if square is None
        else {"square": square, "red": sorted(red, key=_square), "yellow": sorted(yellow, key=_square)},
        "the well",
    )


def no_square(state: State, square: str) -> None:
    with pytest.raises(InvalidMoveError, match=square):
        state.parse_move(f"merchant@{square}")


def board(state: State, regions: Mapping[str, Any]) -> None:
    """``{"building": n, "inner": n, "wall_spaces": n, "towers": {square: value}}`` and
    squares of each region (``"building_squares"``, ``"inner_squares"``, ``"wall_squares"``)."""
    geo = state.geo
    view = state.to_json()["board"]
    expect(
        (geo.building.bit_count(), geo.inner.bit_count(), geo.wall_spaces.bit_count()),
        (regions["building"], regions["inner"], regions["wall_spaces"]),
        "building, inner and wall-space counts",
    )
    expect({t["square"]: t["value"] for t in view["towers"]}, dict(regions["towers"]), "tower values")
    for name in regions.get("building_squares", ()):
        assert name in view["building_squares"], f"{name} should be a building square"
    inner = {SQUARE_NAMES[sq] for sq in squares_of(geo.inner)}
    for name in regions.get("inner_squares", ()):
        assert name in inner, f"{name} should be an inner square"
    for name in regions.get("border_squares", ()):
        assert name in view["building_squares"] and name not in inner, f"{name} should be a border square"
    for name in regions.get("wall_squares", ()):
        assert name in view["wall_spaces"], f"{name} should be a wall space"


def random_setups(state: State, seeds: int) -> None:
    """2e §9.3: for each seed and player count, the well and the starting merchant on inner
    squares (the merchant not on the well), the only merchant and the active chain; ply 0;
    the start player to play one placement; no ``start@`` move."""
    game = make("medina")
    for n in (2, 3, 4):
        for seed in range(seeds):
            s = game.new_initial_state(GameConfig(num_players=n, ruleset="second_edition", seed=seed))
            assert isinstance(s, State)
            where = f"{n} players, seed {seed}"
            inner = s.geo.inner
            assert s.well >= 0 and inner >> s.well & 1, f"{where}: the well on an inner square"
            assert s.start_square != s.well and inner >> s.start_square & 1, f"{where}: merchant on inner, not well"
            assert s.merchants == s.chain == 1 << s.start_square, f"{where}: the only merchant, the active chain"
            assert (s.ply, s.current_player, s.placements_left) == (0, 0, 1), f"{where}: turn 1, one placement"
            assert not any(str(m).startswith("start@") for m in s.legal_moves()), f"{where}: a start@ move"


def obligation(state: State, flag: bool) -> None:
    expect(state.obligation, flag, "dome obligation")


def placements_left(state: State, n: int) -> None:
    expect(state.placements_left, n, "placements left")


def chain(state: State, squares: Sequence[str]) -> None:
    expect(state.to_json()["merchant_chain"]["squares"], list(squares), "active merchant chain")


STEPS: dict[str, StepFunction] = {
    "turn_to": turn_to,
    "tiles": tiles,
    "palace": palace,
    "sheet": sheet,
    "palace_status": palace_status,
    "unfinished": unfinished,
    "supply": supply,
    "retired": retired,
    "obligation": obligation,
    "placements_left": placements_left,
    "chain": chain,
    "tea_pool": tea_pool,
    "tower_merchants": tower_merchants,
    "well": well,
    "no_square": no_square,
    "board": board,
    "random_setups": random_setups,
}
"""Medina's own step words (``scenarios.py`` describes them)."""


def _plain(value: object) -> object:
    """Tuples (and named tuples) as lists, for comparing Python fields with ``export()``."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def native_agrees(state: Any) -> None:
    """The native position's own fields (``export()``) and legal actions are its Python
    state's: the step words, which read the Python state, then speak for the native one."""
    python = state.python_state()
    native = state.native
    for name, value in native.export().items():
        expect(_plain(value), _plain(getattr(python, name)), f"the native field {name}")
    encode = state.game.encoding(python.config).encode
    expect(native.legal_actions(), [encode(m) for m in python.legal_moves()], "the native legal actions")


def native_position(state: Any) -> Any:
    """The native state of a scenario's hand-made Python position (``MedinaState.load_position``:
    ``load``'s checks without the accounting of a game played from the start)."""
    initial: Any = make("medina", engine="native").new_initial_state(state.config)
    return type(initial)(initial.context, initial.native.load_position(state), state)


def _on_fields(function: StepFunction) -> StepFunction:
    """``function`` reading a native state's Python state (:func:`tests.scenarios.fields`)."""
    return lambda state, *args: function(fields(state), *args)


RUNNERS = {
    "python": ScenarioRunner("medina", STEPS),
    "native": ScenarioRunner(
        "medina",
        {word: _on_fields(function) for word, function in STEPS.items()},
        engine="native",
        agree=native_agrees,
        load=native_position,
    ),
}
"""One runner per engine."""

ENGINES = ["python", pytest.param("native", marks=needs_native("medina"))]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("scenario", RUNNERS["python"].params(SCENARIOS))
def test_scenario(scenario: dict[str, Any], engine: str) -> None:
    RUNNERS[engine].run(scenario)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("scenario", RUNNERS["python"].params(SCENARIOS_2E))
def test_second_edition_scenario(scenario: dict[str, Any], engine: str) -> None:
    RUNNERS[engine].run(scenario)
