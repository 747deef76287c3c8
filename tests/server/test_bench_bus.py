"""``tabletop bench bus``: what a notice of the bus costs (PostgreSQL's LISTEN/NOTIFY)."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app
from tabletop.server.bus import is_postgres

TEST_DB = os.environ.get("TABLETOP_TEST_DB")


def test_bench_bus_wants_postgresql() -> None:
    result = CliRunner().invoke(app, ["bench", "bus", "--db", "sqlite:///x.db", "--seconds", "1"])
    assert result.exit_code != 0 and "is not a PostgreSQL URL" in result.output


@pytest.mark.skipif(not is_postgres(TEST_DB or "sqlite://"), reason="needs PostgreSQL ($TABLETOP_TEST_DB)")
def test_notices_are_heard_or_dropped_in_the_thread_and_counted() -> None:
    from tabletop.bench.bus import run_bus_bench

    assert TEST_DB is not None
    handed = run_bus_bench(TEST_DB, 200, 1.5, hand_over=True)
    assert handed.sent >= 200 and handed.heard == handed.sent and handed.cpu_seconds > 0
    held = run_bus_bench(TEST_DB, 200, 1.5, hand_over=False, others=2, watch=[os.getpid()])
    assert held.sent >= 200 and held.heard == 0
    assert "ms a notice" in held.summary()
    # This process's tree holds the sender, which used CPU; the others heard nothing.
    assert held.watched_cpu_s[os.getpid()] > 0 and f"process {os.getpid()} and its children" in held.summary()
