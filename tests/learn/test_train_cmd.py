"""``tabletop train`` where the training extra is missing: one line that says what to install."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app

runner = CliRunner()


def test_train_without_jax_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tabletop.cli.train_cmd as train_cmd

    real = train_cmd.importlib.util.find_spec
    monkeypatch.setattr(train_cmd.importlib.util, "find_spec", lambda name: None if name == "jax" else real(name))
    result = runner.invoke(app, ["train", "medina", "-n", "3", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "pip install 'tabletop[train]'" in result.output
    assert not (tmp_path / "run").exists()


def test_export_writes_the_run_s_best_network_at_half_precision(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    from tabletop.core.network import PolicyValueNetwork
    from tabletop.core.protocol import GameConfig

    run = tmp_path / "run"
    run.mkdir()
    network = PolicyValueNetwork.random("medina", GameConfig(num_players=3), hidden=(8,), seed=1)
    network.save(run / "best.npz")
    shipped = tmp_path / "medina-3p.npz"
    result = runner.invoke(app, ["train", "medina", "--out", str(run), "--export", str(shipped)])
    assert result.exit_code == 0, result.output
    loaded = PolicyValueNetwork.load(shipped)
    assert loaded.meta == network.meta
    np.testing.assert_array_equal(loaded.params["w0"], network.halved().params["w0"])
    with np.load(shipped, allow_pickle=False) as data:
        assert data["w0"].dtype == np.float16
    wrong = runner.invoke(app, ["train", "terranova", "--out", str(run), "--export", str(tmp_path / "x.npz")])
    assert wrong.exit_code == 2 and "network for medina, not terranova" in wrong.output
    missing = runner.invoke(app, ["train", "medina", "--out", str(tmp_path / "none"), "--export", str(shipped)])
    assert missing.exit_code == 2 and "not a readable network file" in missing.output


def test_options_not_given_take_the_network_run_s_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    import tabletop.cli.train_cmd as train_cmd
    import tabletop.learn.run as run

    # The evaluation run has other defaults for the same options (tests/learn/test_evaluation_run.py).
    monkeypatch.setattr(train_cmd.importlib.util, "find_spec", lambda name: object())
    seen: list[run.TrainSettings] = []

    def record(settings: run.TrainSettings, out: Path, backend: object, **_: object) -> run.RunProgress:
        seen.append(settings)
        return run.RunProgress(settings)

    monkeypatch.setattr(run, "run_training", record)
    result = runner.invoke(app, ["train", "medina", "-n", "3", "--out", str(tmp_path / "run"), "--gate-games", "7"])
    assert result.exit_code == 0, result.output
    defaults = run.TrainSettings("medina", 3)
    (settings,) = seen
    assert (settings.buffer_positions, settings.l2, settings.generations) == (20_000, 1e-4, defaults.generations)
    assert (settings.gate_games, settings.gate_elo0, settings.ladder_every) == (7, 0.0, defaults.ladder_every)
