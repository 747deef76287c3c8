"""``tabletop analyse RECORD``: every turn of a game judged against a bot's (``docs/analysis.md``).

Prints a summary per seat (marks, average loss, accuracy) and the marked turns with
the bot's better turn; ``--json`` prints the whole analysis (every judged turn) as
JSON instead.  Bad input (a missing or corrupt record, an unknown bot) is one line on
stderr and exit status 2, like every other command.

Given several records, each is one task of a batch (:mod:`tabletop.compute.batch`:
``--jobs`` local processes or ``--ray``): one table row per record and seat, ``--json``
a list, ``--out DIR`` one ``STEM.analysis.json`` per record.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from tabletop.ai.agent import make_agent
from tabletop.ai.analysis import DEFAULT_REPLIES, Analysis, SeatSummary, Thresholds, analyse_record
from tabletop.cli.batch_opts import JobsOpt, PluginOpt, RayOpt, check_plugins, open_batch, replaying
from tabletop.cli.output import console, err_console, fail, note
from tabletop.core.errors import TabletopError
from tabletop.core.record import GameRecord

DEFAULT_LEVEL = "greedy"
"""The judging bot when ``--level`` is not given: the fastest that looks a turn ahead."""


SEAT_COLUMNS = ("seat", "player", "turns", "?!", "?", "??", "avg loss", "accuracy")
"""The columns of a seat's line in the analysis tables (one record, or many)."""


def _seat_cells(s: SeatSummary, names: list[str]) -> list[str]:
    """A seat's line under :data:`SEAT_COLUMNS`."""
    return [
        str(s.seat + 1),
        names[s.seat],
        str(s.turns),
        str(s.inaccuracies),
        str(s.mistakes),
        str(s.blunders),
        f"{s.average_loss:.1f}",
        f"{s.accuracy:.0f}%",
    ]


def _thresholds(text: str | None) -> Thresholds | None:
    if text is None:
        return None
    try:
        values = [float(part) for part in text.split(",")]
        if len(values) != 3 or not all(math.isfinite(v) for v in values):
            raise ValueError
        return Thresholds(*values)
    except ValueError:
        fail(f"--thresholds must be three rising positive numbers of points, e.g. 2,5,10; got {text!r}")


def analyse(
    record_paths: Annotated[
        list[Path], typer.Argument(help="Game records (JSON): one, or many for a batch.", show_default=False)
    ],
    level: Annotated[
        str, typer.Option("--level", help="The judging bot: any bot spec, e.g. greedy, mcts:2, mcts:3@0.5s.")
    ] = DEFAULT_LEVEL,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole analysis as JSON.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the judging bot.")] = 0,
    replies: Annotated[
        int, typer.Option("--replies", min=0, max=8, help="Turns of answer played before a turn is valued.")
    ] = DEFAULT_REPLIES,
    thresholds: Annotated[
        str | None,
        typer.Option(
            "--thresholds", help="Inaccuracy,mistake,blunder in points (default: scaled to the winner's score)."
        ),
    ] = None,
    every_turn: Annotated[
        bool, typer.Option("--all", help="List every judged turn, not only the marked ones.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for one STEM.analysis.json per record.")
    ] = None,
    jobs: JobsOpt = None,
    ray: RayOpt = None,
    plugin: PluginOpt = None,
) -> None:
    """Judge every turn of every seat against a bot's: inaccuracies, mistakes, blunders and better turns."""
    plugins = check_plugins(plugin)
    if len(record_paths) > 1 or out is not None or ray is not None:
        analyse_batch(record_paths, level, seed, replies, _thresholds(thresholds), as_json, out, (ray, jobs, plugins))
        return
    record_path = record_paths[0]
    try:
        record = GameRecord.read_file(record_path)
    except TabletopError as exc:
        message = str(exc)
        fail(message if message.startswith(("cannot read", str(record_path))) else f"{record_path}: {message}")
    limits = _thresholds(thresholds)
    try:
        make_agent(level, seed=seed)  # an unknown bot fails before the record is read through
    except TabletopError as exc:
        fail(str(exc))
    if not as_json:
        note(f"analysing {len(record.actions)} actions with {level} (see docs/analysis.md for what it costs)")
    try:
        if err_console.is_terminal:  # a long game takes minutes: show how far it is
            with Progress(console=err_console, transient=True) as bar:
                task = bar.add_task("analysing", total=len(record.actions))
                result = analyse_record(
                    record,
                    level,
                    seed=seed,
                    thresholds=limits,
                    replies=replies,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )
        else:
            result = analyse_record(record, level, seed=seed, thresholds=limits, replies=replies)
    except TabletopError as exc:
        message = str(exc)
        fail(f"{record_path}: {message}")
    if as_json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return
    print_analysis(result, record, every_turn=every_turn)


def print_analysis(result: Analysis, record: GameRecord, *, every_turn: bool = False) -> None:
    """The summary table and the marked (or every) turn, for people."""
    names = [p.name for p in record.players]
    low, mid, high = result.thresholds.as_tuple()
    console.print(
        f"Judged by {result.level}: a turn losing {low:g}+ points against the bot's is an inaccuracy, "
        f"{mid:g}+ a mistake, {high:g}+ a blunder (?!, ? and ?? below).",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    table = Table(*SEAT_COLUMNS)
    for s in result.seats:
        table.add_row(*_seat_cells(s, names))
    console.print(table)
    if not result.complete:
        note(f"time ran out: the turns from action {result.judged_until} of {result.actions} on are not judged")
    shown = [t for t in result.turns if every_turn or t.mark is not None]
    if not shown:
        console.print("No turn lost enough against the bot's to be marked.", markup=False)
    for t in shown:
        mark = t.mark or ("best" if t.same else "good")
        better = "the bot agrees" if t.same else f"better {' '.join(t.best)} ({t.best_value:+.1f})"
        console.print(
            f"ply {t.ply} (turn {t.turn}), {names[t.seat]}: {mark}, -{t.loss:.1f} points: "
            f"played {' '.join(t.played)} ({t.played_value:+.1f}); {better}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


@dataclass(frozen=True)
class AnalysisJob:
    """A batch of records to judge: each record's JSON (a worker on another machine
    cannot read this machine's files) and the judge's settings."""

    records: tuple[str, ...]
    level: str
    seed: int
    thresholds: Thresholds | None
    replies: int


def analyse_one(job: AnalysisJob, index: int) -> Analysis:
    """Judges record ``index`` of the batch (deterministic given the job and the index)."""
    record = GameRecord.loads(job.records[index])
    return analyse_record(record, job.level, seed=job.seed, thresholds=job.thresholds, replies=job.replies)


def analyse_batch(
    paths: list[Path],
    level: str,
    seed: int,
    replies: int,
    thresholds: Thresholds | None,
    as_json: bool,
    out: Path | None,
    where: tuple[str | None, int | None, tuple[str, ...]],
) -> None:
    """``tabletop analyse`` of several records (or of one with ``--out`` or ``--ray``)."""
    records = []
    for path in paths:
        try:
            records.append(GameRecord.read_file(path))
        except TabletopError as exc:
            message = str(exc)
            fail(message if message.startswith(("cannot read", str(path))) else f"{path}: {message}")
    try:
        make_agent(level, seed=seed)
    except TabletopError as exc:
        fail(str(exc))
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot create the directory {out}: {exc.strerror or exc}")
    job = AnalysisJob(tuple(r.dumps() for r in records), level, seed, thresholds, replies)
    ray, jobs, plugins = where
    backend = open_batch(ray, jobs, plugins)
    results: dict[int, Analysis] = {}
    try:
        with Progress(console=err_console, transient=True, auto_refresh=False) as bar:
            task = bar.add_task(f"analysing {len(paths)} records", total=len(paths))
            for finished in backend.run(partial(analyse_one, job), range(len(paths)), on_lost=replaying):
                results[finished.index] = finished.value
                if out is not None:
                    target = out / f"{paths[finished.index].stem}.analysis.json"
                    text = json.dumps(finished.value.to_json(), indent=2, ensure_ascii=False) + "\n"
                    try:
                        target.write_text(text, encoding="utf-8")
                    except OSError as exc:
                        fail(f"cannot write {target}: {exc.strerror or exc}")
                bar.advance(task)
                bar.refresh()
    except TabletopError as exc:
        fail(str(exc))
    finally:
        settings = backend.settings
        backend.close()
    if as_json:
        listed = [{"record": str(paths[i]), **results[i].to_json()} for i in range(len(paths))]
        print(json.dumps(listed, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"Judged by {level}")
    table.add_column("record", no_wrap=True)
    for heading in SEAT_COLUMNS:
        table.add_column(heading)
    for i, path in enumerate(paths):
        names = [p.name for p in records[i].players]
        for s in results[i].seats:
            table.add_row(path.name, *_seat_cells(s, names))
    console.print(table)
    console.print(f"Run: {settings.describe()}", markup=False, highlight=False)
    if out is not None:
        console.print(f"{len(paths)} analyses written to {out}", markup=False)
