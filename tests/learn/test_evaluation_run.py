"""Learning Terra Nova's evaluation by self-play (``tabletop train terranova --learn
evaluation``): a tiny run's files, its fit and gate, resuming, the curve, the command."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.learn.conftest import NO_NUMPY
from tests.native import needs_native

np = pytest.importorskip("numpy", reason=NO_NUMPY)

from tabletop.cli.main import app  # noqa: E402
from tabletop.compute.batch import LocalBackend  # noqa: E402
from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.learn.evaluation_run import (  # noqa: E402
    EvaluationProgress,
    EvaluationSettings,
    play_evaluation_game,
    run_evaluation_training,
)
from tabletop.learn.run import RunProgress, TrainError  # noqa: E402
from tabletop.native.learned import load_evaluation  # noqa: E402

pytestmark = needs_native("terranova")

TINY = EvaluationSettings(
    generations=2,
    games_per_generation=2,
    level="1,sims=30",
    random_opening=4,
    seed=3,
    gate_games=2,
    gate_elo0=-50,
    gate_elo1=50,
    ladder_every=2,
    ladder_levels=("beginner",),
    ladder_games=2,
)


def test_a_self_play_game_gives_a_row_per_position_and_the_leads_to_come(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_evaluation_training(replace(TINY, generations=0), run, LocalBackend(1))
    game = play_evaluation_game(TINY, str(run / "best.evaluation.json"), 1, 0)
    assert len(game.features) == len(game.leads) > TINY.random_opening
    # The last position's lead to come is the final lead minus the lead on points then:
    # before any stone the points are 0 to 0, so the first row's lead is the final one.
    assert game.leads[0] == game.leads[0] // 1
    assert all(len(row) == len(game.features[0]) for row in game.features)
    again = play_evaluation_game(TINY, str(run / "best.evaluation.json"), 1, 0)
    assert again == game  # a simulation budget and a seed: the same game


def test_a_tiny_run_fits_gates_measures_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    progress = run_evaluation_training(TINY, out, LocalBackend(1))
    assert progress.generation == 2
    for name in ("best.evaluation.json", "latest.evaluation.json", "replay.npz", "progress.json", "curve.svg"):
        assert (out / name).exists(), name
    hand = load_evaluation(out / "best.evaluation.json") if progress.best_generation == 0 else None
    if hand is not None:
        assert hand.weights[hand.features.index("going_territory")] == 0.5
    latest = load_evaluation(out / "latest.evaluation.json")
    assert latest.made_by["generation"] == 2 and "--learn evaluation" in latest.made_by["command"]
    entries = progress.generations
    assert [e["generation"] for e in entries] == [1, 2]
    assert all(e["gate"]["decision"] in ("H0", "H1", "undecided") for e in entries)
    with np.load(out / "replay.npz") as replay:
        assert len(replay["y"]) == sum(e["positions"] for e in entries) == entries[-1]["replay"]
        assert set(replay["generation"].tolist()) == {1, 2}
    # Generation 0 (the hand-written evaluation, where the curve starts), then after 2.
    assert [(m["level"], m["trained_generations"]) for m in progress.ladder] == [("beginner", 0), ("beginner", 2)]
    assert progress.ladder[0]["hours"] == 0
    assert "<svg" in (out / "curve.svg").read_text()
    read = EvaluationProgress.read(out / "progress.json")
    assert read.generation == 2 and read.settings == TINY
    # A network run's progress reader refuses it (the two kinds share one file layout).
    with pytest.raises(TrainError, match="not the progress of a training run"):
        RunProgress.read(out / "progress.json")
    # Resuming goes on from generation 3 with the replay of the first two.
    resumed = run_evaluation_training(replace(TINY, generations=3, ladder_every=0), out, LocalBackend(1), resume=True)
    assert resumed.generation == 3
    assert resumed.generations[-1]["replay"] == entries[-1]["replay"] + resumed.generations[-1]["positions"]
    with pytest.raises(TrainError, match="holds a run"):
        run_evaluation_training(TINY, out, LocalBackend(1))
    with pytest.raises(TrainError, match="seed"):
        run_evaluation_training(replace(TINY, seed=4, generations=4), out, LocalBackend(1), resume=True)


def test_a_generation_the_progress_does_not_record_is_played_again(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_evaluation_training(replace(TINY, generations=1, ladder_every=0), out, LocalBackend(1))
    progress = json.loads((out / "progress.json").read_text())
    # As if the run stopped after writing the replay of generation 1 but before recording it.
    progress["generation"] = 0
    progress["generations"] = []
    (out / "progress.json").write_text(json.dumps(progress))
    redone = run_evaluation_training(replace(TINY, generations=1, ladder_every=0), out, LocalBackend(1), resume=True)
    assert redone.generations[0]["replay"] == redone.generations[0]["positions"]


@pytest.mark.parametrize(
    "bad",
    [
        {"players": 3},
        {"game": "medina"},
        {"level": "9"},
        {"random_opening": 1000},
        {"l2": float("nan")},
        {"gate_elo0": 50.0, "gate_elo1": 0.0},
        {"ladder_levels": ("nobody",)},
    ],
)
def test_bad_settings_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        replace(TINY, **bad).check()  # type: ignore[arg-type]


def test_the_command_runs_a_generation(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    args = ["train", "terranova", "-o", str(out), "--learn", "evaluation", "--level", "1,sims=30"]
    args += ["--generations", "1", "-g", "2", "--gate-games", "2", "--ladder-every", "0", "--seed", "5"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "best evaluation: generation" in result.output
    assert (out / "latest.evaluation.json").exists()
    # Options not given take the evaluation run's defaults, not the network run's.
    settings = json.loads((out / "progress.json").read_text())["settings"]
    defaults = EvaluationSettings()
    assert settings["buffer_positions"] == defaults.buffer_positions == 200_000
    assert settings["l2"] == defaults.l2 == 1.0
    assert (settings["gate_games"], settings["gate_elo0"]) == (2, defaults.gate_elo0)
    bad = CliRunner().invoke(app, ["train", "terranova", "-o", str(tmp_path / "x"), "--learn", "nothing"])
    assert bad.exit_code != 0 and "--learn" in bad.output
