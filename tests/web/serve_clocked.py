"""The server in its own process with a clock the test moves (browser tests of clocks).

Usage: ``python serve_clocked.py PORT DB_URL CLOCK_FILE``.  The clocks read the time
(seconds since the epoch) from ``CLOCK_FILE``: it stands still until the test writes a
later one, so the tests jump hours ahead without sleeping and read exact times back.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

from tabletop.server.app import create_app
from tabletop.server.config import Settings


class FileClock:
    """Time as written in a file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self) -> float:
        return float(self.path.read_text())


if __name__ == "__main__":
    port, db_url, clock_file = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    settings = Settings(
        db_url=db_url,
        bot_executor="thread",
        bot_workers=1,
        bot_time_budget_s=2.0,
        clock=FileClock(clock_file),
        clock_poll_s=0.1,
        matches_per_minute=10_000,
        requests_per_minute=1_000_000,
        joins_per_minute=10_000,
        open_games_per_client=10_000,
        registrations_per_minute=10_000,  # the matrix test registers two people a cell
        hints_per_minute=10_000,
        analyses_per_minute=10_000,
    )
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
