"""Spec §7 scenarios T01-T25 (plus variant cases): the data in ``scenarios.py``, run by
the shared scenario runner (``tests/scenarios.py``) with Terra Nova's own step words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.core.protocol import State as ProtocolState
from tabletop.games.terranova import GAME, State
from tabletop.games.terranova.scoring import zones
from tests.builders import position
from tests.scenarios import ScenarioRunner, StepFunction, expect

from .helpers import d37, disc168, parallelogram
from .scenarios import SCENARIOS


def _board_map(spec: Any) -> dict[str, Any]:
    if spec == "D3-7":
        return d37()
    if spec == "disc168":
        return disc168()
    _, width, height, columns, missing = spec
    return parallelogram(width, height, columns, missing)


def start(scenario: Mapping[str, Any]) -> ProtocolState:
    """A new game (``setup``) or the scenario's position on its test map (``board``)."""
    if "setup" in scenario:
        setup = dict(scenario["setup"])
        setup["map"] = _board_map(setup.pop("board"))
        return GAME.new_initial_state(GameConfig(**setup))
    return position("terranova", scenario, _board_map(scenario["board"]))


def action(state: State, n: int) -> None:
    expect(state.action + 1, n, "action number")


def supply(state: State, n: int) -> None:
    expect(state.supply, n, "stone supply")


def closed(state: State, n: int) -> None:
    expect(state.closed.bit_count(), n, "closed cells")


def on_board(state: State, seat: int, n: int) -> None:
    expect(state.pioneers[seat].bit_count(), n, f"pioneers of seat {seat} on the board")


def removed(state: State, seat: int, n: int) -> None:
    expect(state.removed[seat], n, f"pioneers of seat {seat} removed")


def area(state: State, k: int, size: int, lands: str, value: int, awards: Sequence[int]) -> None:
    assert k < len(state.areas), f"only {len(state.areas)} areas scored"
    got = state.areas[k]
    expect(
        (got.size, "".join(got.landscapes), got.value, list(got.awards)),
        (size, lands, value, list(awards)),
        f"area {k} (size, landscapes, value, awards)",
    )


def zone_sizes(state: State, sizes: Sequence[int]) -> None:
    got = sorted((z.bit_count() for z in zones(state.board, state.open_cells)), reverse=True)
    expect(got, list(sizes), "open zone sizes")


def counts(state: State, in_hand: int, colours: Sequence[str]) -> None:
    expect(state.in_hand, (in_hand,) * state.num_players, "pioneers in hand")
    expect(list(state.context.seat_colors), list(colours), "seat colours")


def place_all(state: State) -> State:
    """Finishes the placement phase on the first empty cells, checking the seat order."""
    n = state.num_players
    while state.phase == "placement":
        expect(state.current_player, (state.start_player + state.ply) % n, f"seat placing at ply {state.ply}")
        expect(state.legal_kinds(), ("place",), "legal kinds during placement")
        state = state.apply(state.legal_moves()[0])
        expect(len(state.areas), 0, "areas scored during placement")
    return state


def mmm_turns(state: State, turns: int) -> State:
    """Plays ``turns`` turns of three moves each (the first legal slide)."""
    for _ in range(turns):
        turn = state.turn
        for _action in range(3):
            expect(state.turn, turn, "turn number within the turn")
            state = state.apply(state.legal_moves_of_kind("move")[0])
            if state.is_terminal():
                return state
        expect(state.turn, turn + 1, "turn number after three moves")
    return state


STEPS: dict[str, StepFunction] = {
    "action": action,
    "supply": supply,
    "closed": closed,
    "on_board": on_board,
    "removed": removed,
    "area": area,
    "zones": zone_sizes,
    "counts": counts,
    "place_all": place_all,
    "mmm_turns": mmm_turns,
}
"""Terra Nova's own step words (``scenarios.py`` describes them)."""

RUNNER = ScenarioRunner("terranova", STEPS, start)


@pytest.mark.parametrize("scenario", RUNNER.params(SCENARIOS))
def test_scenario(scenario: dict[str, Any]) -> None:
    RUNNER.run(scenario)
