"""The server bench's one-paragraph report (the run itself is measured, not tested here)."""

from __future__ import annotations

from tabletop.bench.server import BenchResult


def _result(**fields: float | None) -> BenchResult:
    return BenchResult("terranova", 200, 30.0, 1.0, 5000, 0, 0, 0, **fields)  # type: ignore[arg-type]


def test_cpu_per_action_of_the_servers_and_of_the_clients() -> None:
    text = _result(server_cpu_s=3.0, client_cpu_s=4.5).summary()
    assert "5000 actions in 30.0 s = 167 actions/s" in text
    assert text.endswith("server CPU 0.60 ms per action (clients 0.90)")


def test_without_proc_no_cpu_is_claimed() -> None:
    text = _result(server_cpu_s=None, client_cpu_s=None).summary()
    assert "CPU" not in text and "clients" not in text
