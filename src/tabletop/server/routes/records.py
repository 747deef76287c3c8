"""``POST /api/replay`` and ``POST /api/replay/text``: upload a record to step through it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Response
from pydantic import BaseModel, Field

from tabletop.core.errors import RecordError, short_repr
from tabletop.core.record import GameRecord
from tabletop.server.replay import replay_board, replay_steps
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors

router = APIRouter(prefix="/api", tags=["records"])


class RecordText(BaseModel):
    """A record file's text, exactly as read (it may not even be JSON)."""

    text: str = Field(description="the file's text; its size is bounded by max_body_bytes")


@router.post("/replay", responses=errors())
def post_replay(record: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
    """Checks an uploaded JSON record by replaying it and returns every position."""
    try:
        return replay_steps(GameRecord.from_json(record))
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None


@router.post("/replay/text", responses=errors())
def post_replay_text(body: RecordText) -> dict[str, Any]:
    """Like ``POST /api/replay`` for a file's text as it was read: a file that is not JSON
    gets the command line's own words (``GameRecord.loads``), not the browser's."""
    try:
        return replay_steps(GameRecord.loads(body.text))
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None


@router.post("/replay/board", responses=errors())
def post_replay_board(ply: int, record: dict[str, Any] = Body(...)) -> Response:  # noqa: B008 - FastAPI's idiom
    """The board drawing of an uploaded record's position after ``ply`` actions (the replay page's)."""
    try:
        svg = replay_board(GameRecord.from_json(record), ply)
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None
    if svg is None:
        raise RoomError(404, "no_board", f"{short_repr(record.get('game'))} has no board drawing")
    return Response(content=svg, media_type="image/svg+xml")
