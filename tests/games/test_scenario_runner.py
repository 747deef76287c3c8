"""The shared scenario runner (``tests/scenarios.py``): what a failing step reports."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scenarios import SHARED_STEPS, ScenarioFailure, ScenarioRunner

from .medina.test_medina_scenarios import RUNNERS as MEDINA_RUNNERS
from .terranova.test_scenarios import RUNNER as TERRANOVA

MEDINA = MEDINA_RUNNERS["python"]

D37_ONE = {"board": "D3-7", "pieces": {"Y": [(0, 0)], "R": [(3, -3)]}}


def _fails(runner: ScenarioRunner, steps: list[tuple[Any, ...]], **position: Any) -> str:
    scenario = {"id": "X1", "title": "a failing scenario", **position, "steps": steps}
    with pytest.raises(ScenarioFailure) as info:
        runner.run(scenario)
    return str(info.value)


def test_a_failing_check_names_scenario_step_and_difference() -> None:
    message = _fails(TERRANOVA, [("play", "d4-f4"), ("scores", [1, 0])], **D37_ONE)
    assert message.startswith("scenario X1, step 1 ('scores', [1, 0]): ")
    assert "expected [1, 0], got [0, 0]" in message


def test_a_failing_game_step_names_scenario_step_and_difference() -> None:
    message = _fails(MEDINA, [("play", "dome@E5"), ("tiles", {"gray": 2})], layout=["gray:E5"])
    assert message.startswith("scenario X1, step 1 ('tiles', {'gray': 2}): tile holders: ")
    assert "expected {'gray': 2}, got {'gray': 0}" in message


def test_an_illegal_play_quotes_the_reason() -> None:
    message = _fails(TERRANOVA, [("play", "d4-e5")], **D37_ONE)
    assert message.startswith("scenario X1, step 0 ('play', 'd4-e5'): d4-e5 should be legal: ")
    assert "straight line" in message


def test_a_wrong_legality_and_reason_are_reported() -> None:
    assert "is_legal(gray@E6): expected False, got True" in _fails(
        MEDINA, [("legal", "gray@E6", False)], layout=["gray:E5"]
    )
    assert "does not mention 'gate rule'" in _fails(MEDINA, [("illegal", "gray@H8", "gate rule")], layout=["gray:E5"])
    d4 = ["d4-a4", "d4-a7", "d4-b4", "d4-b6", "d4-c4", "d4-c5", "d4-d1", "d4-d2", "d4-d3", "d4-d5", "d4-d6"]
    d4 += ["d4-d7", "d4-e3", "d4-e4", "d4-f2", "d4-f4", "d4-g4"]
    TERRANOVA.run({"id": "X0", "title": "all 17 slides", **D37_ONE, "steps": [("moves", "d4-", d4)]})
    wrong = [*d4[:-1], "d4-e5"]
    message = _fails(TERRANOVA, [("count", "d4-", 17), ("moves", "d4-", wrong)], **D37_ONE)
    assert message.startswith("scenario X1, step 1 ('moves', 'd4-', [")
    assert message.endswith("legal moves 'd4-'...: missing ['d4-e5'], unexpected ['d4-g4']")


def test_errors_from_the_game_are_reported_too() -> None:
    message = _fails(TERRANOVA, [("play", "z9-a1")], **D37_ONE)
    assert message.startswith("scenario X1, step 0 ('play', 'z9-a1'): InvalidMoveError: ")


def test_unknown_words_and_bad_scenarios_are_rejected() -> None:
    assert "unknown step word 'mvoe'" in _fails(TERRANOVA, [("mvoe", "d4-f4")], **D37_ONE)
    assert "unknown step word 'closed'" in _fails(MEDINA, [("closed", 0)])
    with pytest.raises(ScenarioFailure, match="no title"):
        TERRANOVA.run({"id": "X2", "steps": []})
    with pytest.raises(ValueError, match="shadow shared steps"):
        ScenarioRunner("medina", {"play": SHARED_STEPS["play"]})
    with pytest.raises(ValueError, match="used twice"):
        MEDINA.params([{"id": "X3"}, {"id": "X3"}])
