"""Account endpoints: register, log in and out, my games, claim a guest seat; the account pages."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from tabletop.server.accounts import AccountDep, bind_seat, get_accounts
from tabletop.server.deps import ClientDep, RoomsDep
from tabletop.server.guard import MAX_INT
from tabletop.server.schemas import errors

router = APIRouter(tags=["accounts"])


class Credentials(BaseModel):
    """Body of ``POST /api/accounts`` and ``POST /api/session``.

    The field limits here only stop absurd bodies; the real bounds (``name_max_length``,
    ``password_min_length``, ``password_max_length``) are settings, checked with a clear
    message.
    """

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=4096)


class SessionInfo(BaseModel):
    """Who is logged in, and the CSRF token to send in ``X-CSRF-Token``."""

    name: str | None
    csrf: str | None


class ClaimBody(BaseModel):
    """Body of ``POST /api/matches/{id}/claim``: the token of the guest seat to claim."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)


class Claimed(BaseModel):
    """A seat now bound to the caller's account, with its new token and link."""

    seat: int
    token: str
    link: str


class MyMatches(BaseModel):
    """One page of the caller's matches, newest first (each with the play link of their seat)."""

    total: int
    offset: int
    matches: list[dict[str, object]]


def _page_limit(request: Request, limit: int) -> int:
    page_max: int = request.app.state.settings.page_max
    return min(limit, page_max)


@router.post("/api/accounts", status_code=status.HTTP_201_CREATED, responses=errors(409))
async def register(body: Credentials, request: Request, response: Response, client: ClientDep) -> SessionInfo:
    """Registers a name and password and logs in (sets the session cookie)."""
    service = get_accounts(request)
    account = await service.register(body.name, body.password, client)
    csrf = await service.start_session(account, request, response)
    return SessionInfo(name=account.name, csrf=csrf)


@router.post("/api/session", responses=errors(401))
async def log_in(body: Credentials, request: Request, response: Response, client: ClientDep) -> SessionInfo:
    """Logs in (sets the session cookie); answers the CSRF token for later requests."""
    service = get_accounts(request)
    account = await service.log_in(body.name, body.password, client)
    csrf = await service.start_session(account, request, response)
    return SessionInfo(name=account.name, csrf=csrf)


@router.get("/api/session")
async def current_session(request: Request) -> SessionInfo:
    """Who is logged in (``null`` name when nobody), and the session's CSRF token."""
    session = await get_accounts(request).session_of(request)
    if session is None:
        return SessionInfo(name=None, csrf=None)
    return SessionInfo(name=session.account.name, csrf=session.csrf)


@router.delete("/api/session", status_code=status.HTTP_204_NO_CONTENT, responses=errors(401, 403))
async def log_out(_account: AccountDep, request: Request, response: Response) -> None:
    """Ends the session (needs the CSRF token) and clears the cookie."""
    await get_accounts(request).end_session(request, response)


@router.get("/api/me/matches", responses=errors(401))
async def my_matches(
    account: AccountDep,
    request: Request,
    offset: int = Query(0, ge=0, le=MAX_INT),
    limit: int = Query(20, ge=1, le=1000),
) -> MyMatches:
    """The caller's matches (seats bound to their account), newest first."""
    store = get_accounts(request).store
    page, total = await asyncio.to_thread(store.list_matches_of, account, offset, _page_limit(request, limit))
    return MyMatches(total=total, offset=offset, matches=page)


@router.post("/api/matches/{match_id}/claim", responses=errors(401, 403, 404, 409, 410))
async def claim_seat(
    match_id: str, body: ClaimBody, account: AccountDep, rooms: RoomsDep, client: ClientDep
) -> Claimed:
    """Binds the guest seat whose token this is to the caller's account.

    Claiming after the first action makes a rated match unrated.
    """
    room = await rooms.get(match_id)
    seat = rooms.seat_for_token(room, body.token, client, account.id)
    token = await bind_seat(rooms, room, seat, account)
    return Claimed(seat=seat, token=token, link=f"/play/{room.id}#t={token}")


def _index(request: Request) -> FileResponse:
    index: Path = request.app.state.settings.static_dir / "index.html"
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


@router.api_route("/account", methods=["GET", "HEAD"], include_in_schema=False)
@router.api_route("/players/{name}", methods=["GET", "HEAD"], include_in_schema=False)
@router.api_route("/ratings/{game}", methods=["GET", "HEAD"], include_in_schema=False)
async def account_pages(request: Request) -> FileResponse:
    """The account, profile and leaderboard pages: the one client page, which reads the path."""
    return _index(request)
