"""Games per second of one arena on each backend of ``tabletop.compute.batch`` (docs/benchmarks.md).

    .venv/bin/python tools/bench_batch.py [--games 200] [--repeat 2] [--game medina --bots random,random,random]

Plays the same arena (cheap bots, so the backend's cost per game shows) with one and two
local worker processes and on a Ray instance started here with one and two workers, the
four alternated ``--repeat`` times.  For each run it prints the wall-clock seconds and
the CPU seconds of the arena itself (the driver and every process under it: pool
workers, Ray's raylet and workers), and their ratios to one local process (the
yardstick, measured in the same run).  Ray's start and stop are timed apart: they are
paid once per command, not per game.  Needs the ``cluster`` extra.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from tabletop.arena.tournament import TournamentConfig, run_tournament
from tabletop.compute.batch import Backend, LocalBackend, RayBackend

TICKS = os.sysconf("SC_CLK_TCK")
BACKENDS = (
    ("local, 1 process", 1, False),
    ("local, 2 processes", 2, False),
    ("ray, 1 worker", 1, True),
    ("ray, 2 workers", 2, True),
)
"""What is measured: a name, the workers, and whether on Ray (started here)."""


def _descendants_cpu() -> float:
    """CPU seconds of the live processes under this one (read from /proc)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICKS
    mine, total, frontier = {os.getpid()}, 0.0, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in mine:
                mine.add(pid)
                frontier.append(pid)
                total += cpu[pid]
    return total


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + _descendants_cpu()


def _run(config: TournamentConfig, backend: Backend) -> tuple[float, float]:
    cpu, wall = _cpu(), time.perf_counter()
    games = run_tournament(config, backend=backend)
    assert len(games) == config.games
    return time.perf_counter() - wall, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="medina")
    parser.add_argument("--bots", default="random,random,random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    config = TournamentConfig(args.game, tuple(args.bots.split(",")), args.games, seed=1)
    results: dict[str, list[tuple[float, float]]] = {}
    starts: list[tuple[float, float]] = []
    for _ in range(args.repeat):
        for name, jobs, ray in BACKENDS:
            if ray:
                cpu, wall = _cpu(), time.perf_counter()
                backend: Backend = RayBackend(num_cpus=jobs)
                starts.append((time.perf_counter() - wall, _cpu() - cpu))
            else:
                backend = LocalBackend(jobs)
            try:
                results.setdefault(name, []).append(_run(config, backend))
            finally:
                backend.close()
    base_wall = min(w for w, _ in results["local, 1 process"])
    base_cpu = min(c for _, c in results["local, 1 process"])
    print(f"{args.games} games of {args.game} ({args.bots}), best of {args.repeat}; ratios to one local process")
    print(f"{'backend':<20} {'wall s':>7} {'games/s':>8} {'x wall':>7} {'CPU s':>7} {'x CPU':>6} {'CPU ms/game':>12}")
    for name, runs in results.items():
        wall = min(w for w, _ in runs)
        cpu = min(c for _, c in runs)
        print(
            f"{name:<20} {wall:7.2f} {args.games / wall:8.1f} {wall / base_wall:7.2f} {cpu:7.2f} "
            f"{cpu / base_cpu:6.2f} {1000 * cpu / args.games:12.1f}"
        )
    wall, cpu = min(w for w, _ in starts), min(c for _, c in starts)
    print(f"starting and connecting to Ray here: {wall:.1f} s wall, {cpu:.1f} s CPU (once per command)")


if __name__ == "__main__":
    main()
