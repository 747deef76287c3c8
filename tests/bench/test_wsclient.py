"""The bench's lean websocket client against the ``websockets`` library's own server."""

from __future__ import annotations

import asyncio
import http
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from tabletop.bench.server import client_loop_factory
from tabletop.bench.wsclient import Closed, HandshakeError, connect

LoopFactory = Callable[[], asyncio.AbstractEventLoop] | None


def _run(
    loop_factory: LoopFactory,
    handler: Callable[[ServerConnection], Awaitable[None]],
    client: Callable[[str], Awaitable[Any]],
    **kw: Any,
) -> Any:
    async def main() -> Any:
        async with serve(handler, "127.0.0.1", 0, **kw) as server:
            port = server.sockets[0].getsockname()[1]
            return await asyncio.wait_for(client(f"ws://127.0.0.1:{port}/api/matches/m/ws?x=1"), 10)

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(main())


@pytest.fixture(params=["asyncio", "uvloop"])
def loop_factory(request: pytest.FixtureRequest) -> LoopFactory:
    """The bench runs its players on uvloop where it is installed, else on asyncio's loop."""
    return client_loop_factory() if request.param == "uvloop" else None


def test_messages_of_every_length_encoding_go_both_ways(loop_factory: LoopFactory) -> None:
    async def echo(ws: ServerConnection) -> None:
        async for message in ws:
            await ws.send(message)

    async def client(url: str) -> list[str]:
        async with await connect(url) as ws:
            texts = ["a", "é" * 100, "x" * 70_000, '{"type":"act"}']
            for text in texts:
                await ws.send(text)
            return [await ws.recv() for _ in texts]

    assert _run(loop_factory, echo, client) == ["a", "é" * 100, "x" * 70_000, '{"type":"act"}']


def test_fragments_are_joined_pings_answered_and_a_close_ends_reading(loop_factory: LoopFactory) -> None:
    answered: list[bool] = []

    async def server(ws: ServerConnection) -> None:
        assert ws.request is not None and ws.request.path == "/api/matches/m/ws?x=1"
        await ws.send(["par", "ts ", "joined"])  # one message in three frames
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 5)
        answered.append(True)
        await ws.send("last")
        await ws.close(1001)

    async def client(url: str) -> list[str]:
        ws = await connect(url)
        got = [await ws.recv(), await ws.recv()]
        with pytest.raises(Closed):
            await ws.recv()
        with pytest.raises(Closed):
            await ws.send("too late")
        return got

    assert _run(loop_factory, server, client) == ["parts joined", "last"]
    assert answered == [True]


def test_the_client_closes_with_1000(loop_factory: LoopFactory) -> None:
    codes: list[int | None] = []

    async def server(ws: ServerConnection) -> None:
        async for _ in ws:
            pass
        codes.append(ws.close_code)

    async def client(url: str) -> None:
        async with await connect(url) as ws:
            await ws.send("hello")
        await asyncio.sleep(0.2)

    _run(loop_factory, server, client)
    assert codes == [1000]


def test_a_refused_upgrade_is_a_clear_error(loop_factory: LoopFactory) -> None:
    def refuse(_connection: ServerConnection, _request: Request) -> Response:
        return _connection.respond(http.HTTPStatus.FORBIDDEN, "no\n")

    async def server(ws: ServerConnection) -> None:  # never reached
        await ws.close()

    async def client(url: str) -> None:
        await connect(url)

    with pytest.raises(HandshakeError, match="403"):
        _run(loop_factory, server, client, process_request=refuse)
    with pytest.raises(ValueError, match="ws://"):
        asyncio.run(connect("wss://127.0.0.1:1/x"))
