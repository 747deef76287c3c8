"""A training run: generations of self-play, training, gating, measuring; checkpoints.

Each generation (``tabletop train``, ``docs/bots.md``, "Learned bot"):

1. **self-play**: ``games_per_generation`` games by the best network's search
   (:mod:`tabletop.learn.selfplay`), on the batch backend (worker processes or Ray);
   their positions join the replay buffer (the newest ``buffer_positions`` are kept);
2. **training**: first the network is scored on a sample of the new games' positions,
   which it has never learned from (``fresh_loss`` in the progress, beside the targets'
   own entropy, the least a policy loss can be, and a uniform policy's loss), then
   ``train_steps`` Adam steps on batches drawn from the buffer
   (:mod:`tabletop.learn.model`), continuing from the last trained weights;
3. **the gate**: an SPRT match (``tabletop.arena.sprt``, CPU clock) of the trained
   network against the best one (H0 ``gate_elo0``, H1 ``gate_elo1``); H1 makes it the
   best, which then plays the next self-play (AlphaGo Zero's scheme: training goes on
   from the newest weights either way);
4. every ``ladder_every`` generations (and after the last), **the ladder**: short
   matches of the best network against fixed ladder levels (``club``, ``strong``,
   ``master``), each giving its Elo on the ladder's scale, logged with the training
   hours and drawn as the learning curve (``curve.svg``).

The bot that plays a network in the gate and on the ladder is chosen in one place,
:func:`network_agent_spec`: the search with the network (PUCT in Rust,
``puct-file:PATH,sims=N[,mix=M]``) at the run's simulations a move and leaf mix.

**The directory** of a run holds, after each generation: ``best.npz`` and
``latest.npz`` (network files, ``tabletop.core.network``), ``optimizer.npz`` (Adam's
state for ``latest``), ``replay.npz`` (the buffer), ``progress.json`` (the settings,
the generations done, every gate and ladder result) and ``curve.svg``.  A generation's
files are written into ``pending-N/`` and moved into place only once ``progress.json``
records the generation, so an interruption at any moment leaves either the generation
recorded (its files moved into place on resume) or not (they are dropped, and it is
played again).  ``resume=True`` continues from the generation after the last one
recorded, with the same buffer, weights and optimizer state: what a run without a
break would have played.  A ladder measurement interrupted is not repeated.  The game,
seats, ruleset, hidden layers and seed of a run are fixed; ``generations``, ``hours``
and the other settings may change on resume.
"""

from __future__ import annotations

import dataclasses
import json
import math
import resource
import shutil
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, Protocol, Self, TypeVar

import numpy as np

from tabletop.ai.agent import make_agent
from tabletop.ai.ladder import ladder_level
from tabletop.arena.sprt import SprtConfig, SprtState, estimate_elo, play_sprt_game, run_sprt
from tabletop.arena.tournament import ArenaGame, derived_seed
from tabletop.compute.batch import Backend
from tabletop.core.cells import cell_geometry_of
from tabletop.core.encoding import encoding_of
from tabletop.core.errors import ConfigError, TabletopError
from tabletop.core.network import (
    ARCHITECTURES,
    MAX_VALUE_HIDDEN,
    VALUE_KINDS,
    NetworkFileError,
    PolicyValueNetwork,
)
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.learn.curve import CurvePoint, curve_svg
from tabletop.learn.selfplay import (
    POLICY_TARGETS,
    GameSamples,
    ReplayBuffer,
    SelfPlayConfig,
    play_selfplay_game,
)

if TYPE_CHECKING:
    from tabletop.learn.model import Trainer

PROGRESS_FORMAT: Final = "tabletop-train-1"
FIXED_SETTINGS: Final = ("game", "players", "ruleset", "hidden", "seed", "value", "init")
"""The settings a resumed run must share with the run it continues."""

BEST, LATEST, OPTIMIZER, REPLAY, PROGRESS, CURVE = (
    "best.npz",
    "latest.npz",
    "optimizer.npz",
    "replay.npz",
    "progress.json",
    "curve.svg",
)
PENDING = "pending-"
"""A generation's files are written into ``pending-N/`` and moved into place once
``progress.json`` records the generation."""


class TrainError(TabletopError):
    """A run that cannot start or continue (a bad directory, a checkpoint that does not fit)."""


@dataclass(frozen=True, slots=True)
class TrainSettings:
    """Everything a training run does.

    Attributes:
        game: the game id.
        players: seats.
        ruleset: the ruleset preset.
        generations: generations in all (a resumed run continues up to this number).
        games_per_generation: self-play games a generation.
        simulations: the search's simulations per self-play move.
        seed: the master seed (every game, batch and match derives its seed from it).
        hours: stop before a generation once training has taken this many hours (``None``: no limit).
        hidden: the widths of the network's hidden layers (a cells network: all one width,
            the first layer reading each cell's input, each further one its neighbours).
        architecture: the network's (``NetworkMeta.architecture``): ``"dense"`` or
            ``"cells"`` (layers shared by the board's cells: Terra Nova).
        value_hidden: a cells network's value head's hidden width.
        train_steps: Adam steps a generation.
        batch_size: positions per step.
        learning_rate: Adam's step size.
        l2: the weight of the L2 penalty.
        buffer_positions: the most positions the replay buffer keeps.
        sampled_moves: self-play moves drawn in proportion to the visits at a game's start.
        gate_games: the most games of a gate (an SPRT match, CPU clock).
        gate_elo0: the gate's H0: the trained network is at most this much stronger (0: the
            gate asks for a better network; below 0 it keeps the newest unless it is
            probably worse, nearer AlphaZero, which had no gate: a step of +20 Elo a
            generation seldom passes a gate of H0 0, H1 +100, and the self-play then
            never moves on).
        gate_elo1: the gate's H1: the trained network is at least this much stronger.
        ladder_every: measure against the ladder every this many generations (0: never).
        ladder_levels: the ladder levels measured against.
        ladder_games: games against each level (rounded up to whole rounds: one per seat).
        leaf_mix: the share of a leaf's value the network search takes from the game's own
            leaf value (a playout, then the evaluation: ``tabletop.native.puct``), in
            self-play, gates and ladder matches alike (0: the network alone).
        value: what the value head learns and the search maximises (``NetworkMeta.value``):
            ``"placing"``, the share of the rivals a seat finishes ahead of (what the
            SPRT and the pairwise tables score: with three or four seats it tells second
            from last), or ``"win"``, the win share (runs from before it was a setting).
        policy_target: what the policy head learns from a self-play move: ``"visits"``,
            the root's visit shares (AlphaZero), or ``"completed-q"``, the prior improved
            by the root's values (``selfplay.completed_q_policy``: Gumbel MuZero's); it
            can change on resume.
        teacher_sims: 0: self-play by the network's search (PUCT); N: by the rollout MCTS of
            the game's native levels at N simulations a move, whose visits are the policy
            targets (expert iteration's expert; it can change on resume, so a run can
            start from it and go on by its own search).
        init: the network file whose weights the run starts from (``None``: fresh ones),
            e.g. an earlier run's best; its game, seats, ruleset and hidden layers must be
            the run's.
        sparring: a bot spec (``casual``, ``strong``, ...) that plays one seat in
            ``sparring_share`` of the self-play games, the network's search the others;
            only the network's seats are learned from.  Terra Nova's searches agree to a
            draw when they meet themselves (docs/bots.md, "What Terra Nova's networks
            learn"); a rival that plays for territory makes games with a result.  It can
            change on resume.
        sparring_share: the share of a generation's self-play games with a sparring seat
            (spread evenly over the games; the seat goes round).
    """

    game: str
    players: int
    ruleset: str = "default"
    generations: int = 10
    games_per_generation: int = 20
    simulations: int = 200
    seed: int = 0
    hours: float | None = None
    hidden: tuple[int, ...] = (256, 128)
    architecture: str = "dense"
    value_hidden: int = 64
    train_steps: int = 200
    batch_size: int = 128
    learning_rate: float = 1e-3
    l2: float = 1e-4
    buffer_positions: int = 20_000
    sampled_moves: int = 30
    gate_games: int = 100
    gate_elo0: float = 0.0
    gate_elo1: float = 50.0
    ladder_every: int = 5
    ladder_levels: tuple[str, ...] = ("club", "strong", "master")
    ladder_games: int = 6
    leaf_mix: float = 0.0
    value: str = "placing"
    init: str | None = None
    policy_target: str = "visits"
    teacher_sims: int = 0
    sparring: str | None = None
    sparring_share: float = 0.0

    def check(self) -> None:
        """Raises:
        ConfigError: for a setting out of range, an unknown game, seat count, ruleset or level.
        """
        game = make(self.game)
        if not game.min_players <= self.players <= game.max_players:
            raise ConfigError(f"{game.name} seats {game.min_players}-{game.max_players} players, not {self.players}")
        make(self.game, engine="native")  # self-play runs on the native engine
        game.new_initial_state(GameConfig(num_players=self.players, ruleset=self.ruleset, seed=0))
        whole = {
            "generations": self.generations,
            "games_per_generation": self.games_per_generation,
            "simulations": self.simulations,
            "train_steps": self.train_steps,
            "batch_size": self.batch_size,
            "buffer_positions": self.buffer_positions,
            "gate_games": self.gate_games,
            "ladder_games": self.ladder_games,
        }
        for name, value in whole.items():
            if value < 1:
                raise ConfigError(f"{name.replace('_', '-')} must be at least 1, got {value}")
        if self.ladder_every < 0 or self.sampled_moves < 0 or self.teacher_sims < 0:
            raise ConfigError("ladder-every, sampled-moves and teacher-sims must not be negative")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ConfigError(f"hidden layers must have at least one unit each, got {list(self.hidden)}")
        if self.architecture not in ARCHITECTURES:
            raise ConfigError(f"architecture must be one of {', '.join(ARCHITECTURES)}, got {self.architecture!r}")
        if self.architecture == "cells":
            if len(set(self.hidden)) != 1:
                raise ConfigError(f"a cells network's layers are all one width, got {list(self.hidden)}")
            if not 1 <= self.value_hidden <= MAX_VALUE_HIDDEN:
                raise ConfigError(f"value-hidden must be from 1 to {MAX_VALUE_HIDDEN}, got {self.value_hidden}")
            cell_geometry_of(encoding_of(game, GameConfig(num_players=self.players, ruleset=self.ruleset)))
        if self.hours is not None and not 0 < self.hours < math.inf:
            raise ConfigError(f"hours must be positive, got {self.hours}")
        for rate_name, rate in (("learning-rate", self.learning_rate), ("l2", self.l2)):
            if not 0 <= rate < math.inf:
                raise ConfigError(f"{rate_name} must be finite and not negative, got {rate}")
        if not 0 <= self.leaf_mix <= 1:
            raise ConfigError(f"leaf-mix must be from 0 to 1, got {self.leaf_mix}")
        if not -math.inf < self.gate_elo0 < self.gate_elo1 < math.inf:
            raise ConfigError(f"gate-elo0 must be below gate-elo1, got {self.gate_elo0} and {self.gate_elo1}")
        for key in self.ladder_levels:
            ladder_level(key)
        if self.policy_target not in POLICY_TARGETS:
            raise ConfigError(f"policy-target must be one of {', '.join(POLICY_TARGETS)}, got {self.policy_target!r}")
        if self.value not in VALUE_KINDS:
            raise ConfigError(f"value must be one of {', '.join(VALUE_KINDS)}, got {self.value!r}")
        if self.init is not None and not Path(self.init).is_file():
            raise ConfigError(f"the network to start from, {self.init}, is not a file")
        if not 0 <= self.sparring_share <= 1:
            raise ConfigError(f"sparring-share must be from 0 to 1, got {self.sparring_share}")
        if self.sparring_share > 0 and self.sparring is None:
            raise ConfigError("sparring-share needs --sparring, the bot that plays those seats")
        if self.sparring is not None:
            make_agent(self.sparring, seed=0)

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["hidden"] = list(self.hidden)
        data["ladder_levels"] = list(self.ladder_levels)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainSettings:
        """Raises:
        TrainError: if ``data`` is not such settings.
        """
        # Runs from before `value` and `init` were settings learned win shares from scratch.
        older = {"value": "win", "init": None, "gate_elo0": 0.0, "policy_target": "visits", "teacher_sims": 0}
        data = {**older, "sparring": None, "sparring_share": 0.0, "architecture": "dense", "value_hidden": 64, **data}
        try:
            return cls(**{**data, "hidden": tuple(data["hidden"]), "ladder_levels": tuple(data["ladder_levels"])})
        except (TypeError, KeyError) as exc:
            raise TrainError(f"the run's settings cannot be read ({exc})") from None

    def _sparring_options(self) -> str:
        if not self.sparring_share:
            return ""
        return f" --sparring {self.sparring} --sparring-share {self.sparring_share:g}"

    def made_by(self, generation: int, hours: float) -> str:
        """The ``made_by`` of a network of this run."""
        return (
            f"tabletop train {self.game} -n {self.players} --ruleset {self.ruleset} --seed {self.seed} "
            f"--games-per-generation {self.games_per_generation} --sims {self.simulations} "
            f"--hidden {','.join(map(str, self.hidden))} --leaf-mix {self.leaf_mix} --value {self.value}"
            f"{f' --architecture cells --value-hidden {self.value_hidden}' if self.architecture == 'cells' else ''}"
            f"{f' --init {Path(self.init).name}' if self.init else ''}"
            f"{f' --policy-target {self.policy_target}' if self.policy_target != 'visits' else ''}"
            f"{f' --teacher-sims {self.teacher_sims}' if self.teacher_sims else ''}"
            f"{self._sparring_options()}: "
            f"generation {generation}, {hours:.2f} training hours"
        )


class RunSettings(Protocol):
    """What :class:`Progress` and :func:`play_gate` need of a run's settings
    (:class:`TrainSettings`, the evaluation run's ``EvaluationSettings``)."""

    @property
    def game(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def ladder_levels(self) -> tuple[str, ...]: ...
    @property
    def ladder_games(self) -> int: ...
    @property
    def gate_games(self) -> int: ...
    @property
    def gate_elo0(self) -> float: ...
    @property
    def gate_elo1(self) -> float: ...
    def to_json(self) -> dict[str, Any]: ...


SettingsT = TypeVar("SettingsT", bound=RunSettings)


@dataclass
class Progress(Generic[SettingsT]):
    """What a run has done (``progress.json``); each kind of run names its file's format
    (``FORMAT``) and reads its settings (``settings_from_json``).

    Attributes:
        settings: the run's settings (the latest, for a resumed run).
        generation: generations done.
        hours: training hours so far (wall clock of self-play, training and gates).
        cpu_hours: CPU hours of the same, on this machine: this process and its worker
            processes (a Ray cluster's workers are not counted).
        best_generation: the generation of the best file (0: where the run started).
        generations: one entry per generation: positions, losses or fits, the gate.
        ladder: every measurement against the ladder.
    """

    FORMAT: ClassVar[str]
    KIND: ClassVar[str]

    settings: SettingsT
    generation: int = 0
    hours: float = 0.0
    cpu_hours: float = 0.0
    best_generation: int = 0
    generations: list[dict[str, Any]] = field(default_factory=list)
    ladder: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def settings_from_json(cls, data: dict[str, Any]) -> SettingsT:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.FORMAT,
            "settings": self.settings.to_json(),
            "generation": self.generation,
            "hours": self.hours,
            "cpu_hours": self.cpu_hours,
            "best_generation": self.best_generation,
            "generations": self.generations,
            "ladder": self.ladder,
        }

    @classmethod
    def read(cls, path: Path) -> Self:
        """Raises:
        TrainError: if the file is missing or not this kind of run's progress.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TrainError(f"cannot read {path}: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != cls.FORMAT:
            raise TrainError(f"{path} is not the progress of {cls.KIND} ({cls.FORMAT})")
        try:
            return cls(
                cls.settings_from_json(data["settings"]),
                int(data["generation"]),
                float(data["hours"]),
                float(data.get("cpu_hours", 0.0)),
                int(data["best_generation"]),
                list(data["generations"]),
                list(data["ladder"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise TrainError(f"{path} is not the progress of {cls.KIND} ({exc})") from None

    def write(self, path: Path) -> None:
        temporary = path.with_name(path.name + ".part")
        temporary.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        temporary.replace(path)

    def matches(self) -> LadderMatches:
        """The run's ladder matches (its setting, seed, levels and games against each)."""
        s = self.settings
        return LadderMatches(s.game, s.players, s.ruleset, s.seed, s.ladder_levels, s.ladder_games)

    def curve_points(self) -> list[CurvePoint]:
        return [
            CurvePoint(m["hours"], m["generation"], m["level"], m["elo"], m["low"], m["high"])
            for m in self.ladder
            if m.get("elo") is not None
        ]


@dataclass
class RunProgress(Progress[TrainSettings]):
    """A network run's progress (``best.npz``'s generation; 0: the random network)."""

    FORMAT: ClassVar[str] = PROGRESS_FORMAT
    KIND: ClassVar[str] = "a training run"

    @classmethod
    def settings_from_json(cls, data: dict[str, Any]) -> TrainSettings:
        return TrainSettings.from_json(data)


class Reporter(Protocol):
    """Where a run tells its progress (the command line draws bars from it)."""

    def phase(self, description: str, total: int) -> None:
        """A new phase of ``total`` steps begins (self-play games, training steps, gate games)."""

    def advance(self, steps: int = 1) -> None:
        """Steps of the current phase are done."""

    def line(self, text: str) -> None:
        """A line for the log."""


class QuietReporter:
    """Tells nobody."""

    def phase(self, description: str, total: int) -> None:
        pass

    def advance(self, steps: int = 1) -> None:
        pass

    def line(self, text: str) -> None:
        pass


WORKER_PLUGINS: Final = ("tabletop.learn.bots",)
"""The modules a worker must import to play the games of a run: the bot of
:func:`network_agent_spec` is not a built-in kind (``tabletop.learn.bots``).  Local
workers are forked from a process that has them; a Ray backend needs them as plugins."""


GATE_SAMPLED_PLIES: Final = 12
"""The plies at the start of a gate or ladder game the network bots draw in proportion to
their visits: a search on a simulation budget is deterministic, and Medina's first
edition deals nothing, so without it every round of a gate replayed one game."""


def network_agent_spec(path: Path, settings: TrainSettings) -> str:
    """The bot that plays the network file at ``path`` in gates and ladder matches: the
    search with the network (PUCT, ``tabletop.native.puct``) at the run's simulations a
    move and leaf mix, the first :data:`GATE_SAMPLED_PLIES` plies sampled.  The one place
    to choose it."""
    mix = f",mix={settings.leaf_mix}" if settings.leaf_mix else ""
    return f"puct-file:{path},sims={settings.simulations},sample={GATE_SAMPLED_PLIES}{mix}"


def run_training(
    settings: TrainSettings,
    out: Path,
    backend: Backend,
    *,
    resume: bool = False,
    reporter: Reporter | None = None,
    on_lost: Callable[[int, str], None] | None = None,
) -> RunProgress:
    """Trains (see the module docstring) until ``settings.generations`` are done or
    ``settings.hours`` are spent; returns the progress, as ``progress.json`` holds it.

    Args:
        settings: the run.
        out: its directory.
        backend: where the games are played; a Ray backend with :data:`WORKER_PLUGINS`
            among its plugins.
        resume: continue the run in ``out``.
        reporter: told the progress.
        on_lost: told about each game lost with its worker, which is played again.

    Raises:
        ConfigError: for bad settings.
        TrainError: for a directory that holds another run (without ``resume``), or a
            checkpoint that cannot be read or does not fit the settings.
        ImportError: if JAX (the ``train`` extra) is not installed.
    """
    with warnings.catch_warnings():
        # JAX warns at every fork of this (multithreaded) process: the self-play and
        # match workers are forked, but never call JAX, so no lock of JAX's matters there.
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        return _run(settings, out, backend, resume, reporter, on_lost)


def _run(
    settings: TrainSettings,
    out: Path,
    backend: Backend,
    resume: bool,
    reporter: Reporter | None,
    on_lost: Callable[[int, str], None] | None,
) -> RunProgress:
    from tabletop.learn.model import AdamState, Hyper, Trainer  # JAX: the train extra

    settings.check()
    report = reporter if reporter is not None else QuietReporter()
    out = out.resolve()
    progress = _start(settings, out, resume)
    try:
        trainer = Trainer(PolicyValueNetwork.load(out / LATEST), Hyper(settings.learning_rate, settings.l2))
        if (out / OPTIMIZER).exists():
            trainer.state = AdamState.load(out / OPTIMIZER, trainer.params)
        meta = trainer.network.meta
        if (out / REPLAY).exists():
            buffer = ReplayBuffer.load(out / REPLAY, meta.input_size, meta.num_players)
            buffer.resize(settings.buffer_positions)
        else:
            buffer = ReplayBuffer(settings.buffer_positions, meta.input_size, meta.num_players)
    except (OSError, ValueError) as exc:  # NetworkFileError is a ValueError
        raise TrainError(f"the checkpoint in {out} cannot be read: {exc}") from None
    while progress.generation < settings.generations:
        if settings.hours is not None and progress.hours >= settings.hours:
            report.line(f"stopping: {progress.hours:.2f} training hours of {settings.hours:g} spent")
            break
        generation = progress.generation + 1
        started, cpu_started = time.monotonic(), cpu_seconds()
        games = _self_play(settings, out, generation, backend, report, on_lost)
        buffer.add(games)
        positions = sum(len(g) for g in games)
        fresh_loss = _fresh_loss(trainer, buffer, positions, settings, generation)
        losses = _train(trainer, buffer, settings, generation, report)
        pending = _pending_dir(out, generation)
        candidate = trainer.trained(settings.made_by(generation, progress.hours))
        candidate.save(pending / LATEST)
        gate = play_gate(
            settings,
            network_agent_spec(pending / LATEST, settings),
            network_agent_spec(out / BEST, settings),
            generation,
            backend,
            report,
            on_lost,
        )
        promoted = gate["decision"] == "H1"
        if promoted:
            candidate.save(pending / BEST)
        trainer.state.save(pending / OPTIMIZER)
        buffer.save(pending / REPLAY)
        progress.hours += (time.monotonic() - started) / 3600
        progress.cpu_hours += (cpu_seconds() - cpu_started) / 3600
        progress.generation = generation
        if promoted:
            progress.best_generation = generation
        progress.generations.append(
            {
                "generation": generation,
                "hours": round(progress.hours, 5),
                "cpu_hours": round(progress.cpu_hours, 5),
                "games": len(games),
                "positions": positions,
                "buffer": len(buffer),
                "loss": losses,
                "fresh_loss": fresh_loss,
                "gate": gate,
                "best_generation": progress.best_generation,
            }
        )
        progress.settings = settings
        progress.write(out / PROGRESS)  # the generation is done: its files are in `pending`
        _finish_pending(out, progress)
        report.line(
            f"generation {generation}: {len(games)} games, {positions} positions, loss {losses['total']:.3f} "
            f"(policy {losses['policy']:.3f}, value {losses['value']:.3f}); {_fresh_line(fresh_loss)}; "
            f"gate {gate['decision']} "
            f"(Elo {gate['elo']:+.0f} in {gate['games']} games): best is generation {progress.best_generation}"
        )
        last = generation == settings.generations or (settings.hours is not None and progress.hours >= settings.hours)
        if settings.ladder_every and settings.ladder_levels and (generation % settings.ladder_every == 0 or last):
            progress.ladder += _measure(settings, out, progress, backend, report, on_lost)
            progress.write(out / PROGRESS)
        _draw(progress, out)
    return progress


def cpu_seconds() -> float:
    """CPU seconds of this process and of its child processes that have ended (a pool's
    workers end with their batch)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _pending_dir(out: Path, generation: int) -> Path:
    """A new, empty directory for generation ``generation``'s files until it is recorded."""
    pending = out / f"{PENDING}{generation}"
    shutil.rmtree(pending, ignore_errors=True)
    pending.mkdir()
    return pending


def _finish_pending(out: Path, progress: RunProgress) -> None:
    """Moves the files of the last recorded generation into place, and drops those of a
    generation that was not recorded (interrupted before ``progress.json`` named it)."""
    for pending in out.glob(f"{PENDING}*"):
        if pending.name == f"{PENDING}{progress.generation}":
            for path in pending.iterdir():
                path.replace(out / path.name)
        shutil.rmtree(pending)


def _start(settings: TrainSettings, out: Path, resume: bool) -> RunProgress:
    """The progress to continue from: a new run's (its random network written), or the
    checkpoint's (``resume``)."""
    progress_file = out / PROGRESS
    if resume:
        if not progress_file.exists():
            raise TrainError(f"nothing to resume: {out} has no {PROGRESS}")
        progress = RunProgress.read(progress_file)
        old = progress.settings.to_json()
        new = settings.to_json()
        changed = [name for name in FIXED_SETTINGS if old[name] != new[name]]
        if changed:
            raise TrainError(
                f"the run in {out} has other {', '.join(changed)} "
                f"({', '.join(f'{n}={old[n]!r}' for n in changed)}); they cannot change on resume"
            )
        _finish_pending(out, progress)
        for name in (BEST, LATEST):
            if not (out / name).exists():
                raise TrainError(f"{out} lacks {name}: the checkpoint is incomplete")
        progress.settings = settings
        return progress
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TrainError(f"{out} is not empty: give a new directory, or --resume to continue its run")
    out.mkdir(parents=True, exist_ok=True)
    network = PolicyValueNetwork.random(
        settings.game,
        GameConfig(num_players=settings.players, ruleset=settings.ruleset),
        settings.hidden,
        derived_seed(settings.seed, "network"),
        made_by=settings.made_by(0, 0.0),
        value=settings.value,
        architecture=settings.architecture,
        value_hidden=settings.value_hidden,
    )
    if settings.init is not None:
        network = _weights_of(Path(settings.init), network)
    network.save(out / BEST)
    network.save(out / LATEST)
    progress = RunProgress(settings)
    progress.write(progress_file)
    return progress


def _weights_of(path: Path, fresh: PolicyValueNetwork) -> PolicyValueNetwork:
    """``fresh`` (its meta: the run's) with the weights of the network file at ``path``.

    Raises:
        TrainError: if the file cannot be read or is for another game, seats, ruleset or shape.
    """
    try:
        start = PolicyValueNetwork.load(path)
    except NetworkFileError as exc:
        raise TrainError(f"the network to start from cannot be read: {exc}") from None
    theirs, ours = start.meta, fresh.meta
    mine = (
        ours.game,
        ours.num_players,
        ours.ruleset,
        ours.input_size,
        ours.num_actions,
        ours.hidden,
        ours.architecture,
    )
    other = (
        theirs.game,
        theirs.num_players,
        theirs.ruleset,
        theirs.input_size,
        theirs.num_actions,
        theirs.hidden,
        theirs.architecture,
    )
    if mine != other:
        raise TrainError(f"the network to start from, {path}, is for {other}, not the run's {mine}")
    return fresh.with_params(dict(start.params), fresh.meta.made_by)


def _self_play(
    settings: TrainSettings,
    out: Path,
    generation: int,
    backend: Backend,
    report: Reporter,
    on_lost: Callable[[int, str], None] | None,
) -> list[GameSamples]:
    config = SelfPlayConfig(
        settings.game,
        settings.players,
        settings.ruleset,
        str(out / BEST),
        settings.simulations,
        settings.seed,
        generation,
        settings.sampled_moves,
        leaf_mix=settings.leaf_mix,
        policy_target=settings.policy_target,
        teacher_sims=settings.teacher_sims,
        sparring=settings.sparring,
        sparring_share=settings.sparring_share,
    )
    report.phase(f"generation {generation}: self-play games", settings.games_per_generation)
    found: dict[int, GameSamples] = {}
    for finished in backend.run(
        partial(play_selfplay_game, config), range(settings.games_per_generation), on_lost=on_lost
    ):
        found[finished.index] = finished.value
        report.advance()
    return [found[i] for i in sorted(found)]  # in index order: the buffer does not depend on the workers


def _train(
    trainer: Trainer, buffer: ReplayBuffer, settings: TrainSettings, generation: int, report: Reporter
) -> dict[str, float]:
    from tabletop.learn.model import Batch

    rng = np.random.default_rng(derived_seed(settings.seed, "batches", generation))
    report.phase(f"generation {generation}: training steps", settings.train_steps)
    totals = np.zeros(3)
    for _ in range(settings.train_steps):
        drawn = buffer.batch(rng, settings.batch_size, trainer.network.meta.num_actions)
        totals += trainer.step(Batch(drawn["x"], drawn["legal"], drawn["policy"], drawn["value"]))
        report.advance()
    mean = totals / settings.train_steps
    return {"total": round(float(mean[0]), 5), "policy": round(float(mean[1]), 5), "value": round(float(mean[2]), 5)}


FRESH_POSITIONS: Final = 1_024
"""At most this many positions of a generation's new games score the network before it learns from them."""


def _fresh_loss(
    trainer: Trainer, buffer: ReplayBuffer, positions: int, settings: TrainSettings, generation: int
) -> dict[str, float]:
    """The network's policy and value loss on positions it has never learned from (up to
    :data:`FRESH_POSITIONS` drawn from the ``positions`` just added to ``buffer``, before
    it trains on them), with the policy targets' own entropy there (``policy_floor``: no
    network's policy loss goes below it) and a uniform policy's loss (``policy_uniform``).
    The training loss is measured on the buffer the network learns from; a network that
    memorises its buffer lowers that one while this one stays at the uniform policy's
    (docs/bots.md, "What Terra Nova's networks learn").  Empty where there were none."""
    from tabletop.learn.model import Batch

    if positions == 0:
        return {}
    rng = np.random.default_rng(derived_seed(settings.seed, "fresh", generation))
    size = min(FRESH_POSITIONS, positions)
    drawn = buffer.batch(rng, size, trainer.network.meta.num_actions, newest=positions)
    policy_loss, value_loss = trainer.evaluate(Batch(drawn["x"], drawn["legal"], drawn["policy"], drawn["value"]))
    targets = drawn["policy"].astype(np.float64)
    floor = -float(np.sum(targets * np.log(np.where(targets > 0, targets, 1.0)))) / size
    uniform = float(np.mean(np.log(np.maximum(drawn["legal"].sum(axis=1), 1))))
    return {
        "policy": round(policy_loss, 5),
        "value": round(value_loss, 5),
        "policy_floor": round(floor, 5),
        "policy_uniform": round(uniform, 5),
    }


def _fresh_line(fresh: dict[str, float]) -> str:
    if not fresh:
        return "no new positions"
    return (
        f"unseen positions: policy {fresh['policy']:.3f} (targets {fresh['policy_floor']:.3f}, "
        f"uniform {fresh['policy_uniform']:.3f}), value {fresh['value']:.3f}"
    )


def play_gate(
    settings: RunSettings,
    candidate: str,
    baseline: str,
    generation: int,
    backend: Backend,
    report: Reporter,
    on_lost: Callable[[int, str], None] | None,
) -> dict[str, Any]:
    """A generation's gate: an SPRT on the CPU clock of the ``candidate`` bot spec against
    the ``baseline`` (the best so far) within the run's gate settings; its decision, LLR,
    Elo and games as ``progress.json`` records them."""
    config = SprtConfig(
        game=settings.game,
        candidate=candidate,
        baseline=baseline,
        players=settings.players,
        elo0=settings.gate_elo0,
        elo1=settings.gate_elo1,
        max_games=settings.gate_games,
        seed=derived_seed(settings.seed, "gate", generation),
        ruleset=settings.ruleset,
        clock="cpu",
    )
    rounds = math.ceil(settings.gate_games / settings.players)
    report.phase(f"generation {generation}: gate games (at most)", rounds * settings.players)

    def game_done(_game: ArenaGame) -> None:
        report.advance()

    result = run_sprt(config, backend=backend, on_game=game_done, on_lost=on_lost)
    return {
        "decision": result.decision,
        "llr": round(result.llr, 4),
        "elo": round(result.elo.elo, 1),
        "games": len(result.games),
    }


def _measure(
    settings: TrainSettings,
    out: Path,
    progress: RunProgress,
    backend: Backend,
    report: Reporter,
    on_lost: Callable[[int, str], None] | None,
) -> list[dict[str, Any]]:
    """Short matches of the best network against each ladder level: its Elo on the ladder's scale."""
    return measure_ladder(
        network_agent_spec(out / BEST, settings),
        progress.matches(),
        hours=progress.hours,
        generation=progress.generation,
        best_generation=progress.best_generation,
        backend=backend,
        report=report,
        on_lost=on_lost,
    )


@dataclass(frozen=True, slots=True)
class LadderMatches:
    """The ladder matches of a run: its setting, seed, the levels and games against each."""

    game: str
    players: int
    ruleset: str
    seed: int
    levels: tuple[str, ...]
    games: int


def measure_ladder(
    candidate: str,
    matches: LadderMatches,
    *,
    hours: float,
    generation: int,
    best_generation: int,
    backend: Backend,
    report: Reporter,
    on_lost: Callable[[int, str], None] | None,
) -> list[dict[str, Any]]:
    """Short matches of the bot ``candidate`` (a spec: a run's best) against each ladder
    level of ``matches`` (CPU clock, whole rounds): one entry each, with its Elo on the
    ladder's scale (the level's Elo plus the match's), logged at ``hours`` of training
    after ``generation`` generations (the best being ``best_generation``)."""
    found = []
    rounds = math.ceil(matches.games / matches.players)
    for key in matches.levels:
        level = ladder_level(key).installed()
        config = SprtConfig(
            game=matches.game,
            candidate=candidate,
            baseline=key,
            players=matches.players,
            max_games=rounds * matches.players,
            seed=derived_seed(matches.seed, "ladder", generation, key),
            ruleset=matches.ruleset,
            clock="cpu",
        )
        state = SprtState(config)
        report.phase(f"generation {generation}: games against {key}", rounds * matches.players)
        for finished in backend.run(partial(play_sprt_game, config), range(rounds * matches.players), on_lost=on_lost):
            state.add(finished.value)
            report.advance()
        while state.next_round_complete() and state.rounds < rounds:
            state.count_round()
        estimate = estimate_elo(state.round_counts)
        base = level.elo.get(matches.game)
        entry: dict[str, Any] = {
            "hours": round(hours, 5),
            "generation": best_generation,
            "trained_generations": generation,
            "level": key,
            "level_elo": base,
            "games": len(state.games),
            "score": round(estimate.score, 4),
            "elo_vs_level": round(estimate.elo, 1),
            "elo": None if base is None else round(base + estimate.elo, 1),
            "low": None if base is None else round(base + estimate.low, 1),
            "high": None if base is None else round(base + estimate.high, 1),
        }
        found.append(entry)
        report.line(
            f"vs {key}: score {estimate.score:.2f} in {len(state.games)} games, Elo {estimate.elo:+.0f} against it"
            + ("" if base is None else f" ({base + estimate.elo:.0f} on the ladder's scale)")
        )
    return found


def draw_curve(ladder: list[dict[str, Any]], matches: LadderMatches, path: Path, learned: str) -> None:
    """The learning curve of a run's ladder entries (:func:`measure_ladder`) as an SVG at
    ``path``; ``learned`` names what was learned in the title."""
    level_elo = {}
    for key in matches.levels:
        elo = ladder_level(key).installed().elo.get(matches.game)
        if elo is not None:
            level_elo[key] = float(elo)
    points = [
        CurvePoint(m["hours"], m["generation"], m["level"], m["elo"], m["low"], m["high"])
        for m in ladder
        if m.get("elo") is not None
    ]
    title = f"{matches.game}, {matches.players} players: the {learned}'s Elo by training hours"
    path.write_text(str(curve_svg(points, level_elo, title=title)) + "\n", encoding="utf-8")


def _draw(progress: RunProgress, out: Path) -> None:
    draw_curve(progress.ladder, progress.matches(), out / CURVE, "learned network")
