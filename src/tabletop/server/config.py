"""Server settings: one frozen value passed to ``create_app`` (no settings read at import)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The static client shipped inside the package."""

DEFAULT_DB_URL = "sqlite:///tabletop.db"


@dataclass(frozen=True)
class Settings:
    """Everything the server can be configured with.

    Attributes:
        db_url: SQLAlchemy URL; a SQLite file by default, ``postgresql+psycopg://...`` works too.
        bot_executor: ``"process"`` runs bots in worker processes (the server stays
            responsive while they think), ``"thread"`` in a thread pool (cheap, for tests).
        bot_workers: number of bot workers.
        bot_time_budget_s: per-move thinking budget; a bot that overruns it plays a
            random legal move instead, so a game never hangs on a slow bot.
        bot_delay_s: minimum pause before a bot's move is applied, so people can follow.
        static_dir: folder of the web client.
    """

    db_url: str = DEFAULT_DB_URL
    bot_executor: Literal["process", "thread"] = "process"
    bot_workers: int = 2
    bot_time_budget_s: float = 10.0
    bot_delay_s: float = 0.0
    static_dir: Path = field(default=WEB_DIR)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from ``TABLETOP_DB`` and friends, then explicit ``overrides`` (``None`` = unset)."""
        values: dict[str, object] = {}
        if url := os.environ.get("TABLETOP_DB"):
            values["db_url"] = url
        if budget := os.environ.get("TABLETOP_BOT_BUDGET"):
            values["bot_time_budget_s"] = float(budget)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
