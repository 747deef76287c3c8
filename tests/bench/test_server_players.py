"""The server bench's simulated players: what they skip, and that none hangs up before all are done."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tabletop.bench.server import CLIENT_NATIVE, CLIENT_PYTHON, _Everyone, _wanted, default_client, run_bench
from tests.native import REQUIRE_VARIABLE, native_required

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


def _client(name: str) -> str:
    """``name``, or a skip (a failure where cargo is on PATH) for native players not built."""
    if name == CLIENT_NATIVE and default_client() != CLIENT_NATIVE:
        if native_required():
            pytest.fail(f"the native players are not built, but cargo is on PATH ({REQUIRE_VARIABLE} unset or 1)")
        pytest.skip("the native extension is not built")
    return name


@pytest.mark.parametrize("client", [CLIENT_PYTHON, CLIENT_NATIVE])
def test_a_short_run_against_a_real_server_plays_and_loses_nothing(tmp_path: Path, client: str) -> None:
    # Either players (Python's lean websocket client, bench/wsclient.py, or the native
    # ones, native/src/bench_players.rs) against uvicorn's own websockets, through the
    # whole run: matches made, sockets opened, actions acked, and the restarted server
    # holding every acknowledged action.
    result = run_bench(games=4, seconds=2.0, think_s=0.02, db_dir=tmp_path, client=_client(client))
    assert result.client == client
    assert (result.errors, result.lost, result.failures) == (0, 0, [])
    assert result.actions > 20
    assert len(result.rtts_ms) == result.actions
    assert result.client_cpu_s is not None
    assert f"(clients {result.client_cpu_s * 1000 / result.actions:.2f}, {client})" in result.summary()


@pytest.mark.parametrize("client", [CLIENT_PYTHON, CLIENT_NATIVE])
def test_a_clocked_run_says_hello_and_the_clocks_charge_all_the_time(tmp_path: Path, client: str) -> None:
    result = run_bench(
        games=3, seconds=2.0, think_s=0.05, db_dir=tmp_path, clock="realtime:600+5", client=_client(client)
    )
    assert (result.errors, result.lost, result.failures) == (0, 0, [])
    assert result.actions > 10
    assert result.clock_drift_ms is not None and result.clock_drift_ms <= 1000


def test_a_player_that_cannot_connect_is_an_error_with_its_reason(tmp_path: Path) -> None:
    _client(CLIENT_NATIVE)
    from tabletop._native import BenchPlayers

    players = BenchPlayers.connect([("ws://127.0.0.1:9/nothing", 0, 0, "t", False)], 0.1, ready_timeout_s=30.0)
    outcome = players.play(0.1)
    assert outcome["errors"] == 1 and outcome["acked"] == [0] and outcome["finished"] == [False]
    assert "seat 0" in outcome["failures"][0]
    with pytest.raises(ValueError, match="played already"):
        players.play(0.1)
    with pytest.raises(ValueError, match="not a ws:// URL"):
        BenchPlayers.connect([("http://127.0.0.1:9/", 0, 0, "t", False)], 0.1)
    with pytest.raises(ValueError, match="seconds"):
        BenchPlayers.connect([], float("nan"))
