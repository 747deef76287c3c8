"""What hearing a notice of the bus costs a server process (``tabletop bench bus``).

Every server process on PostgreSQL LISTENs on the channel of each match it holds
(``tabletop.server.bus``).  This runs the server's own
:class:`~tabletop.server.bus.PostgresListener` on an idle event loop in this process,
while a child process sends ``pg_notify`` on two matches' channels at a fixed rate; it
reports this process's CPU (the listener's thread and the loop together) per notice sent.
With ``hand_over=False`` the notices are of matches the process does not hold (it follows
another match), as another process's actions are for a server: it does not hear them.
``others`` more listening sessions, each following 50 other matches, stand for the other
server processes; the CPU of the processes in ``watch`` (PostgreSQL's postmaster and its
children) shows what each costs the database.
"""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.engine import make_url

from tabletop.bench.cpu import tree_cpu_seconds
from tabletop.server.bus import CHANNEL, FollowedMatches, PostgresListener, Step, match_channel, notice_payload

SENDER = """
import sys, time, psycopg
conninfo, rate, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
notices = [(sys.argv[4], sys.argv[5]), (sys.argv[6], sys.argv[7])]
with psycopg.connect(conninfo, autocommit=True) as conn:
    sent, start = 0, time.monotonic()
    while (now := time.monotonic() - start) < seconds:
        while sent < int(now * rate):
            conn.execute("SELECT pg_notify(%s, %s)", notices[sent % 2])
            sent += 1
        time.sleep(0.001)
print(sent)
"""
"""The child that sends: two matches' notices in turn (channel and payload, as the store's)."""


@dataclass(frozen=True, slots=True)
class BusBenchResult:
    """What one run measured.

    Attributes:
        sent: notices the child sent.
        heard: notices the handler ran for (0 where they stayed in the listener's thread).
        cpu_seconds: this process's CPU over the run.
        wall_seconds: the run's length.
    """

    sent: int
    heard: int
    cpu_seconds: float
    wall_seconds: float
    watched_cpu_s: dict[int, float] = field(default_factory=dict)
    """The CPU of each watched process (with its children) over the run."""

    @property
    def ms_per_notice(self) -> float:
        return 1000 * self.cpu_seconds / self.sent if self.sent else float("nan")

    def summary(self) -> str:
        return (
            f"{self.sent} notices sent in {self.wall_seconds:.1f} s, {self.heard} handed to the loop; "
            f"listening process CPU {self.cpu_seconds:.3f} s: {self.ms_per_notice:.4f} ms a notice"
        ) + "".join(
            f"; process {pid} and its children {1000 * cpu / self.sent:.4f} ms a notice"
            for pid, cpu in self.watched_cpu_s.items()
            if self.sent
        )


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_bus_bench(
    db_url: str,
    rate: float,
    seconds: float,
    *,
    hand_over: bool = True,
    others: int = 0,
    watch: Sequence[int] = (),
) -> BusBenchResult:
    """Listens for ``seconds`` while a child sends ``rate`` notices a second.

    Raises:
        RuntimeError: if a listener does not connect or the sender fails.
    """
    return asyncio.run(_run(db_url, rate, seconds, hand_over, others, watch))


async def _start_others(db_url: str, loop: asyncio.AbstractEventLoop, others: int) -> list[PostgresListener]:
    """Listening sessions standing for other server processes, 50 matches of their own each."""
    listeners = []
    for i in range(others):
        followed = FollowedMatches()
        for k in range(50):
            followed.add(f"elsewhere{i}-{k}")
        listener = PostgresListener(
            db_url, loop, {CHANNEL: _ignore}, lambda: None, f"tabletop-bench-bus-{i}", followed=followed
        )
        listeners.append(listener)
        await asyncio.to_thread(listener.start)
        if not listener.listening.is_set():
            raise RuntimeError("a listener did not connect to the database")
    return listeners


def _ignore(*_args: object) -> None:
    pass


async def _run(
    db_url: str, rate: float, seconds: float, hand_over: bool, others: int, watch: Sequence[int]
) -> BusBenchResult:
    loop = asyncio.get_running_loop()
    heard = 0

    def on_notice(_match_id: str, _version: int, _step: object) -> None:
        nonlocal heard
        heard += 1

    followed = FollowedMatches()
    for match_id in ("m1", "m2") if hand_over else ("m3",):
        followed.add(match_id)
    listener = PostgresListener(
        db_url,
        loop,
        {CHANNEL: on_notice},
        lambda: None,
        "tabletop-bench-bus",
        holds=followed.__contains__,
        followed=followed,
    )
    await asyncio.to_thread(listener.start)
    elsewhere: list[PostgresListener] = []
    try:
        if not listener.listening.is_set():
            raise RuntimeError("the listener did not connect to the database")
        elsewhere = await _start_others(db_url, loop, others)
        conninfo = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
        # As a server's: an action's notice with its step (a Terra Nova slide's notation).
        notices = (
            (match_channel("m1"), notice_payload("m1", 41, Step(40, 0, "S-d4-e5"))),
            (match_channel("m2"), notice_payload("m2", 42, Step(41, 1, "S-e5-f6"))),
        )
        watched_start = {pid: tree_cpu_seconds(pid) for pid in watch}
        cpu_start, wall_start = _cpu(), time.monotonic()
        sender = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            SENDER,
            conninfo,
            str(rate),
            str(seconds),
            *(text for notice in notices for text in notice),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = await sender.communicate()
        if sender.returncode != 0:
            raise RuntimeError(f"the sender failed: {err.decode(errors='replace').strip()[-300:]}")
        sent = int(out.decode().strip() or 0)
        deadline = time.monotonic() + 5
        while hand_over and heard < sent and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # the last notices' thread work
        cpu, wall = _cpu() - cpu_start, time.monotonic() - wall_start
        watched = {
            pid: end - start
            for pid, start in watched_start.items()
            if start is not None and (end := tree_cpu_seconds(pid)) is not None
        }
        return BusBenchResult(sent, heard, cpu, wall, watched)
    finally:
        listener.close()
        for other in elsewhere:
            other.close()
