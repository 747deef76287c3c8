"""``tabletop map``: tools for Terra Nova island maps.

``tabletop map lint FILE`` loads a map (the loader's checks V1-V4), then runs the
requirements for shipped maps (M1-M8, spec §2.3) and prints every check as passed or
failed with the figures it measured.  The exit status is 0 when everything passes, 1
when a check fails and 2 when the file cannot be loaded at all: a file that cannot be
read as JSON (missing, bigger than ``MAX_FILE_BYTES``, nested too deeply) gets a one-line
error on stderr, a map that breaks V1-V4 or a limit gets every problem listed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tabletop.cli.output import fail
from tabletop.games.terranova.mapfile import MapError, builtin_maps, load_map, read_map_json
from tabletop.games.terranova.maplint import check_map

map_app = typer.Typer(
    help="Terra Nova island maps: check a map file against the rules for shipped maps.",
    no_args_is_help=True,
    add_completion=False,
)


@map_app.callback()
def map_group() -> None:
    """Terra Nova island maps."""


@map_app.command()
def lint(
    source: Annotated[str, typer.Argument(help="A map file (JSON) or a built-in map id such as isola.")],
) -> None:
    """Check a map: loader rules V1-V4, then M1-M8; exit non-zero if any check fails."""
    if source in builtin_maps():
        data = load_map(source).to_json()
    else:
        try:  # a file that cannot be read as JSON: one line on stderr
            data = read_map_json(Path(source))
        except MapError as exc:
            fail(str(exc))
    try:
        island = load_map(data)
    except MapError as exc:
        typer.echo(f"FAIL  V1-V4 the map does not load: {source}")
        for problem in exc.problems:
            typer.echo(f"        {problem}")
        raise typer.Exit(2) from None
    typer.echo(f"Map {island.id!r} ({island.name}): {len(island.cells)} cells, {len(island.landscapes)} landscapes")
    typer.echo("pass  V1-V4 the loader's checks")
    results = check_map(island)
    for result in results:
        mark = "pass" if result.passed else "FAIL"
        typer.echo(f"{mark}  {result.rule} {result.title}: {result.figures}")
        for issue in result.issues:
            typer.echo(f"        {issue.message}")
    failed = [r.rule for r in results if not r.passed]
    if failed:
        typer.echo(f"{len(failed)} of {len(results)} checks failed: {' '.join(failed)}")
        raise typer.Exit(1)
    typer.echo(f"All {len(results)} checks passed.")
