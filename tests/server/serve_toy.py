"""Runs the server in its own process with the toy game registered (for the restart test).

Usage: ``python serve_toy.py PORT DB_URL BOT_DELAY``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).parent))
import toygame  # noqa: F401 - registers "toy"

from tabletop.server.app import create_app
from tabletop.server.config import Settings

if __name__ == "__main__":
    port, db_url, delay = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    settings = Settings(db_url=db_url, bot_executor="thread", bot_workers=1, bot_delay_s=delay)
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
