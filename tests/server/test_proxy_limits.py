"""The per-address limits of the whole service, held by the proxy: deploy/haproxy.cfg
counts one address's requests and open connections once, however many server processes
stand behind it (each process counts only what it serves itself: docs/deploy.md).

Runs the very configuration file, in front of one server process on SQLite, with small
limits; needs haproxy and openssl (``make test`` installs haproxy).
"""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tabletop.server.local import free_port, start_server, stop_server

HAPROXY_CFG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"
REQUESTS_PER_10S = 20
CONNECTIONS = 3

pytestmark = [
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy (apt-get install haproxy)"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for the proxy's certificate"),
]


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``(base URL, HTTPS port)`` of haproxy with the deployed configuration and small limits."""
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"),
            *("-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")),
        ],
        check=True,
        capture_output=True,
    )
    cert = tmp_path / "tls.pem"
    cert.write_text((tmp_path / "cert.pem").read_text() + (tmp_path / "key.pem").read_text())
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "tabletop.cli.serve_cmd",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{tmp_path / 'p.db'}",
    ]
    server = start_server(
        [*cmd, "--log-level", "warning"], port, env=dict(os.environ, TABLETOP_TRUSTED_PROXIES="127.0.0.1")
    )
    http_port, https_port = free_port(), free_port()
    env = dict(
        os.environ,
        TABLETOP_HTTP_BIND=f"127.0.0.1:{http_port}",
        TABLETOP_HTTPS_BIND=f"127.0.0.1:{https_port}",
        TABLETOP_TLS_CERT=str(cert),
        TABLETOP_PROXY_REQUESTS_PER_10S=str(REQUESTS_PER_10S),
        TABLETOP_PROXY_CONNECTIONS=str(CONNECTIONS),
        # One process behind all three server lines of the file.
        **{f"TABLETOP_APP{i}": f"127.0.0.1:{port}" for i in (1, 2, 3)},
    )
    haproxy = subprocess.Popen(
        ["haproxy", "-db", "-f", str(HAPROXY_CFG)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 20
        while not _listening(https_port):
            assert haproxy.poll() is None, haproxy.stderr.read().decode() if haproxy.stderr else "haproxy exited"
            assert time.monotonic() < deadline, "the proxy did not start"
            time.sleep(0.1)
        yield f"https://127.0.0.1:{https_port}", https_port
    finally:
        haproxy.terminate()
        haproxy.wait(timeout=10)
        stop_server(server)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _tls_connection(port: int) -> ssl.SSLSocket:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="localhost")


def _answers(connection: ssl.SSLSocket) -> bool:
    """Whether an HTTP request on ``connection`` gets an answer (any status)."""
    try:
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        return connection.recv(12).startswith(b"HTTP/1.1 ")
    except OSError:
        return False


def test_one_address_gets_its_requests_per_10_s_and_then_429(proxy: tuple[str, int]) -> None:
    base, _ = proxy
    # The server's own (per-process) limit is far above the proxy's here.
    with httpx2.Client(base_url=base, verify=False, timeout=10) as client:
        statuses = [client.get("/api/games").status_code for _ in range(REQUESTS_PER_10S + 5)]
    # A request or two may have gone to the health check's count; the proxy's answer
    # after the limit is 429, before it the server's 200.
    assert statuses[: REQUESTS_PER_10S - 2] == [200] * (REQUESTS_PER_10S - 2)
    assert statuses[-5:] == [429] * 5


def test_one_address_holds_at_most_its_connections(proxy: tuple[str, int]) -> None:
    _, port = proxy
    held: list[ssl.SSLSocket] = []
    try:
        for _ in range(CONNECTIONS):
            held.append(_tls_connection(port))
        assert all(_answers(connection) for connection in held)
        try:
            extra = _tls_connection(port)
        except OSError:
            pass  # refused during the handshake
        else:
            with extra:
                assert not _answers(extra)
        held.pop().close()
        time.sleep(0.2)  # the proxy sees the close
        with _tls_connection(port) as again:
            assert _answers(again)
    finally:
        for connection in held:
            connection.close()
