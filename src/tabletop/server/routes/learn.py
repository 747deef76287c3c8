"""The tutorial's API (``/api/learn/...``) and the pages ``/learn/<game>`` and ``/rules/<game>``.

The lessons are data (``server/lessons/<game>.json``, read by :mod:`tabletop.server.learn`);
every answer is computed from a lesson's moves and the learner's, so nothing is stored.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from tabletop.server.learn import MAX_PLAYED, LessonError, Tutorial, judge, lesson_view, load_tutorial, position
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors

router = APIRouter(tags=["learn"])

MoveText = Annotated[str, Field(min_length=1, max_length=40)]
Played = Annotated[list[str], Query(max_length=MAX_PLAYED, description="the learner's moves so far in this lesson")]


class TryMove(BaseModel):
    """A learner's move in a lesson, after the moves it has already played there."""

    model_config = ConfigDict(extra="forbid")
    played: list[MoveText] = Field(default_factory=list, max_length=MAX_PLAYED)
    move: MoveText


def _tutorial(game_id: str) -> Tutorial:
    try:
        return load_tutorial(game_id)
    except LessonError as exc:
        raise RoomError(404, "unknown_tutorial", str(exc)) from None


@router.get("/api/learn/{game_id}", responses=errors(404))
def tutorial(game_id: str) -> dict[str, Any]:
    """The tutorial's lessons, in order, with their number of tasks."""
    tut = _tutorial(game_id)
    return {
        "game": tut.game_id,
        "players": tut.config.num_players,
        "lessons": [{"id": lesson.id, "tasks": len(lesson.tasks)} for lesson in tut.lessons],
    }


@router.get("/api/learn/{game_id}/{lesson_id}", responses=errors(404, 422))
def lesson(game_id: str, lesson_id: str, played: Played = []) -> dict[str, Any]:  # noqa: B006 - FastAPI's idiom
    """The lesson's position after ``played`` (the board, legal moves and the task's marks)."""
    tut = _tutorial(game_id)
    try:
        return lesson_view(tut, tut.lesson(lesson_id), played)
    except LessonError as exc:
        raise RoomError(404 if not played else 422, "bad_lesson", str(exc)) from None


@router.post("/api/learn/{game_id}/{lesson_id}/try", responses=errors(404, 422))
def try_move(game_id: str, lesson_id: str, body: TryMove) -> dict[str, Any]:
    """Judges the learner's move: ``verdict`` is ``correct`` (then ``view`` is the position
    after it), ``nudge`` (legal, but not the lesson's move) or ``refused`` (``message``: the
    engine's reason, ``{code, params, text}``)."""
    tut = _tutorial(game_id)
    try:
        les = tut.lesson(lesson_id)
        state, _ = position(tut, les, body.played)
    except LessonError as exc:
        raise RoomError(422, "bad_lesson", str(exc)) from None
    if len(body.played) >= len(les.tasks):
        raise RoomError(422, "bad_lesson", "every task of this lesson is played")
    verdict = judge(state, les.tasks[len(body.played)], body.move)
    out: dict[str, Any] = {
        "verdict": verdict.kind,
        "move": verdict.move,
        "message": verdict.message.to_json() if verdict.message is not None else None,
    }
    if verdict.kind == "correct":
        out["view"] = lesson_view(tut, les, [*body.played, verdict.move])
    return out


@router.api_route("/learn/{game_id}", methods=["GET", "HEAD"], include_in_schema=False)
@router.api_route("/rules/{game_id}", methods=["GET", "HEAD"], include_in_schema=False)
async def page(request: Request, game_id: str) -> FileResponse:
    # The one page of the client; it reads the path itself (app.js).
    return FileResponse(request.app.state.settings.static_dir / "index.html", headers={"Cache-Control": "no-cache"})
