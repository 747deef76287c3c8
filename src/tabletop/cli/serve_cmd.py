"""``tabletop serve``: the web app on uvicorn (SQLite file by default, PostgreSQL by URL)."""

from __future__ import annotations

import contextlib
import logging
import socket
from typing import Annotated

import typer

from tabletop.cli.output import fail
from tabletop.core.errors import ConfigError
from tabletop.server.config import DEFAULT_DB_URL, Settings


def serve(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port, 1 to 65535.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option("--db", help=f"SQLAlchemy database URL (default $TABLETOP_DB or {DEFAULT_DB_URL})."),
    ] = None,
    bot_budget: Annotated[float | None, typer.Option("--bot-budget", help="Seconds a bot may think per move.")] = None,
    bot_workers: Annotated[int | None, typer.Option("--bot-workers", help="Bot worker processes.")] = None,
    bot_delay: Annotated[float | None, typer.Option("--bot-delay", help="Pause before each bot move.")] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help="uvicorn log level: critical, error, warning, info, debug or trace.")
    ] = "info",
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Server processes on one PostgreSQL database, on ports PORT to PORT+N-1 (a proxy in front"
            " spreads the clients: docs/deploy.md).",
        ),
    ] = 1,
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
    if log_level.lower() not in uvicorn.config.LOG_LEVELS:
        fail(f"--log-level must be one of {', '.join(uvicorn.config.LOG_LEVELS)}, not {log_level!r}")
    if not 1 <= workers <= MAX_WORKERS:
        fail(f"--workers must be 1 to {MAX_WORKERS}, not {workers}")
    if workers > 1:
        from tabletop.server.bus import is_postgres

        if not is_postgres(settings.db_url):
            fail(
                "--workers above 1 needs a PostgreSQL database (--db postgresql+psycopg://...): on SQLite"
                " one process serves, and its memory is the only one"
            )
        for worker_port in range(port, port + workers):
            check_can_listen(host, worker_port)
        check_database(settings.db_url)
        supervise(host, port, workers, settings.db_url, bot_budget, bot_workers, bot_delay, log_level)
        return
    check_can_listen(host, port)
    database = check_database(settings.db_url)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    typer.echo(f"tabletop web app on http://{host}:{port}/ (database {database})")
    # The websocket layer refuses frames far over the app's own message limit before
    # buffering them (close code 1009); the app answers the rest with error frames.
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=log_level.lower(),
        ws_max_size=4 * settings.max_ws_message_bytes,
        # uvicorn would believe X-Forwarded-For from any local process; the app reads it
        # itself, from the proxies named in TABLETOP_TRUSTED_PROXIES only.
        proxy_headers=False,
    )


MAX_WORKERS = 64
"""The most processes ``--workers`` starts (each holds database connections)."""

RESTART_PAUSE_S = 1.0
"""How long the supervisor waits before starting a process that died again."""


def supervise(
    host: str,
    port: int,
    workers: int,
    db_url: str,
    bot_budget: float | None,
    bot_workers: int | None,
    bot_delay: float | None,
    log_level: str,
) -> None:
    """Runs ``workers`` server processes on ports ``port``.. and starts again any that dies.

    Each is a plain ``tabletop serve`` on its own port (so a proxy can check and drop
    each one on its own); they share the database, and through it everything a client
    sees.  Ctrl-C or SIGTERM stops them all.
    """
    import os
    import signal
    import subprocess
    import sys
    import time

    def command(worker_port: int) -> list[str]:
        args = [sys.executable, "-m", "tabletop.cli.serve_cmd", "--host", host, "--port", str(worker_port)]
        args += ["--log-level", log_level]
        for flag, value in (("--bot-budget", bot_budget), ("--bot-workers", bot_workers), ("--bot-delay", bot_delay)):
            if value is not None:
                args += [flag, str(value)]
        return args

    # The URL (and its password) goes in the environment, not on a command line ps shows.
    env = dict(os.environ, TABLETOP_DB=db_url)
    ports = list(range(port, port + workers))
    children = {p: subprocess.Popen(command(p), env=env) for p in ports}
    typer.echo(f"tabletop: {workers} processes on http://{host}:{ports[0]}/ to :{ports[-1]}/")
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping:
            time.sleep(0.2)
            for worker_port, child in list(children.items()):
                if child.poll() is not None and not stopping:
                    typer.echo(
                        f"tabletop: the process on port {worker_port} ended ({child.returncode}); starting it again"
                    )
                    time.sleep(RESTART_PAUSE_S)
                    children[worker_port] = subprocess.Popen(command(worker_port), env=env)
    finally:
        for child in children.values():
            if child.poll() is None:
                child.terminate()
        for child in children.values():
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()


def check_database(url: str) -> str:
    """Opens and closes one connection to ``url``, or fails in one line; returns the URL to show.

    An unknown dialect, a driver that is not installed, a SQLite file in a missing
    directory or a server that refuses the connection is reported here, before uvicorn
    starts, instead of as a traceback from the app's startup.  The URL shown hides the
    password.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import DBAPIError

    from tabletop.server.store import make_engine

    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except Exception:  # ArgumentError and friends: not a URL at all
        fail(f"--db {url!r} is not a database URL, e.g. sqlite:///tabletop.db or postgresql+psycopg://...")
    try:
        engine = make_engine(url)
        try:
            with engine.connect():
                pass
        finally:
            engine.dispose()
    except DBAPIError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else type(exc.orig).__name__
        fail(f"cannot open the database {shown}: {reason}")
    except Exception as exc:  # unknown dialect (NoSuchModuleError), driver not installed (ImportError), ...
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        fail(f"cannot use the database {shown}: {reason}")
    return shown


def check_can_listen(host: str, port: int) -> None:
    """Fails in one line unless ``port`` is 1..65535 and every address of ``host`` can be bound now.

    The sockets are bound the way uvicorn (asyncio's ``create_server``) binds them, then
    closed; uvicorn itself only logs a failed bind after the app has started.
    """
    if not 1 <= port <= 65535:
        fail(f"--port must be between 1 and 65535, not {port}")
    try:
        addresses = set(socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE))
    except (socket.gaierror, UnicodeError) as exc:
        fail(f"cannot listen on {host!r}: {getattr(exc, 'strerror', None) or exc}")
    with contextlib.ExitStack() as stack:
        for family, kind, proto, _, address in addresses:
            try:
                sock = stack.enter_context(socket.socket(family, kind, proto))
            except OSError:  # an address family this machine lacks, e.g. IPv6; asyncio skips it too
                continue
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def main() -> None:
    """Runs ``serve`` on its own (``python -m tabletop.cli.serve_cmd``)."""
    typer.run(serve)


if __name__ == "__main__":
    main()
