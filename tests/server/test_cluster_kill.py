"""Three server processes on PostgreSQL behind haproxy (deploy/haproxy.cfg), two of them killed.

The test runs the documented proxy configuration as it is, with its own ports and a
self-signed certificate, in front of three processes (``serve_cluster_node.py``) on a
schema of its own in ``$TABLETOP_TEST_DB``.  Clients play over HTTPS and secure
websockets through the proxy: people against people, people against bots, bots
against bots, clocked lobby games with chat (two rated, between two accounts; one whose
second player stops moving, so the leader hands the seat to its bot).  Once a third of
the actions are in, the leader is killed with SIGKILL; once two thirds are, another
process.  Then, read from the database and through the proxy: every client went on to
the end, every acknowledged action is stored at its ply, each match's bot turns were
played once (each match holds exactly its six actions, by the seats whose turn it was),
the chat of each game is in order without repeats, each clock charged every seat its
own turns (time runs while a process is down), the timed-out seat was taken over, and
each rated game was rated once.

Skipped without ``$TABLETOP_TEST_DB`` naming PostgreSQL or without haproxy and openssl on
the PATH; ``.ci/run`` runs it in its PostgreSQL step.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, select
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from tabletop.server.bus import is_postgres
from tabletop.server.local import free_port, start_server, stop_server
from tabletop.server.store import actions, iso_to_ms, rating_events, seats

from .accounts_helpers import PASSWORD, fresh_name

HERE = Path(__file__).parent
HAPROXY_CFG = HERE.parent.parent / "deploy" / "haproxy.cfg"
TEST_DB = os.environ.get("TABLETOP_TEST_DB", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not is_postgres(TEST_DB or "sqlite://"), reason="needs PostgreSQL ($TABLETOP_TEST_DB)"),
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy (apt-get install haproxy)"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for the proxy's certificate"),
]

ACTIONS_PER_MATCH = 6
"""The toy game: six cells, two claims a turn, so every match has exactly six actions."""

PEOPLE, PEOPLE_WS, PERSON_BOT, BOTS = 20, 10, 12, 6
CLOCKED, RATED = 3, 2
MATCHES = PEOPLE + PEOPLE_WS + PERSON_BOT + BOTS + CLOCKED + RATED + 1  # + the timed-out game
CLOCK_BASE_S = 120
TIMEOUT_BASE_S = 3
PACE_S = 0.03
"""A client's pause between its actions, so the play spans the kills."""
LOBBY_PACE_S = 0.4
"""The lobby games move slower still: their clocks run across both kills."""
GIVE_UP_S = 90.0
"""How long a client keeps trying through the proxy before the test fails."""


# ----- the cluster ------------------------------------------------------------------------


@dataclass
class Cluster:
    base: str
    """The proxy's HTTPS address."""
    db_url: str
    ports: list[int]
    procs: dict[int, subprocess.Popen[bytes]]

    def health(self, port: int) -> dict[str, Any] | None:
        try:
            r = httpx2.get(f"http://127.0.0.1:{port}/health", timeout=2)
        except httpx2.TransportError:
            return None
        return r.json() if r.status_code == 200 else None

    def leader(self) -> int | None:
        for port in self.ports:
            if self.procs[port].poll() is None and (h := self.health(port)) and h["leader"]:
                return port
        return None


@pytest.fixture
def cluster(tmp_path: Path, schema_db_url: str) -> Iterator[Cluster]:
    db_url = schema_db_url
    cert = tmp_path / "tls.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"),
            *("-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")),
        ],
        check=True,
        capture_output=True,
    )
    cert.write_text((tmp_path / "cert.pem").read_text() + (tmp_path / "key.pem").read_text())
    ports = [free_port() for _ in range(3)]
    http_port, https_port = free_port(), free_port()
    procs: dict[int, subprocess.Popen[bytes]] = {}
    proxy = None
    try:
        node = [sys.executable, str(HERE / "serve_cluster_node.py")]
        # The first process makes the schema's tables; the others start together after it.
        procs[ports[0]] = start_server([*node, str(ports[0]), db_url], ports[0], timeout_s=60)
        with ThreadPoolExecutor(2) as pool:
            started = pool.map(lambda p: start_server([*node, str(p), db_url], p, timeout_s=60), ports[1:])
            procs.update(zip(ports[1:], started, strict=True))
        env = dict(
            os.environ,
            TABLETOP_HTTP_BIND=f"127.0.0.1:{http_port}",
            TABLETOP_HTTPS_BIND=f"127.0.0.1:{https_port}",
            TABLETOP_TLS_CERT=str(cert),
            # Every client of this test comes from 127.0.0.1: the proxy's per-address
            # limits (test_proxy_limits.py) are lifted.
            TABLETOP_PROXY_REQUESTS_PER_10S="1000000",
            TABLETOP_PROXY_CONNECTIONS="100000",
            **{f"TABLETOP_APP{i + 1}": f"127.0.0.1:{port}" for i, port in enumerate(ports)},
        )
        proxy = subprocess.Popen(
            ["haproxy", "-db", "-f", str(HAPROXY_CFG)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        base = f"https://127.0.0.1:{https_port}"
        deadline = time.monotonic() + 20
        while True:
            assert proxy.poll() is None, proxy.stderr.read().decode() if proxy.stderr else "haproxy exited"
            with contextlib.suppress(httpx2.TransportError):
                if httpx2.get(f"{base}/health", verify=False, timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the proxy did not answer"
            time.sleep(0.2)
        # Plain HTTP is sent to HTTPS.
        plain = httpx2.get(f"http://127.0.0.1:{http_port}/", timeout=5)
        assert plain.status_code == 301 and plain.headers["location"].startswith("https://")
        yield Cluster(base, db_url, ports, procs)
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=10)
        for proc in procs.values():
            stop_server(proc)


# ----- the clients ------------------------------------------------------------------------


@dataclass
class Ledger:
    """What the clients were told, shared by their threads."""

    acked: dict[str, dict[int, str]] = field(default_factory=dict)
    """Per match, each acknowledged action by ply."""
    chat: dict[str, list[str]] = field(default_factory=dict)
    """Per lobby game, the chat lines the server acknowledged, in the order sent."""
    chat_unanswered: set[tuple[str, str]] = field(default_factory=set)
    """``(lobby game, line)`` of the chat lines whose answer was lost with a process:
    stored or not, either is right."""
    served_by: set[str] = field(default_factory=set)
    retries: int = 0
    """How often a client lost its process (no answer, or the proxy's 5xx) and went on."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ack(self, match_id: str, ply: int, action: str) -> None:
        with self.lock:
            self.acked.setdefault(match_id, {})[ply] = action

    def count(self) -> int:
        with self.lock:
            return sum(len(plies) for plies in self.acked.values())


class Client:
    """One person's connection through the proxy; it reconnects and retries what it may."""

    def __init__(self, base: str, ledger: Ledger) -> None:
        self.http = httpx2.Client(base_url=base, verify=False, timeout=10)
        self.ledger = ledger
        self.headers: dict[str, str] = {}

    def close(self) -> None:
        self.http.close()

    def _send(self, method: str, path: str, body: Any = None) -> httpx2.Response | None:
        try:
            r = self.http.request(method, path, json=body, headers=self.headers)
        except httpx2.TransportError:
            r = None
        if r is None or r.status_code in (502, 503, 504):  # the proxy lost the process mid-request
            with self.ledger.lock:
                self.ledger.retries += 1
            return None
        if served := r.headers.get("x-served-by"):
            with self.ledger.lock:
                self.ledger.served_by.add(served)
        return r

    def read(self, path: str) -> Any:
        """A GET, retried until a process answers."""
        deadline = time.monotonic() + GIVE_UP_S
        while (r := self._send("GET", path)) is None or r.status_code >= 500:
            assert time.monotonic() < deadline, f"no answer to GET {path}"
            time.sleep(0.1)
        assert r.status_code == 200, r.text
        return r.json()

    def create(self, path: str, body: Any) -> Any:
        """A POST that makes something new: retried when it surely did not arrive (a lost
        answer makes one more, which is only an orphan)."""
        deadline = time.monotonic() + GIVE_UP_S
        while (r := self._send("POST", path, body)) is None:
            assert time.monotonic() < deadline, f"no answer to POST {path}"
            time.sleep(0.1)
        assert r.status_code in (200, 201), r.text
        return r.json()

    def try_post(self, path: str, body: Any) -> httpx2.Response | None:
        """A POST that is not repeated: ``None`` if the answer was lost (it may have been taken)."""
        return self._send("POST", path, body)


def play_http(
    client: Client, match_id: str, tokens: dict[int, str], after_action: Callable[[int], None] | None = None
) -> None:
    """Plays the people's seats of a match over HTTP to the end (bots move by themselves)."""
    deadline = time.monotonic() + GIVE_UP_S
    while True:
        assert time.monotonic() < deadline, f"match {match_id} did not finish"
        view = client.read(f"/api/matches/{match_id}")
        if view["terminal"] or view["ended"]:
            return
        seat = view["current_player"]
        if seat not in tokens or view["players"][seat]["agent"] != "human":
            time.sleep(0.05)  # a bot's turn
            continue
        action = view["legal"]["claim"][0]
        body = {"token": tokens[seat], "version": view["version"], "action": action}
        r = client.try_post(f"/api/matches/{match_id}/actions", body)
        if r is not None and r.status_code == 200:
            client.ledger.ack(match_id, view["ply"], action)
            if after_action is not None:
                after_action(seat)
        elif r is not None:
            assert r.status_code in (403, 409), r.text  # moved on meanwhile (a bot, a take-over)
        time.sleep(PACE_S)


def new_match(client: Client, agents: tuple[str, str]) -> tuple[str, dict[int, str]]:
    seats = [{"name": f"P{i}", "agent": agent} for i, agent in enumerate(agents)]
    m = client.create("/api/matches", {"game": "toy", "seats": seats, "start_player": 0})
    return m["id"], {s["seat"]: s["token"] for s in m["seats"] if s.get("token")}


def person_match(base: str, ledger: Ledger, agents: tuple[str, str]) -> str:
    client = Client(base, ledger)
    try:
        match_id, tokens = new_match(client, agents)
        play_http(client, match_id, tokens)
        return match_id
    finally:
        client.close()


def websocket_match(base: str, ledger: Ledger) -> str:
    """Both seats played over one secure websocket, reconnected through the proxy when cut."""
    client = Client(base, ledger)
    try:
        match_id, tokens = new_match(client, ("human", "human"))
    finally:
        client.close()
    url = base.replace("https://", "wss://") + f"/api/matches/{match_id}/ws"
    tls = ssl.create_default_context()
    tls.check_hostname = False
    tls.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + GIVE_UP_S
    req = itertools.count()
    while True:
        assert time.monotonic() < deadline, f"match {match_id} did not finish over its websocket"
        try:
            with connect(url, ssl=tls, open_timeout=5, close_timeout=1) as ws:
                if _play_socket(ws, match_id, tokens, ledger, req):
                    return match_id
        except (OSError, WebSocketException, TimeoutError, Resync):
            pass
        with ledger.lock:
            ledger.retries += 1
        time.sleep(0.1)


class Resync(Exception):
    """A refused action: reconnect for a full view."""


def _play_socket(
    ws: ClientConnection, match_id: str, tokens: dict[int, str], ledger: Ledger, req: Iterator[int]
) -> bool:
    """Plays until the end (``True``), or raises when the socket breaks or must resynchronise.

    Every ``state`` frame, full or a patch, carries the version, whose turn it is and the
    legal moves in full; the acting socket hears its update before its ``ack``.
    """
    view: dict[str, Any] | None = None
    pending: tuple[int, int, str] | None = None
    while True:
        msg = json.loads(ws.recv(timeout=10))
        if msg["type"] == "state":
            view = msg
        elif msg["type"] == "ack":
            assert pending is not None and msg["req"] == pending[0]
            ledger.ack(match_id, pending[1], pending[2])
            pending = None
        elif msg["type"] == "error":
            assert msg["status"] in (403, 409), msg
            raise Resync(msg["error"])
        if view is None:
            continue
        if view["terminal"]:
            return True
        if pending is None:
            seat, action, n = view["current_player"], view["legal"]["claim"][0], next(req)
            pending = (n, view["ply"], action)
            time.sleep(PACE_S)
            body = {"type": "act", "req": n, "token": tokens[seat], "version": view["version"], "action": action}
            ws.send(json.dumps(body))


def bots_match(base: str, ledger: Ledger) -> str:
    client = Client(base, ledger)
    try:
        match_id, _ = new_match(client, ("random", "random"))
        deadline = time.monotonic() + GIVE_UP_S
        while not client.read(f"/api/matches/{match_id}")["terminal"]:
            assert time.monotonic() < deadline, f"the bots of {match_id} stalled"
            time.sleep(0.1)
        return match_id
    finally:
        client.close()


@dataclass
class Account:
    name: str
    client: Client


def register(base: str, ledger: Ledger) -> Account:
    client = Client(base, ledger)
    name = fresh_name("c")
    r = client.create("/api/accounts", {"name": name, "password": PASSWORD})
    client.headers = {"x-csrf-token": r["csrf"]}
    return Account(name, client)


def lobby_match(
    base: str,
    ledger: Ledger,
    *,
    base_s: int,
    ann: Account | None = None,
    bob: Account | None = None,
    idle: bool = False,
) -> str:
    """A clocked lobby game of two people who chat after each of their actions (``idle``:
    the second stops after its first turn, and the leader's clock keeper hands its seat
    to a bot)."""
    ann_client = ann.client if ann else Client(base, ledger)
    bob_client = bob.client if bob else Client(base, ledger)
    clock = {"kind": "realtime", "base_s": base_s, "increment_s": 0}
    body = {
        "game": "toy",
        "seats": [{"kind": "me", "name": "Ann"}, {"kind": "open"}],
        "start_player": 0,
        "clock": clock,
        "takeover": "random",
        "rated": ann is not None,
    }
    created = ann_client.create("/api/lobby", body)
    game_id: str = created["id"]
    joined = bob_client.create(f"/api/lobby/{game_id}/join", {"name": "Bob"})
    tokens = {0: created["token"], 1: joined["token"]}
    clients = {0: ann_client, 1: bob_client}
    said = itertools.count()

    def chat(seat: int) -> None:
        line = f"seat {seat} line {next(said)}"
        r = clients[seat].try_post(f"/api/matches/{game_id}/chat", {"token": tokens[seat], "text": line})
        if r is not None and r.status_code == 201:
            with ledger.lock:
                ledger.chat.setdefault(game_id, []).append(line)
        elif r is None:
            with ledger.lock:
                ledger.chat_unanswered.add((game_id, line))
        time.sleep(LOBBY_PACE_S)

    playing = {0: tokens[0]} if idle else tokens  # an idle Bob never moves: his time runs out
    deadline = time.monotonic() + GIVE_UP_S
    while True:
        assert time.monotonic() < deadline, f"lobby game {game_id} did not finish"
        view = ann_client.read(f"/api/matches/{game_id}")
        if view["terminal"] or view["ended"]:
            break
        seat = view["current_player"]
        if seat in playing and view["players"][seat]["agent"] == "human":
            action = view["legal"]["claim"][0]
            body = {"token": tokens[seat], "version": view["version"], "action": action}
            r = clients[seat].try_post(f"/api/matches/{game_id}/actions", body)
            if r is not None and r.status_code == 200:
                ledger.ack(game_id, view["ply"], action)
                if not idle:
                    chat(seat)
        time.sleep(0.05)
    if ann is None:
        ann_client.close()
    if bob is None:
        bob_client.close()
    return game_id


# ----- the test -----------------------------------------------------------------------------


def test_three_processes_behind_haproxy_survive_two_kills(cluster: Cluster) -> None:
    ledger = Ledger()
    base = cluster.base
    alice, bob = register(base, ledger), register(base, ledger)
    jobs: list[Callable[[], str]] = []
    jobs += [lambda: person_match(base, ledger, ("human", "human"))] * PEOPLE
    jobs += [lambda: websocket_match(base, ledger)] * PEOPLE_WS
    jobs += [lambda: person_match(base, ledger, ("human", "random"))] * PERSON_BOT
    jobs += [lambda: bots_match(base, ledger)] * BOTS
    jobs += [lambda: lobby_match(base, ledger, base_s=CLOCK_BASE_S)] * CLOCKED
    jobs += [lambda: lobby_match(base, ledger, base_s=CLOCK_BASE_S, ann=alice, bob=bob)] * RATED
    jobs.append(lambda: lobby_match(base, ledger, base_s=TIMEOUT_BASE_S, idle=True))
    assert len(jobs) == MATCHES >= 50
    # What the people play (the bot's one turn of a person-bot match, and the idle Bob's, are not).
    expected_actions = (PEOPLE + PEOPLE_WS + CLOCKED + RATED) * ACTIONS_PER_MATCH + PERSON_BOT * 4 + 4
    killed: list[int] = []
    new_leader: list[int | None] = []

    def killer() -> None:
        for share, pick_leader in ((4, True), (2, False)):
            while ledger.count() < expected_actions / share:
                time.sleep(0.05)
            alive = [p for p in cluster.ports if cluster.procs[p].poll() is None]
            leader = cluster.leader()
            victim = leader if pick_leader and leader is not None else next(p for p in alive if p != leader)
            os.kill(cluster.procs[victim].pid, signal.SIGKILL)
            cluster.procs[victim].wait()
            killed.append(victim)
            if pick_leader:  # another process leads within seconds
                deadline = time.monotonic() + 15
                while (found := cluster.leader()) is None and time.monotonic() < deadline:
                    time.sleep(0.2)
                new_leader.append(found)

    kill_thread = threading.Thread(target=killer, daemon=True)
    kill_thread.start()
    # The lobby games first: they are slow, and their clocks should run across the kills.
    order = jobs[-(CLOCKED + RATED + 1) :] + jobs[: -(CLOCKED + RATED + 1)]
    with ThreadPoolExecutor(14) as pool:
        match_ids = list(pool.map(lambda job: job(), order))
    kill_thread.join(timeout=30)
    alice.client.close()
    bob.client.close()

    assert len(killed) == 2, "the play ended before both kills"
    assert new_leader and new_leader[0] is not None and new_leader[0] != killed[0]
    assert ledger.served_by >= {"app1", "app2", "app3"}  # the clients were spread
    # How many answers were lost with a process (ledger.retries) depends on what was in
    # flight at each kill: haproxy sends a request that could not reach a process to
    # another, so it may be none; every client went on either way (above and below).

    engine = create_engine(cluster.db_url)
    try:
        with engine.connect() as conn:
            for match_id in match_ids:
                stored = conn.execute(
                    select(actions.c.ply, actions.c.seat, actions.c.action, actions.c.at)
                    .where(actions.c.match_id == match_id)
                    .order_by(actions.c.ply)
                ).all()
                # Every action once: six plies, by the seats whose turn it was (two claims a turn).
                assert [a.ply for a in stored] == list(range(ACTIONS_PER_MATCH)), match_id
                assert [a.seat for a in stored] == [0, 0, 1, 1, 0, 0], match_id
                # No acknowledged action lost.
                for ply, action in ledger.acked.get(match_id, {}).items():
                    assert stored[ply].action == action, (match_id, ply)
            lobby_ids = match_ids[: CLOCKED + RATED + 1]
            rated_ids = lobby_ids[CLOCKED : CLOCKED + RATED]
            events = conn.execute(select(rating_events.c.match_id).where(rating_events.c.match_id.in_(rated_ids))).all()
            assert sorted(e.match_id for e in events) == sorted(rated_ids * 2)  # each rated game once
            timed_out = lobby_ids[-1]
            agent = conn.execute(
                select(seats.c.agent).where(seats.c.match_id == timed_out, seats.c.seat == 1)
            ).scalar_one()
            assert agent == "random"
            times = {
                match_id: [
                    iso_to_ms(at)
                    for (at,) in conn.execute(
                        select(actions.c.at).where(actions.c.match_id == match_id).order_by(actions.c.ply)
                    ).all()
                ]
                for match_id in lobby_ids[:-1]
            }
    finally:
        engine.dispose()

    reader = Client(base, ledger)
    try:
        for game_id in lobby_ids:
            lines = [(m["n"], m["text"]) for m in reader.read(f"/api/matches/{game_id}/chat")["messages"]]
            assert [n for n, _ in lines] == list(range(len(lines)))  # in order, no repeats, no gaps
            # every acknowledged line, and beside them only lines whose answer was lost
            stored = [t for _, t in lines]
            answered = [t for t in stored if (game_id, t) not in ledger.chat_unanswered]
            assert answered == ledger.chat.get(game_id, [])
        # Each clock charged each seat its own turns, at the times the actions were stored
        # (whichever process took them, and across the kills).
        for game_id, at in times.items():
            table = reader.read(f"/api/matches/{game_id}/table")
            started = table["clock"]["started_ms"]
            used = [at[1] - started + at[5] - at[3], at[3] - at[1]]
            expected = [1000 * CLOCK_BASE_S - u for u in used]
            got = table["clock"]["remaining_ms"]
            assert table["clock"]["running"] is None
            assert all(abs(g - e) <= 1000 for g, e in zip(got, expected, strict=True)), (game_id, got, expected)
        timed_out_table = reader.read(f"/api/matches/{timed_out}/table")
        assert timed_out_table["seats"][1]["status"] == "timeout"
        assert timed_out_table["clock"]["remaining_ms"][1] == 0
        for person in (alice, bob):
            profile = reader.read(f"/api/players/{person.name}")
            [toy] = [r for r in profile["ratings"] if r["game"] == "toy" and r["family"] == "2p"]
            assert toy["games"] == RATED
    finally:
        reader.close()
