"""Work that must happen once across processes: the leader under a PostgreSQL advisory lock.

Two apps on one PostgreSQL database (two ``tabletop serve`` processes, as in
``test_two_processes.py``): one leads; the other takes over when the leader goes; a
stalled bot turn is played once; a timed-out seat is handed to its bot once, whichever
process started the match; and a clock is charged the same whichever process took the
actions.  Skipped without ``$TABLETOP_TEST_DB`` naming PostgreSQL (``.ci/run`` sets it).
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from tabletop.server.app import create_app
from tabletop.server.bus import is_postgres
from tabletop.server.config import Settings
from tabletop.server.leader import AdvisoryLease
from tabletop.server.local import free_port
from tabletop.server.store import MatchStore, SeatRow, open_database

from .accounts_helpers import register
from .conftest import create_toy
from .test_lobby import FakeClock, act, check, table, tables_of, two_player_match

pytestmark = pytest.mark.skipif(
    not is_postgres(os.environ.get("TABLETOP_TEST_DB") or "sqlite://"), reason="needs PostgreSQL ($TABLETOP_TEST_DB)"
)


def wait_for(what: Callable[[], Any], timeout_s: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (got := what()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
    return got


def view_field_is(client: TestClient, match_id: str, key: str, value: Any) -> bool:
    return bool(client.get(f"/api/matches/{match_id}").json()[key] == value)


def seat_status_is(client: TestClient, match_id: str, seat: int, status: str) -> bool:
    return bool(table(client, match_id)["seats"][seat]["status"] == status)


def leading(client: TestClient) -> bool:
    return bool(client.app.state.rooms.leadership.leading)  # type: ignore[attr-defined]


@pytest.fixture
def pair_settings(db_url: str, clock: FakeClock) -> Settings:
    return Settings(
        db_url=db_url, bot_executor="thread", bot_workers=1, bot_time_budget_s=0.5, clock=clock, clock_poll_s=60
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(time.time())


@pytest.fixture
def pair(pair_settings: Settings) -> Iterator[tuple[TestClient, TestClient]]:
    with TestClient(create_app(pair_settings)) as first:
        wait_for(lambda: leading(first))
        with TestClient(create_app(pair_settings)) as second:
            yield first, second


def test_one_process_leads_and_another_takes_over_within_seconds(db_url: str) -> None:
    first, second = AdvisoryLease(db_url, poll_s=0.2), AdvisoryLease(db_url, poll_s=0.2)
    try:
        first.start()
        wait_for(lambda: first.leading)
        second.start()
        time.sleep(0.5)
        assert not second.leading
        first.close()  # as a dead process: its session ends and PostgreSQL frees the lock
        started = time.monotonic()
        wait_for(lambda: second.leading, timeout_s=5)
        assert time.monotonic() - started < 5
    finally:
        first.close()
        second.close()


def test_a_bot_turn_nobody_plays_is_played_once_by_the_leader(
    pair: tuple[TestClient, TestClient], pair_settings: Settings, clock: FakeClock
) -> None:
    first, second = pair
    assert leading(first) and not leading(second)
    # A match whose bot is to move, stored by a process that died before playing it.
    store = MatchStore(open_database(pair_settings.db_url))
    try:
        match_id = f"stall-{time.monotonic_ns()}"
        store.add_match(
            match_id,
            "toy",
            {"num_players": 2, "seed": 7, "start_player": 1},
            False,
            [SeatRow(0, "Ann", "human", "x" * 64), SeatRow(1, "Bot", "random", None)],
        )
        clock.advance(2 * pair_settings.bot_time_budget_s + 1)  # past the stall
        # The toy game's turn is two actions: the bot plays both, then Ann is to move.
        wait_for(lambda: store.count_actions(match_id) >= 2, timeout_s=15)
        time.sleep(2 * pair_settings.bot_time_budget_s + 1.5)  # a second play would be in by now
        row = store.get_match(match_id)
        assert row is not None and [seat for seat, _ in row.actions] == [1, 1] and row.version == 2
    finally:
        store.close()
        store.engine.dispose()
    # Both processes see the one turn.
    for client in pair:
        wait_for(partial(view_field_is, client, match_id, "ply", 2))


def test_a_timed_out_seat_is_taken_over_once_by_the_leader(
    pair: tuple[TestClient, TestClient], clock: FakeClock
) -> None:
    first, second = pair
    match_id, ann, _bob = two_player_match(second, clock={"kind": "realtime", "base_s": 600})
    # The leader takes on the table the other process started (its sweep does this).
    first.portal.call(tables_of(first).load_live_tables)  # type: ignore[union-attr]
    clock.advance(601)
    # (The leader may take over other tests' seats too: PostgreSQL tests share a database.)
    assert check(first) >= 1
    assert check(second) == 0  # the take-over is stored: a second try finds the seat a bot's
    for client in pair:
        wait_for(partial(seat_status_is, client, match_id, 0, "timeout"))
        view = client.get(f"/api/matches/{match_id}").json()
        assert view["players"][0]["agent"] != "human"
    # Ann's move from the old version is refused by either process: the take-over is a version.
    r = second.post(f"/api/matches/{match_id}/actions", json={"token": ann, "version": 0, "action": "a"})
    assert r.status_code in (403, 409)


def test_the_clock_is_charged_the_same_whichever_process_takes_the_action(
    pair: tuple[TestClient, TestClient], clock: FakeClock
) -> None:
    first, second = pair
    match_id, ann, bob = two_player_match(first, clock={"kind": "realtime", "base_s": 600, "increment_s": 5})
    second.get(f"/api/matches/{match_id}")  # cached on the second too
    # The toy game's turn is two actions; they alternate between the processes.
    steps = [(10, first, ann, "a"), (0, second, ann, "b"), (30, first, bob, "c"), (0, second, bob, "d")]
    steps.append((20, first, ann, "e"))
    for version, (seconds, client, token, action) in enumerate(steps):
        clock.advance(seconds)
        wait_for(partial(view_field_is, client, match_id, "version", version))
        act(client, match_id, token, action)
    # Ann: 10 s in her first turn, 20 s so far in this one; Bob: 30 s; 5 s more per turn ended.
    expected = [600_000 - 10_000 + 5_000 - 20_000, 600_000 - 30_000 + 5_000]
    for client in pair:
        wait_for(partial(view_field_is, client, match_id, "version", len(steps)))
        got = table(client, match_id)["clock"]
        assert got["remaining_ms"] == expected and got["running"] == 0


def test_two_processes_never_give_out_the_same_lobby_seat(pair: tuple[TestClient, TestClient]) -> None:
    first, second = pair
    seats = [{"kind": "me", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}]
    r = first.post("/api/lobby", json={"game": "toy", "seats": seats, "start_player": 0, "public": True})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    assert second.get(f"/api/lobby/{game_id}").json()["status"] == "open"  # made on the first
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(
                lambda args: args[0].post(f"/api/lobby/{game_id}/join", json={"name": args[1], "seat": 1}),
                [(first, "Bob"), (second, "Cy"), (first, "Dee"), (second, "Eve")],
            )
        )
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409]
    answers_name = next(name for a, name in zip(answers, ["Bob", "Cy", "Dee", "Eve"], strict=True) if a.is_success)
    # The last seat, taken through the second, starts the match once; both processes serve it.
    assert second.post(f"/api/lobby/{game_id}/join", json={"name": "Fay"}).json()["seat"] == 2
    for client in pair:
        view = client.get(f"/api/matches/{game_id}").json()
        assert [p["name"] for p in view["players"]] == ["Ann", answers_name, "Fay"] and view["version"] == 0
        assert client.get(f"/api/lobby/{game_id}").json()["match"] == game_id


def test_a_chat_line_posted_through_one_process_reaches_the_other_sockets(pair: tuple[TestClient, TestClient]) -> None:
    first, second = pair
    match_id, ann, _bob = two_player_match(first)
    with second.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        greeted = [ws.receive_json()["type"] for _ in range(2)]
        assert sorted(greeted) == ["chat", "table"]  # the second holds the table and its chat now
        r = first.post(f"/api/matches/{match_id}/chat", json={"token": ann, "text": "hello from the first"})
        assert r.status_code == 201, r.text
        frame = ws.receive_json()  # sent by the second, which heard the line on the bus
        assert frame["type"] == "chat" and [m["text"] for m in frame["messages"]] == ["hello from the first"]
    assert [m["text"] for m in second.get(f"/api/matches/{match_id}/chat").json()["messages"]] == [
        "hello from the first"
    ]


def _say_hello(ws: Any, token: str) -> None:
    ws.send_json({"type": "hello", "req": 1, "token": token})
    for _ in range(6):
        if ws.receive_json()["type"] == "welcome":
            return
    raise AssertionError("no welcome")


def _leader_table(client: TestClient, match_id: str) -> Any:
    return tables_of(client).tables[match_id]


def test_the_leader_hears_of_a_seat_dropped_on_another_process(
    pair: tuple[TestClient, TestClient], clock: FakeClock
) -> None:
    first, second = pair
    match_id, ann, _bob = two_player_match(
        first, clock={"kind": "realtime", "base_s": 600}, takeover="random", grace_s=30
    )
    with second.websocket_connect(f"/api/matches/{match_id}/ws") as ws:  # Ann's page is on the follower
        _say_hello(ws, ann)
        wait_for(lambda: _leader_table(first, match_id).present_elsewhere.get(0))
    wait_for(lambda: 0 in _leader_table(first, match_id).gone_since_ms)
    clock.advance(30)
    assert check(first) >= 1
    assert table(first, match_id)["seats"][0]["status"] == "dropped"


def test_a_seat_with_a_socket_left_on_some_process_is_not_dropped(
    pair: tuple[TestClient, TestClient], clock: FakeClock
) -> None:
    first, second = pair
    match_id, ann, _bob = two_player_match(
        second, clock={"kind": "realtime", "base_s": 600}, takeover="random", grace_s=30
    )
    first.portal.call(tables_of(first).load_live_tables)  # type: ignore[union-attr]
    with second.websocket_connect(f"/api/matches/{match_id}/ws") as kept:
        _say_hello(kept, ann)
        wait_for(lambda: _leader_table(first, match_id).present_elsewhere.get(0))
        with first.websocket_connect(f"/api/matches/{match_id}/ws") as closed:  # on the leader
            _say_hello(closed, ann)
        # Ann closed her page on the leader, which takes her for gone and says so; the
        # second still holds her other page and answers that she is here.
        leader_table = _leader_table(first, match_id)
        wait_for(lambda: not leader_table.present.get(0) and 0 not in leader_table.gone_since_ms)
        clock.advance(31)
        check(first)
        assert table(first, match_id)["seats"][0]["status"] == "playing"


def test_the_seats_of_a_killed_process_are_dropped(pair_settings: Settings, clock: FakeClock, db_url: str) -> None:
    """A process killed with its sockets says nothing; the leader finds its database
    sessions gone (``Tables.forget_dead_processes``) and its seats are dropped after the
    grace period, as if their sockets had closed."""
    from websockets.sync.client import connect

    with TestClient(create_app(pair_settings)) as first:
        wait_for(lambda: leading(first))
        port = free_port()
        serve = Path(__file__).with_name("serve_toy.py")
        follower = subprocess.Popen([sys.executable, str(serve), str(port), db_url, "0"])
        try:
            wait_for(lambda: _health(port) is not None, timeout_s=30)
            match_id, ann, _bob = two_player_match(
                first, clock={"kind": "realtime", "base_s": 600}, takeover="random", grace_s=30
            )
            with connect(f"ws://127.0.0.1:{port}/api/matches/{match_id}/ws") as page:  # Ann's page, on the follower
                page.send(json.dumps({"type": "hello", "req": 1, "token": ann}))
                while json.loads(page.recv(timeout=10))["type"] != "welcome":
                    pass
                wait_for(lambda: _leader_table(first, match_id).present_elsewhere.get(0))
                follower.kill()
                follower.wait()
                wait_for(lambda: 0 in _leader_table(first, match_id).gone_since_ms)
        finally:
            follower.kill()
            follower.wait()
        clock.advance(30)
        assert check(first) >= 1
        assert table(first, match_id)["seats"][0]["status"] == "dropped"


def test_the_seats_of_a_killed_leader_are_dropped_by_the_next_leader(schema_db_url: str, clock: FakeClock) -> None:
    """A leader killed with a seat on its socket says nothing, and the process that takes
    the lease over never heard of that socket: it finds the seat in the database's presence
    rows, under a process without a session, and drops it after the grace period."""
    from websockets.sync.client import connect

    port = free_port()
    serve = Path(__file__).with_name("serve_toy.py")
    leader = subprocess.Popen([sys.executable, str(serve), str(port), schema_db_url, "0"])
    settings = Settings(
        db_url=schema_db_url, bot_executor="thread", bot_workers=1, bot_time_budget_s=0.5, clock=clock, clock_poll_s=60
    )
    try:
        wait_for(lambda: (h := _health(port)) is not None and h["leader"], timeout_s=30)
        with TestClient(create_app(settings)) as follower:
            assert not leading(follower)
            # The match is made and played on the leader alone: the follower never holds its table.
            base = f"http://127.0.0.1:{port}"
            seats = [{"kind": "me", "name": "Ann"}, {"kind": "open"}]
            body = {"game": "toy", "seats": seats, "start_player": 0, "takeover": "random", "grace_s": 30}
            created = httpx2.post(f"{base}/api/lobby", json={**body, "clock": {"kind": "realtime", "base_s": 600}})
            assert created.status_code == 201, created.text
            match_id, ann = created.json()["id"], created.json()["token"]
            joined = httpx2.post(f"{base}/api/lobby/{match_id}/join", json={"name": "Bob"})
            assert joined.status_code == 200, joined.text
            with connect(f"ws://127.0.0.1:{port}/api/matches/{match_id}/ws") as page:  # Ann's page, on the leader
                page.send(json.dumps({"type": "hello", "req": 1, "token": ann}))
                while json.loads(page.recv(timeout=10))["type"] != "welcome":
                    pass
                assert match_id not in tables_of(follower).tables
                presence = tables_of(follower).presence
                wait_for(lambda: presence.list_presence(match_id))  # the leader stored that it holds the seat
                leader.kill()
                leader.wait()
                wait_for(lambda: leading(follower), timeout_s=10)
                wait_for(lambda: 0 in getattr(tables_of(follower).tables.get(match_id), "gone_since_ms", ()))
            assert table(follower, match_id)["seats"][0]["present"] is False
            # Past the grace period, counted from the turn's start on the dead leader's (real) clock.
            clock.advance(max(0.0, time.time() - clock()) + 31)
            assert check(follower) >= 1
            assert table(follower, match_id)["seats"][0]["status"] == "dropped"
    finally:
        leader.kill()
        leader.wait()


def test_presence_rows_of_processes_without_a_session_are_deleted_and_their_seats_gone(schema_db_url: str) -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    from tabletop.server.lobby_store import NOBODY, PROCESS_PREFIX, PresenceStore
    from tabletop.server.tables import presence_code

    engine = open_database(schema_db_url)  # a schema of its own: no leader sweeps it meanwhile
    live, dead = 123_456_789, 987_654_321
    conninfo = make_url(schema_db_url).set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        with psycopg.connect(conninfo, application_name=f"{PROCESS_PREFIX}{live}"):  # the live process's bus session
            MatchStore(engine).add_match("m1", "toy", {}, False, [SeatRow(0, "A", "human", None)])
            presence = PresenceStore(engine)
            for seat, process in ((0, live), (0, dead), (1, dead)):
                presence.add_presence("m1", seat, process, 1000, presence_code(process, seat, True))
            assert sorted(presence.delete_dead_processes(2000)) == [("m1", 0, dead), ("m1", 1, dead)]
            # Seat 0 is still held by a live process; seat 1 is gone from the sweep's time.
            assert sorted(presence.list_presence("m1")) == [(0, live, 1000), (1, NOBODY, 2000)]
            presence.delete_presence("m1", 0, live, 3000, presence_code(live, 0, False))
            presence.add_presence("m1", 1, live, 4000, presence_code(live, 1, True))
            assert sorted(presence.list_presence("m1")) == [(0, NOBODY, 3000), (1, live, 4000)]
    finally:
        engine.dispose()


def test_a_table_loaded_brings_who_holds_its_seats_and_since_when_one_is_gone(
    pair: tuple[TestClient, TestClient],
) -> None:
    """A process that loads a table (a new leader, say) learns from the database which
    processes hold each seat, and since when a seat nobody holds is gone: a seat dropped
    before the last leader died is still handed to its bot after the grace period."""
    from tabletop.server.tables import presence_code

    first, second = pair
    match_id, _ann, _bob = two_player_match(first)
    presence = tables_of(first).presence
    elsewhere, left = tables_of(first)._origin, 987_654_322  # the first is alive: its row stays
    presence.add_presence(match_id, 0, elsewhere, 1000, presence_code(elsewhere, 0, True))
    presence.add_presence(match_id, 1, left, 1000, presence_code(left, 1, True))
    presence.delete_presence(match_id, 1, left, 5000, presence_code(left, 1, False))
    assert match_id not in tables_of(second).tables
    second.get(f"/api/matches/{match_id}")  # loads the match and its table
    loaded = _leader_table(second, match_id)
    assert loaded.present_elsewhere.get(0) == {elsewhere} and 0 not in loaded.gone_since_ms
    assert loaded.gone_since_ms[1] == 5000


def test_a_seat_bound_through_one_process_is_bound_on_the_other(pair: tuple[TestClient, TestClient]) -> None:
    first, second = pair
    bob = register(first)
    m = create_toy(first)
    guest_token = m["seats"][1]["token"]
    assert second.get(f"/api/matches/{m['id']}").json()["version"] == 0  # cached on the second
    r = bob.post(f"/api/matches/{m['id']}/claim", {"token": guest_token})
    assert r.status_code == 200, r.text
    new_token = r.json()["token"]
    wait_for(lambda: second.get(f"/api/matches/{m['id']}").json()["players"][1]["name"] == bob.name)
    # The second no longer takes the seat's link alone, nor the old guest link.
    body = {"token": m["seats"][0]["token"], "version": 0, "action": "a"}
    assert second.post(f"/api/matches/{m['id']}/actions", json=body).status_code == 200
    body = {"token": m["seats"][0]["token"], "version": 1, "action": "b"}
    assert second.post(f"/api/matches/{m['id']}/actions", json=body).status_code == 200
    for token, error in ((new_token, "seat_bound"), (guest_token, "bad_token")):
        body = {"token": token, "version": 2, "action": "c"}
        r = second.post(f"/api/matches/{m['id']}/actions", json=body)
        assert r.status_code == 403 and r.json()["error"] == error


def _health(port: int) -> dict[str, Any] | None:
    try:
        r = httpx2.get(f"http://127.0.0.1:{port}/health", timeout=2)
    except httpx2.TransportError:
        return None
    return r.json() if r.status_code == 200 else None


def _two_free_ports() -> int:
    """A port that is free, and the next one too."""
    for _ in range(50):
        port = free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise AssertionError("no two free ports in a row")


def test_serve_workers_runs_processes_that_share_the_lease_and_come_back(schema_db_url: str) -> None:
    port = _two_free_ports()
    cmd = [sys.executable, "-m", "tabletop.cli.serve_cmd", "--workers", "2", "--port", str(port), "--bot-workers", "1"]
    supervisor = subprocess.Popen(
        [*cmd, "--db", schema_db_url, "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        ports = [port, port + 1]
        answers = wait_for(lambda: all(_health(p) for p in ports) and [_health(p) for p in ports], timeout_s=60)
        assert sorted(bool(a["leader"]) for a in answers) == [False, True]  # one leads
        children = Path(f"/proc/{supervisor.pid}/task/{supervisor.pid}/children").read_text().split()
        assert len(children) == 2
        os.kill(int(children[0]), signal.SIGKILL)
        # Started again by the supervisor; both answer, and one leads.
        wait_for(
            lambda: (
                len(Path(f"/proc/{supervisor.pid}/task/{supervisor.pid}/children").read_text().split()) == 2
                and children[0]
                not in Path(f"/proc/{supervisor.pid}/task/{supervisor.pid}/children").read_text().split()
            ),
            timeout_s=30,
        )
        answers = wait_for(lambda: all(_health(p) for p in ports) and [_health(p) for p in ports], timeout_s=60)
        wait_for(lambda: sum(bool((h := _health(p)) and h["leader"]) for p in ports) == 1, timeout_s=10)
    finally:
        supervisor.send_signal(signal.SIGTERM)
        supervisor.wait(timeout=30)
    assert not any(_health(p) for p in (port, port + 1))  # the processes stopped with it
