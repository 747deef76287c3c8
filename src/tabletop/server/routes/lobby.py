"""Lobby endpoints (open games, join, start) and the table of a lobby match (clock,
takeover, resign, abort, rematch, chat).  Documented in docs/api.md, "Lobby"."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, status

from tabletop.server.accounts import Account, OptionalAccountDep
from tabletop.server.clocks import ClockSettings
from tabletop.server.deps import ClientDep
from tabletop.server.lobby import Lobby, LobbyGame
from tabletop.server.lobby_schemas import (
    ChatBody,
    CreateLobbyGame,
    CreatorBody,
    JoinLobbyGame,
    SeatToken,
    TokenBody,
)
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors
from tabletop.server.tables import Tables

router = APIRouter(tags=["lobby"])


def get_lobby(request: Request) -> Lobby:
    """The app's lobby."""
    lobby: Lobby = request.app.state.lobby
    return lobby


LobbyDep = Annotated[Lobby, Depends(get_lobby)]


def get_tables(request: Request) -> Tables:
    """The app's tables of the started lobby matches."""
    tables: Tables = request.app.state.tables
    return tables


TablesDep = Annotated[Tables, Depends(get_tables)]


def _seat_token(lg: LobbyGame, seat: int, token: str) -> SeatToken:
    return SeatToken(
        id=lg.id,
        seat=seat,
        token=token,
        lobby_link=f"/lobby/{lg.id}#t={token}",
        play_link=f"/play/{lg.id}#t={token}",
        game=lg.view(),
    )


@router.get("/api/lobby", responses=errors())
async def list_lobby(
    lobby: LobbyDep,
    request: Request,
    game: Annotated[str | None, Query(min_length=1, max_length=32)] = None,
    state: Literal["open", "playing"] = "open",
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int | None, Query(ge=1, le=1000)] = None,
) -> dict[str, Any]:
    """Public games, newest first: ``open`` ones (seats free) or ``playing`` (to spectate)."""
    page = min(limit or lobby.settings.lobby_page_size, lobby.settings.lobby_page_size)
    if state == "open":
        games, total = await lobby.open_games(game, offset, page)
    else:
        games, total = await lobby.games_in_progress(game, offset, page)
    return {"state": state, "games": games, "total": total, "offset": offset, "limit": page}


@router.post("/api/lobby", status_code=status.HTTP_201_CREATED, responses=errors(404))
async def create_lobby_game(
    body: CreateLobbyGame, lobby: LobbyDep, client: ClientDep, account: OptionalAccountDep
) -> SeatToken:
    """Opens a game in the lobby; the creator gets their seat's token (also the creator's key).

    Logged in (session and CSRF header), the creator's seat is bound to the account at the start.
    """
    config = body.game_config(len(body.seats))
    clock = None
    if body.clock is not None:
        clock = ClockSettings(body.clock.kind, body.clock.per_move_s, body.clock.base_s, body.clock.increment_s)
    lg, seat, token = await lobby.create(
        game_id=body.game,
        config=config,
        seats=[(s.kind, s.name, s.agent) for s in body.seats],
        public=body.public,
        clock=clock,
        takeover=body.takeover,
        grace_s=body.grace_s,
        rated=body.rated,
        client=client,
        account=account,
    )
    return _seat_token(lg, seat, token)


@router.get("/api/lobby/{game_id}", responses=errors(404, 410))
async def get_lobby_game(game_id: str, lobby: LobbyDep, tables: TablesDep) -> dict[str, Any]:
    """A lobby game (open, or started: then ``match`` is the match's id)."""
    try:
        return (await lobby.lobby_game(game_id)).view()
    except RoomError:
        pass
    try:
        await tables.table(game_id)
    except RoomError:
        raise RoomError(404, "unknown_game", "no such lobby game") from None
    return {"id": game_id, "status": "started", "match": game_id}


@router.post("/api/lobby/{game_id}/join", responses=errors(404, 409))
async def join_lobby_game(
    game_id: str, body: JoinLobbyGame, lobby: LobbyDep, client: ClientDep, account: OptionalAccountDep
) -> SeatToken:
    """Takes a free seat; the game starts when the last one is taken.

    Logged in (session and CSRF header), the seat is bound to the account at the start.
    """
    lg, seat, token = await lobby.join(game_id, body.name, body.seat, client, account)
    return _seat_token(lg, seat, token)


@router.post("/api/lobby/{game_id}/start", responses=errors(403, 404, 409))
async def start_lobby_game(game_id: str, body: CreatorBody, lobby: LobbyDep, client: ClientDep) -> dict[str, Any]:
    """The creator starts now; bots take the free seats."""
    lg = await lobby.start_now(game_id, body.token, body.agent, client)
    return lg.view()


@router.post("/api/lobby/{game_id}/cancel", responses=errors(403, 404, 409))
async def cancel_lobby_game(game_id: str, body: CreatorBody, lobby: LobbyDep, client: ClientDep) -> dict[str, Any]:
    """The creator withdraws a game that has not started."""
    lg = await lobby.cancel(game_id, body.token, client)
    return lg.view()


@router.get("/api/matches/{match_id}/table", responses=errors(404, 410))
async def get_table(match_id: str, tables: TablesDep) -> dict[str, Any]:
    """Clock (times left and the server's time), seat statuses, end and rematch of a lobby match."""
    room, table = await tables.table(match_id)
    return tables.table_view(room, table)


@router.post("/api/matches/{match_id}/reclaim", responses=errors(403, 404, 409, 410))
async def reclaim_seat(
    match_id: str, body: TokenBody, tables: TablesDep, client: ClientDep, account: OptionalAccountDep
) -> dict[str, Any]:
    """The person of a seat a bot took over plays it again."""
    room, table, _ = await tables.reclaim(match_id, body.token, client, _account_id(account))
    return tables.table_view(room, table)


@router.post("/api/matches/{match_id}/resign", responses=errors(403, 404, 409, 410))
async def resign(
    match_id: str, body: TokenBody, tables: TablesDep, client: ClientDep, account: OptionalAccountDep
) -> dict[str, Any]:
    """The token's person resigns (two players: the match ends; more: a bot plays on)."""
    room, table = await tables.resign(match_id, body.token, client, _account_id(account))
    return tables.table_view(room, table)


@router.post("/api/matches/{match_id}/abort", responses=errors(403, 404, 409, 410))
async def abort(
    match_id: str, body: TokenBody, tables: TablesDep, client: ClientDep, account: OptionalAccountDep
) -> dict[str, Any]:
    """Calls the match off early (before ``abort_before_actions`` actions); it is unrated."""
    room, table = await tables.abort(match_id, body.token, client, _account_id(account))
    return tables.table_view(room, table)


@router.post("/api/matches/{match_id}/rematch", responses=errors(403, 404, 409, 410))
async def rematch(
    match_id: str, body: TokenBody, lobby: LobbyDep, client: ClientDep, account: OptionalAccountDep
) -> SeatToken:
    """The same settings again, seats rotated: the token's person's new seat and token."""
    lg, seat, token = await lobby.rematch(match_id, body.token, client, _account_id(account))
    return _seat_token(lg, seat, token)


@router.get("/api/matches/{match_id}/chat", responses=errors(404, 410))
async def get_chat(match_id: str, tables: TablesDep) -> dict[str, Any]:
    """The match's last chat messages, oldest first (plain text: show it as text, never HTML)."""
    return {"messages": await tables.chat.history(match_id)}


@router.post("/api/matches/{match_id}/chat", status_code=status.HTTP_201_CREATED, responses=errors(403, 404, 410))
async def post_chat(
    match_id: str, body: ChatBody, tables: TablesDep, client: ClientDep, account: OptionalAccountDep
) -> dict[str, Any]:
    """Posts a chat line for the token's seat; everyone watching gets ``{"type": "chat"}``."""
    return await tables.chat.say(match_id, body.token, body.text, client, _account_id(account))


def _account_id(account: Account | None) -> int | None:
    """The caller's account id: a seat bound to an account acts only for it (403 ``seat_bound``)."""
    return None if account is None else account.id
