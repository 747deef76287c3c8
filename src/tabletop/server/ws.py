"""The websocket of a match: live updates for everyone, actions and undo for seats.

Protocol (JSON text frames, documented in docs/api.md); connect with ``?board=1`` to get
the board drawing (``board_svg``) in every view, as the game page does:

* client → ``{"type": "act", "req": 1, "token": "...", "version": 7, "action": "c7"}``
* client → ``{"type": "undo", "req": 2, "token": "...", "version": 8}``
* client → ``{"type": "ping"}``
* client → ``{"type": "explain", "req": 3, "action": "#c7"}`` (why it would be refused)
* client → ``{"type": "hello", "req": 3, "token": "..."}``: this connection plays that seat
  (answered ``{"type": "welcome", "req": 3, "seat": 1}``; the lobby's presence, docs/server.md)
* server → ``{"type": "table", ...}`` and ``{"type": "chat", ...}``: clocks, seats and chat
  of a match (:mod:`tabletop.server.lobby`)
* server → ``{"type": "state", ...}`` on connect and after every change (the match view)
* server → ``{"type": "ack", "req": 1, "version": 8}`` once the action is committed
* server → ``{"type": "explained", "req": 3, "message": {"code", "params", "text"} or null}``
* server → ``{"type": "error", "req": 1, "status": 409, "error": "stale_version", "detail": "..."}``
  (a refused move adds the engine's coded reason as ``message``)

Each connection has one writer task fed by an :class:`Outbox`, so broadcasts never wait on a slow
client and frames are never interleaved.  Every bad frame (binary, oversized, not JSON,
NaN, nested too deep, wrong fields, too many per minute) gets an error frame and the
socket stays open; a token is never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketState

from tabletop.server.accounts import socket_account
from tabletop.server.config import Settings
from tabletop.server.guard import MAX_INT, BadJSON, SlidingWindow, client_of, strict_json
from tabletop.server.rooms import RoomError, RoomManager

router = APIRouter()
log = logging.getLogger("tabletop.server")

MAX_QUEUE = 256
"""Updates buffered for one client; a client that falls further behind is disconnected
(close code 1013) and reconnects for a full view."""

MAX_REQ_CHARS = 64
"""A ``req`` is echoed back, so it must be small: an integer or a short string."""

TRY_AGAIN_LATER = 1013
"""Websocket close code for a client sent away by a limit (RFC 6455 registry)."""


class Outbox:
    """The frames waiting for one socket's writer task, in order: a lighter
    ``asyncio.Queue`` (every update to every socket passes through one)."""

    __slots__ = ("_frames", "_waiter")

    def __init__(self) -> None:
        self._frames: deque[str | None] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, text: str | None) -> None:
        """Queues a frame (``None``: close after what is queued).

        Raises:
            asyncio.QueueFull: the client is :data:`MAX_QUEUE` frames behind; what was
                queued is dropped and the socket is closed (the client reconnects).
        """
        frames = self._frames
        if len(frames) >= MAX_QUEUE:
            frames.clear()
            frames.append(None)
            self._wake()
            raise asyncio.QueueFull
        frames.append(text)
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def take(self) -> str | None:
        """The next frame, once there is one."""
        while not self._frames:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._frames.popleft()


def _error(req: object, status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "req": req, "status": status, "error": code, "detail": detail, **extra}


@router.websocket("/api/matches/{match_id}/ws")
async def match_socket(ws: WebSocket, match_id: str) -> None:
    """Serves one client of one match until it disconnects."""
    rooms: RoomManager = ws.app.state.rooms
    settings: Settings = ws.app.state.settings
    client = client_of(ws.scope, settings.trusted_networks)
    await ws.accept()
    try:
        room = await rooms.get(match_id)
    except RoomError as exc:
        await ws.send_text(json.dumps(_error(None, exc.status, exc.code, exc.detail)))
        await ws.close(code=4404 if exc.status == 404 else 4410)
        return
    outbox = Outbox()
    send = outbox.put

    async def writer() -> None:
        while (text := await outbox.take()) is not None:
            await ws.send_text(text)
        if ws.application_state == WebSocketState.CONNECTED:
            await ws.close(code=TRY_AGAIN_LATER)

    # Only a page that shows the board asks for its drawing (``?board=1``): an API client
    # or a simulated player does not pay for a drawing it never shows.
    board = ws.query_params.get("board") == "1"
    try:
        rooms.subscribe(room, send, client, board=board)
    except RoomError as exc:
        await ws.send_text(json.dumps(_error(None, exc.status, exc.code, exc.detail)))
        await ws.close(code=TRY_AGAIN_LATER)
        return
    # The cookie's account, for seats bound to one (only from this site's own pages).
    had_session = await socket_account(ws) is not None

    async def account_now() -> int | None:
        # Asked again at each action: a log-out after the handshake ends what the socket
        # may do for the account.  A socket that came without a session never gains one.
        if not had_session:
            return None
        account = await socket_account(ws, fresh=True)
        return account.id if account is not None else None

    writer_task = asyncio.create_task(writer())
    messages = SlidingWindow(settings.ws_messages_per_minute)
    try:
        send(room.join_text(board))
        rooms.listeners.joined(room, send)
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            if writer_task.done():
                break
            wait = messages.allow("")
            reply: dict[str, Any] | None
            if wait is not None:
                reply = _error(None, 429, "too_many_messages", "too many messages on this connection", retry_after=wait)
            else:
                reply = await _handle(rooms, match_id, frame, settings, client, send, account_now)
            if reply is not None:
                send(json.dumps(reply))
    except asyncio.QueueFull:
        pass
    finally:
        rooms.unsubscribe(room, send)
        if not writer_task.done():
            with contextlib.suppress(asyncio.QueueFull):
                outbox.put(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer_task, timeout=5)
        writer_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer_task


def _request_id(msg: dict[str, Any]) -> tuple[object, str | None]:
    """The message's ``req`` if it is safe to echo (an integer or a short string)."""
    req = msg.get("req")
    if req is None or (isinstance(req, int) and not isinstance(req, bool) and abs(req) <= MAX_INT):
        return req, None
    if isinstance(req, str) and len(req) <= MAX_REQ_CHARS:
        return req, None
    return None, f"'req' must be an integer or a string of at most {MAX_REQ_CHARS} characters"


async def _handle(
    rooms: RoomManager,
    match_id: str,
    frame: Mapping[str, Any],
    settings: Settings,
    client: str,
    origin: Any,
    account_of: Callable[[], Awaitable[int | None]],
) -> dict[str, Any] | None:
    raw = frame.get("text")
    if raw is None:
        return _error(None, 400, "bad_message", "binary frames are not accepted: send JSON text")
    if len(raw) > settings.max_ws_message_bytes:
        return _error(None, 413, "message_too_large", f"a message may be at most {settings.max_ws_message_bytes} bytes")
    try:
        msg = strict_json(raw, settings.max_json_depth)
    except BadJSON as exc:
        return _error(None, 400, "bad_json", str(exc))
    if not isinstance(msg, dict):
        return _error(None, 400, "bad_message", "expected an object")
    req, problem = _request_id(msg)
    if problem is not None:
        return _error(None, 400, "bad_message", problem)
    kind = msg.get("type")
    if kind == "ping":
        return {"type": "pong", "req": req}
    if kind == "hello":
        return await _hello(rooms, match_id, msg.get("token"), req, client, origin, await account_of())
    if kind == "explain":
        action = msg.get("action")
        if not isinstance(action, str) or not action:
            return _error(req, 400, "bad_message", "'action' (string) is required")
        try:
            reason = await rooms.explain(match_id, action)
        except RoomError as exc:
            return _error(req, exc.status, exc.code, exc.detail)
        return {"type": "explained", "req": req, "message": reason.to_json() if reason is not None else None}
    if kind not in ("act", "undo"):
        return _error(req, 400, "bad_message", "'type' must be 'act', 'undo', 'explain', 'hello' or 'ping'")
    token, version = msg.get("token"), msg.get("version")
    if not isinstance(token, str) or not isinstance(version, int) or isinstance(version, bool):
        return _error(req, 400, "bad_message", "'token' (string) and 'version' (integer) are required")
    try:
        account_id = await account_of()
        if kind == "act":
            action = msg.get("action")
            if not isinstance(action, str) or not action:
                raise RoomError(400, "bad_message", "'action' (string) is required")
            room = await rooms.act(
                match_id, token, version, action, client=client, origin=origin, account_id=account_id
            )
        else:
            room = await rooms.undo(match_id, token, version, client=client, origin=origin, account_id=account_id)
    except RoomError as exc:
        extra: dict[str, Any] = {"retry_after": exc.retry_after} if exc.retry_after is not None else {}
        if exc.reason is not None:
            extra["message"] = exc.reason.to_json()
        return _error(req, exc.status, exc.code, exc.detail, **extra)
    except Exception:  # an engine bug must not cut the connection; the match is unchanged
        # The message holds the seat's token: name the match and the kind only.
        log.exception("a %s message failed in match %s", kind, match_id)
        return _error(req, 500, "internal", "the server failed")
    return {"type": "ack", "req": req, "version": room.version}


async def _hello(
    rooms: RoomManager,
    match_id: str,
    token: object,
    req: object,
    client: str,
    origin: Any,
    account_id: int | None = None,
) -> dict[str, Any]:
    """``{"type": "hello", "token": ...}``: this connection plays the token's seat.

    The lobby counts a seat as present while one of its connections that said hello is
    open (a dropped seat is taken over by a bot after the grace period; docs/server.md).
    """
    if not isinstance(token, str) or not 0 < len(token) <= 200:
        return _error(req, 400, "bad_message", "'token' (string) is required")
    try:
        room = await rooms.get(match_id)
        seat = rooms.seat_for_token(room, token, client, account_id)
    except RoomError as exc:
        extra = {"retry_after": exc.retry_after} if exc.retry_after is not None else {}
        return _error(req, exc.status, exc.code, exc.detail, **extra)
    rooms.listeners.hello(room, seat, origin)
    return {"type": "welcome", "req": req, "seat": seat}
