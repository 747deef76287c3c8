"""Server settings: one frozen value passed to ``create_app`` (no settings read at import)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tabletop.core.errors import ConfigError

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
        bot_time_budget_s: per-move thinking budget: a searching bot plays its best
            move so far when it ends; a bot that ignores it (or fails) is replaced by a
            random legal move, so a game never hangs on a slow bot.
        bot_delay_s: minimum pause before a bot's move is applied, so people can follow.
        static_dir: folder of the web client.
    """

    db_url: str = DEFAULT_DB_URL
    bot_executor: Literal["process", "thread"] = "process"
    bot_workers: int = 2
    bot_time_budget_s: float = 10.0
    bot_delay_s: float = 0.0
    static_dir: Path = field(default=WEB_DIR)

    def __post_init__(self) -> None:
        if not 0 < self.bot_time_budget_s < math.inf:
            raise ConfigError(
                f"the bot budget must be a positive, finite number of seconds, got {self.bot_time_budget_s}"
            )
        if self.bot_workers < 1:
            raise ConfigError(f"the server needs at least one bot worker, got {self.bot_workers}")
        if not 0 <= self.bot_delay_s < math.inf:
            raise ConfigError(f"the bot delay must be a finite number of seconds, not negative, got {self.bot_delay_s}")

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from ``TABLETOP_DB`` and friends, then explicit ``overrides`` (``None`` = unset)."""
        values: dict[str, object] = {}
        if url := os.environ.get("TABLETOP_DB"):
            values["db_url"] = url
        if budget := os.environ.get("TABLETOP_BOT_BUDGET"):
            try:
                values["bot_time_budget_s"] = float(budget)
            except ValueError:
                raise ConfigError(f"TABLETOP_BOT_BUDGET must be a number of seconds, got {budget!r}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
