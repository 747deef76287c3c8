"""``POST /api/replay``: upload a record to step through it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body

from tabletop.core.errors import RecordError
from tabletop.core.record import GameRecord
from tabletop.server.replay import replay_steps
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors

router = APIRouter(prefix="/api", tags=["records"])


@router.post("/replay", responses=errors())
def post_replay(record: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
    """Checks an uploaded JSON record by replaying it and returns every position."""
    try:
        return replay_steps(GameRecord.from_json(record))
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None
