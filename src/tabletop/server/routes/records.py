"""``POST /api/replay`` and ``POST /api/replay/text``: upload a record to step through it.

An upload is replayed every time (nothing to cache by), so each counts against the
caller's request budget by its length (:func:`~tabletop.server.deps.replay_cost`), and
the replay runs off the event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Body, Request, Response
from pydantic import BaseModel, Field

from tabletop.core.errors import RecordError, short_repr
from tabletop.core.record import GameRecord
from tabletop.server.deps import ClientDep, charge, replay_cost
from tabletop.server.replay import replay_board, replay_steps
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors

router = APIRouter(prefix="/api", tags=["records"])


class RecordText(BaseModel):
    """A record file's text, exactly as read (it may not even be JSON)."""

    text: str = Field(description="the file's text; its size is bounded by max_body_bytes")


def _parsed(request: Request, client: str, parse: Any, source: Any) -> GameRecord:
    """The uploaded record, its replay charged to ``client`` (422 ``bad_record`` if it does not parse)."""
    try:
        record: GameRecord = parse(source)
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None
    charge(request, client, replay_cost(len(record.actions)))
    return record


async def _steps(record: GameRecord) -> dict[str, Any]:
    try:
        return await asyncio.to_thread(replay_steps, record)
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None


@router.post("/replay", responses=errors(429))
async def post_replay(request: Request, client: ClientDep, record: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
    """Checks an uploaded JSON record by replaying it and returns every position."""
    return await _steps(_parsed(request, client, GameRecord.from_json, record))


@router.post("/replay/text", responses=errors(429))
async def post_replay_text(request: Request, client: ClientDep, body: RecordText) -> dict[str, Any]:
    """Like ``POST /api/replay`` for a file's text as it was read: a file that is not JSON
    gets the command line's own words (``GameRecord.loads``), not the browser's."""
    return await _steps(_parsed(request, client, GameRecord.loads, body.text))


@router.post("/replay/board", responses=errors(429))
async def post_replay_board(
    request: Request,
    client: ClientDep,
    ply: int,
    record: dict[str, Any] = Body(...),  # noqa: B008 - FastAPI's idiom
) -> Response:
    """The board drawing of an uploaded record's position after ``ply`` actions (the replay page's)."""
    parsed = _parsed(request, client, GameRecord.from_json, record)
    try:
        svg = await asyncio.to_thread(replay_board, parsed, ply)
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None
    if svg is None:
        raise RoomError(404, "no_board", f"{short_repr(record.get('game'))} has no board drawing")
    return Response(content=svg, media_type="image/svg+xml")
