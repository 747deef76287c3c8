"""Match endpoints: create, view, act, undo, record, replay steps and SVG."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status

from tabletop.core.errors import RecordError
from tabletop.core.protocol import Move
from tabletop.server.accounts import OptionalAccountDep, bind_seat
from tabletop.server.deps import ClientDep, RoomsDep, charge, replay_cost
from tabletop.server.replay import TextCache, replay_board, replay_steps
from tabletop.server.rooms import Room, RoomError
from tabletop.server.schemas import (
    ActionBody,
    CreateMatch,
    MatchCreated,
    SeatCreated,
    SeatOfToken,
    UndoBody,
    WhoAmIBody,
    errors,
)

router = APIRouter(prefix="/api/matches", tags=["matches"])


def _json(payload: str) -> Response:
    return Response(content=payload, media_type="application/json")


@router.post("", status_code=status.HTTP_201_CREATED, responses=errors(401, 404))
async def create_match(
    body: CreateMatch, rooms: RoomsDep, client: ClientDep, account: OptionalAccountDep
) -> MatchCreated:
    """Creates a match; people's seats get a secret token and a play link each.

    A seat marked ``me`` is bound to the caller's account (session and CSRF token needed).
    """
    mine = [i for i, s in enumerate(body.seats) if s.me]
    if len(mine) > 1 or any(body.seats[i].agent != "human" for i in mine):
        raise RoomError(422, "bad_seats", "'me' marks at most one seat, and a person's")
    if mine and account is None:
        raise RoomError(401, "not_logged_in", "log in (and send the X-CSRF-Token header) to take a seat as yourself")
    config = body.game_config(len(body.seats))
    room, tokens = await rooms.create(
        body.game,
        config,
        [(s.name, s.agent) for s in body.seats],
        hotseat=body.hotseat,
        client=client,
        rated=body.rated,
    )
    for i in mine:
        assert account is not None
        tokens[i] = await bind_seat(rooms, room, i, account, at_creation=True)
    seats = [
        SeatCreated(
            seat=s.seat,
            name=s.name,
            agent=s.agent,
            token=tok,
            link=f"/play/{room.id}#t={tok}" if tok else None,
        )
        for s, tok in zip(room.seats, tokens, strict=True)
    ]
    human_tokens = [t for t in tokens if t]
    return MatchCreated(
        id=room.id,
        version=room.version,
        seats=seats,
        spectator_link=f"/play/{room.id}",
        hotseat_link=f"/play/{room.id}#t={','.join(human_tokens)}" if human_tokens else None,
    )


BoardQuery = Annotated[bool, Query(description="include the board drawing (`board_svg`); `false` saves its CPU")]


@router.get("/{match_id}", responses=errors(404, 410))
async def get_match(match_id: str, rooms: RoomsDep, board: BoardQuery = True) -> Response:
    """The current view of a match (what spectators see)."""
    room = await rooms.get(match_id)
    return _json(room.view_text(board))


@router.post("/{match_id}/actions", responses=errors(403, 404, 409, 410))
async def post_action(
    match_id: str,
    body: ActionBody,
    rooms: RoomsDep,
    client: ClientDep,
    account: OptionalAccountDep,
    board: BoardQuery = True,
) -> Response:
    """Plays one action for the token's seat; answers with the new view once committed."""
    room = await rooms.act(
        match_id, body.token, body.version, body.action, client=client, account_id=account.id if account else None
    )
    return _json(room.view_text(board))


@router.post("/{match_id}/undo", responses=errors(403, 404, 409, 410))
async def post_undo(
    match_id: str,
    body: UndoBody,
    rooms: RoomsDep,
    client: ClientDep,
    account: OptionalAccountDep,
    board: BoardQuery = True,
) -> Response:
    """Takes back the token seat's last action within its own turn."""
    room = await rooms.undo(
        match_id, body.token, body.version, client=client, account_id=account.id if account else None
    )
    return _json(room.view_text(board))


@router.post("/{match_id}/seat", responses=errors(403, 404, 410))
async def who_am_i(
    match_id: str, body: WhoAmIBody, rooms: RoomsDep, client: ClientDep, account: OptionalAccountDep
) -> SeatOfToken:
    """The seat a token acts for (403 if none, or if it is another account's seat)."""
    room = await rooms.get(match_id)
    return SeatOfToken(seat=rooms.seat_for_token(room, body.token, client, account.id if account else None))


async def _replayed(
    request: Request, client: str, room: Room, kind: str, compute: Callable[[list[Move]], str | None]
) -> str | None:
    """``compute(moves)``'s answer for the room as it is now, from the cache if asked before.

    Computed off the event loop, and only then counted against the caller's request budget
    by its cost (:func:`~tabletop.server.deps.replay_cost`).  The key holds the version and
    the players' names, so a finished match is replayed once, whoever asks.
    """
    cache: TextCache = request.app.state.replays
    names = ",".join(s.name for s in room.seats)
    key = f"{kind}:{room.id}:{room.version}:{names}"
    text = cache.get(key)
    if text is None:
        charge(request, client, replay_cost(len(room.moves)))
        text = await asyncio.to_thread(compute, list(room.moves))
        if text is not None:
            cache.put(key, text)
    return text


@router.get("/{match_id}/record", responses=errors(404, 410, 429))
async def get_record(match_id: str, rooms: RoomsDep, request: Request, client: ClientDep) -> Response:
    """The match in the JSON record format, as a download."""
    room = await rooms.get(match_id)
    text = await _replayed(request, client, room, "record", lambda moves: room.record(moves).dumps())
    return Response(
        content=text,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{room.game.id}-{match_id}.json"'},
    )


@router.get("/{match_id}/replay", responses=errors(404, 410, 429))
async def get_replay(match_id: str, rooms: RoomsDep, request: Request, client: ClientDep) -> Response:
    """Every position of the match, for stepping through a replay."""
    room = await rooms.get(match_id)
    text = await _replayed(request, client, room, "replay", lambda moves: json.dumps(replay_steps(room.record(moves))))
    assert text is not None
    return _json(text)


@router.get("/{match_id}/svg", responses=errors(404, 410))
async def get_svg(match_id: str, rooms: RoomsDep) -> Response:
    """The engine's own drawing of the current position."""
    room = await rooms.get(match_id)
    last = room.moves[-1:] if room.moves else []
    svg = await asyncio.to_thread(room.game.render_svg, room.state, last_moves=last)
    return Response(content=str(svg), media_type="image/svg+xml")


@router.get("/{match_id}/board", responses=errors(404, 410, 422, 429))
async def get_board(
    match_id: str, rooms: RoomsDep, request: Request, client: ClientDep, ply: int | None = None
) -> Response:
    """The board as the page draws it (the game's ``render_board``), now or after ``ply`` actions."""
    room = await rooms.get(match_id)
    if ply is None:
        svg = await asyncio.to_thread(room.board_svg)
    else:
        if not 0 <= ply <= len(room.moves):
            raise RoomError(422, "bad_ply", f"ply {ply} is not a position of this match (0 to {len(room.moves)})")
        at = ply
        try:
            svg = await _replayed(
                request, client, room, f"board{at}", lambda moves: replay_board(room.record(moves), at)
            )
        except RecordError as exc:
            raise RoomError(422, "bad_ply", str(exc)) from None
    if svg is None:
        raise RoomError(404, "no_board", f"{room.game.id} has no board drawing")
    return Response(content=svg, media_type="image/svg+xml")
