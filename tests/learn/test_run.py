"""Training runs (tabletop.learn.run and ``tabletop train``): the files a run writes, resuming,
and bad input.  The runs are tiny: one or two generations of two short games."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.learn.conftest import NO_JAX, NO_NUMPY, need_native

np = pytest.importorskip("numpy", reason=NO_NUMPY)

from tabletop import GameConfig  # noqa: E402
from tabletop.arena.match import new_game  # noqa: E402
from tabletop.cli.main import app  # noqa: E402
from tabletop.compute.batch import LocalBackend  # noqa: E402
from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.core.network import PolicyValueNetwork  # noqa: E402
from tabletop.learn.curve import CurvePoint, curve_svg  # noqa: E402
from tabletop.learn.run import RunProgress, TrainError, TrainSettings, network_agent_spec, run_training  # noqa: E402
from tabletop.learn.selfplay import ReplayBuffer  # noqa: E402

runner = CliRunner()

TINY = TrainSettings(
    "medina",
    3,
    generations=1,
    games_per_generation=2,
    simulations=6,
    hidden=(8,),
    train_steps=2,
    batch_size=8,
    gate_games=3,
    ladder_every=1,
    ladder_levels=("beginner",),
    ladder_games=3,
    seed=7,
)
TINY_ARGS = shlex.split(
    "train medina -n 3 --generations 1 -g 2 --sims 6 --hidden 8 --train-steps 2 --batch-size 8 "
    "--gate-games 3 --ladder-every 1 --ladder-levels beginner --ladder-games 3 --seed 7"
)
"""``TINY`` on the command line."""


def _need_jax() -> None:
    pytest.importorskip("jax", reason=NO_JAX)
    need_native()


def test_a_tiny_run_writes_its_files(tmp_path: Path) -> None:
    _need_jax()
    out = tmp_path / "run"
    result = runner.invoke(app, [*TINY_ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 generations" in result.output
    for name in ("best.npz", "latest.npz", "optimizer.npz", "replay.npz", "progress.json", "curve.svg"):
        assert (out / name).stat().st_size > 0, name
    assert not list(out.glob("*.part")) and not list(out.glob("pending-*"))
    progress = json.loads((out / "progress.json").read_text())
    assert progress["generation"] == 1 and len(progress["generations"]) == 1
    assert 0 < progress["cpu_hours"] < 0.1 and 0 < progress["hours"] < 0.1
    generation = progress["generations"][0]
    assert generation["games"] == 2 and generation["positions"] > 0
    assert generation["gate"]["decision"] in ("H0", "H1", "undecided") and generation["gate"]["games"] > 0
    # Scored before learning: a new network's policy is near uniform on positions it never saw,
    # and no cross-entropy is below its targets' entropy.
    fresh = generation["fresh_loss"]
    assert fresh["policy_floor"] <= fresh["policy"] and fresh["policy_floor"] < fresh["policy_uniform"]
    assert fresh["policy"] == pytest.approx(fresh["policy_uniform"], abs=0.01) and fresh["value"] > 0
    assert "unseen positions: policy" in result.output
    [measured] = progress["ladder"]
    assert measured["level"] == "beginner" and measured["games"] == 3 and measured["elo"] is not None
    latest = PolicyValueNetwork.load(out / "latest.npz")
    assert latest.meta.hidden == (8,) and "generation 1" in latest.meta.made_by and "--seed 7" in latest.meta.made_by
    best = PolicyValueNetwork.load(out / "best.npz")
    trained = not np.array_equal(latest.params["w0"], best.params["w0"])
    assert trained == (progress["best_generation"] == 0)
    buffer = ReplayBuffer.load(out / "replay.npz", latest.meta.input_size, 3)
    assert len(buffer) == generation["positions"]
    svg = (out / "curve.svg").read_text()
    assert svg.startswith("<svg") and "vs beginner" in svg and "<circle" in svg


def test_resume_continues_from_the_same_generation(tmp_path: Path) -> None:
    _need_jax()
    from tabletop.learn.run import run_training

    straight = run_training(replace(TINY, ladder_levels=(), generations=2), tmp_path / "straight", LocalBackend(1))
    halves = replace(TINY, ladder_levels=())
    first = run_training(halves, tmp_path / "halves", LocalBackend(1))
    assert first.generation == 1
    resumed = run_training(
        replace(halves, generations=2),
        tmp_path / "halves",
        LocalBackend(1),
        resume=True,
    )
    assert resumed.generation == 2 and len(resumed.generations) == 2
    assert resumed.generations[0] == first.generations[0]
    # The second generation after a resume is the one a run without a break plays.
    for key in ("positions", "buffer", "loss", "gate"):
        assert resumed.generations[1][key] == straight.generations[1][key], key
    a = PolicyValueNetwork.load(tmp_path / "straight" / "latest.npz")
    b = PolicyValueNetwork.load(tmp_path / "halves" / "latest.npz")
    for name in a.params:
        np.testing.assert_allclose(a.params[name], b.params[name], rtol=1e-5, atol=1e-6)
    done = run_training(resumed.settings, tmp_path / "halves", LocalBackend(1), resume=True)
    assert done.generation == 2  # nothing left to do


def test_resume_after_an_interruption_between_files(tmp_path: Path) -> None:
    _need_jax()
    from tabletop.learn.run import run_training

    settings = replace(TINY, ladder_levels=())
    out = tmp_path / "run"
    run_training(settings, out, LocalBackend(1))
    latest = PolicyValueNetwork.load(out / "latest.npz")
    # Stopped after progress.json recorded generation 1, before its files were moved into
    # place; and a generation 2 that was not recorded.
    (out / "pending-1").mkdir()
    (out / "latest.npz").replace(out / "pending-1" / "latest.npz")
    (out / "pending-2").mkdir()
    (out / "pending-2" / "latest.npz").write_text("half a file")
    resumed = run_training(replace(settings, generations=2), out, LocalBackend(1), resume=True)
    assert resumed.generation == 2 and not list(out.glob("pending-*"))
    assert resumed.generations[1]["positions"] > 0
    trained = PolicyValueNetwork.load(out / "latest.npz")
    assert "generation 2" in trained.meta.made_by
    assert not np.array_equal(trained.params["w0"], latest.params["w0"])


def test_resume_refuses_other_fixed_settings_and_new_runs_refuse_used_directories(tmp_path: Path) -> None:
    _need_jax()
    from tabletop.learn.run import run_training

    settings = replace(TINY, ladder_levels=())
    with pytest.raises(TrainError, match="nothing to resume"):
        run_training(settings, tmp_path / "empty", LocalBackend(1), resume=True)
    run_training(settings, tmp_path / "run", LocalBackend(1))
    with pytest.raises(TrainError, match="not empty"):
        run_training(settings, tmp_path / "run", LocalBackend(1))
    other = replace(settings, hidden=(16,), generations=2)
    with pytest.raises(TrainError, match="other hidden"):
        run_training(other, tmp_path / "run", LocalBackend(1), resume=True)
    (tmp_path / "run" / "latest.npz").write_text("garbage")
    with pytest.raises(TrainError, match="cannot be read"):
        run_training(
            replace(settings, generations=2),
            tmp_path / "run",
            LocalBackend(1),
            resume=True,
        )


def test_sparring_settings_are_checked_and_read_from_older_runs() -> None:
    need_native()
    with pytest.raises(ConfigError, match="sparring-share needs --sparring"):
        replace(TINY, sparring_share=0.5).check()
    with pytest.raises(ConfigError, match="sparring-share must be"):
        replace(TINY, sparring="casual", sparring_share=1.5).check()
    with pytest.raises(ConfigError):
        replace(TINY, sparring="no-such-bot", sparring_share=0.5).check()
    replace(TINY, sparring="casual", sparring_share=0.5).check()
    older = TINY.to_json()
    del older["sparring"], older["sparring_share"]
    read = TrainSettings.from_json(older)
    assert read.sparring is None and read.sparring_share == 0.0
    made_by = replace(TINY, sparring="casual", sparring_share=0.5).made_by(3, 0.1)
    assert "--sparring casual --sparring-share 0.5" in made_by


def test_settings_are_checked() -> None:
    TINY.check()
    for change, message in [
        ({"players": 5}, "seats"),
        ({"ladder_levels": ("legend",)}, "unknown level"),
        ({"gate_elo1": -10.0}, "gate-elo0 must be below gate-elo1"),
        ({"gate_elo0": 60.0, "gate_elo1": 50.0}, "gate-elo0 must be below gate-elo1"),
        ({"gate_elo0": float("nan")}, "gate-elo0 must be below gate-elo1"),
        ({"hidden": ()}, "hidden"),
        ({"train_steps": 0}, "train-steps"),
        ({"ruleset": "nope"}, "nope"),
        ({"value": "rank"}, "value must be one of win, placing"),
        ({"policy_target": "logits"}, "policy-target must be one of visits, completed-q"),
        ({"teacher_sims": -1}, "teacher-sims must not be negative"),
        ({"init": "/nonexistent/best.npz"}, "is not a file"),
        ({"architecture": "conv"}, "architecture must be one of dense, cells"),
        ({"architecture": "cells"}, "has no cell geometry"),  # Medina's board has none yet
        ({"game": "terranova", "players": 2, "architecture": "cells", "hidden": (8, 4)}, "all one width"),
        ({"game": "terranova", "players": 2, "architecture": "cells", "value_hidden": 0}, "value-hidden"),
    ]:
        with pytest.raises(ConfigError, match=message):
            replace(TINY, **change).check()


def test_a_cells_run_trains_and_writes_a_cells_network(tmp_path: Path) -> None:
    _need_jax()
    settings = replace(
        TINY,
        game="terranova",
        players=2,
        architecture="cells",
        hidden=(4, 4),
        value_hidden=4,
        simulations=4,
        sampled_moves=500,  # two short random-ish games: the test is of the files, not play
        ladder_every=0,
        gate_games=2,
    )
    settings.check()
    older = settings.to_json()
    del older["architecture"], older["value_hidden"]
    assert TrainSettings.from_json(older).architecture == "dense"
    assert "--architecture cells --value-hidden 4" in settings.made_by(1, 0.0)
    progress = run_training(settings, tmp_path / "run", LocalBackend(1))
    assert progress.generation == 1
    latest = PolicyValueNetwork.load(tmp_path / "run" / "latest.npz")
    assert latest.meta.architecture == "cells" and latest.meta.value_hidden == 4
    assert set(latest.params) >= {"w1", "policy_global_w", "value_hidden_w"}


def test_progress_round_trip_and_bad_files(tmp_path: Path) -> None:
    progress = RunProgress(TINY, generation=3, hours=0.5, best_generation=2, generations=[{"generation": 1}])
    progress.ladder.append({"hours": 0.5, "generation": 2, "level": "club", "elo": 700.0, "low": 600.0, "high": 800.0})
    progress.write(tmp_path / "progress.json")
    read = RunProgress.read(tmp_path / "progress.json")
    assert read == progress
    assert read.curve_points() == [CurvePoint(0.5, 2, "club", 700.0, 600.0, 800.0)]
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(TrainError, match="not the progress"):
        RunProgress.read(tmp_path / "bad.json")


def test_a_run_from_before_the_value_setting_resumes_as_win_shares_from_scratch() -> None:
    old = TINY.to_json()
    del old["value"], old["init"]
    read = TrainSettings.from_json(old)
    assert read.value == "win" and read.init is None
    assert TrainSettings.from_json(TINY.to_json()).value == "placing"


def test_a_run_starts_from_the_weights_it_is_given_and_learns_placings(tmp_path: Path) -> None:
    _need_jax()
    import tabletop.learn.bots  # noqa: F401  (the gate's bot: a plugin, as `tabletop train` loads it)

    start = PolicyValueNetwork.random("medina", GameConfig(num_players=3), (8,), seed=99)
    start.save(tmp_path / "start.npz")
    out = tmp_path / "run"
    settings = replace(TINY, init=str(tmp_path / "start.npz"), ladder_every=0, train_steps=1)
    run_training(settings, out, LocalBackend(1))
    first = PolicyValueNetwork.load(out / "latest.npz")
    assert first.meta.value == "placing" and "--value placing --init start.npz" in first.meta.made_by
    # One Adam step moves the weights a little from the start's, not from a fresh network's.
    moved = np.abs(first.params["w0"] - start.params["w0"]).max()
    assert 0 < moved < 0.01
    # The value targets of the buffer are placings over 3/2: they sum to 1 and take only
    # the values 0, 1/6, 1/3, 1/2 and 2/3 (last, tied, ..., first).
    buffer = ReplayBuffer.load(out / "replay.npz", first.meta.input_size, 3)
    values = buffer.batch(np.random.default_rng(0), 64, first.meta.num_actions)["value"]
    np.testing.assert_allclose(values.sum(axis=1), 1.0, rtol=1e-6)
    assert set(np.round(values.ravel() * 6).astype(int)) <= {0, 1, 2, 3, 4}
    wrong = PolicyValueNetwork.random("medina", GameConfig(num_players=3), (16,), seed=1)
    wrong.save(tmp_path / "wrong.npz")
    with pytest.raises(TrainError, match="is for"):
        run_training(replace(settings, init=str(tmp_path / "wrong.npz")), tmp_path / "other", LocalBackend(1))


def test_curve_draws_a_line_per_level_and_the_levels() -> None:
    points = [
        CurvePoint(0.1, 1, "club", 600.0, 500.0, 700.0),
        CurvePoint(0.2, 2, "club", 650.0, 560.0, 740.0),
        CurvePoint(0.2, 2, "strong", 900.0, -10_000.0, 10_000.0),
    ]
    svg = str(curve_svg(points, {"club": 1024.0, "strong": 1207.0}, title="t"))
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 3
    assert "club (1024)" in svg and "strong (1207)" in svg and "vs club" in svg
    assert str(curve_svg([], {}, title="empty")).startswith("<svg")


def test_the_gate_bot_is_the_network_search_and_no_built_in_kind(tmp_path: Path) -> None:
    """The gate plays PUCT over the file; its kind takes a path, so only the run's own
    workers (and ``--plugin``) know it, never the web app's registry."""
    import subprocess
    import sys

    from tabletop.ai.agent import make_agent
    from tabletop.core.network import PolicyValueNetwork
    from tabletop.core.protocol import GameConfig

    need_native()
    path = tmp_path / "best.npz"
    PolicyValueNetwork.random("medina", GameConfig(num_players=3), hidden=(8,), seed=1).save(path)
    spec = network_agent_spec(path, replace(TINY, simulations=30))
    assert spec == f"puct-file:{path},sims=30,sample=12"
    mixed = network_agent_spec(path, replace(TINY, simulations=30, leaf_mix=0.5))
    assert mixed == f"puct-file:{path},sims=30,sample=12,mix=0.5"
    import tabletop.learn.bots  # noqa: F401  (registers the kind, as the run's workers do)

    agent = make_agent(spec, seed=2)
    state = new_game("medina", 3, seed=3)
    assert agent.choose_move(state) in state.legal_moves()
    with pytest.raises(ConfigError, match="sims"):
        make_agent(f"puct-file:{path},sims=x")
    fresh = subprocess.run(
        [sys.executable, "-c", f"from tabletop.ai.agent import make_agent; make_agent({spec!r})"],
        capture_output=True,
        text=True,
    )
    assert fresh.returncode != 0 and "unknown agent" in fresh.stderr


def test_train_reports_bad_input_in_one_line(tmp_path: Path) -> None:
    pytest.importorskip("jax", reason=NO_JAX)
    for args, message in [
        (["train", "chess"], "unknown game 'chess'"),
        (["train", "medina", "-n", "3", "--hidden", "8,x"], "--hidden takes"),
        (["train", "medina", "-n", "3", "--ladder-levels", "club,foo"], "unknown level 'foo'"),
    ]:
        result = runner.invoke(app, [*args, "--out", str(tmp_path / "x")])
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
