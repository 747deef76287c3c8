"""Server settings: one frozen value passed to ``create_app`` (no settings read at import).

Every limit that protects the server from a hostile or broken client is a field here,
with a default that no ordinary player comes near, and can be changed without code:
``Settings(max_body_bytes=...)`` in Python, or ``TABLETOP_MAX_BODY_BYTES=...`` in the
environment of ``tabletop serve`` (each field's name in capitals, prefixed
``TABLETOP_``).  ``docs/server.md`` lists them all.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tabletop.core.errors import ConfigError

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The static client shipped inside the package."""

DEFAULT_DB_URL = "sqlite:///tabletop.db"

ENV_PREFIX = "TABLETOP_"

LIMIT_FIELDS = (
    "max_body_bytes",
    "max_json_depth",
    "max_ws_message_bytes",
    "max_sockets_per_match",
    "max_sockets_per_client",
    "requests_per_minute",
    "ws_messages_per_minute",
    "token_failures_per_minute",
    "matches_per_minute",
    "hints_per_minute",
    "analyses_per_minute",
)
"""The fields that bound what one client may cost the server (positive integers)."""


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
        max_body_bytes: largest HTTP request body; a larger one is answered 413 unread.
            A record of 5,000 actions is 67-85 kB (measured; docs/server.md), an
            inline island map a few kB.
        max_json_depth: deepest nesting of arrays and objects accepted in a JSON body or
            websocket message (a record or a map needs 4).
        max_ws_message_bytes: largest websocket text message the app reads; a larger
            one gets an error frame.  Frames over four times this are refused by the
            websocket layer itself (close code 1009).
        max_sockets_per_match: live websockets on one match (players and spectators).
        max_sockets_per_client: live websockets from one client address (IPv6: one /64).
        requests_per_minute: HTTP requests from one client address in any 60 s.
        ws_messages_per_minute: messages one websocket may send in any 60 s.
        token_failures_per_minute: wrong seat tokens from one client address in any
            60 s; beyond it every token check from that address answers 429 until the
            oldest failure is a minute old.
        matches_per_minute: matches one client address may create in any 60 s.
        hints_per_minute: hints one client address may ask for in any 60 s (each is a
            bot search: CPU).
        analyses_per_minute: game analyses one client address may start in any 60 s
            (answers from the cache do not count).
        hint_time_per_action_s: seconds a hint's bot thinks per action at most.
        analysis_budget_s: seconds one game analysis may take (its bot thinks less per
            action in a long game; ``docs/analysis.md``).
        analysis_workers: processes (or threads) that compute hints and analyses, apart
            from the bots' workers.
    """

    db_url: str = DEFAULT_DB_URL
    bot_executor: Literal["process", "thread"] = "process"
    bot_workers: int = 2
    bot_time_budget_s: float = 10.0
    bot_delay_s: float = 0.0
    static_dir: Path = field(default=WEB_DIR)
    max_body_bytes: int = 256 * 1024
    max_json_depth: int = 32
    max_ws_message_bytes: int = 16 * 1024
    max_sockets_per_match: int = 100
    max_sockets_per_client: int = 32
    requests_per_minute: int = 1200
    ws_messages_per_minute: int = 600
    token_failures_per_minute: int = 20
    matches_per_minute: int = 20
    hints_per_minute: int = 30
    analyses_per_minute: int = 6
    hint_time_per_action_s: float = 1.0
    analysis_budget_s: float = 90.0
    analysis_workers: int = 1

    def __post_init__(self) -> None:
        if not 0 < self.bot_time_budget_s < math.inf:
            raise ConfigError(
                f"the bot budget must be a positive, finite number of seconds, got {self.bot_time_budget_s}"
            )
        if self.bot_workers < 1:
            raise ConfigError(f"the server needs at least one bot worker, got {self.bot_workers}")
        if not 0 <= self.bot_delay_s < math.inf:
            raise ConfigError(f"the bot delay must be a finite number of seconds, not negative, got {self.bot_delay_s}")
        for budget in ("hint_time_per_action_s", "analysis_budget_s"):
            if not 0 < getattr(self, budget) < math.inf:
                raise ConfigError(f"{budget} must be a positive, finite number of seconds, got {getattr(self, budget)}")
        if self.analysis_workers < 1:
            raise ConfigError(f"the server needs at least one analysis worker, got {self.analysis_workers}")
        for name in LIMIT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from ``TABLETOP_DB``, ``TABLETOP_BOT_BUDGET`` and ``TABLETOP_<LIMIT>``,
        then explicit ``overrides`` (``None`` = unset)."""
        values: dict[str, object] = {}
        if url := os.environ.get("TABLETOP_DB"):
            values["db_url"] = url
        if budget := os.environ.get("TABLETOP_BOT_BUDGET"):
            try:
                values["bot_time_budget_s"] = float(budget)
            except ValueError:
                raise ConfigError(f"TABLETOP_BOT_BUDGET must be a number of seconds, got {budget!r}") from None
        for name in LIMIT_FIELDS:
            variable = ENV_PREFIX + name.upper()
            if (text := os.environ.get(variable)) is not None:
                try:
                    values[name] = int(text)
                except ValueError:
                    raise ConfigError(f"{variable} must be a positive integer, got {text[:40]!r}") from None
        for name, kind in (("hint_time_per_action_s", float), ("analysis_budget_s", float), ("analysis_workers", int)):
            variable = ENV_PREFIX + name.upper()
            if (text := os.environ.get(variable)) is not None:
                try:
                    values[name] = kind(text)
                except ValueError:
                    raise ConfigError(f"{variable} must be a number, got {text[:40]!r}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def limits(self) -> dict[str, int]:
        """The limit fields and their values (for docs and the start-up log)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name in LIMIT_FIELDS}
