"""A lean websocket client for the server bench's simulated players.

``tabletop bench server`` runs 2,000 players in one process on the machine whose cores
the servers it measures use too, so every microsecond a player spends is taken from the
servers.  On ``websockets``' asyncio connection (its reader, assembler, send lock and
keepalive for each frame) the players cost 0.28-0.29 ms of CPU an action, on this one
0.23 (docs/benchmarks.md, "A lean client for the bench, the database over its socket,
and the ratio").  It speaks only what the players need, on an ``asyncio.Protocol``: the
opening handshake (checked as RFC 6455 says), whole text messages in (fragments joined),
masked text frames out, pongs for the server's pings, and the closing handshake.  The
browser's client and every test of the server use the real libraries; only the load
generator uses this.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import os
import random
import struct
from types import TracebackType
from typing import Self, cast
from urllib.parse import urlsplit

from websockets.utils import accept_key

try:
    from websockets.speedups import apply_mask
except ImportError:  # a build of websockets without its C part
    from websockets.utils import apply_mask

_TEXT, _CONTINUATION, _CLOSE, _PING, _PONG = 0x1, 0x0, 0x8, 0x9, 0xA


class HandshakeError(ConnectionError):
    """The server did not accept the websocket."""


class Closed(ConnectionError):
    """The connection is closed: by the server, by ``close()``, or lost."""


def _frame(opcode: int, payload: bytes, mask: bytes) -> bytes:
    """One final client frame (RFC 6455 section 5.2: a client masks every frame)."""
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    return header + mask + apply_mask(payload, mask)


class _Protocol(asyncio.Protocol):
    def __init__(self, host: str, target: str) -> None:
        self._key = base64.b64encode(os.urandom(16))
        self._request = (
            f"GET {target} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {self._key.decode()}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
        self._buffer = bytearray()
        self._open = False
        self._fragments: list[bytes] = []
        self.messages: collections.deque[str] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.closed: BaseException | None = None
        # The masks only keep a page's script from steering what a proxy caches (RFC 6455
        # section 10.3); the players are no such script, and os.urandom would be a system
        # call a frame on the cores the servers use.
        self._masks = random.Random(int.from_bytes(os.urandom(8), "big"))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but have its methods.
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(self._request)

    def send(self, opcode: int, payload: bytes) -> None:
        if self.closed is not None or self.transport is None:
            raise Closed("the websocket is closed") from self.closed
        self.transport.write(_frame(opcode, payload, self._masks.randbytes(4)))

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self._open:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self._buffer[:end]).decode("latin-1")
            del self._buffer[: end + 4]
            self._accept(head)
            if not self._open:
                return
        self._read_frames()

    def _accept(self, head: str) -> None:
        status, *lines = head.split("\r\n")
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        expected = accept_key(self._key.decode())
        if status.split(" ")[1:2] != ["101"] or headers.get("sec-websocket-accept") != expected:
            self._fail(HandshakeError(f"the server did not accept the websocket: {status!r}"))
            return
        self._open = True
        self.opened.set_result(None)

    def _read_frames(self) -> None:
        buffer = self._buffer
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            size, start = second & 0x7F, 2
            if size == 126:
                if len(buffer) < 4:
                    return
                (size,) = struct.unpack_from("!H", buffer, 2)
                start = 4
            elif size == 127:
                if len(buffer) < 10:
                    return
                (size,) = struct.unpack_from("!Q", buffer, 2)
                start = 10
            if second & 0x80:  # a server never masks (RFC 6455 section 5.1)
                self._fail(Closed("the server sent a masked frame"))
                return
            if len(buffer) < start + size:
                return
            payload = bytes(buffer[start : start + size])
            del buffer[: start + size]
            self._take(first & 0x80 != 0, first & 0x0F, payload)
            if self.closed is not None:
                return

    def _take(self, final: bool, opcode: int, payload: bytes) -> None:
        if opcode in (_TEXT, _CONTINUATION):
            self._fragments.append(payload)
            if final:
                text = b"".join(self._fragments).decode()
                self._fragments.clear()
                self.messages.append(text)
                if self.waiter is not None and not self.waiter.done():
                    self.waiter.set_result(None)
        elif opcode == _PING:
            self.send(_PONG, payload)
        elif opcode == _CLOSE:
            self.send(_CLOSE, payload[:2])  # the closing handshake's answer: the server's code
            self._fail(Closed("the server closed the websocket"))
        # A pong or a binary frame: nothing the players need.

    def close(self) -> None:
        """Sends the closing handshake (status 1000) and drops the connection."""
        if self.closed is None and self.transport is not None:
            self.send(_CLOSE, struct.pack("!H", 1000))
            self._fail(Closed("closed by this client"))

    def _fail(self, error: BaseException) -> None:
        if self.closed is None:
            self.closed = error
        if not self.opened.done():
            self.opened.set_exception(error)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(exc if exc is not None else Closed("the connection was lost"))


class LeanWebSocket:
    """A connected websocket: :meth:`recv` and :meth:`send` text, :meth:`close`;
    ``async with`` closes it."""

    def __init__(self, protocol: _Protocol) -> None:
        self._protocol = protocol

    async def recv(self) -> str:
        """The next whole text message.

        Raises:
            Closed: once the connection is closed and every message before it was read.
        """
        protocol = self._protocol
        while not protocol.messages:
            if protocol.closed is not None:
                raise Closed("the websocket is closed") from protocol.closed
            protocol.waiter = asyncio.get_running_loop().create_future()
            await protocol.waiter
        return protocol.messages.popleft()

    async def send(self, text: str) -> None:
        """Sends one text message (written to the socket at once; asyncio buffers it).

        Raises:
            Closed: if the connection is closed.
        """
        self._protocol.send(_TEXT, text.encode())

    async def close(self) -> None:
        """Sends the closing handshake (status 1000) and drops the connection."""
        self._protocol.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()


async def connect(url: str, *, open_timeout: float = 60.0) -> LeanWebSocket:
    """Opens ``ws://host:port/path`` (no TLS: the bench's servers and proxy are local).

    Raises:
        ValueError: for another kind of URL.
        HandshakeError: if the server refuses the upgrade.
        TimeoutError: if the handshake takes longer than ``open_timeout``.
        OSError: if the connection fails.
    """
    parts = urlsplit(url)
    if parts.scheme != "ws" or parts.hostname is None:
        raise ValueError(f"the bench's players connect to ws:// URLs, not {url!r}")
    port = parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(open_timeout):
        _, protocol = await loop.create_connection(lambda: _Protocol(parts.netloc, target), parts.hostname, port)
        await protocol.opened
    return LeanWebSocket(protocol)
