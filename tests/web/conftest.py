"""End-to-end fixtures: a real ``tabletop serve`` process and Debian's headless Chromium.

The browser is the system one (``/usr/bin/chromium``, installed by ``make test``);
Playwright's own browser download does not work on our machines.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.server.local import free_port, start_server, stop_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    pytest.skip(
        "Debian's chromium is not installed (/usr/bin/chromium); `make test` installs it", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (Python) is not installed")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a server on loopback with its own SQLite file; stopped after the session."""
    db = tmp_path_factory.mktemp("e2e") / "e2e.db"
    port = free_port()
    cmd = [sys.executable, "-m", "tabletop.cli.serve_cmd", "--port", str(port), "--db", f"sqlite:///{db}"]
    cmd += ["--bot-workers", "1", "--log-level", "warning"]
    # Every browser of the suite comes from 127.0.0.1 and creates matches quickly: lift
    # the per-address caps, which tests/server/test_hardening.py tests on their own.
    lifted = {"TABLETOP_MATCHES_PER_MINUTE": "10000", "TABLETOP_REQUESTS_PER_MINUTE": "1000000"}
    proc = start_server(cmd, port, env={**os.environ, "PYTHONUNBUFFERED": "1", **lifted})
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(proc, timeout_s=10)


UPDATE_SCREENSHOTS = "TABLETOP_UPDATE_SCREENSHOTS"
"""Set to 1 to write the README's screenshots into docs/screenshots/ (tracked files)."""
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser tests save their screenshots: a temporary folder, so a test run
    leaves the tree as it was; docs/screenshots/ only with TABLETOP_UPDATE_SCREENSHOTS=1."""
    if os.environ.get(UPDATE_SCREENSHOTS) == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return DOCS_SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    # Package-scoped: Playwright's synchronous API keeps an event loop running in this
    # thread while it is open, and any later test's asyncio.run() would then fail (the
    # browser tests need not be the last a worker process of `make test` runs).
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    pg = context.new_page()
    errors: list[str] = []
    # The stack says where: a message alone ("Cannot read properties of null") rarely does.
    pg.on("pageerror", lambda e: errors.append(f"{e}\n{getattr(e, 'stack', '') or ''}"))
    # The server's Content-Security-Policy must not block anything the page itself uses.
    pg.on(
        "console",
        lambda m: errors.append(m.text) if m.type == "error" and "Content Security Policy" in m.text else None,
    )
    yield pg
    context.close()
    assert not errors, f"JavaScript errors or CSP violations: {errors}"
