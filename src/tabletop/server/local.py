"""A server process on loopback: a free port, waiting until it answers, stopping it.

``tabletop bench server`` and the tests that need a real process (restart after
``kill -9``, the browser tests) all start servers this way.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import FrameType

import httpx2

READY_PATH = "/api/agents"
"""A cheap route that answers only once the app, its database and its bot pool are up."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    cmd: list[str],
    port: int,
    *,
    timeout_s: float = 30.0,
    env: Mapping[str, str] | None = None,
    stdout: int | None = None,
) -> subprocess.Popen[bytes]:
    """Starts ``cmd`` (a server that will listen on ``port``) and waits until it answers.

    The process gets its own session, so a Ctrl-C in the terminal reaches only the program
    that started it, which then stops the server itself (see :func:`stop_server`) instead of
    both shutting down at once.  Raises ``RuntimeError`` if the process exits first or does
    not answer within ``timeout_s``; the process is killed then.
    """
    proc = subprocess.Popen(cmd, start_new_session=True, env=env, stdout=stdout)
    url = f"http://127.0.0.1:{port}{READY_PATH}"
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx2.get(url, timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode} before it answered")
        if time.monotonic() > deadline:
            stop_server(proc, timeout_s=0)
            raise RuntimeError(f"the server did not answer on port {port} within {timeout_s:g} s")
        time.sleep(0.1)


def stop_server(proc: subprocess.Popen[bytes], *, timeout_s: float = 20.0) -> None:
    """SIGTERM (uvicorn then closes connections and finishes open requests), SIGKILL after ``timeout_s``."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def sigterm_as_keyboard_interrupt() -> Iterator[None]:
    """Inside the block SIGTERM raises ``KeyboardInterrupt``, as Ctrl-C does.

    Python's default for SIGTERM ends the process without running ``finally`` blocks, which
    would leave a started server running.  Only the main thread may set signal handlers;
    elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
