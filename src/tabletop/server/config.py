"""Server settings: one frozen value passed to ``create_app`` (no settings read at import).

Every limit that protects the server from a hostile or broken client is a field here,
with a default that no ordinary player comes near, and can be changed without code:
``Settings(max_body_bytes=...)`` in Python, or ``TABLETOP_MAX_BODY_BYTES=...`` in the
environment of ``tabletop serve`` (each field's name in capitals, prefixed
``TABLETOP_``).  ``docs/server.md`` lists them all.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tabletop.ai.agent import make_agent
from tabletop.ai.ladder import DEFAULT_LEVEL
from tabletop.core.errors import ConfigError
from tabletop.core.registry import ENGINES
from tabletop.server.clocks import Now, wall_clock

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The static client shipped inside the package."""

DEFAULT_DB_URL = "sqlite:///tabletop.db"

ENV_PREFIX = "TABLETOP_"

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(texts: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    """Addresses or networks (``10.0.0.1``, ``10.0.0.0/8``, ``::1``) as networks.

    Raises:
        ValueError: for a text that is neither.
    """
    return tuple(ipaddress.ip_network(text.strip(), strict=False) for text in texts)


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
    "room_idle_s",
    # The lobby, clocks and chat (tabletop.server.lobby; docs/server.md, "Lobby").
    "joins_per_minute",
    "max_open_games",
    "open_games_per_client",
    "lobby_page_size",
    "min_move_time_s",
    "max_move_time_s",
    "min_game_time_s",
    "max_game_time_s",
    "max_increment_s",
    "min_grace_s",
    "max_grace_s",
    "abort_before_actions",
    "chat_max_chars",
    "chat_messages_per_minute",
    "chat_history",
    "hints_per_minute",
    "analyses_per_minute",
    "analysis_backlog_per_client",
    "analysis_backlog",
    # Accounts (server/accounts.py, docs/server.md "Accounts"):
    "login_attempts_per_minute",
    "registrations_per_minute",
    "name_max_length",
    "password_min_length",
    "password_max_length",
    "session_days",
    "page_max",
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
        engine: the engine the server's matches and bots run on (env
            ``TABLETOP_SERVER_ENGINE``; ``make``'s choices: ``python``, ``native``,
            ``auto``).  ``python`` by default: measured with the clocked load benchmark,
            the server spends less CPU an action on it (2.15 against 2.54-2.66 ms,
            ``docs/benchmarks.md``), since records, views and drawings read Python states,
            which a native state rebuilds; the ``native`` bot still searches native states.
        default_bot: the bot the lobby seats by default (env ``TABLETOP_DEFAULT_BOT``):
            a level of the ladder (``tabletop games``) or any bot spec.
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
        matches_per_minute: matches one client address may create in any 60 s (lobby
            games count too).
        room_idle_s: seconds a match may stay in a process's memory unused (no socket,
            no request, no bot thinking) before it is dropped; the next use reloads it
            from the database.
        joins_per_minute: lobby seats one client address may take in any 60 s.
        max_open_games: lobby games open (waiting for players) on the server at once.
        open_games_per_client: lobby games one client address may have open at once.
        lobby_page_size: most games one ``GET /api/lobby`` lists.
        min_move_time_s, max_move_time_s: bounds of a turn-based game's time per turn
            (an hour to two weeks).
        min_game_time_s, max_game_time_s, max_increment_s: bounds of a real-time game's
            time per seat and increment per turn.
        min_grace_s, max_grace_s: bounds of the grace period a creator may choose before a
            dropped seat is taken over by a bot.
        abort_before_actions: a match can be aborted (ends unrated) only before this many
            actions.
        chat_max_chars: longest chat message.
        chat_messages_per_minute: chat messages one seat may post in any 60 s.
        chat_history: chat messages kept and sent to a newcomer.
        clock_poll_s: how often the clock keeper looks for timed-out and dropped seats
            (a flag falls at most this late).
        clock: the time source of the clocks (seconds since the epoch); tests pass a fake.
        login_attempts_per_minute: log-in attempts from one client address in any 60 s;
            beyond it 429.  An address whose attempts keep failing also backs off (after
            3 failures in a row it waits 1 s, then 2, 4, ... up to 60 s; ``docs/security.md``).
            Nothing is counted per account name: wrong passwords from someone else never
            lock the owner out.
        registrations_per_minute: accounts one client address may register in any 60 s.
        name_max_length: longest account name (3 characters at least; ASCII letters,
            digits, ``_`` and ``-``).
        password_min_length, password_max_length: password length bounds, in characters.
        session_days: a log-in session lasts this many days (the cookie's ``Max-Age``).
        secure_cookies: mark the session cookie ``Secure`` even on plain-HTTP requests
            (set it behind an HTTPS proxy; requests that arrive over HTTPS get it anyway).
        page_max: the most rows one page of a list (leaderboard, my games) may ask for.
        hints_per_minute: hints one client address may ask for in any 60 s (each is a
            bot search: CPU).
        analyses_per_minute: game analyses one client address may start in any 60 s
            (answers from the cache do not count).
        hint_time_per_action_s: seconds a hint's bot thinks per action at most.
        analysis_budget_s: seconds one game analysis may take (its bot thinks less per
            action in a long game; ``docs/analysis.md``).
        analysis_workers: processes (or threads) that compute hints and analyses, apart
            from the bots' workers.
        analysis_backlog_per_client: hints and analyses one client address may have
            waiting or running at once; beyond it 429.
        analysis_backlog: hints and analyses waiting or running on the server at once;
            beyond it 503 (so the queue in front of the workers stays short).
        trusted_proxies: addresses or networks (``127.0.0.1``, ``10.0.0.0/8``) of the
            operator's proxies (env ``TABLETOP_TRUSTED_PROXIES``, comma-separated).  Only
            a connection from one of them may name its client in ``X-Forwarded-For``; by
            default nobody may, and every limit counts the connection's own address.
    """

    db_url: str = DEFAULT_DB_URL
    bot_executor: Literal["process", "thread"] = "process"
    bot_workers: int = 2
    bot_time_budget_s: float = 10.0
    bot_delay_s: float = 0.0
    engine: str = "python"
    default_bot: str = DEFAULT_LEVEL
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
    room_idle_s: int = 1800
    joins_per_minute: int = 60
    max_open_games: int = 10_000
    open_games_per_client: int = 10
    lobby_page_size: int = 50
    min_move_time_s: int = 3600
    max_move_time_s: int = 14 * 86400
    min_game_time_s: int = 60
    max_game_time_s: int = 4 * 3600
    max_increment_s: int = 600
    min_grace_s: int = 10
    max_grace_s: int = 3600
    abort_before_actions: int = 4
    chat_max_chars: int = 300
    chat_messages_per_minute: int = 12
    chat_history: int = 100
    clock_poll_s: float = 0.25
    clock: Now = field(default=wall_clock, compare=False, repr=False)
    login_attempts_per_minute: int = 10
    registrations_per_minute: int = 5
    name_max_length: int = 24
    password_min_length: int = 8
    password_max_length: int = 256
    session_days: int = 30
    secure_cookies: bool = False
    page_max: int = 100
    hints_per_minute: int = 30
    analyses_per_minute: int = 6
    hint_time_per_action_s: float = 1.0
    analysis_budget_s: float = 90.0
    analysis_workers: int = 1
    analysis_backlog_per_client: int = 2
    analysis_backlog: int = 8
    trusted_proxies: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 < self.bot_time_budget_s < math.inf:
            raise ConfigError(
                f"the bot budget must be a positive, finite number of seconds, got {self.bot_time_budget_s}"
            )
        if self.bot_workers < 1:
            raise ConfigError(f"the server needs at least one bot worker, got {self.bot_workers}")
        if not 0 <= self.bot_delay_s < math.inf:
            raise ConfigError(f"the bot delay must be a finite number of seconds, not negative, got {self.bot_delay_s}")
        if not 0 < self.clock_poll_s <= 60:
            raise ConfigError(f"the clock poll must be 0 to 60 seconds, got {self.clock_poll_s}")
        for budget in ("hint_time_per_action_s", "analysis_budget_s"):
            if not 0 < getattr(self, budget) < math.inf:
                raise ConfigError(f"{budget} must be a positive, finite number of seconds, got {getattr(self, budget)}")
        if self.analysis_workers < 1:
            raise ConfigError(f"the server needs at least one analysis worker, got {self.analysis_workers}")
        if self.engine not in ENGINES:
            raise ConfigError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        try:
            make_agent(self.default_bot, seed=0)
        except (ConfigError, ValueError) as exc:
            raise ConfigError(f"the default bot must be a bot spec: {exc}") from None
        for name in LIMIT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if not 3 <= self.name_max_length <= 64:
            raise ConfigError(f"name_max_length must be between 3 and 64, got {self.name_max_length}")
        if self.password_min_length > self.password_max_length:
            raise ConfigError("password_min_length must not exceed password_max_length")
        if isinstance(self.trusted_proxies, str):
            raise ConfigError("trusted_proxies must be a sequence of addresses or networks, not one string")
        try:
            parse_networks(self.trusted_proxies)
        except ValueError as exc:
            raise ConfigError(f"trusted_proxies: {exc}") from None

    @functools.cached_property
    def trusted_networks(self) -> tuple[IPNetwork, ...]:
        """:attr:`trusted_proxies` as networks."""
        return parse_networks(self.trusted_proxies)

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
        if engine := os.environ.get("TABLETOP_SERVER_ENGINE"):
            values["engine"] = engine
        if bot := os.environ.get("TABLETOP_DEFAULT_BOT"):
            values["default_bot"] = bot
        for name in LIMIT_FIELDS:
            variable = ENV_PREFIX + name.upper()
            if (text := os.environ.get(variable)) is not None:
                try:
                    values[name] = int(text)
                except ValueError:
                    raise ConfigError(f"{variable} must be a positive integer, got {text[:40]!r}") from None
        if (secure := os.environ.get("TABLETOP_SECURE_COOKIES")) is not None:
            values["secure_cookies"] = secure.strip().lower() in ("1", "true", "yes", "on")
        for name, kind in (("hint_time_per_action_s", float), ("analysis_budget_s", float), ("analysis_workers", int)):
            variable = ENV_PREFIX + name.upper()
            if (text := os.environ.get(variable)) is not None:
                try:
                    values[name] = kind(text)
                except ValueError:
                    raise ConfigError(f"{variable} must be a number, got {text[:40]!r}") from None
        if (proxies := os.environ.get("TABLETOP_TRUSTED_PROXIES")) is not None:
            values["trusted_proxies"] = tuple(p.strip() for p in proxies.split(",") if p.strip())
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def limits(self) -> dict[str, int]:
        """The limit fields and their values (for docs and the start-up log)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name in LIMIT_FIELDS}
