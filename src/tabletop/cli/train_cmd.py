"""``tabletop train``: self-play training of the policy and value network (``tabletop.learn``).

``main.py`` registers :func:`train` as a command.  NumPy and JAX (the ``train`` extra)
are imported when the command runs, so ``tabletop`` works without them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.progress import Progress as ProgressBar
from rich.progress import TaskID

from tabletop.cli.batch_opts import JobsOpt, PluginOpt, RayOpt, batch_progress, check_plugins, open_batch, replaying
from tabletop.cli.output import console, fail, note, say_err
from tabletop.core.errors import TabletopError

if TYPE_CHECKING:
    from tabletop.compute.batch import Backend
    from tabletop.learn.run import Progress, TrainSettings

ProgressT = TypeVar("ProgressT")

TRAIN_HINT = "tabletop train needs JAX and NumPy: pip install 'tabletop[train]'"


class BarReporter:
    """A run's progress as one rich bar per phase (on a terminal) and its log lines on stderr."""

    def __init__(self, bar: ProgressBar) -> None:
        self._bar = bar
        self._task: TaskID | None = None

    def phase(self, description: str, total: int) -> None:
        if self._task is not None:
            self._bar.remove_task(self._task)
        self._task = self._bar.add_task(description, total=total)
        self._bar.refresh()

    def advance(self, steps: int = 1) -> None:
        if self._task is not None:
            self._bar.advance(self._task, steps)
            self._bar.refresh()

    def line(self, text: str) -> None:
        say_err(text)


def _widths(text: str, option: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        fail(f"{option} takes comma-separated whole numbers, e.g. 256,128; got {text!r}")
    return widths


def train(
    game_id: Annotated[str, typer.Argument(help="Game id: terranova or medina.", show_default=False)],
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Directory of the run: networks, checkpoint, progress.json, curve.svg (required)."
        ),
    ],
    players: Annotated[int, typer.Option("--players", "-n", min=2, help="Seats per game.")] = 2,
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset preset.")] = "default",
    generations: Annotated[
        int | None,
        typer.Option(
            "--generations",
            min=1,
            help="Generations in all (a resumed run continues up to this). Default: 10 (network), 3 (evaluation).",
            show_default=False,
        ),
    ] = None,
    games_per_generation: Annotated[
        int, typer.Option("--games-per-generation", "-g", min=1, help="Self-play games a generation.")
    ] = 20,
    sims: Annotated[int, typer.Option("--sims", min=1, help="Search simulations per self-play move.")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Master seed: the same seed gives the same run.")] = 0,
    hours: Annotated[
        float | None, typer.Option("--hours", help="Stop before a generation once training has taken this long.")
    ] = None,
    hidden: Annotated[str, typer.Option("--hidden", help="Hidden layer widths of a new network.")] = "256,128",
    architecture: Annotated[
        str,
        typer.Option(
            "--architecture",
            help="dense: layers over the whole input; cells: layers shared by the board's cells (Terra Nova).",
        ),
    ] = "dense",
    value_hidden: Annotated[
        int, typer.Option("--value-hidden", min=1, help="A cells network's value head's hidden width.")
    ] = 64,
    train_steps: Annotated[int, typer.Option("--train-steps", min=1, help="Adam steps a generation.")] = 200,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Positions per training step.")] = 128,
    learning_rate: Annotated[float, typer.Option("--lr", help="Adam's step size.")] = 1e-3,
    l2: Annotated[
        float | None,
        typer.Option(
            "--l2",
            help="Weight of the L2 penalty on the weights. Default: 1e-4 (network), 1 (evaluation: ridge).",
            show_default=False,
        ),
    ] = None,
    buffer: Annotated[
        int | None,
        typer.Option(
            "--buffer",
            min=1,
            help="Positions the replay buffer keeps (the newest). Default: 20,000 (network), 200,000 (evaluation).",
            show_default=False,
        ),
    ] = None,
    sampled_moves: Annotated[
        int, typer.Option("--sampled-moves", min=0, help="Opening moves drawn in proportion to the visits.")
    ] = 30,
    gate_games: Annotated[
        int | None,
        typer.Option(
            "--gate-games",
            min=1,
            help="At most this many games in each gate (SPRT, CPU clock). Default: 100 (network), 30 (evaluation).",
            show_default=False,
        ),
    ] = None,
    gate_elo0: Annotated[
        float | None,
        typer.Option(
            "--gate-elo0",
            help="The gate's H0 (below 0: keep the newest unless probably worse). Default: 0 (network), "
            "-50 (evaluation).",
            show_default=False,
        ),
    ] = None,
    gate_elo1: Annotated[
        float, typer.Option("--gate-elo1", help="The gate's H1: the new network is this many Elo stronger.")
    ] = 50.0,
    ladder_every: Annotated[
        int | None,
        typer.Option(
            "--ladder-every",
            min=0,
            help="Measure against the ladder every N generations (0: never). Default: 5 (network), 1 (evaluation).",
            show_default=False,
        ),
    ] = None,
    ladder_levels: Annotated[
        str, typer.Option("--ladder-levels", help="Ladder levels measured against, comma-separated.")
    ] = "club,strong,master",
    ladder_games: Annotated[
        int | None,
        typer.Option(
            "--ladder-games",
            min=1,
            help="Games against each level per measurement. Default: 6 (network), 4 (evaluation).",
            show_default=False,
        ),
    ] = None,
    leaf_mix: Annotated[
        float,
        typer.Option(
            "--leaf-mix",
            min=0.0,
            max=1.0,
            help="Share of a leaf's value from the game's own playout and evaluation (0: the network alone).",
        ),
    ] = 0.0,
    value: Annotated[
        str,
        typer.Option(
            "--value",
            help="What the value head learns and the search maximises: placing (share of rivals beaten) or win.",
        ),
    ] = "placing",
    init: Annotated[
        Path | None,
        typer.Option("--init", help="Start a new run from this network file's weights (e.g. an earlier run's best)."),
    ] = None,
    policy_target: Annotated[
        str,
        typer.Option(
            "--policy-target",
            help="What the policy learns: visits (the root's visit shares) or completed-q (prior improved by values).",
        ),
    ] = "visits",
    teacher_sims: Annotated[
        int,
        typer.Option(
            "--teacher-sims",
            min=0,
            help="Self-play by the rollout MCTS at this many simulations a move (its visits the targets).",
        ),
    ] = 0,
    sparring: Annotated[
        str | None,
        typer.Option(
            "--sparring",
            help="A bot (e.g. casual, strong) that plays one seat in --sparring-share of the self-play games.",
        ),
    ] = None,
    sparring_share: Annotated[
        float,
        typer.Option("--sparring-share", min=0.0, max=1.0, help="Share of self-play games with a sparring seat."),
    ] = 0.0,
    learn: Annotated[
        str,
        typer.Option(
            "--learn",
            help="network: a policy and value network (the default); evaluation: the weights of the game's "
            "evaluation in its native search (Terra Nova 2p).",
        ),
    ] = "network",
    level: Annotated[
        str,
        typer.Option("--level", help="--learn evaluation: the native level whose search plays (a native spec's tail)."),
    ] = "3,horizon=160@0.1cpu",
    random_opening: Annotated[
        int,
        typer.Option("--random-opening", min=0, help="--learn evaluation: random actions opening each self-play game."),
    ] = 4,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="Write the run's best network at half precision (as the package ships it) to this file, and stop.",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the run saved in --out from its last generation.")
    ] = False,
    jobs: JobsOpt = None,
    ray: RayOpt = None,
    plugin: PluginOpt = None,
) -> None:
    """Learn a policy and value network by self-play: generations of self-play games on the
    native engine, training, a gate (SPRT) against the best network so far, and short
    matches against the ladder for the learning curve (docs/bots.md, "Learned bot").
    """
    if export is not None:
        _export(game_id, out, export)
        return
    # The settings both kinds of run have. Those whose defaults differ between a network
    # run and an evaluation run are passed only when given: the run's settings class
    # fills in the rest.
    shared: dict[str, Any] = {
        "players": players,
        "ruleset": ruleset,
        "games_per_generation": games_per_generation,
        "seed": seed,
        "hours": hours,
        "gate_elo1": gate_elo1,
        "ladder_levels": tuple(key.strip() for key in ladder_levels.split(",") if key.strip()),
        **_given(
            generations=generations,
            l2=l2,
            buffer_positions=buffer,
            gate_games=gate_games,
            gate_elo0=gate_elo0,
            ladder_every=ladder_every,
            ladder_games=ladder_games,
        ),
    }
    if learn == "evaluation":
        _learn_evaluation(
            game_id,
            out,
            resume=resume,
            jobs=jobs,
            ray=ray,
            plugin=plugin,
            settings={**shared, "level": level, "random_opening": random_opening},
        )
        return
    if learn != "network":
        fail(f"--learn takes network or evaluation, not {learn!r}")
    if importlib.util.find_spec("jax") is None or importlib.util.find_spec("numpy") is None:
        fail(TRAIN_HINT)
    from tabletop.learn.run import WORKER_PLUGINS, TrainSettings, run_training

    settings = TrainSettings(
        game=game_id,
        simulations=sims,
        hidden=_widths(hidden, "--hidden"),
        architecture=architecture,
        value_hidden=value_hidden,
        train_steps=train_steps,
        batch_size=batch_size,
        learning_rate=learning_rate,
        sampled_moves=sampled_moves,
        leaf_mix=leaf_mix,
        value=value,
        policy_target=policy_target,
        teacher_sims=teacher_sims,
        sparring=sparring,
        sparring_share=sparring_share,
        init=None if init is None else str(init.resolve()),
        **shared,
    )
    try:
        settings.check()
    except TabletopError as exc:
        fail(str(exc))
    plugins = check_plugins(plugin) + WORKER_PLUGINS
    backend = open_batch(ray, jobs, plugins)
    say_err(_describe(settings, resume) + f"; playing on {backend.settings.describe()}")
    progress = _with_bar(
        out,
        backend,
        lambda reporter: run_training(settings, out, backend, resume=resume, reporter=reporter, on_lost=replaying),
    )
    _say_done(progress, "network", out / "best.npz", out)


def _learn_evaluation(
    game_id: str,
    out: Path,
    *,
    resume: bool,
    jobs: int | None,
    ray: str | None,
    plugin: list[str] | None,
    settings: dict[str, Any],
) -> None:
    if importlib.util.find_spec("numpy") is None:
        fail("tabletop train --learn evaluation needs NumPy: pip install 'tabletop[rl]'")
    from tabletop.learn.evaluation_run import EvaluationSettings, run_evaluation_training
    from tabletop.learn.run import WORKER_PLUGINS

    run = EvaluationSettings(game=game_id, **settings)
    try:
        run.check()
    except TabletopError as exc:
        fail(str(exc))
    backend = open_batch(ray, jobs, check_plugins(plugin) + WORKER_PLUGINS)
    say_err(
        f"{'resuming' if resume else 'learning'} the evaluation of {run.game} {run.players}p ({run.ruleset}): "
        f"{run.generations} generations of {run.games_per_generation} games by native:{run.level}; "
        f"playing on {backend.settings.describe()}"
    )
    progress = _with_bar(
        out,
        backend,
        lambda reporter: run_evaluation_training(
            run, out, backend, resume=resume, reporter=reporter, on_lost=replaying
        ),
    )
    _say_done(progress, "evaluation", out / "best.evaluation.json", out)


def _say_done(progress: Progress[Any], learned: str, best: Path, out: Path) -> None:
    console.print(
        f"{progress.generation} generations in {_hours(progress.hours)} of training "
        f"({_hours(progress.cpu_hours)} of CPU here); best {learned}: generation "
        f"{progress.best_generation} ({best}); curve: {out / 'curve.svg'}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _given(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def _with_bar(out: Path, backend: Backend, run: Callable[[BarReporter], ProgressT]) -> ProgressT:
    """``run`` with a progress bar; its errors told as the command's, the backend closed."""
    bar = batch_progress(transient=True, terminal_only=True)
    try:
        with bar:
            return run(BarReporter(bar))
    except TabletopError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write to {out}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        note(f"interrupted: {out} holds the last complete generation; --resume continues from it")
        raise typer.Exit(130) from None
    finally:
        backend.close()


def _export(game_id: str, out: Path, export: Path) -> None:
    if importlib.util.find_spec("numpy") is None:
        fail(TRAIN_HINT)
    from tabletop.core.network import NetworkFileError, PolicyValueNetwork

    try:
        network = PolicyValueNetwork.load(out / "best.npz")
        if network.meta.game != game_id:
            fail(f"{out / 'best.npz'} is a network for {network.meta.game}, not {game_id}")
        network.save(export, half=True)
    except NetworkFileError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot export {out / 'best.npz'} to {export}: {exc.strerror or exc}")
    console.print(
        f"{export}: {network.meta.made_by} ({export.stat().st_size / 1e6:.1f} MB, float16)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _hours(hours: float) -> str:
    return f"{hours:.2f} hours" if hours >= 1 else f"{hours * 60:.1f} minutes"


def _describe(settings: TrainSettings, resume: bool) -> str:
    return (
        f"{'resuming' if resume else 'training'} {settings.game} {settings.players}p ({settings.ruleset}): "
        f"{settings.generations} generations of {settings.games_per_generation} games at {settings.simulations} "
        f"simulations a move, network {list(settings.hidden)}"
    )
