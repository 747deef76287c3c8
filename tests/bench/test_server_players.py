"""The server bench's simulated players: what they skip, and that none hangs up before all are done."""

from __future__ import annotations

import asyncio

from tabletop.bench.server import _Everyone, _wanted

MINE = '"current_player":1,'


def test_a_player_skips_tables_chat_and_the_other_seats_turns_unparsed() -> None:
    assert not _wanted('{"type":"table","clock":{}}', MINE)
    assert not _wanted('{"type":"chat","n":1}', MINE)
    assert not _wanted('{"type":"state","current_player":0,"version":3}', MINE)
    assert _wanted('{"type":"state","current_player":1,"version":3}', MINE)
    assert _wanted(b'{"type":"state","current_player":0,"terminal":true}', MINE)
    assert _wanted('{"type":"ack","req":4}', MINE)


def test_no_player_is_done_before_every_player_is() -> None:
    async def run() -> list[str]:
        everyone = _Everyone(3)
        order: list[str] = []

        async def player(name: str, plays_for: float) -> None:
            await asyncio.sleep(plays_for)
            order.append(f"{name} done")
            await everyone.done()
            order.append(f"{name} hangs up")

        async def failed_to_connect() -> None:
            everyone.leave()

        await asyncio.gather(player("a", 0.0), player("b", 0.02), failed_to_connect())
        return order

    order = asyncio.run(run())
    assert order[:2] == ["a done", "b done"]
    assert sorted(order[2:]) == ["a hangs up", "b hangs up"]
