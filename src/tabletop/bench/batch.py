"""Batch benchmark: one arena on each backend of ``tabletop.compute.batch`` (``tabletop bench batch``).

The same arena (cheap bots by default, so the backend's cost per game shows) is played
with one and two local worker processes and on a Ray instance started here with one and
two workers, the backends alternated ``repeat`` times.  Each run is measured in
wall-clock seconds and in CPU seconds of the arena itself: this process and every
process under it (pool workers; Ray's raylet, GCS and workers), read from ``/proc``
while they live and from ``getrusage`` once reaped.  A row keeps the best of its runs
and its ratios to one local process (the yardstick, measured in the same run).  Ray's
start (wall clock and CPU) and stop (wall clock only: Ray's processes end unreaped, so
their CPU cannot be read after) are timed apart: they are paid once per command, not per
game.  Without Ray (the ``cluster`` extra) the Ray rows are left out.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

from tabletop.arena.tournament import TournamentConfig, run_tournament
from tabletop.compute.batch import Backend, LocalBackend, RayBackend

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """One backend to measure.

    Attributes:
        name: the row's label.
        workers: worker processes (local) or Ray CPUs.
        ray: on a Ray instance started here (else local processes).
    """

    name: str
    workers: int
    ray: bool


YARDSTICK = BackendSpec("local, 1 process", 1, False)
BACKENDS = (
    YARDSTICK,
    BackendSpec("local, 2 processes", 2, False),
    BackendSpec("ray, 1 worker", 1, True),
    BackendSpec("ray, 2 workers", 2, True),
)
"""What ``tabletop bench batch`` measures, in this order each round; the first is the yardstick."""

RAY_MISSING = "Ray is not installed (pip install 'tabletop[cluster]'): the Ray rows are left out"


@dataclass(frozen=True, slots=True)
class Timing:
    """Wall-clock and CPU seconds of one measured stretch."""

    wall_s: float
    cpu_s: float


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One backend's best run (least wall clock, least CPU, each taken apart).

    Attributes:
        name: the backend's label.
        games: games per run.
        wall_s: wall-clock seconds of the arena.
        cpu_s: CPU seconds of the arena, worker processes included.
        wall_ratio: ``wall_s`` over the yardstick's.
        cpu_ratio: ``cpu_s`` over the yardstick's.
        runs: how many runs the best is taken from.
    """

    name: str
    games: int
    wall_s: float
    cpu_s: float
    wall_ratio: float
    cpu_ratio: float
    runs: int

    @property
    def games_per_second(self) -> float:
        """Games per wall-clock second."""
        return self.games / self.wall_s

    @property
    def cpu_ms_per_game(self) -> float:
        """CPU milliseconds per game."""
        return 1000 * self.cpu_s / self.games


@dataclass(frozen=True, slots=True)
class BatchBench:
    """What ``tabletop bench batch`` found.

    Attributes:
        rows: one per backend measured, the yardstick first.
        ray_start: the best start of a Ray instance here (``None``: no Ray row ran).
        ray_stop_wall_s: the best stop of it in wall-clock seconds (``None``: no Ray row
            ran).  Its CPU is not measured: Ray's processes exit without this process
            reaping them, so what they spent leaves the count with them.
        notes: why rows were left out (e.g. Ray not installed).
    """

    rows: tuple[BatchRow, ...]
    ray_start: Timing | None
    ray_stop_wall_s: float | None
    notes: tuple[str, ...] = ()


def ray_installed() -> bool:
    """Whether Ray (the ``cluster`` extra) can be imported."""
    return importlib.util.find_spec("ray") is not None


def _descendants_cpu() -> float:
    """CPU seconds of the live processes under this one (from ``/proc``; 0 where there is none)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return 0.0
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # The command name (in parentheses) may hold spaces: split after its last ")".
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime
    mine, total, frontier = {os.getpid()}, 0.0, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in mine:
                mine.add(pid)
                frontier.append(pid)
                total += cpu[pid]
    return total


def arena_cpu_seconds() -> float:
    """CPU seconds of this process, of its reaped children and of its live descendants."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + _descendants_cpu()


def _timed_arena(config: TournamentConfig, backend: Backend) -> Timing:
    cpu, wall = arena_cpu_seconds(), time.perf_counter()
    played = run_tournament(config, backend=backend)
    timing = Timing(time.perf_counter() - wall, arena_cpu_seconds() - cpu)
    if len(played) != config.games:
        raise RuntimeError(f"{spec_text(config)}: {len(played)} games played, {config.games} asked")
    return timing


def spec_text(config: TournamentConfig) -> str:
    """``200 games of medina (random,random,random)``."""
    return f"{config.games} games of {config.game} ({','.join(config.bots)})"


def bench_batch(config: TournamentConfig, repeat: int = 2, backends: tuple[BackendSpec, ...] = BACKENDS) -> BatchBench:
    """Plays ``config``'s arena on every backend, the backends alternated ``repeat`` times.

    Args:
        config: the arena (game, bots, games, seed).
        repeat: rounds over the backends; each row keeps its best run.
        backends: what to measure; the first is the yardstick of the ratios.  Ray backends
            are left out (with a note) when Ray is not installed.

    Raises:
        ValueError: for ``repeat`` below 1, or no local backend to serve as yardstick.
        ConfigError: for a bad game or bot spec (before any game is played).
        BatchError: if Ray cannot start.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    notes: list[str] = []
    if any(spec.ray for spec in backends) and not ray_installed():
        backends = tuple(spec for spec in backends if not spec.ray)
        notes.append(RAY_MISSING)
    if not backends or backends[0].ray:
        raise ValueError("the first backend is the yardstick and must be local processes")
    runs: dict[str, list[Timing]] = {spec.name: [] for spec in backends}
    starts: list[Timing] = []
    stops: list[float] = []
    for _ in range(repeat):
        for spec in backends:
            backend: Backend
            if spec.ray:
                cpu, wall = arena_cpu_seconds(), time.perf_counter()
                backend = RayBackend(num_cpus=spec.workers)
                starts.append(Timing(time.perf_counter() - wall, arena_cpu_seconds() - cpu))
            else:
                backend = LocalBackend(spec.workers)
            try:
                runs[spec.name].append(_timed_arena(config, backend))
            finally:
                wall = time.perf_counter()
                backend.close()
                if spec.ray:
                    stops.append(time.perf_counter() - wall)
    base = _best(runs[backends[0].name])
    rows = []
    for spec in backends:
        best = _best(runs[spec.name])
        rows.append(
            BatchRow(
                name=spec.name,
                games=config.games,
                wall_s=best.wall_s,
                cpu_s=best.cpu_s,
                wall_ratio=best.wall_s / base.wall_s,
                cpu_ratio=best.cpu_s / base.cpu_s if base.cpu_s > 0 else float("nan"),
                runs=len(runs[spec.name]),
            )
        )
    return BatchBench(tuple(rows), _best(starts) if starts else None, min(stops) if stops else None, tuple(notes))


def _best(timings: list[Timing]) -> Timing:
    """The least wall clock and the least CPU of the runs (each the least disturbed by the machine's load)."""
    return Timing(min(t.wall_s for t in timings), min(t.cpu_s for t in timings))
