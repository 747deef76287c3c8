"""The websocket of a match: live updates for everyone, actions and undo for seats.

Protocol (JSON text frames, documented in docs/api.md):

* client → ``{"type": "act", "req": 1, "token": "...", "version": 7, "action": "c7"}``
* client → ``{"type": "undo", "req": 2, "token": "...", "version": 8}``
* client → ``{"type": "ping"}``
* server → ``{"type": "state", ...}`` on connect and after every change (the match view)
* server → ``{"type": "ack", "req": 1, "version": 8}`` once the action is committed
* server → ``{"type": "error", "req": 1, "status": 409, "error": "stale_version", "detail": "..."}``

Each connection has one writer task fed by a queue, so broadcasts never wait on a slow
client and frames are never interleaved.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from tabletop.server.rooms import RoomError, RoomManager

router = APIRouter()
log = logging.getLogger("tabletop.server")

MAX_QUEUE = 256
"""Updates buffered for one client; a client that falls further behind is dropped."""


@router.websocket("/api/matches/{match_id}/ws")
async def match_socket(ws: WebSocket, match_id: str) -> None:
    """Serves one client of one match until it disconnects."""
    rooms: RoomManager = ws.app.state.rooms
    await ws.accept()
    try:
        room = await rooms.get(match_id)
    except RoomError as exc:
        await ws.send_text(json.dumps({"type": "error", "status": exc.status, **exc.to_json()}))
        await ws.close(code=4404)
        return
    queue: asyncio.Queue[str | None] = asyncio.Queue(MAX_QUEUE)

    async def send(text: str) -> None:
        queue.put_nowait(text)  # QueueFull drops this subscriber (see RoomManager.broadcast)

    async def writer() -> None:
        while (text := await queue.get()) is not None:
            await ws.send_text(text)

    writer_task = asyncio.create_task(writer())
    rooms.subscribe(room, send)
    await send(room.join_text())
    try:
        while True:
            raw = await ws.receive_text()
            reply = await _handle(rooms, match_id, raw)
            if reply is not None:
                queue.put_nowait(json.dumps(reply))
    except (WebSocketDisconnect, asyncio.QueueFull):
        pass
    finally:
        rooms.unsubscribe(room, send)
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait(None)
        writer_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer_task


async def _handle(rooms: RoomManager, match_id: str, raw: str) -> dict[str, Any] | None:
    try:
        msg = json.loads(raw)
    except ValueError:
        return {"type": "error", "req": None, "status": 400, "error": "bad_json", "detail": "not JSON"}
    if not isinstance(msg, dict):
        return {"type": "error", "req": None, "status": 400, "error": "bad_message", "detail": "expected an object"}
    req = msg.get("req")
    kind = msg.get("type")
    if kind == "ping":
        return {"type": "pong", "req": req}
    token, version = msg.get("token"), msg.get("version")
    if kind not in ("act", "undo"):
        return {"type": "error", "req": req, "status": 400, "error": "bad_message", "detail": f"unknown type {kind!r}"}
    if not isinstance(token, str) or not isinstance(version, int) or isinstance(version, bool):
        return {
            "type": "error",
            "req": req,
            "status": 400,
            "error": "bad_message",
            "detail": "'token' (string) and 'version' (integer) are required",
        }
    try:
        if kind == "act":
            action = msg.get("action")
            if not isinstance(action, str) or not action:
                raise RoomError(400, "bad_message", "'action' (string) is required")
            room = await rooms.act(match_id, token, version, action)
        else:
            room = await rooms.undo(match_id, token, version)
    except RoomError as exc:
        return {"type": "error", "req": req, "status": exc.status, **exc.to_json()}
    except Exception:  # an engine bug must not cut the connection; the match is unchanged
        log.exception("action %r failed in match %s", msg, match_id)
        return {"type": "error", "req": req, "status": 500, "error": "internal", "detail": "the server failed"}
    return {"type": "ack", "req": req, "version": room.version}
