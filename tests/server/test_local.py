"""Starting and stopping a server process on loopback (tabletop.server.local)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tabletop.server.local import free_port, sigterm_as_keyboard_interrupt, start_server, stop_server

HERE = Path(__file__).parent


def test_a_server_that_exits_at_once_is_reported() -> None:
    port = free_port()
    with pytest.raises(RuntimeError, match="exited with status 3"):
        start_server([sys.executable, "-c", "raise SystemExit(3)"], port, timeout_s=10)


def test_a_server_that_never_answers_is_killed() -> None:
    port = free_port()
    with pytest.raises(RuntimeError, match="did not answer"):
        start_server([sys.executable, "-c", "import time; time.sleep(60)"], port, timeout_s=0.5)


@pytest.mark.slow
def test_start_waits_until_it_serves_and_stop_ends_it(tmp_path: Path) -> None:
    port = free_port()
    proc = start_server(
        [sys.executable, str(HERE / "serve_toy.py"), str(port), f"sqlite:///{tmp_path / 'db'}", "0"], port
    )
    try:
        assert httpx2.get(f"http://127.0.0.1:{port}/api/agents", timeout=5).status_code == 200
        assert os.getpgid(proc.pid) != os.getpgid(0)  # its own session: a terminal's Ctrl-C is ours to relay
    finally:
        stop_server(proc, timeout_s=10)
    assert proc.returncode is not None


def test_sigterm_raises_keyboard_interrupt_inside_the_block_only() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_as_keyboard_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # interrupted at once by the handler's exception
    assert signal.getsignal(signal.SIGTERM) is before
