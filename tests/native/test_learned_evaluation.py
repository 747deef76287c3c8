"""The learned evaluation in the native search (issue #40, Terra Nova): the engine's
features against the hand-written evaluation they come from, the weights that remake
it, a file's round trip and its hostile forms, the fit, and the ``learned`` bot."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tabletop.ai.agent import make_agent
from tabletop.core.errors import ConfigError
from tabletop.native.learned import (
    LearnedEvaluation,
    find_evaluation,
    fit_weights,
    load_evaluation,
    position_rows,
    save_evaluation,
    search_weights,
)
from tabletop.native.mcts import level_config, search_options, to_native
from tests.native import midgame, needs_native

pytestmark = needs_native("terranova")

CELL_VALUE = 0.5  # the hand-written evaluation's weight on its territory term


def hand_written(names: list[str]) -> LearnedEvaluation:
    """The learned form of the hand-written evaluation: its one term, nothing else."""
    weights = tuple(CELL_VALUE if name == "going_territory" else 0.0 for name in names)
    return LearnedEvaluation("terranova", 2, "default", tuple(names), weights, {"by": "test"})


@pytest.mark.parametrize("plies", [10, 40, 120])
def test_the_features_remake_the_hand_written_evaluation(plies: int) -> None:
    native = to_native(midgame("terranova", 2, plies, seed=plies))
    names, rows = position_rows(native)
    assert len(rows) == 2 and all(len(row) == len(names) for row in rows)
    points = native.native.export()["points"]
    estimate = native.native.evaluate()
    for seat in range(2):
        by_features = points[seat] + CELL_VALUE * rows[seat][names.index("going_territory")]
        assert math.isclose(estimate[seat], by_features, rel_tol=1e-9, abs_tol=1e-9)


def test_the_hand_written_weights_search_as_the_hand_written_evaluation() -> None:
    native = to_native(midgame("terranova", 2, 40, seed=2))
    names, _ = position_rows(native)
    options = search_options(level_config("1,sims=400", "terranova")[0], "terranova", 7)
    plain = native.native.search(**options)
    weights = search_weights(hand_written(names), native)
    assert weights is not None
    learned = native.native.search(evaluation=weights, **options)
    # The same tree: the estimates agree to rounding, and the seeded search with them.
    assert learned["action"] == plain["action"]
    assert [c[:2] for c in learned["children"]] == [c[:2] for c in plain["children"]]
    # Other weights value the leaves otherwise.
    pioneers_only = [10.0 if name == "going_pioneers" else 0.0 for name in names]
    other = native.native.search(evaluation=pioneers_only, **options)
    assert [c[2] for c in other["children"]] != [c[2] for c in plain["children"]]
    for bad in ([1.0, 2.0], [math.nan] * len(names), [math.inf] * len(names)):
        with pytest.raises(ValueError):
            native.native.search(evaluation=bad, **options)
    medina = to_native(midgame("medina", 3, 10))
    with pytest.raises(ValueError, match="no learned evaluation"):
        medina.native.search(evaluation=[1.0], simulations=10, seed=1)
    with pytest.raises(ValueError, match="no learned evaluation"):
        medina.native.evaluation_features()


def test_an_evaluation_for_another_setting_is_not_used_and_another_engine_s_is_refused() -> None:
    native = to_native(midgame("terranova", 2, 20))
    names, _ = position_rows(native)
    evaluation = hand_written(names)
    for other in (
        LearnedEvaluation("terranova", 3, "default", evaluation.features, evaluation.weights),
        LearnedEvaluation("terranova", 2, "english", evaluation.features, evaluation.weights),
    ):
        assert search_weights(other, native) is None
    renamed = LearnedEvaluation("terranova", 2, "default", ("x",) * len(names), evaluation.weights)
    with pytest.raises(ConfigError, match="not the engine's"):
        search_weights(renamed, native)


def test_a_file_round_trips_and_hostile_ones_are_refused(tmp_path: Path) -> None:
    names, _ = position_rows(to_native(midgame("terranova", 2, 20)))
    evaluation = hand_written(names)
    path = tmp_path / "tn.evaluation.json"
    save_evaluation(evaluation, path)
    assert load_evaluation(path) == evaluation
    good = evaluation.to_json()
    bad_files = {
        "not-json": "{",
        "nan": json.dumps(good).replace("0.5", "NaN"),
        "short": json.dumps({**good, "weights": good["weights"][:-1]}),
        "strings": json.dumps({**good, "weights": ["1"] * len(names)}),
        "format": json.dumps({**good, "format": "other"}),
        "no-game": json.dumps({k: v for k, v in good.items() if k != "game"}),
        "list": "[1, 2]",
        "huge": json.dumps({**good, "made_by": {"pad": "x" * 70_000}}),
    }
    for name, text in bad_files.items():
        bad = tmp_path / f"{name}.evaluation.json"
        bad.write_text(text)
        with pytest.raises(ConfigError):
            load_evaluation(bad)


def test_the_fit_finds_weights_that_make_the_leads() -> None:
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(1)
    features = rng.normal(size=(400, 5))
    truth = np.array([0.5, -1.0, 0.0, 2.0, 0.25])
    leads = features @ truth + rng.normal(scale=0.01, size=400)
    assert np.allclose(fit_weights(features, leads, l2=1e-6), truth, atol=0.01)
    # The ridge pulls towards zero.
    assert np.linalg.norm(fit_weights(features, leads, l2=1e5)) < 0.1
    with pytest.raises(ValueError):
        fit_weights(features, leads[:-1])


def test_the_learned_bot_plays_its_file_and_refuses_bad_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    state = midgame("terranova", 2, 40, seed=4)
    names, _ = position_rows(to_native(state))
    save_evaluation(hand_written(names), tmp_path / "tn.evaluation.json")
    assert find_evaluation("tn") == tmp_path / "tn.evaluation.json"
    learned = make_agent("learned:tn,1,sims=300", seed=3)
    plain = make_agent("native:1,sims=300", seed=3)
    assert learned.name == "learned:tn,1,sims=300"
    assert learned.choose_move(state) == plain.choose_move(state)
    medina = midgame("medina", 3, 10)
    assert learned.choose_move(medina) in medina.legal_moves()
    for bad in ("learned:tn", "learned:,1", "learned:tn,9", "learned:missing,1", "learned:../tn,1"):
        with pytest.raises(ConfigError):
            make_agent(bad)
