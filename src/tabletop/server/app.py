"""The composition root: ``create_app(settings)`` builds an isolated app (tests make many).

Every error leaves the app in one shape, ``{"error": code, "detail": text}`` (the
``ErrorBody`` schema), with a 4xx status for anything the client got wrong; the detail
never echoes more than a short prefix of what the client sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from tabletop.server import duties, ratings
from tabletop.server.accounts import Accounts, AccountStore
from tabletop.server.bots import BotPool
from tabletop.server.bus import (
    CHANNEL,
    CHAT_CHANNEL,
    PRESENCE_CHANNEL,
    SEATS_CHANNEL,
    FollowedMatches,
    Handler,
    PostgresListener,
    is_postgres,
)
from tabletop.server.collector import Collector
from tabletop.server.config import Settings
from tabletop.server.guard import HEALTH_PATH, MAX_QUOTE, RequestGuard, SlidingWindow, clip, retry_after_header
from tabletop.server.leader import make_leadership
from tabletop.server.lobby import Lobby
from tabletop.server.lobby_store import ChatStore, LobbyStore, PresenceStore, TableStore
from tabletop.server.replay import REPLAY_CACHE_CHARS, TextCache
from tabletop.server.rooms import RoomError, RoomManager
from tabletop.server.routes import accounts as account_routes
from tabletop.server.routes import analysis, games, matches, records
from tabletop.server.routes import learn as learn_routes
from tabletop.server.routes import lobby as lobby_routes
from tabletop.server.routes import ratings as rating_routes
from tabletop.server.store import MatchStore, open_database
from tabletop.server.tables import Tables
from tabletop.server.ws import router as ws_router

log = logging.getLogger("tabletop.server")

HEALTH_TIMEOUT_S = 2.0
"""How long ``/health`` waits for the database before answering 503."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """Builds the web app: API, websocket and the static client."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The stores, one per kind of stored thing, on one engine (``server/store.py``),
        # each handed below to the part that uses it.
        engine = open_database(settings.db_url)
        store = MatchStore(engine, settings.clock)
        account_store = AccountStore(engine)
        # Who does the work that must happen once (clocks, stalled bots, ratings): taken
        # before anything is loaded, so a lone process (SQLite) resumes everything at start.
        leadership = make_leadership(settings.db_url, is_postgres(settings.db_url))
        await asyncio.to_thread(leadership.start)
        bots = BotPool(settings.bot_executor, settings.bot_workers, settings.bot_time_budget_s, settings.engine)
        # The match service: the one writer of each match (``server/rooms.py``).
        # The matches this process holds in memory: the rooms keep it, the bus LISTENs on them.
        followed = FollowedMatches()
        rooms = RoomManager(
            store,
            bots,
            bot_delay_s=settings.bot_delay_s,
            matches_per_minute=settings.matches_per_minute,
            token_failures_per_minute=settings.token_failures_per_minute,
            max_sockets_per_match=settings.max_sockets_per_match,
            max_sockets_per_client=settings.max_sockets_per_client,
            engine=settings.engine,
            leadership=leadership,
            idle_s=settings.room_idle_s,
            rateable=ratings.bots_rateable,
            followed=followed,
        )
        # Its listeners, built on it and handed to it before any room is loaded: the
        # tables of the lobby matches (clocks, takeover, chat), then the ratings.
        tables = Tables(rooms, settings, TableStore(engine), PresenceStore(engine), ChatStore(engine))
        rooms.listen(tables)
        rater = ratings.Rater(ratings.RatingStore(engine), forfeits=tables.forfeited_seats)
        rooms.listen(rater)
        lobby = Lobby(rooms, tables, settings, LobbyStore(engine), account_store)
        app.state.rooms = rooms
        app.state.tables = tables
        app.state.lobby = lobby
        app.state.accounts = Accounts(account_store, settings)
        app.state.ratings = rater
        if leadership.leading:  # the rated matches the last run ended but did not rate
            await rater.rate_pending()
        app.state.analysis = analysis.AnalysisService(settings)
        # Several processes on one PostgreSQL database hear each other's changes.
        listener = None
        if is_postgres(settings.db_url):
            handlers: dict[str, Handler] = {
                CHANNEL: rooms.heard,
                CHAT_CHANNEL: tables.chat.heard,
                PRESENCE_CHANNEL: tables.heard_presence,
                SEATS_CHANNEL: rooms.seats_changed,
            }

            def reconnected() -> None:
                rooms.reconnected()
                tables.reconnected()

            listener = PostgresListener(
                settings.db_url,
                asyncio.get_running_loop(),
                handlers,
                reconnected,
                tables.process_name,
                holds=rooms.holds,
                followed=followed,
                listened=rooms.listened,
            )
            await asyncio.to_thread(listener.start)
        if leadership.alone:  # among several processes the leader's sweep finds them
            resumed = await rooms.resume_bots()
            if resumed:
                log.info("resumed %d matches with bots", resumed)
        # The schedulers: the clock keeper (timeouts, dropped seats, clocks stored in
        # batches) and the leader's sweep (tables, lobby starts cut short, stalled bot
        # turns, pending ratings).
        await tables.start()
        sweeper = asyncio.get_running_loop().create_task(duties.keep_sweeping(rooms, tables, lobby, rater))
        # Everything loaded so far (modules, maps, tables) lives for the whole run, and so
        # does what survives a full collection, mostly: keep it out of the collector's
        # full passes, which otherwise walk it again and again (``server/collector.py``).
        collector = Collector()
        collector.start()
        try:
            yield
        finally:
            collector.stop()
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await tables.close()
            if listener is not None:
                await asyncio.to_thread(listener.close)
            await rooms.close()
            bots.shutdown()
            app.state.analysis.shutdown()
            await asyncio.to_thread(leadership.close)
            store.close()
            engine.dispose()

    # No /docs or /redoc: FastAPI's pages load their scripts from a CDN, which the
    # Content-Security-Policy forbids (and which would fail offline).  The schema itself
    # is served at /openapi.json for any OpenAPI viewer or client generator.
    app = FastAPI(
        title="tabletop",
        summary="Terra Nova and Medina in the browser",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    index = settings.static_dir / "index.html"
    # The request budget per address: the guard counts each request, and an expensive
    # answer (a replay) counts several (``deps.charge``).
    app.state.requests = SlidingWindow(settings.requests_per_minute)
    app.state.replays = TextCache(REPLAY_CACHE_CHARS)
    app.add_middleware(RequestGuard, settings=settings, requests=app.state.requests)

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, exc: RoomError) -> JSONResponse:
        headers = {"Retry-After": retry_after_header(exc.retry_after)} if exc.retry_after is not None else None
        return JSONResponse(status_code=exc.status, content=exc.to_json(), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"error": "bad_request", "detail": describe_errors(exc.errors())})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        if exc.status_code == 404 and request.method in ("GET", "HEAD") and not path.startswith(("/api/", "/static/")):
            # A person who mistypes a page's address gets the app, which says so; the API
            # and the static files keep their plain 404s.
            return FileResponse(index, status_code=404, headers={"Cache-Control": "no-cache"})
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            status_code=exc.status_code,
            content={"error": code, "detail": clip(str(exc.detail), 200)},
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return JSONResponse(status_code=500, content={"error": "internal", "detail": "the server failed"})

    app.include_router(games.router)
    app.include_router(matches.router)
    app.include_router(records.router)
    app.include_router(lobby_routes.router)
    app.include_router(analysis.router)
    app.include_router(ws_router)
    app.include_router(account_routes.router)
    app.include_router(rating_routes.router)
    app.include_router(learn_routes.router)  # the tutorials and the rules pages

    @app.api_route(HEALTH_PATH, methods=["GET", "HEAD"], include_in_schema=False)
    async def health(request: Request) -> JSONResponse:
        """For a proxy's health check: 200 while this process serves and reaches its
        database, else 503 (the proxy sends clients to the other processes)."""
        rooms = getattr(request.app.state, "rooms", None)
        if rooms is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        try:
            await asyncio.wait_for(asyncio.to_thread(rooms.store.ping), timeout=HEALTH_TIMEOUT_S)
        except Exception:
            return JSONResponse({"status": "no database"}, status_code=503)
        return JSONResponse({"status": "ok", "leader": rooms.leadership.leading})

    # HEAD too: uptime monitors and link checkers ask for the page that way.
    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    @app.api_route("/play/{match_id}", methods=["GET", "HEAD"], include_in_schema=False)
    @app.api_route("/replay", methods=["GET", "HEAD"], include_in_schema=False)
    @app.api_route("/lobby/{game_id}", methods=["GET", "HEAD"], include_in_schema=False)
    async def page(match_id: str | None = None, game_id: str | None = None) -> FileResponse:
        # One page; the client reads the path and the #t=token fragment itself.
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=settings.static_dir), name="static")
    return app


def describe_errors(errors: Sequence[Any]) -> str:
    """Pydantic's validation errors as one short line: where, and what was expected.

    The input itself is never quoted (it may be huge, or not encodable), and a location
    made of the client's own keys is clipped.
    """
    parts = []
    for error in errors[:4]:
        where = ".".join(clip(str(p), MAX_QUOTE) for p in error.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    if len(errors) > 4:
        parts.append(f"and {len(errors) - 4} more")
    return clip("; ".join(parts), 300)
