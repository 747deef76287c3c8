"""The composition root: ``create_app(settings)`` builds an isolated app (tests make many)."""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from tabletop.server.bots import BotPool
from tabletop.server.config import Settings
from tabletop.server.rooms import RoomError, RoomManager
from tabletop.server.routes import games, matches, records
from tabletop.server.store import Store
from tabletop.server.ws import router as ws_router

log = logging.getLogger("tabletop.server")


def create_app(settings: Settings | None = None) -> FastAPI:
    """Builds the web app: API, websocket and the static client."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.db_url)
        bots = BotPool(settings.bot_executor, settings.bot_workers, settings.bot_time_budget_s)
        rooms = RoomManager(store, bots, bot_delay_s=settings.bot_delay_s)
        app.state.rooms = rooms
        resumed = await rooms.resume_bots()
        if resumed:
            log.info("resumed %d matches with bots", resumed)
        # Everything loaded so far (modules, maps, tables) lives for the whole run: keep
        # it out of the collector's full passes, which otherwise walk it again and again.
        gc.freeze()
        try:
            yield
        finally:
            await rooms.close()
            bots.shutdown()
            store.close()

    app = FastAPI(title="tabletop", summary="Terra Nova and Medina in the browser", lifespan=lifespan)

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, exc: RoomError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content=exc.to_json())

    app.include_router(games.router)
    app.include_router(matches.router)
    app.include_router(records.router)
    app.include_router(ws_router)

    index = settings.static_dir / "index.html"

    @app.get("/", include_in_schema=False)
    @app.get("/play/{match_id}", include_in_schema=False)
    @app.get("/replay", include_in_schema=False)
    async def page(match_id: str | None = None) -> FileResponse:
        # One page; the client reads the path and the #t=token fragment itself.
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=settings.static_dir), name="static")
    return app
