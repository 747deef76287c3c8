"""Learning a game's evaluation by self-play (``tabletop train terranova --learn evaluation``).

The native levels of Terra Nova search with the game's evaluation at their leaves; this
run learns that evaluation's weights (``tabletop.native.learned``) from the games its own
search plays.  Generation 0's evaluation is the hand-written one in learned form (its
one weight on ``going_territory``), so the first self-play is the level's own.  Each
generation:

1. **self-play**: ``games_per_generation`` games of the best evaluation's search (the
   native level ``level``, e.g. Strong's ``3,horizon=160@0.1cpu``, valued by it: the
   ``learned-file`` bot), the first ``random_opening`` actions of each at random so that
   the games differ; every position gives a row: the features of seat 0 minus seat 1's
   and the lead still to come (the final lead minus the lead on points there).  The rows
   join the replay (the newest ``buffer_positions`` kept);
2. **fit**: ridge least squares of the leads on the features over the replay
   (``fit_weights``, penalty ``l2``); the error of the best evaluation and of the new one
   on the new games' rows, before they were fitted on (``fresh`` in the progress);
3. **the gate**: an SPRT (CPU clock) of the new evaluation's search against the best's
   (H0 ``gate_elo0``, H1 ``gate_elo1``); H1 makes it the best;
4. every ``ladder_every`` generations (and after the last), **the ladder**: the best's
   search against fixed levels, drawn as the learning curve (``curve.svg``), as the
   network runs draw theirs (``tabletop.learn.run.measure_ladder``); a new run measures
   its generation 0 first (the level's own search), where the curve starts.

**The directory**: ``best.evaluation.json`` and ``latest.evaluation.json``,
``replay.npz`` (the rows, each with its generation), ``progress.json`` and
``curve.svg``.  ``progress.json`` is written last; on resume, rows of a generation it
does not record are dropped and the generation is played again.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Final

import numpy as np

import tabletop.learn.bots  # noqa: F401  - registers learned-file, the bot of an evaluation file
from tabletop.ai.agent import make_agent
from tabletop.arena.tournament import derived_seed
from tabletop.compute.batch import Backend
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.learn.run import (
    Progress,
    QuietReporter,
    Reporter,
    TrainError,
    cpu_seconds,
    draw_curve,
    measure_ladder,
    play_gate,
)
from tabletop.native.learned import LearnedEvaluation, fit_weights, load_evaluation, position_rows, save_evaluation
from tabletop.native.mcts import level_config, to_native

PROGRESS_FORMAT: Final = "tabletop-train-evaluation-1"
BEST, LATEST, REPLAY, PROGRESS, CURVE = (
    "best.evaluation.json",
    "latest.evaluation.json",
    "replay.npz",
    "progress.json",
    "curve.svg",
)
FIXED_SETTINGS: Final = ("game", "players", "ruleset", "seed")
HAND_WRITTEN: Final = {"going_territory": 0.5}
"""The hand-written evaluation in learned form (``terranova/eval.rs``: ``CELL_VALUE`` on
its territory term): generation 0's best."""
MAX_ACTIONS: Final = 5_000
"""A self-play game longer than this is dropped (Terra Nova's stall rule ends every game
long before)."""


@dataclass(frozen=True, slots=True)
class EvaluationSettings:
    """Everything an evaluation run does (see the module docstring)."""

    game: str = "terranova"
    players: int = 2
    ruleset: str = "default"
    generations: int = 3
    games_per_generation: int = 20
    level: str = "3,horizon=160@0.1cpu"
    random_opening: int = 4
    seed: int = 0
    hours: float | None = None
    l2: float = 1.0
    buffer_positions: int = 200_000
    gate_games: int = 30
    gate_elo0: float = -50.0
    gate_elo1: float = 50.0
    ladder_every: int = 1
    ladder_levels: tuple[str, ...] = ("club", "strong", "master")
    ladder_games: int = 4

    def check(self) -> None:
        """Raises: ConfigError for settings no run can use."""
        if (self.game, self.players) != ("terranova", 2):
            raise ConfigError("a learned evaluation is learned for Terra Nova with two players")
        level_config(self.level, self.game)
        if not 0 <= self.random_opening <= 100:
            raise ConfigError("the random opening is from 0 to 100 actions")
        if not (math.isfinite(self.l2) and self.l2 >= 0):
            raise ConfigError("l2 must be finite and not negative")
        if self.gate_elo0 >= self.gate_elo1:
            raise ConfigError("the gate's elo0 must be below its elo1")
        for key in self.ladder_levels:
            make_agent(key, seed=0)

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["ladder_levels"] = list(self.ladder_levels)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EvaluationSettings:
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["ladder_levels"] = tuple(values.get("ladder_levels", ()))
        return cls(**values)

    def learned_spec(self, path: Path) -> str:
        """The bot of the evaluation file at ``path``: the level's search valued by it."""
        return f"learned-file:{path},{self.level}"

    def made_by(self, generation: int, hours: float) -> dict[str, Any]:
        return {
            "command": (
                f"tabletop train {self.game} -n {self.players} --learn evaluation --level {self.level} "
                f"-g {self.games_per_generation} --seed {self.seed} --l2 {self.l2:g}"
            ),
            "generation": generation,
            "training_hours": round(hours, 3),
        }


@dataclass
class EvaluationProgress(Progress[EvaluationSettings]):
    """What an evaluation run has done (``progress.json``; ``best_generation`` 0: the
    hand-written evaluation)."""

    FORMAT: ClassVar[str] = PROGRESS_FORMAT
    KIND: ClassVar[str] = "an evaluation run"

    @classmethod
    def settings_from_json(cls, data: dict[str, Any]) -> EvaluationSettings:
        return EvaluationSettings.from_json(data)


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One self-play game's rows: features of seat 0 minus seat 1's, the lead to come."""

    features: list[list[float]]
    leads: list[float]


def play_evaluation_game(settings: EvaluationSettings, best: str, generation: int, index: int) -> SelfPlayGame:
    """Self-play game ``index`` of ``generation`` by the search of the evaluation file
    ``best`` in both seats (a worker's task: it depends on its arguments alone, but for
    the CPU budget of the searches)."""
    seed = derived_seed(settings.seed, "selfplay", generation, index)
    game = make(settings.game, engine="native")
    state = game.new_initial_state(GameConfig(num_players=settings.players, ruleset=settings.ruleset, seed=seed))
    spec = settings.learned_spec(Path(best))
    agents = [make_agent(spec, seed=derived_seed(seed, "seat", seat)) for seat in range(settings.players)]
    rng = random.Random(seed)
    differences: list[list[float]] = []
    point_leads: list[int] = []
    actions = 0
    while not state.is_terminal() and actions < MAX_ACTIONS:
        _, rows = position_rows(to_native(state))
        points = state.scores()
        differences.append([a - b for a, b in zip(rows[0], rows[1], strict=True)])
        point_leads.append(points[0] - points[1])
        if actions < settings.random_opening:
            move = rng.choice(list(state.legal_moves()))
        else:
            move = agents[state.current_player].choose_move(state)
        state = state.apply(move)
        actions += 1
    if not state.is_terminal():
        return SelfPlayGame([], [])
    final = state.scores()
    final_lead = final[0] - final[1]
    return SelfPlayGame(differences, [float(final_lead - lead) for lead in point_leads])


def run_evaluation_training(
    settings: EvaluationSettings,
    out: Path,
    backend: Backend,
    *,
    resume: bool = False,
    reporter: Reporter | None = None,
    on_lost: Callable[[int, str], None] | None = None,
) -> EvaluationProgress:
    """Learns the evaluation (the module docstring) until ``settings.generations`` are done
    or ``settings.hours`` spent; returns the progress as ``progress.json`` holds it.

    Raises:
        ConfigError: for bad settings.
        TrainError: for a directory holding another run (without ``resume``), or one whose
            files cannot be read or do not fit the settings.
    """
    settings.check()
    report = reporter if reporter is not None else QuietReporter()
    out = out.resolve()
    progress = _start(settings, out, resume)
    features, leads, generations = _read_replay(out, progress.generation)
    names = _feature_names(settings)
    if progress.generation == 0 and not progress.ladder and settings.ladder_every and settings.ladder_levels:
        # Where the curve starts: the level's own search (the hand-written evaluation).
        progress.ladder += _measure(settings, out, progress, backend, report, on_lost)
        progress.write(out / PROGRESS)
        draw_curve(progress.ladder, progress.matches(), out / CURVE, "learned evaluation")
    while progress.generation < settings.generations:
        if settings.hours is not None and progress.hours >= settings.hours:
            report.line(f"stopping: {progress.hours:.2f} training hours of {settings.hours:g} spent")
            break
        generation = progress.generation + 1
        started, cpu_started = time.monotonic(), cpu_seconds()
        report.phase(f"generation {generation}: self-play games", settings.games_per_generation)
        found: dict[int, SelfPlayGame] = {}
        task = partial(play_evaluation_game, settings, str(out / BEST), generation)
        for finished in backend.run(task, range(settings.games_per_generation), on_lost=on_lost):
            found[finished.index] = finished.value
            report.advance()
        new_x = [row for i in sorted(found) for row in found[i].features]
        new_y = [lead for i in sorted(found) for lead in found[i].leads]
        best = load_evaluation(out / BEST)
        fresh_best = _rmse(new_x, new_y, best.weights)
        features, leads, generations = _keep_newest(
            features + new_x, leads + new_y, generations + [generation] * len(new_y), settings.buffer_positions
        )
        weights = fit_weights(features, leads, l2=settings.l2) if leads else list(best.weights)
        fresh_new = _rmse(new_x, new_y, weights)
        candidate = LearnedEvaluation(
            settings.game,
            settings.players,
            settings.ruleset,
            tuple(names),
            tuple(weights),
            settings.made_by(generation, progress.hours),
        )
        save_evaluation(candidate, out / LATEST)
        gate = play_gate(
            settings,
            settings.learned_spec(out / LATEST),
            settings.learned_spec(out / BEST),
            generation,
            backend,
            report,
            on_lost,
        )
        if gate["decision"] == "H1":
            save_evaluation(candidate, out / BEST)
            progress.best_generation = generation
        np.savez(out / REPLAY, x=np.asarray(features), y=np.asarray(leads), generation=np.asarray(generations))
        progress.hours += (time.monotonic() - started) / 3600
        progress.cpu_hours += (cpu_seconds() - cpu_started) / 3600
        progress.generation = generation
        progress.generations.append(
            {
                "generation": generation,
                "hours": round(progress.hours, 5),
                "cpu_hours": round(progress.cpu_hours, 5),
                "games": sum(1 for g in found.values() if g.leads),
                "positions": len(new_y),
                "replay": len(leads),
                "fresh_rmse": {"best": round(fresh_best, 4), "fitted": round(fresh_new, 4)},
                "weights": dict(zip(names, (round(w, 5) for w in weights), strict=True)),
                "gate": gate,
                "best_generation": progress.best_generation,
            }
        )
        progress.settings = settings
        progress.write(out / PROGRESS)
        report.line(
            f"generation {generation}: {len(found)} games, {len(new_y)} positions; the new games' leads to come, "
            f"rmse {fresh_best:.2f} by the best evaluation, {fresh_new:.2f} by the new fit; gate {gate['decision']} "
            f"(Elo {gate['elo']:+.0f} in {gate['games']} games): best is generation {progress.best_generation}"
        )
        last = generation == settings.generations or (settings.hours is not None and progress.hours >= settings.hours)
        if settings.ladder_every and settings.ladder_levels and (generation % settings.ladder_every == 0 or last):
            progress.ladder += _measure(settings, out, progress, backend, report, on_lost)
            progress.write(out / PROGRESS)
        draw_curve(progress.ladder, progress.matches(), out / CURVE, "learned evaluation")
    return progress


def _measure(
    settings: EvaluationSettings,
    out: Path,
    progress: EvaluationProgress,
    backend: Backend,
    report: Reporter,
    on_lost: Callable[[int, str], None] | None,
) -> list[dict[str, Any]]:
    return measure_ladder(
        settings.learned_spec(out / BEST),
        progress.matches(),
        hours=progress.hours,
        generation=progress.generation,
        best_generation=progress.best_generation,
        backend=backend,
        report=report,
        on_lost=on_lost,
    )


def _start(settings: EvaluationSettings, out: Path, resume: bool) -> EvaluationProgress:
    if resume:
        progress = EvaluationProgress.read(out / PROGRESS)
        for name in FIXED_SETTINGS:
            if getattr(progress.settings, name) != getattr(settings, name):
                raise TrainError(f"--resume: the run in {out} has {name} {getattr(progress.settings, name)!r}")
        if not (out / BEST).exists():
            raise TrainError(f"--resume: {out / BEST} is missing")
        return progress
    if (out / PROGRESS).exists():
        raise TrainError(f"{out} holds a run already: --resume continues it, or choose another directory")
    out.mkdir(parents=True, exist_ok=True)
    names = _feature_names(settings)
    hand = LearnedEvaluation(
        settings.game,
        settings.players,
        settings.ruleset,
        tuple(names),
        tuple(HAND_WRITTEN.get(name, 0.0) for name in names),
        {"command": "the hand-written evaluation (terranova/eval.rs)", "generation": 0},
    )
    save_evaluation(hand, out / BEST)
    progress = EvaluationProgress(settings)
    progress.write(out / PROGRESS)
    return progress


def _feature_names(settings: EvaluationSettings) -> list[str]:
    game = make(settings.game, engine="native")
    state = game.new_initial_state(GameConfig(num_players=settings.players, ruleset=settings.ruleset))
    return position_rows(to_native(state))[0]


def _read_replay(out: Path, done: int) -> tuple[list[list[float]], list[float], list[int]]:
    """The replay's rows of the generations ``progress.json`` records (up to ``done``)."""
    path = out / REPLAY
    if not path.exists():
        return [], [], []
    try:
        with np.load(path, allow_pickle=False) as data:
            x, y, g = data["x"], data["y"], data["generation"]
    except (OSError, ValueError, KeyError) as exc:
        raise TrainError(f"the replay {path} cannot be read: {exc}") from None
    kept = g <= done
    return x[kept].tolist(), y[kept].tolist(), g[kept].tolist()


def _keep_newest(
    x: list[list[float]], y: list[float], g: list[int], limit: int
) -> tuple[list[list[float]], list[float], list[int]]:
    if len(y) <= limit:
        return x, y, g
    return x[-limit:], y[-limit:], g[-limit:]


def _rmse(x: list[list[float]], y: list[float], weights: tuple[float, ...] | list[float]) -> float:
    if not y:
        return 0.0
    predicted = np.asarray(x) @ np.asarray(weights)
    return float(np.sqrt(np.mean((predicted - np.asarray(y)) ** 2)))
