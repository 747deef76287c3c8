"""``tabletop serve``: the web app on uvicorn (SQLite file by default, PostgreSQL by URL)."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from tabletop.cli.output import fail
from tabletop.core.errors import ConfigError
from tabletop.server.config import DEFAULT_DB_URL, Settings


def serve(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option("--db", help=f"SQLAlchemy database URL (default $TABLETOP_DB or {DEFAULT_DB_URL})."),
    ] = None,
    bot_budget: Annotated[float | None, typer.Option("--bot-budget", help="Seconds a bot may think per move.")] = None,
    bot_workers: Annotated[int | None, typer.Option("--bot-workers", help="Bot worker processes.")] = None,
    bot_delay: Annotated[float | None, typer.Option("--bot-delay", help="Pause before each bot move.")] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "info",
) -> None:
    """Starts the web app: play Terra Nova and Medina in the browser."""
    import uvicorn

    from tabletop.server.app import create_app

    try:
        settings = Settings.from_env(
            db_url=db, bot_time_budget_s=bot_budget, bot_workers=bot_workers, bot_delay_s=bot_delay
        )
    except ConfigError as exc:
        fail(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    typer.echo(f"tabletop web app on http://{host}:{port}/ (database {settings.db_url})")
    # The websocket layer refuses frames far over the app's own message limit before
    # buffering them (close code 1009); the app answers the rest with error frames.
    uvicorn.run(
        create_app(settings), host=host, port=port, log_level=log_level, ws_max_size=4 * settings.max_ws_message_bytes
    )


def bench_server(seconds: float = 60.0, seed: int = 0) -> None:
    """``tabletop bench server``: 200 simultaneous games of simulated players against one server.

    ``seconds`` below 30 is raised to 30 so the run reaches a steady state; the number of
    games and the think time come from ``TABLETOP_BENCH_GAMES`` / ``TABLETOP_BENCH_THINK``
    (``python -m tabletop.server.bench --help`` has every knob).
    """
    import os

    from tabletop.server.bench import run_bench

    games = int(os.environ.get("TABLETOP_BENCH_GAMES", "200"))
    think = float(os.environ.get("TABLETOP_BENCH_THINK", "1.0"))
    typer.echo(f"bench server: {games} games, think time {think:g} s, {max(seconds, 30.0):g} s ...")
    try:
        result = run_bench(games=games, seconds=max(seconds, 30.0), think_s=think, seed=seed)
    except KeyboardInterrupt:
        typer.echo("bench server: interrupted; the server process is stopped, nothing was measured", err=True)
        raise typer.Exit(130) from None
    except RuntimeError as exc:
        typer.echo(f"bench server: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(result.summary())
    ok = result.errors == 0 and result.lost == 0 and result.percentile(99) < 100
    typer.echo("bar (p99 < 100 ms, no error, no lost action): " + ("met" if ok else "NOT met"))


def main() -> None:
    """Runs ``serve`` on its own (``python -m tabletop.cli.serve_cmd``)."""
    typer.run(serve)


if __name__ == "__main__":
    main()
