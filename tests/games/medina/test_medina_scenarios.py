"""Medina's spec §8 conformance scenarios and §7 worked scoring example: the data in
``scenarios.py``, run by the shared scenario runner (``tests/scenarios.py``) with
Medina's own step words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tabletop.games.medina import State
from tabletop.games.medina.board import parse_square
from tabletop.games.medina.moves import NUM_SLOTS, PALACE_COLORS, SLOT_NAMES
from tabletop.games.medina.scoring import palace_score, score_sheet
from tests.builders import medina_with_turn
from tests.scenarios import ScenarioRunner, StepFunction, expect

from .scenarios import SCENARIOS

TOWERS = ("A1", "R1", "A13", "R13")
"""The tower squares, in ``State.tower_tiles`` order."""


def _square(name: str) -> int:
    sq = parse_square(name)
    assert sq is not None, f"bad square {name!r}"
    return sq


def _palace_at(state: State, name: str) -> int:
    sq = _square(name)
    found = [i for i, p in enumerate(state.palaces) if p.pieces >> sq & 1]
    assert found, f"no palace on {name}"
    return found[0]


def _holder(seat: int) -> int | None:
    return None if seat < 0 else seat


def turn_to(state: State, seat: int) -> State:
    return medina_with_turn(state, seat)


def tiles(state: State, holders: Mapping[str, int | None]) -> None:
    got = {}
    for name in holders:
        if name in PALACE_COLORS:
            got[name] = _holder(state.palace_tiles[PALACE_COLORS.index(name)])
        else:
            got[name] = _holder(state.tower_tiles[TOWERS.index(name)])
    expect(got, dict(holders), "tile holders")


def palace(state: State, square: str, breakdown: Sequence[int]) -> None:
    ps = palace_score(state, _palace_at(state, square))
    got = (ps.pieces, ps.stables, ps.merchants, ps.walls)
    expect(got, tuple(breakdown), f"palace {square} (pieces, stables, merchants, walls)")


def sheet(state: State, totals: Mapping[str, int]) -> None:
    s = score_sheet(state)
    expect({PALACE_COLORS[p.color]: p.total for p in s.palaces}, dict(totals), "score sheet palaces")
    expect(s.totals(), state.scores(), "score sheet totals")


def palace_status(state: State, square: str, status: str) -> None:
    pid = _palace_at(state, square)
    p = state.palaces[pid]
    got = "owned" if p.owner >= 0 else "abandoned" if p.abandoned else "unfinished"
    expect(got, status, f"palace {square}")
    if status == "unfinished":
        expect(state.unfinished[p.color], pid, f"the unfinished {PALACE_COLORS[p.color]} palace")


def unfinished(state: State, colour: str, square: str | None) -> None:
    pid = state.unfinished[PALACE_COLORS.index(colour)]
    expected = -1 if square is None else _palace_at(state, square)
    expect(pid, expected, f"the unfinished {colour} palace (palace id)")


def supply(state: State, slot: str, counts: Sequence[int]) -> None:
    i = SLOT_NAMES.index(slot)
    got = [state.supply[seat * NUM_SLOTS + i] for seat in range(state.num_players)]
    expect(got, list(counts), f"{slot} supply per seat")


def retired(state: State, colour: str, n: int) -> None:
    expect(state.retired[PALACE_COLORS.index(colour)], n, f"retired {colour} pieces")


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
}
"""Medina's own step words (``scenarios.py`` describes them)."""

RUNNER = ScenarioRunner("medina", STEPS)


@pytest.mark.parametrize("scenario", RUNNER.params(SCENARIOS))
def test_scenario(scenario: dict[str, Any]) -> None:
    RUNNER.run(scenario)
