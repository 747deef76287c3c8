"""``tabletop analyse RECORD``: every turn of a game judged against a bot's (``docs/analysis.md``).

Prints a summary per seat (marks, average loss, accuracy) and the marked turns with
the bot's better turn; ``--json`` prints the whole analysis (every judged turn) as
JSON instead.  Bad input (a missing or corrupt record, an unknown bot) is one line on
stderr and exit status 2, like every other command.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from tabletop.ai.agent import make_agent
from tabletop.ai.analysis import DEFAULT_REPLIES, Analysis, Thresholds, analyse_record
from tabletop.cli.output import console, err_console, fail, note
from tabletop.core.errors import TabletopError
from tabletop.core.record import GameRecord

DEFAULT_LEVEL = "greedy"
"""The judging bot when ``--level`` is not given: the fastest that looks a turn ahead."""


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
    record_path: Annotated[Path, typer.Argument(help="A game record (JSON).", show_default=False)],
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
) -> None:
    """Judge every turn of every seat against a bot's: inaccuracies, mistakes, blunders and better turns."""
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
    table = Table("seat", "player", "turns", "?!", "?", "??", "avg loss", "accuracy")
    for s in result.seats:
        table.add_row(
            str(s.seat + 1),
            names[s.seat],
            str(s.turns),
            str(s.inaccuracies),
            str(s.mistakes),
            str(s.blunders),
            f"{s.average_loss:.1f}",
            f"{s.accuracy:.0f}%",
        )
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
