"""Rating endpoints: a game's leaderboard and a person's public profile."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel

from tabletop.core.errors import short_repr
from tabletop.core.registry import available_games
from tabletop.server.accounts import name_key
from tabletop.server.guard import MAX_INT
from tabletop.server.ratings import FAMILIES, Rater, bot_ladder
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors

router = APIRouter(tags=["ratings"])

HISTORY_MAX = 500
"""Rating changes a profile shows per person (the newest)."""


def get_ratings(request: Request) -> Rater:
    """The app's ratings (``app.state.ratings``)."""
    rater: Rater = request.app.state.ratings
    return rater


class Leaderboard(BaseModel):
    """One page of people's ratings in a game and family, and the bots' fixed ratings."""

    game: str
    family: str
    total: int
    offset: int
    players: list[dict[str, object]]
    bots: list[dict[str, object]]


@router.get("/api/ratings/{game}", responses=errors(404))
async def get_leaderboard(
    game: str,
    request: Request,
    family: str = Query("2p", max_length=16),
    offset: int = Query(0, ge=0, le=MAX_INT),
    limit: int = Query(50, ge=1, le=1000),
) -> Leaderboard:
    """People ranked by displayed rating (``mu - 3 sigma``), with the bots on the same scale."""
    if game not in available_games():
        raise RoomError(404, "unknown_game", f"no game {short_repr(game)}")
    if family not in FAMILIES:
        raise RoomError(422, "bad_family", f"family is one of {', '.join(FAMILIES)}")
    limit = min(limit, request.app.state.settings.page_max)
    store = get_ratings(request).store
    page, total = await asyncio.to_thread(store.list_leaderboard, game, family, offset, limit)
    return Leaderboard(
        game=game, family=family, total=total, offset=offset, players=page, bots=bot_ladder(game, family)
    )


@router.get("/api/players/{name}", responses=errors(404))
async def get_profile(name: str, request: Request) -> dict[str, object]:
    """A person's public profile: ratings per game and family, each with its history."""
    found = None
    if len(name) <= 64:
        found = await asyncio.to_thread(get_ratings(request).store.get_profile, name_key(name), HISTORY_MAX)
    if found is None:
        raise RoomError(404, "unknown_player", f"no player {short_repr(name)}")
    return found
