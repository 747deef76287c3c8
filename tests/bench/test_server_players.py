"""The server bench's simulated players: what they skip, and that none hangs up before all are done."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tabletop.bench.server import _Everyone, _wanted, run_bench

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


def test_a_short_run_against_a_real_server_plays_and_loses_nothing(tmp_path: Path) -> None:
    # The players' lean websocket client (bench/wsclient.py) against uvicorn's own
    # websockets, through the whole run: matches made, sockets opened, actions acked,
    # and the restarted server holding every acknowledged action.
    result = run_bench(games=4, seconds=2.0, think_s=0.02, db_dir=tmp_path)
    assert result.errors == 0 and result.lost == 0
    assert result.actions > 20
    assert len(result.rtts_ms) == result.actions
