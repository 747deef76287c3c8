"""Spec §7 scenarios T01-T25 (plus variant cases), driven by the table in ``scenarios.py``."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig
from tabletop.games.terranova import GAME, PASS, Slide, State
from tabletop.games.terranova.moves import Move
from tabletop.games.terranova.scoring import zones
from tests.builders import terranova_position

from .helpers import d37, disc168, parallelogram
from .scenarios import SCENARIOS

SEATS = {"Y": 0, "R": 1, "B": 2, "G": 3}


def _board_map(spec: Any) -> dict[str, Any]:
    if spec == "D3-7":
        return d37()
    if spec == "disc168":
        return disc168()
    _, width, height, columns, missing = spec
    return parallelogram(width, height, columns, missing)


def _initial(scenario: dict[str, Any]) -> State:
    if "setup" in scenario:
        setup = scenario["setup"]
        config = GameConfig(
            setup["num_players"], map=_board_map(setup["board"]), start_player=setup.get("start_player", 0)
        )
        return GAME.new_initial_state(config)
    return terranova_position(
        _board_map(scenario["board"]),
        {SEATS[k]: v for k, v in scenario["pieces"].items()},
        stones=scenario.get("stones", ()),
        num_players=scenario.get("players", 2),
        to_move=SEATS[scenario.get("to_move", "Y")],
        supply=scenario.get("supply"),
        variants=scenario.get("variants"),
        ruleset=scenario.get("ruleset", "default"),
    )


def _slide(state: State, a: tuple[int, int], b: tuple[int, int]) -> Slide:
    board = state.board
    src, dst = board.index[a], board.index[b]
    return board.slide(src, dst) or Slide(src, dst)


def _expect_illegal(state: State, move: Move, why: str) -> None:
    before = state.to_json()
    assert not state.is_legal(move), f"{move} should be illegal"
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    assert why in str(info.value), f"{str(info.value)!r} does not mention {why!r}"
    assert state.to_json() == before


def _destinations(state: State, a: tuple[int, int]) -> set[tuple[int, int]]:
    board = state.board
    src = board.index[a]
    moves = [m for m in state.legal_moves() if isinstance(m, Slide) and m.src == src]
    return {board.coords[m.dst] for m in moves}


def _step(state: State, step: tuple[Any, ...]) -> State:
    board = state.board
    kind, *args = step
    if kind == "move":
        move = _slide(state, args[0], args[1])
        assert state.is_legal(move), f"{move} should be legal"
        return state.apply(move)
    if kind == "stone":
        return state.apply(board.stone_moves[board.index[args[0]]])
    if kind == "place":
        return state.apply(board.place_moves[board.index[args[0]]])
    if kind == "pass":
        return state.apply(PASS)
    if kind == "illegal_move":
        _expect_illegal(state, _slide(state, args[0], args[1]), args[2])
    elif kind == "illegal_stone":
        _expect_illegal(state, board.stone_moves[board.index[args[0]]], args[1])
    elif kind == "illegal_place":
        _expect_illegal(state, board.place_moves[board.index[args[0]]], args[1])
    elif kind == "illegal_pass":
        _expect_illegal(state, PASS, args[0])
    elif kind == "legal_move":
        assert state.is_legal(_slide(state, args[0], args[1]))
    elif kind == "legal_stone":
        assert state.is_legal(board.stone_moves[board.index[args[0]]])
    elif kind == "destinations":
        assert _destinations(state, args[0]) == set(args[1])
    elif kind == "count_moves_from":
        src = board.index[args[0]]
        assert len([m for m in state.legal_moves() if isinstance(m, Slide) and m.src == src]) == args[1]
    elif kind == "stones":
        legal = {board.coords[m.cell] for m in state.legal_moves_of_kind("stone")}  # type: ignore[attr-defined]
        assert legal == set(args[0])
    elif kind == "kinds":
        assert list(state.legal_kinds()) == args[0]
    elif kind == "to_move":
        assert state.current_player == args[0]
        if args[1] is not None:
            assert state.action + 1 == args[1]
    elif kind == "scores":
        assert list(state.scores()) == args[0]
    elif kind == "supply":
        assert state.supply == args[0]
    elif kind == "closed":
        assert state.closed.bit_count() == args[0]
    elif kind == "on_board":
        assert state.pioneers[args[0]].bit_count() == args[1]
    elif kind == "removed":
        assert state.removed[args[0]] == args[1]
    elif kind == "area":
        area = state.areas[args[0]]
        assert (area.size, "".join(area.landscapes), area.value, list(area.awards)) == tuple(args[1:])
    elif kind == "zones":
        sizes = sorted((z.bit_count() for z in zones(board, state.open_cells)), reverse=True)
        assert sizes == args[0]
    elif kind == "over":
        outcome = state.outcome()
        assert outcome is not None, "the game should be over"
        assert (outcome.termination, list(outcome.winners)) == (args[0], args[1])
        assert state.legal_moves() == []
    elif kind == "not_over":
        assert not state.is_terminal()
    elif kind == "ply":
        assert state.ply == args[0]
    elif kind == "phase":
        assert state.phase == args[0]
    elif kind == "counts":
        assert state.in_hand == (args[0],) * state.num_players
        assert list(state.context.seat_colors) == args[1]
    elif kind == "place_all":
        n = state.num_players
        while state.phase == "placement":
            expected = (state.start_player + state.ply) % n
            assert state.current_player == expected
            assert state.legal_kinds() == ("place",)
            state = state.apply(state.legal_moves()[0])
            assert not state.areas
    elif kind == "mmm_turns":
        for _ in range(args[0]):
            turn = state.turn
            for _action in range(3):
                assert state.turn == turn
                state = state.apply(state.legal_moves_of_kind("move")[0])
                if state.is_terminal():
                    break
            assert state.turn == turn + 1 or state.is_terminal()
            if state.is_terminal():
                break
    else:  # pragma: no cover - a typo in the table
        raise AssertionError(f"unknown step {kind!r}")
    return state


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario(scenario: dict[str, Any]) -> None:
    state = _initial(scenario)
    for i, step in enumerate(scenario["steps"]):
        try:
            state = _step(state, step)
        except AssertionError as exc:
            raise AssertionError(f"{scenario['id']} step {i} {step}: {exc}") from exc
