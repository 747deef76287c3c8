"""The options every batch command shares (``arena``, ``sprt``, ``selfplay``, ``analyse``):
where the games run (``--jobs``, ``--ray``) and the modules the workers import (``--plugin``)."""

from __future__ import annotations

from typing import Annotated

import typer

from tabletop.cli.output import fail, note
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
