"""kill -9 mid-game, restart on the same database: every acknowledged action is there and bots resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tabletop.server.local import free_port, start_server, stop_server

HERE = Path(__file__).parent


def start(port: int, db_url: str, bot_delay: float) -> subprocess.Popen[bytes]:
    return start_server([sys.executable, str(HERE / "serve_toy.py"), str(port), db_url, str(bot_delay)], port)


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db_url = os.environ.get("TABLETOP_TEST_DB") or f"sqlite:///{tmp_path / 'restart.db'}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start(port, db_url, bot_delay=30.0)  # the bot is still "thinking" when killed
    try:
        with httpx2.Client(base_url=base, timeout=5) as http:
            acked: dict[str, list[str]] = {}
            matches: list[dict[str, Any]] = []
            for _ in range(8):
                seats = [{"name": "A"}, {"name": "B"}, {"name": "C"}]
                m = http.post("/api/matches", json={"game": "toy", "seats": seats, "start_player": 0}).json()
                matches.append(m)
                acked[m["id"]] = []
            # Interleave actions over the matches; record each one the server acknowledged.
            for step in range(5):
                for m in matches:
                    view = http.get(f"/api/matches/{m['id']}").json()
                    tok = m["seats"][view["current_player"]]["token"]
                    r = http.post(
                        f"/api/matches/{m['id']}/actions",
                        json={"token": tok, "version": view["version"], "action": view["legal"]["claim"][step % 2]},
                    )
                    assert r.status_code == 200
                    acked[m["id"]].append(r.json()["log"][-1]["action"])
            bot_match = http.post(
                "/api/matches",
                json={"game": "toy", "seats": [{"name": "A"}, {"name": "Bot", "agent": "random"}], "start_player": 0},
            ).json()
            tok = bot_match["seats"][0]["token"]
            http.post(f"/api/matches/{bot_match['id']}/actions", json={"token": tok, "version": 0, "action": "a"})
            r = http.post(f"/api/matches/{bot_match['id']}/actions", json={"token": tok, "version": 1, "action": "b"})
            assert r.json()["current_player"] == 1  # the bot's turn, pending at the kill
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    proc = start(port, db_url, bot_delay=0.0)
    try:
        with httpx2.Client(base_url=base, timeout=5) as http:
            for match_id, actions in acked.items():
                log = [e["action"] for e in http.get(f"/api/matches/{match_id}").json()["log"]]
                assert log == actions
            deadline = time.monotonic() + 10
            view = http.get(f"/api/matches/{bot_match['id']}").json()
            while view["ply"] < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
                view = http.get(f"/api/matches/{bot_match['id']}").json()
            assert view["ply"] == 4 and view["current_player"] == 0  # the bot resumed its turn
    finally:
        stop_server(proc, timeout_s=10)
