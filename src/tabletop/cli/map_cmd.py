"""``tabletop map``: tools for island maps (Terra Nova's), reached through the game's
optional ``lint_map`` hook, so the command line imports no game's internals.

``tabletop map lint FILE`` loads a map (the loader's checks V1-V4), then runs the
requirements for shipped maps (M1-M8, spec §2.3) and prints every check as passed or
failed with the figures it measured.  The exit status is 0 when everything passes, 1
when a check fails and 2 when the file cannot be loaded at all: a file that cannot be
read as JSON (missing, bigger than ``MAX_FILE_BYTES``, nested too deeply) gets a one-line
error on stderr, a map that breaks V1-V4 or a limit gets every problem listed.
"""

from __future__ import annotations

from typing import Annotated

import typer

from tabletop.cli.output import fail
from tabletop.core.errors import TabletopError
from tabletop.core.registry import available_games, make

map_app = typer.Typer(
    help="Island maps (Terra Nova): check a map file against the rules for shipped maps.",
    no_args_is_help=True,
    add_completion=False,
)


@map_app.callback()
def map_group() -> None:
    """Island maps of the games that have them (Terra Nova)."""


@map_app.command()
def lint(
    source: Annotated[str, typer.Argument(help="A map file (JSON) or a built-in map id such as isola.")],
    game_id: Annotated[str, typer.Option("--game", help="The game whose maps these are.")] = "terranova",
) -> None:
    """Check a map: loader rules V1-V4, then M1-M8; exit non-zero if any check fails."""
    try:
        game = make(game_id)
    except TabletopError as exc:
        fail(str(exc))
    lint_map = getattr(game, "lint_map", None)  # an optional Game hook: only games with maps have it
    if lint_map is None:
        with_maps = [g for g in available_games() if hasattr(make(g), "lint_map")]
        fail(f"{game_id} has no maps to check (games with maps: {', '.join(with_maps) or 'none'})")
    try:
        report = lint_map(source)
    except TabletopError as exc:  # a file that cannot be read as JSON: one line on stderr
        fail(str(exc))
    for line in report.lines:
        typer.echo(line)
    raise typer.Exit(report.status)
