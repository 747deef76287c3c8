"""The options every batch command shares (``arena``, ``sprt``, ``selfplay``, ``analyse``):
where the games run (``--jobs``, ``--ray``) and the modules the workers import (``--plugin``)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from tabletop.cli.output import err_console, fail, note
from tabletop.compute.batch import Backend, load_plugins, open_backend
from tabletop.core.errors import TabletopError

JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", min=0, help="Worker processes (0: one per core; default: 1, with --ray every core Ray has)."
    ),
]
RayOpt = Annotated[
    str | None,
    typer.Option(
        "--ray",
        metavar="[ADDRESS]",
        help="Play on Ray: alone (or 'local'), a Ray instance started on this machine; with ADDRESS (HOST:PORT of a "
        "cluster's head), that cluster (docs/cluster.md; needs Ray: the cluster extra).",
    ),
]
PluginOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--plugin", help="A module every worker imports first: your own bots or games (repeatable; docs/cluster.md)."
    ),
]


def check_plugins(plugins: list[str] | None) -> tuple[str, ...]:
    """Imports the plugins here (their bots and games are checked before the games), or fails in one line."""
    names = tuple(plugins or ())
    try:
        load_plugins(names)
    except TabletopError as exc:
        fail(str(exc))
    return names


def open_batch(ray: str | None, jobs: int | None, plugins: tuple[str, ...]) -> Backend:
    """The backend the options ask for, or one line and exit status 2 (Ray missing or unreachable)."""
    try:
        return open_backend(ray, jobs=jobs, plugins=plugins)
    except TabletopError as exc:
        fail(str(exc))


def replaying(index: int, reason: str) -> None:
    """Says that a game lost with its worker is played again."""
    note(f"game {index} was lost ({reason}); playing it again")


def batch_progress(*, time_remaining: bool = False, transient: bool = False, terminal_only: bool = False) -> Progress:
    """The bar of a batch command's games (description, bar, done of total, time), on
    standard error; ``terminal_only``: none where standard error is not a terminal.

    No refresh thread: worker processes are forked, and forking while another thread may
    hold a lock (the console's) can deadlock the child.
    """
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if time_remaining:
        columns.append(TimeRemainingColumn())
    return Progress(
        *columns,
        console=err_console,
        transient=transient,
        auto_refresh=False,
        disable=terminal_only and not err_console.is_terminal,
    )
