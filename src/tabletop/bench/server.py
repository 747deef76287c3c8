"""``tabletop bench server``: simulated players against server processes on loopback.

The benchmark starts ``tabletop serve`` on a fresh SQLite file (or ``processes`` of them on
one PostgreSQL database), creates ``games`` matches of people only (no bots), and connects
one websocket per seat: to the processes in turn (each socket to the next, as a
round-robin proxy would, or every socket of a match to one process), or all through
``proxy``.  Each simulated player
waits a think time (exponentially distributed around ``think_s``), then sends a
kind-first random legal move and times the round trip until the server's ack, which
comes only after the action is committed.  The players run in the bench's process and
share the cores with the servers they measure, so what they spend is taken from them:
by default they are the native extension's (``tabletop._native.BenchPlayers``, a thread
a player, ``native/src/bench_players.rs``), which play the same way for a fraction of
the CPU; ``client="python"`` (and a build without the extension) plays them here, on
uvloop where it is installed, over a lean websocket client (:mod:`tabletop.bench.wsclient`).
After the run it restarts the server on the same database and checks that every
acknowledged action is stored: nothing lost.

With ``clock`` (``"realtime:600+5"``: 600 s a seat plus 5 s a turn; ``"turn:86400"``: a day
a turn) the games are opened in the lobby and joined seat by seat instead, every player
says hello on its socket (presence, as browsers do), and the server keeps every clock.
After the run each game's clock is checked against time: while people alone play, every
millisecond since the game's start is charged to exactly one seat, so the time the clocks
charged (increments aside) must equal the time that passed, by the server's clock
(``clock_drift_ms``) and by the client's (``wall_drift_ms``).
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import httpx2

from tabletop.bench.cpu import process_cpu_seconds, tree_cpu_seconds
from tabletop.bench.wsclient import connect
from tabletop.server.local import free_port, sigterm_as_keyboard_interrupt, start_server, stop_server

SPREAD_SOCKETS = "socket"
"""Each socket to the next process in turn, as a round-robin proxy spreads them: the
players of one match sit on different processes, which hear each other's actions on the bus."""
SPREAD_MATCHES = "match"
"""Every socket of a match to the process the match was made on."""

CLIENT_NATIVE = "native"
"""The simulated players in Rust, a thread each (``tabletop._native.BenchPlayers``)."""
CLIENT_PYTHON = "python"
"""The simulated players in Python, on one event loop (:class:`_Player`)."""


def default_client() -> str:
    """The native players where the extension is built, else the Python ones."""
    try:
        from tabletop._native import BenchPlayers  # noqa: F401
    except ImportError:
        return CLIENT_PYTHON
    return CLIENT_NATIVE


@dataclass
class BenchResult:
    """What one run measured."""

    game: str
    games: int
    seconds: float
    think_s: float
    actions: int
    errors: int
    lost: int
    finished_games: int
    server_cpu_s: float | None = None
    """CPU time the server processes used together while the players played (Linux: user +
    system time of each process, all its threads, from ``/proc``), or ``None``."""
    client_cpu_s: float | None = None
    """CPU time the bench's own process (every simulated player) used while they played:
    on a machine the clients share with the servers, what the clients took from them."""
    watched_cpu_s: dict[int, float] = field(default_factory=dict)
    """CPU time over the play of each process named with ``watch`` (its live descendants
    and the children it has reaped included: PostgreSQL's postmaster counts its backends)."""
    processes: int = 1
    """How many ``tabletop serve`` processes served the run (on one database)."""
    clock: str | None = None
    """The clock spec of a clocked run, or ``None``."""
    clock_drift_ms: float | None = None
    """Clocked run: the largest gap, over the games, between the time the clocks charged and
    the time the server's clock says passed since the game started."""
    wall_drift_ms: float | None = None
    """Clocked run: the same gap against the time the client measured (start to snapshot)."""
    client: str = CLIENT_PYTHON
    """Which simulated players played: :data:`CLIENT_NATIVE` or :data:`CLIENT_PYTHON`."""
    failures: list[str] = field(default_factory=list)
    """Why each player that failed (to connect, or while playing) failed."""
    rtts_ms: list[float] = field(default_factory=list)

    @property
    def actions_per_second(self) -> float:
        """Acknowledged actions per second of wall time."""
        return self.actions / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        """Round-trip percentile in milliseconds (``q`` in 0..100)."""
        if not self.rtts_ms:
            return float("nan")
        if len(self.rtts_ms) == 1:
            return self.rtts_ms[0]
        return statistics.quantiles(self.rtts_ms, n=1000, method="inclusive")[int(q * 10) - 1]

    def summary(self) -> str:
        """A one-paragraph report."""
        return (
            (f"{self.processes} server processes, " if self.processes > 1 else "")
            + f"{self.games} simultaneous {self.game} games ({self.finished_games} finished), "
            f"think time {self.think_s:g} s: {self.actions} actions in {self.seconds:.1f} s = "
            f"{self.actions_per_second:.0f} actions/s; round trip p50 {self.percentile(50):.1f} ms, "
            f"p99 {self.percentile(99):.1f} ms, max {max(self.rtts_ms, default=float('nan')):.1f} ms; "
            f"errors {self.errors}; lost actions {self.lost}"
            + (
                f"; clocks {self.clock}: drift {self.clock_drift_ms:.0f} ms (server time), "
                f"{self.wall_drift_ms:.0f} ms (client time)"
                if self.clock is not None and self.clock_drift_ms is not None and self.wall_drift_ms is not None
                else ""
            )
            + (
                f"; server CPU {self.server_cpu_s * 1000 / self.actions:.2f} ms per action"
                if self.server_cpu_s is not None and self.actions
                else ""
            )
            + (
                f" (clients {self.client_cpu_s * 1000 / self.actions:.2f}, {self.client})"
                if self.client_cpu_s is not None and self.actions
                else ""
            )
            + "".join(
                f"; process {pid} and its children {cpu * 1000 / self.actions:.2f} ms per action"
                for pid, cpu in self.watched_cpu_s.items()
                if self.actions
            )
            + (f"; {len(self.failures)} player(s) failed, the first: {self.failures[0][:300]}" if self.failures else "")
        )


def _start_server(port: int, db_url: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "tabletop.cli.serve_cmd", "--port", str(port), "--db", db_url]
    cmd += ["--log-level", "warning", "--bot-workers", "1"]
    # Every simulated player connects from 127.0.0.1: lift the per-address caps, which
    # would otherwise (rightly) treat the benchmark as one very greedy client.
    lifted = {
        "TABLETOP_MAX_SOCKETS_PER_CLIENT": "100000",
        "TABLETOP_MAX_SOCKETS_PER_MATCH": "100000",
        "TABLETOP_REQUESTS_PER_MINUTE": "10000000",
        "TABLETOP_WS_MESSAGES_PER_MINUTE": "10000000",
        "TABLETOP_MATCHES_PER_MINUTE": "100000",
        "TABLETOP_JOINS_PER_MINUTE": "100000",
        "TABLETOP_MAX_OPEN_GAMES": "100000",
        "TABLETOP_OPEN_GAMES_PER_CLIENT": "100000",
    }
    return start_server(cmd, port, stdout=subprocess.DEVNULL, env={**os.environ, **lifted})


def _cpu_of(procs: Sequence[subprocess.Popen[bytes]]) -> float | None:
    """The processes' CPU time together, or ``None`` where ``/proc`` cannot say."""
    total = 0.0
    for proc in procs:
        seconds = process_cpu_seconds(proc.pid)
        if seconds is None:
            return None
        total += seconds
    return total


ACK_WAIT_S = 30.0
"""How long a player waits, once play is over, for the acks still due (all of them together;
an action not answered by then is an error)."""

MAKING_AT_ONCE = 8
"""Matches the bench makes at once before play (over one kept connection per process or
proxy: a new connection per match made 1,000 matches through a proxy take minutes)."""

CONNECTING_AT_ONCE = 64
"""Websocket handshakes the bench has under way at once before play (a run that opened
2,000 at once through haproxy to one process once had a handshake answered 502; players
do not all connect in the same millisecond)."""

READY_WAIT_S = 120.0
"""How long the bench waits for every player to connect and read its first view."""

PROXY_WAIT_S = 30.0
"""How long the bench waits for a proxy to send clients to every process it started."""


def client_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The simulated players' event loop: uvloop's where it is installed (``uvicorn[standard]``
    brings it, and the servers run on it), else asyncio's own.

    The clients share the machine's cores with the servers they measure, so what they
    spend is taken from the servers; on uvloop they spend less for the same play.
    """
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _wait_for_proxy(base: str, processes: int) -> None:
    """Waits until the proxy at ``base`` has answered from ``processes`` different
    processes (it marks a process up only after its own health checks: haproxy,
    ``deploy/haproxy.cfg``, after two a second apart).

    It asks for matches that do not exist, each under another path: a proxy that picks
    the process by a hash of the path (as ``deploy/haproxy.cfg`` does) sends them to every
    process in turn, one that balances by load too.  haproxy names the process that
    answered (``X-Served-By``); behind a proxy that does not, the first answer will do.

    Raises:
        RuntimeError: if that does not happen within :data:`PROXY_WAIT_S`.
    """
    deadline = time.monotonic() + PROXY_WAIT_S
    served_by: set[str] = set()
    with httpx2.Client(base_url=base, timeout=5) as http:
        for probe in itertools.count():
            if time.monotonic() >= deadline:
                break
            try:
                response = http.get(f"/api/matches/bench-probe-{probe}")
            except httpx2.HTTPError:
                response = None
            if response is not None and response.status_code == 404:  # a process answered
                if "x-served-by" not in response.headers:
                    return
                served_by.add(response.headers["x-served-by"])
                if len(served_by) >= processes:
                    return
            else:
                time.sleep(0.2)
    raise RuntimeError(f"the proxy at {base} did not reach the {processes} server processes within {PROXY_WAIT_S:g} s")


def _pick(legal: dict[str, list[str]], rng: random.Random) -> str:
    kind = rng.choice(sorted(legal))
    return rng.choice(legal[kind])


class _Player:
    """One seat's websocket client."""

    def __init__(
        self, result: BenchResult, acked: dict[str, int], rng: random.Random, think_s: float, hello: bool = False
    ) -> None:
        self.hello = hello
        self.result = result
        self.acked = acked
        self.rng = rng
        self.think_s = think_s

    @staticmethod
    async def _act(
        ws: Any, pending: dict[int, float], req: int, token: str, version: int, action: str, think: float
    ) -> None:
        await asyncio.sleep(think)
        pending[req] = time.perf_counter()
        await ws.send(json.dumps({"type": "act", "req": req, "token": token, "version": version, "action": action}))

    async def play(
        self,
        url: str,
        match_id: str,
        seat: int,
        token: str,
        ready: asyncio.Barrier,
        clock: list[float],
        connecting: asyncio.Semaphore,
        everyone: _Everyone,
    ) -> bool:
        """Plays the seat until the game ends or time is up; returns whether the game ended.

        Every player connects and receives its first view before anyone acts (``ready``),
        so the measurement is of play, not of 400 simultaneous handshakes; ``connecting``
        bounds the handshakes under way at once.  Likewise no player hangs up before every
        other has its last ack (``everyone``): 2,000 sockets closing at once are not play,
        and the servers answering them delayed the acks still awaited.
        """
        try:
            async with connecting:
                # The lean client (bench/wsclient.py) sends no pings, as browsers send
                # none: the servers ping the players, and they answer.
                connection = await connect(url, open_timeout=60)
        except BaseException:
            everyone.leave()
            raise
        async with connection as ws:
            try:
                return await self._play(ws, match_id, seat, token, ready, clock)
            finally:
                await everyone.done()

    async def _play(
        self, ws: Any, match_id: str, seat: int, token: str, ready: asyncio.Barrier, clock: list[float]
    ) -> bool:
        pending: dict[int, float] = {}
        """Each action's send time by request number (infinite while the player thinks)."""
        thinking: dict[int, asyncio.Task[None]] = {}
        mine = f'"current_player":{seat},'
        req = 0
        acted_on = -1
        first = await ws.recv()
        if self.hello:  # a clocked game: this socket plays the seat (presence, like a browser)
            await ws.send(json.dumps({"type": "hello", "token": token}))
        # Parsed before play starts: 1,000 first views read at the start line took the
        # clients' loop a few hundred milliseconds, during which acks were timed late.
        backlog = [json.loads(first)] if _wanted(first, mine) else []
        await ready.wait()
        while clock[0] == math.inf:  # the start line sets the end of play
            await asyncio.sleep(0.001)

        def handle(msg: dict[str, Any]) -> bool:
            """Takes one message; ``True`` once the game is over and no ack is awaited."""
            nonlocal req, acted_on
            kind = msg["type"]
            now = time.perf_counter()
            if kind == "ack":
                self.result.rtts_ms.append((now - pending.pop(msg["req"])) * 1000)
                self.acked[match_id] += 1
            elif kind == "error":
                self.result.errors += 1
                pending.pop(int(msg.get("req") or 0), None)
            elif kind == "state":
                if msg["terminal"] or msg["current_player"] != seat or msg["version"] <= acted_on:
                    return bool(msg["terminal"]) and not pending
                if time.monotonic() >= clock[0]:
                    return False
                acted_on = msg["version"]
                req += 1
                # Think in a task: the loop keeps reading, so acks are timed when they arrive.
                pending[req] = float("inf")
                think = self.rng.expovariate(1 / self.think_s) if self.think_s else 0.0
                action = _pick(msg["legal"], self.rng)
                task = asyncio.create_task(self._act(ws, pending, req, token, msg["version"], action, think))
                thinking[req] = task
                task.add_done_callback(partial(_forget, thinking, req))
            return bool(msg.get("terminal")) and not pending

        # Play: one deadline for the whole play on this task (a deadline a frame cost the
        # clients, who share the CPU with the servers they measure, a tenth of their time).
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(loop.time() + clock[0] - time.monotonic()):
                while True:
                    if backlog:
                        msg = backlog.pop()
                    else:
                        raw = await ws.recv()
                        if not _wanted(raw, mine):
                            continue
                        msg = json.loads(raw)
                    if handle(msg):
                        return True
        except TimeoutError:
            pass
        # Play is over: an action still being thought of is not sent (it would be timed
        # while the others hang up); wait only for outstanding acks, each for a bounded time.
        for thought, task in list(thinking.items()):
            if pending.get(thought) == float("inf"):
                task.cancel()
                del pending[thought]
        try:
            async with asyncio.timeout(ACK_WAIT_S):
                while pending:
                    raw = await ws.recv()
                    if _wanted(raw, mine) and handle(json.loads(raw)):
                        return True
        except TimeoutError:
            # An action never answered is an error of the server's (as in the native players).
            raise TimeoutError(f"no answer within {ACK_WAIT_S:g} s to action(s) {sorted(pending)}") from None
        return False


def _forget(thinking: dict[int, asyncio.Task[None]], req: int, _task: asyncio.Task[None]) -> None:
    thinking.pop(req, None)


def _wanted(raw: str | bytes, mine: str) -> bool:
    """Whether a simulated player needs a message (skipped unparsed: the clients stay cheap)."""
    text = raw if isinstance(raw, str) else raw.decode()
    if text.startswith(('{"type":"table"', '{"type":"chat"', '{"type":"welcome"')):
        return False  # a clocked game's table: a browser shows it, the simulated player needs nothing
    # Another seat's turn: nothing to do.
    return not (text.startswith('{"type":"state"') and mine not in text and '"terminal":true' not in text)


class _Everyone:
    """The players still playing: each waits in :meth:`done` until all are done."""

    def __init__(self, players: int) -> None:
        self.playing = players
        self._all_done = asyncio.Event()

    async def done(self) -> None:
        """This player is done (no ack awaited); returns once every player is."""
        self.leave()
        await self._all_done.wait()

    def leave(self) -> None:
        """Counts a player out without waiting (one that could not connect)."""
        self.playing -= 1
        if self.playing <= 0:
            self._all_done.set()


def parse_clock(spec: str) -> dict[str, Any]:
    """``realtime:BASE+INC`` or ``turn:SECONDS`` as the lobby's ``clock`` body.

    Raises:
        ValueError: for anything else.
    """
    kind, _, value = spec.partition(":")
    try:
        if kind == "realtime":
            base, _, increment = value.partition("+")
            return {"kind": "realtime", "base_s": int(base), "increment_s": int(increment or 0)}
        if kind == "turn":
            return {"kind": "turn", "per_move_s": int(value)}
    except ValueError:
        pass
    raise ValueError(f"a clock is 'realtime:BASE+INCREMENT' or 'turn:SECONDS' (seconds), not {spec!r}")


async def _open_lobby_game(
    http: httpx2.AsyncClient, game: str, players: int, seed: int, clock: dict[str, Any]
) -> tuple[dict[str, Any], float]:
    """A lobby game opened by P0 and joined by the others; returns it (as ``POST
    /api/matches`` would) and the client's time when the last join started it."""
    body = {"game": game, "seats": [{"kind": "me", "name": "P0"}] + [{"kind": "open"}] * (players - 1)}
    r = await http.post("/api/lobby", json={**body, "seed": seed, "clock": clock, "takeover": "random"})
    r.raise_for_status()
    created = r.json()
    seats = [{"seat": 0, "token": created["token"]}]
    started = time.time()
    for k in range(1, players):
        started = time.time()
        r = await http.post(f"/api/lobby/{created['id']}/join", json={"name": f"P{k}"})
        r.raise_for_status()
        seats.append({"seat": r.json()["seat"], "token": r.json()["token"]})
    return {"id": created["id"], "seats": seats}, (started + time.time()) / 2


async def _clock_drift(http: httpx2.AsyncClient, started: dict[str, float], result: BenchResult) -> None:
    """Checks every game's clock against the time that passed (module docstring)."""
    worst_server = worst_wall = 0.0
    for match_id, client_start in started.items():
        view = (await http.get(f"/api/matches/{match_id}")).json()
        clock = (await http.get(f"/api/matches/{match_id}/table")).json()["clock"]
        client_now = time.time()
        seats = [entry["seat"] for entry in view["log"]]
        turns = sum(1 for a, b in itertools.pairwise(seats) if a != b) + (1 if seats else 0)
        if seats and clock["running"] == seats[-1]:
            turns -= 1  # the last turn is still going: no increment yet
        base_ms, increment_ms = 1000 * clock["base_s"], 1000 * clock["increment_s"]
        charged = sum(base_ms - left for left in clock["remaining_ms"]) + increment_ms * turns
        end = clock["server_now_ms"] if clock["running"] is not None else clock["turn_started_ms"]
        worst_server = max(worst_server, abs(charged - (end - clock["started_ms"])))
        if clock["running"] is not None:  # a game still going: its clock against the client's
            worst_wall = max(worst_wall, abs(charged - (client_now - client_start) * 1000))
    result.clock_drift_ms, result.wall_drift_ms = worst_server, worst_wall


async def _run_clients(
    bases: Sequence[str],
    game: str,
    players: int,
    games: int,
    seconds: float,
    think_s: float,
    seed: int,
    result: BenchResult,
    clock_spec: str | None = None,
    spread: str = SPREAD_SOCKETS,
    server_cpu: Callable[[], float | None] = lambda: None,
    watch: Sequence[int] = (),
    client: str = CLIENT_PYTHON,
) -> dict[str, int]:
    """Plays the run; each match is made on the next of ``bases`` in turn, and its sockets
    go to the next ones (``spread``: each socket, or all of a match's to its process), and
    ``client`` names the players who play them."""
    rng = random.Random(seed)
    acked: dict[str, int] = {}
    started: dict[str, float] = {}
    making = asyncio.Semaphore(MAKING_AT_ONCE)
    clients = {base: httpx2.AsyncClient(base_url=base, timeout=60) for base in bases}

    async def make(i: int) -> tuple[str, dict[str, Any]]:
        base = bases[i % len(bases)]
        async with making:
            if clock_spec is not None:
                # A client of its own: the lobby game's maker holds a session cookie.
                async with httpx2.AsyncClient(base_url=base, timeout=60) as http:
                    match, started_at = await _open_lobby_game(http, game, players, seed + i, parse_clock(clock_spec))
                started[match["id"]] = started_at
            else:
                seats = [{"name": f"P{k}", "agent": "human"} for k in range(players)]
                r = await clients[base].post("/api/matches", json={"game": game, "seats": seats, "seed": seed + i})
                r.raise_for_status()
                match = r.json()
        return base, match

    try:
        matches = await asyncio.gather(*(make(i) for i in range(games)))
    finally:
        for http_client in clients.values():
            await http_client.aclose()
    for _, match in matches:
        acked[match["id"]] = 0
    seats: list[_SeatSocket] = []
    sockets = itertools.count()
    for base, m in matches:
        for s in m["seats"]:
            if spread == SPREAD_SOCKETS:
                base = bases[next(sockets) % len(bases)]
            url = f"{base.replace('http://', 'ws://')}/api/matches/{m['id']}/ws"
            seats.append(_SeatSocket(url, m["id"], s["seat"], s["token"]))
    measure = _PlayMeasure(result, server_cpu, watch)
    hello = clock_spec is not None
    if client == CLIENT_NATIVE:
        finished = _play_native(seats, think_s, rng.getrandbits(64), hello, seconds, result, measure, acked)
    else:
        finished = await _play_python(seats, think_s, rng, hello, seconds, result, measure, acked)
    result.finished_games = sum(1 for i in range(0, len(finished), players) if finished[i])
    if clock_spec is not None:
        async with httpx2.AsyncClient(base_url=bases[0], timeout=60) as http:
            await _clock_drift(http, started, result)
    return acked


class _SeatSocket(NamedTuple):
    """One socket a player opens: the match's websocket URL, the match, the seat, its token."""

    url: str
    match_id: str
    seat: int
    token: str


class _PlayMeasure:
    """Times the play and counts the CPU each side spent over it (not over the set-up:
    hundreds of handshakes and matches made are not play)."""

    def __init__(self, result: BenchResult, server_cpu: Callable[[], float | None], watch: Sequence[int]) -> None:
        self.result = result
        self.server_cpu = server_cpu
        self.watch = watch

    def begin(self) -> float:
        """Play starts now; returns the start time (``time.monotonic()``)."""
        self.cpu_start = self.server_cpu()
        self.watched_start = {pid: tree_cpu_seconds(pid) for pid in self.watch}
        self.client_start = time.process_time()
        self.start = time.monotonic()
        return self.start

    def end(self) -> None:
        """Play (with the acks still due and the hang-ups) is over."""
        result = self.result
        result.seconds = time.monotonic() - self.start
        result.client_cpu_s = time.process_time() - self.client_start
        for pid, before in self.watched_start.items():
            after = tree_cpu_seconds(pid)
            if before is not None and after is not None:
                result.watched_cpu_s[pid] = after - before
        cpu_end = self.server_cpu()
        if self.cpu_start is not None and cpu_end is not None:
            result.server_cpu_s = cpu_end - self.cpu_start


def _play_native(
    seats: Sequence[_SeatSocket],
    think_s: float,
    seed: int,
    hello: bool,
    seconds: float,
    result: BenchResult,
    measure: _PlayMeasure,
    acked: dict[str, int],
) -> list[bool]:
    """Plays ``seats`` with the native players; returns whether each seat's game ended."""
    from tabletop._native import BenchPlayers

    index = {match_id: i for i, match_id in enumerate(dict.fromkeys(s.match_id for s in seats))}
    players = BenchPlayers.connect(
        [(url, index[match_id], seat, token, hello) for url, match_id, seat, token in seats],
        think_s,
        seed=seed,
        connecting_at_once=CONNECTING_AT_ONCE,
        ready_timeout_s=READY_WAIT_S,
        ack_wait_s=ACK_WAIT_S,
    )
    measure.begin()
    outcome = players.play(seconds)
    measure.end()
    result.rtts_ms.extend(outcome["rtts_ms"])
    result.errors += outcome["errors"]
    result.failures.extend(outcome["failures"])
    for match_id, i in index.items():
        acked[match_id] = outcome["acked"][i]
    return list(outcome["finished"])


async def _play_python(
    seats: Sequence[_SeatSocket],
    think_s: float,
    rng: random.Random,
    hello: bool,
    seconds: float,
    result: BenchResult,
    measure: _PlayMeasure,
    acked: dict[str, int],
) -> list[bool]:
    """Plays ``seats`` with Python players on this loop; returns whether each seat's game ended."""
    clock = [math.inf]  # until everyone is connected
    ready = asyncio.Barrier(len(seats) + 1)
    connecting = asyncio.Semaphore(CONNECTING_AT_ONCE)
    everyone = _Everyone(len(seats))
    tasks = [
        asyncio.create_task(
            _Player(result, acked, random.Random(rng.random()), think_s, hello=hello).play(
                url, match_id, seat, token, ready, clock, connecting, everyone
            )
        )
        for url, match_id, seat, token in seats
    ]
    await asyncio.wait_for(ready.wait(), timeout=READY_WAIT_S)
    # The clients time each round trip themselves, so a pause of their own loop counts as
    # server latency: a full collection over 2,000 sockets' objects took 0.1-0.3 s, and
    # any ack that arrived meanwhile was timed late by as much.  The set-up's objects are
    # frozen out of the collector, and it does not run during play (a run's garbage is a
    # few megabytes); it runs again once play is over.
    gc.collect()
    gc.freeze()
    gc.disable()
    # Everyone is connected: start the clock.
    clock[0] = measure.begin() + seconds
    try:
        ended = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        gc.enable()
        gc.unfreeze()
    measure.end()
    for outcome in ended:
        if isinstance(outcome, BaseException):
            result.errors += 1
            result.failures.append(f"{type(outcome).__name__}: {outcome}")
    return [outcome is True for outcome in ended]


def run_bench(
    *,
    game: str = "terranova",
    players: int = 2,
    games: int = 200,
    seconds: float = 60.0,
    think_s: float = 1.0,
    seed: int = 0,
    db_dir: Path | None = None,
    clock: str | None = None,
    db_url: str | None = None,
    processes: int = 1,
    proxy: str | None = None,
    first_port: int | None = None,
    spread: str = SPREAD_SOCKETS,
    watch: Sequence[int] = (),
    client: str | None = None,
) -> BenchResult:
    """Runs the benchmark; see the module docstring.

    ``client`` names the simulated players (:data:`CLIENT_NATIVE` or :data:`CLIENT_PYTHON`;
    default :func:`default_client`).

    ``db_url`` names the database (default: a fresh SQLite file in ``db_dir`` or a
    temporary folder); several ``processes`` need PostgreSQL, whose bus tells each process
    of the others' actions.  With ``proxy`` (a base URL such as ``http://127.0.0.1:8080``)
    every client goes through it, and the processes listen on ``first_port`` and the
    ports after it, where the proxy's configuration sends them.

    Raises ``RuntimeError`` if a server fails to start or dies during the run, and
    ``KeyboardInterrupt`` on Ctrl-C or SIGTERM; the server processes are stopped either way.
    The CPU of the processes in ``watch`` (PostgreSQL's postmaster, the proxy) is counted
    over the play as the servers' is.
    """
    tmp = tempfile.TemporaryDirectory() if db_dir is None and db_url is None else None
    folder = Path(tmp.name) if tmp is not None else db_dir
    url = db_url if db_url is not None else f"sqlite:///{folder or Path('.')}/bench.db"
    try:
        with sigterm_as_keyboard_interrupt():
            return _measure(
                url,
                game,
                players,
                games,
                seconds,
                think_s,
                seed,
                clock,
                processes,
                proxy,
                first_port,
                spread,
                watch,
                client or default_client(),
            )
    finally:
        if tmp is not None:
            tmp.cleanup()


def _measure(
    db_url: str,
    game: str,
    players: int,
    games: int,
    seconds: float,
    think_s: float,
    seed: int,
    clock: str | None,
    processes: int,
    proxy: str | None,
    first_port: int | None,
    spread: str,
    watch: Sequence[int],
    client: str,
) -> BenchResult:
    if client not in (CLIENT_NATIVE, CLIENT_PYTHON):
        raise ValueError(f"the client is {CLIENT_NATIVE!r} or {CLIENT_PYTHON!r}, not {client!r}")
    ports = [first_port + i for i in range(processes)] if first_port is not None else []
    while len(ports) < processes:
        port = free_port()
        if port not in ports:
            ports.append(port)
    bases = [proxy.rstrip("/")] if proxy else [f"http://127.0.0.1:{port}" for port in ports]
    result = BenchResult(game, games, 0.0, think_s, 0, 0, 0, 0, clock=clock, processes=processes, client=client)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            procs.append(_start_server(port, db_url))
        if proxy:
            _wait_for_proxy(proxy.rstrip("/"), len(ports))
        with asyncio.Runner(loop_factory=client_loop_factory()) as runner:
            acked = runner.run(
                _run_clients(
                    bases,
                    game,
                    players,
                    games,
                    seconds,
                    think_s,
                    seed,
                    result,
                    clock,
                    spread,
                    lambda: _cpu_of(procs),
                    watch,
                    client,
                )
            )
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(f"a server exited during the run (status {proc.returncode})")
    finally:
        for proc in procs:
            stop_server(proc)
    result.actions = sum(acked.values())
    # Restart one process on the same database: every acknowledged action must be there.
    port = ports[0]
    proc = _start_server(port, db_url)
    try:
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            for match_id, count in acked.items():
                answer = http.get(f"/api/matches/{match_id}", params={"board": "false"})
                if answer.status_code != 200:
                    raise RuntimeError(
                        f"checking match {match_id} after the run: HTTP {answer.status_code} {answer.text[:200]}"
                    )
                stored = answer.json()["ply"]
                result.lost += max(0, count - stored)
                if stored != count:
                    result.errors += 1
    finally:
        stop_server(proc)
    return result
