"""The server bench's one-paragraph report (the run itself is measured, not tested here)."""

from __future__ import annotations

import os
import subprocess
import sys

from tabletop.bench.cpu import tree_cpu_seconds
from tabletop.bench.server import BenchResult


def _result(**fields: float | None) -> BenchResult:
    return BenchResult("terranova", 200, 30.0, 1.0, 5000, 0, 0, 0, **fields)  # type: ignore[arg-type]


def test_cpu_per_action_of_the_servers_and_of_the_clients() -> None:
    text = _result(server_cpu_s=3.0, client_cpu_s=4.5).summary()
    assert "5000 actions in 30.0 s = 167 actions/s" in text
    assert text.endswith("server CPU 0.60 ms per action (clients 0.90, python)")


def test_failed_players_are_reported_with_the_first_reason() -> None:
    result = _result()
    result.client = "native"
    result.failures = ["seat 3: the server refused the websocket: HTTP/1.1 403 Forbidden", "seat 9: x" * 100]
    text = result.summary()
    assert text.endswith(
        "; 2 player(s) failed, the first: seat 3: the server refused the websocket: HTTP/1.1 403 Forbidden"
    )


def test_without_proc_no_cpu_is_claimed() -> None:
    text = _result(server_cpu_s=None, client_cpu_s=None).summary()
    assert "CPU" not in text and "clients" not in text


def test_the_watched_processes_per_action() -> None:
    result = _result(server_cpu_s=3.0, client_cpu_s=4.5)
    result.watched_cpu_s = {4242: 1.0, 77: 0.25}
    text = result.summary()
    assert "; process 4242 and its children 0.20 ms per action; process 77 and its children 0.05 ms per action" in text


def test_a_process_tree_counts_its_children() -> None:
    # A child that burns CPU and is reaped: its time is the parent's (this test process's).
    before = tree_cpu_seconds(os.getpid())
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    after = tree_cpu_seconds(os.getpid())
    assert before is not None and after is not None and after - before >= 0.02
    assert tree_cpu_seconds(2**22 + 12345) is None
