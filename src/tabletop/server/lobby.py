"""The lobby and the table of each match started from it (docs/server.md, "Lobby").

- A **lobby game** gathers people: its creator sits in one seat, leaves others open or
  gives them to bots; anyone with the link (or anyone, for a public game) joins a free
  seat and gets that seat's secret token.  The match is created when the last seat is
  taken, or when the creator starts it with bots in the empty seats; its id is the
  lobby game's.
- The **table** of a started match holds what the rules do not: the clock
  (:mod:`tabletop.server.clocks`), who plays each seat now (a person, a bot that took
  over a dropped or timed-out seat, a resigned seat), the end by resignation or abort,
  the rematch and the chat.

The lobby hears the rooms through :class:`~tabletop.server.rooms.RoomHooks` and runs its
database work on the rooms' database thread, after the action it follows.  Time comes
from ``Settings.clock`` (tests pass a fake and call :meth:`Lobby.check_clocks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tabletop.ai.agent import make_agent
from tabletop.core.errors import ConfigError, TabletopError, short_repr
from tabletop.core.protocol import TERMINAL, GameConfig
from tabletop.core.registry import make
from tabletop.server import lobby_store as db
from tabletop.server.chat import Chat, ChatMessage
from tabletop.server.clocks import REALTIME, TURN, ClockSettings, MatchClock, catch_up, to_ms
from tabletop.server.config import Settings
from tabletop.server.guard import SlidingWindow
from tabletop.server.rooms import HUMAN, Room, RoomError, RoomHooks, RoomManager, Subscriber, hash_token
from tabletop.server.store import now as iso_now

log = logging.getLogger("tabletop.server")

SeatState = Literal["open", "taken", "bot", "reserved"]
"""A lobby seat: free, a person's, a bot's, or kept for a person (a rematch)."""

PLAYING = "playing"
BOT = "bot"
TIMEOUT = "timeout"
DROPPED = "dropped"
RESIGNED = "resigned"
TAKEN_OVER = (TIMEOUT, DROPPED)
"""Seat statuses at a table: a person playing, a bot from the start, a person's seat that
a bot took over (their time ran out, or they dropped), a person who resigned."""

RECLAIM_SHARE = 10
"""A person taking back a real-time seat whose time ran out gets a tenth of the game's
time (at least :data:`RECLAIM_MIN_MS`), so the seat is not lost again at once."""
RECLAIM_MIN_MS = 30_000

STARTED_KEPT = 10_000
"""Started lobby games remembered in memory (older ones are matches, found by their id)."""


@dataclass(slots=True)
class LobbySeat:
    """One seat of a lobby game."""

    state: SeatState
    name: str
    agent: str = HUMAN
    token_hash: str | None = None
    reserved_for: str | None = None
    """A rematch keeps the seat for the person whose old token hashes to this."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LobbySeat:
        return cls(**data)


@dataclass(slots=True)
class LobbyGame:
    """A game gathering players."""

    id: str
    game: str
    public: bool
    created: str
    config: dict[str, Any]
    seats: list[LobbySeat]
    clock: ClockSettings | None
    takeover: str
    grace_s: int
    rated: bool
    creator_hash: str
    status: str = db.OPEN
    rematch_of: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def setup_json(self) -> dict[str, Any]:
        """The stored ``setup`` column."""
        return {
            "config": self.config,
            "seats": [s.to_json() for s in self.seats],
            "clock": self.clock.to_json() if self.clock else None,
            "takeover": self.takeover,
            "grace_s": self.grace_s,
            "rated": self.rated,
            "creator_hash": self.creator_hash,
            "rematch_of": self.rematch_of,
        }

    @classmethod
    def from_row(cls, game_id: str, game: str, setup: dict[str, Any], public: bool, created: str) -> LobbyGame:
        clock = setup.get("clock")
        return cls(
            game_id,
            game,
            public,
            created,
            setup["config"],
            [LobbySeat.from_json(s) for s in setup["seats"]],
            ClockSettings.from_json(clock) if clock else None,
            setup["takeover"],
            int(setup["grace_s"]),
            bool(setup["rated"]),
            setup["creator_hash"],
            rematch_of=setup.get("rematch_of"),
        )

    def is_waiting(self) -> bool:
        """Whether a seat is still free or kept for someone."""
        return any(s.state in ("open", "reserved") for s in self.seats)

    def view(self) -> dict[str, Any]:
        """What anyone with the link sees (no token hashes)."""
        return {
            "id": self.id,
            "game": self.game,
            "status": self.status,
            "public": self.public,
            "created": self.created,
            "num_players": len(self.seats),
            "seats": [
                {"seat": i, "state": s.state, "name": s.name, "agent": s.agent} for i, s in enumerate(self.seats)
            ],
            "clock": self.clock.to_json() if self.clock else None,
            "takeover": self.takeover,
            "grace_s": self.grace_s,
            "rated": self.rated,
            "ruleset": self.config.get("ruleset"),
            "variants": self.config.get("variants", {}),
            "rematch_of": self.rematch_of,
            "match": self.id if self.status == db.STARTED else None,
        }


@dataclass(slots=True)
class MatchTable:
    """A started lobby match's clock, seats, end, rematch and chat."""

    match_id: str
    public: bool
    settings: dict[str, Any]
    """``takeover``, ``grace_s``, ``rated``, ``creator_seat`` (fixed at the start)."""
    clock: MatchClock | None
    seat_status: list[str]
    ended: dict[str, Any] | None = None
    rematch: str | None = None
    turn_seat: int | None = None
    turn_started_ms: int = 0
    present: dict[int, set[Subscriber]] = field(default_factory=dict)
    gone_since_ms: dict[int, int] = field(default_factory=dict)
    chat: deque[ChatMessage] | None = None
    """The last messages, once loaded (:mod:`tabletop.server.chat`)."""
    chat_next: int = 0

    def row_values(self) -> dict[str, Any]:
        """The columns :func:`lobby_store.save_table` writes."""
        return {
            "clock": self.clock.to_json() if self.clock else None,
            "seat_status": list(self.seat_status),
            "ended": self.ended,
            "rematch": self.rematch,
        }


class Lobby(RoomHooks):
    """The open games, the tables of started matches and the clock keeper."""

    def __init__(self, rooms: RoomManager, settings: Settings) -> None:
        self.rooms = rooms
        self.settings = settings
        self.now: Callable[[], float] = settings.clock
        self.games: dict[str, LobbyGame] = {}
        self.tables: dict[str, MatchTable] = {}
        self._creations = SlidingWindow(settings.matches_per_minute)
        self._joins = SlidingWindow(settings.joins_per_minute)
        self.chat = Chat(self)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._keeper: asyncio.Task[None] | None = None
        self._started: dict[str, LobbyGame] = {}
        """Recently started lobby games, so a player waiting on one learns it started."""
        rooms.hooks = self

    # ----- life cycle ------------------------------------------------------------

    def now_ms(self) -> int:
        """The lobby's time in epoch milliseconds."""
        return to_ms(self.now())

    async def start(self, *, keep_clocks: bool = True) -> None:
        """Loads the open games and the live tables, then starts the clock keeper."""
        engine = self.rooms.store.engine
        for row in await self.rooms.run_db(db.open_lobby_games, engine):
            self.games[row[0]] = LobbyGame.from_row(*row)
        for match_id in await self.rooms.run_db(db.live_tables, engine):
            with contextlib.suppress(RoomError):
                await self.rooms.get(match_id)  # the loaded hook brings its table
        await self.check_clocks()
        if keep_clocks:
            self._keeper = asyncio.get_running_loop().create_task(self._keep_clocks())

    async def close(self) -> None:
        """Stops the clock keeper and waits for pending writes."""
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        await self.settle()

    async def settle(self) -> None:
        """Waits until every write the lobby started is done (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("lobby task failed", exc_info=task.exception())

    async def _keep_clocks(self) -> None:
        while True:
            await asyncio.sleep(self.settings.clock_poll_s)
            try:
                await self.check_clocks()
            except Exception:
                log.exception("the clock keeper failed; trying again")

    # ----- creating and joining ---------------------------------------------------

    async def create(
        self,
        *,
        game_id: str,
        config: GameConfig,
        seats: Sequence[tuple[str, str, str]],
        public: bool,
        clock: ClockSettings | None,
        takeover: str,
        grace_s: int,
        rated: bool,
        client: str,
    ) -> tuple[LobbyGame, int, str]:
        """Opens a lobby game; returns it, the creator's seat and the creator's token.

        ``seats`` are ``(kind, name, agent)`` with kind ``"me"`` (exactly one: the
        creator), ``"open"`` or ``"bot"``.

        Raises:
            RoomError: 404 unknown game, 422 bad seats, clock, bot or configuration,
                429 too many games created from ``client`` or open on the server.
        """
        wait = self._creations.retry_after(client)
        if wait is not None:
            raise RoomError(429, "too_many_matches", "too many games created from this address", retry_after=wait)
        if sum(1 for g in self.games.values() if g.status == db.OPEN) >= self.settings.max_open_games:
            raise RoomError(429, "lobby_full", "the lobby has as many open games as the server allows", retry_after=60)
        game = self._game(game_id)
        if not game.min_players <= len(seats) <= game.max_players:
            raise RoomError(
                422,
                "bad_seats",
                f"{game.name} is for {game.min_players} to {game.max_players} players, not {len(seats)}",
            )
        if sum(1 for kind, _, _ in seats if kind == "me") != 1:
            raise RoomError(422, "bad_seats", "exactly one seat must be the creator's ('me')")
        self._check_agent(takeover)
        self._check_clock(clock)
        if not self.settings.min_grace_s <= grace_s <= self.settings.max_grace_s:
            raise RoomError(
                422,
                "bad_grace",
                f"the grace period must be {self.settings.min_grace_s} to {self.settings.max_grace_s} seconds",
            )
        if config.seed is None:
            config = dataclasses.replace(config, seed=secrets.randbelow(2**31))
        try:
            canonical = await asyncio.to_thread(game.canonical_config, config)
            await asyncio.to_thread(game.new_initial_state, canonical)
        except ConfigError as exc:
            raise RoomError(422, "bad_config", str(exc)) from None
        token = secrets.token_urlsafe(18)
        lobby_seats: list[LobbySeat] = []
        creator_seat = 0
        for i, (kind, name, agent) in enumerate(seats):
            if kind == "bot":
                self._check_agent(agent)
                lobby_seats.append(LobbySeat("bot", name.strip() or agent, agent))
            elif kind == "me":
                if not name.strip():
                    raise RoomError(422, "bad_name", "the creator's seat needs a name")
                creator_seat = i
                lobby_seats.append(LobbySeat("taken", name.strip(), HUMAN, hash_token(token)))
            else:
                lobby_seats.append(LobbySeat("open", ""))
        self._creations.hit(client)
        lg = LobbyGame(
            secrets.token_urlsafe(9),
            game.id,
            public,
            iso_now(),
            canonical.to_json(),
            lobby_seats,
            clock,
            takeover,
            grace_s,
            rated,
            hash_token(token),
        )
        await self.rooms.run_db(db.insert_lobby_game, self.rooms.store.engine, lg.id, lg.game, lg.setup_json(), public)
        self.games[lg.id] = lg
        if not lg.is_waiting():
            async with lg.lock:
                await self._start(lg)
        return lg, creator_seat, token

    async def join(self, game_id: str, name: str, seat: int | None, client: str) -> tuple[LobbyGame, int, str]:
        """Takes a free seat (``seat``, or the first free one); returns the seat and its token.

        Raises:
            RoomError: 404 no such open game, 409 the seat is not free (or none is) or
                the game started, 422 empty name, 429 too many joins from ``client``.
        """
        wait = self._joins.retry_after(client)
        if wait is not None:
            raise RoomError(429, "too_many_joins", "too many joins from this address", retry_after=wait)
        lg = self.lobby_game(game_id)
        if not name.strip():
            raise RoomError(422, "bad_name", "a seat needs a name")
        async with lg.lock:
            if lg.status != db.OPEN:
                raise RoomError(409, "not_open", f"this game is {lg.status}")
            free = [i for i, s in enumerate(lg.seats) if s.state == "open"]
            if seat is None:
                if not free:
                    raise RoomError(409, "no_free_seat", "every seat of this game is taken")
                seat = free[0]
            elif not 0 <= seat < len(lg.seats) or seat not in free:
                raise RoomError(409, "seat_taken", f"seat {seat} is not free")
            self._joins.hit(client)
            token = secrets.token_urlsafe(18)
            lg.seats[seat] = LobbySeat("taken", name.strip()[:80], HUMAN, hash_token(token))
            await self._save_game(lg)
            if not lg.is_waiting():
                await self._start(lg)
        return lg, seat, token

    async def start_now(self, game_id: str, token: str, agent: str | None, client: str) -> LobbyGame:
        """The creator starts the game, bots of level ``agent`` (else the takeover bot) in the empty seats.

        Raises:
            RoomError: 403 not the creator's token, 404 no such game, 409 not open,
                422 unknown bot.
        """
        lg = self.lobby_game(game_id)
        self._check_creator(lg, token, client)
        agent = agent or lg.takeover
        self._check_agent(agent)
        async with lg.lock:
            if lg.status != db.OPEN:
                raise RoomError(409, "not_open", f"this game is {lg.status}")
            for i, s in enumerate(lg.seats):
                if s.state in ("open", "reserved"):
                    lg.seats[i] = LobbySeat("bot", f"{agent} {i + 1}", agent)
            await self._start(lg)
        return lg

    async def cancel(self, game_id: str, token: str, client: str) -> LobbyGame:
        """The creator withdraws a game that has not started.

        Raises:
            RoomError: 403 not the creator's token, 404 no such game, 409 not open.
        """
        lg = self.lobby_game(game_id)
        self._check_creator(lg, token, client)
        async with lg.lock:
            if lg.status != db.OPEN:
                raise RoomError(409, "not_open", f"this game is {lg.status}")
            lg.status = db.CANCELLED
            await self._save_game(lg)
        del self.games[lg.id]
        return lg

    def lobby_game(self, game_id: str) -> LobbyGame:
        """An open or just started lobby game.

        Raises:
            RoomError: 404 if there is none with this id (started games are matches).
        """
        lg = self.games.get(game_id)
        if lg is None:
            raise RoomError(404, "unknown_game", f"no open game {short_repr(game_id)}")
        return lg

    def open_games(self, game: str | None, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Public open games, newest first, and how many there are."""
        found = [
            g for g in self.games.values() if g.public and g.status == db.OPEN and (game is None or g.game == game)
        ]
        found.sort(key=lambda g: g.created, reverse=True)
        return [g.view() for g in found[offset : offset + limit]], len(found)

    async def games_in_progress(self, game: str | None, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Public matches being played, newest first, and how many there are."""
        rows, total = await self.rooms.run_db(db.public_games_in_progress, self.rooms.store.engine, game, offset, limit)
        out = []
        for match_id, game_id, created in rows:
            entry: dict[str, Any] = {"id": match_id, "game": game_id, "created": created, "players": None}
            room = self.rooms.loaded(match_id)
            if room is not None:
                entry["players"] = [{"seat": s.seat, "name": s.name, "agent": s.agent} for s in room.seats]
                entry["ply"] = len(room.moves)
            out.append(entry)
        return out, total

    async def _start(self, lg: LobbyGame) -> None:
        """Creates the match of a full lobby game and its table; the caller holds ``lg.lock``."""
        config = GameConfig.from_json(lg.config)
        room, _ = await self.rooms.create(
            lg.game,
            config,
            [(s.name, s.agent) for s in lg.seats],
            match_id=lg.id,
            token_hashes=[s.token_hash for s in lg.seats],
        )
        creator_seat = next(i for i, s in enumerate(lg.seats) if s.token_hash == lg.creator_hash)
        table = MatchTable(
            room.id,
            lg.public,
            {"takeover": lg.takeover, "grace_s": lg.grace_s, "rated": lg.rated, "creator_seat": creator_seat},
            None,
            [PLAYING if s.agent == HUMAN else BOT for s in lg.seats],
        )
        now_ms = self.now_ms()
        if lg.clock is not None:
            table.clock = MatchClock.start(lg.clock, len(lg.seats), self._clock_seat(room, table), now_ms)
        self._note_turn(room, table, now_ms)
        row = db.TableRow(room.id, lg.public, table.settings, None, table.seat_status, None, None)
        row = dataclasses.replace(row, clock=table.clock.to_json() if table.clock else None)
        await self.rooms.run_db(db.insert_table, self.rooms.store.engine, row)
        self.tables[room.id] = table
        lg.status = db.STARTED
        await self._save_game(lg)
        # A started game is a match now; the lobby forgets it (GET /api/lobby/{id} then
        # points to the match through the table).
        self.games.pop(lg.id, None)
        self._started[lg.id] = lg
        if len(self._started) > STARTED_KEPT:
            self._started.pop(next(iter(self._started)))
        log.info("lobby game %s started", lg.id)

    def started_game(self, game_id: str) -> LobbyGame | None:
        """A lobby game that became a match while this server ran."""
        return self._started.get(game_id)

    async def _save_game(self, lg: LobbyGame) -> None:
        await self.rooms.run_db(db.save_lobby_game, self.rooms.store.engine, lg.id, lg.setup_json(), lg.status)

    # ----- checks ------------------------------------------------------------------

    def _game(self, game_id: str) -> Any:
        try:
            return make(game_id)
        except TabletopError as exc:
            raise RoomError(404, "unknown_game", str(exc)) from None

    @staticmethod
    def _check_agent(agent: str) -> None:
        if agent == HUMAN:
            raise RoomError(422, "bad_agent", "a bot seat needs a bot, not 'human'")
        try:
            make_agent(agent, seed=0)
        except (ConfigError, ValueError) as exc:
            raise RoomError(422, "bad_agent", str(exc)) from None

    def _check_clock(self, clock: ClockSettings | None) -> None:
        s = self.settings
        if clock is None:
            return
        if clock.kind == TURN:
            if not s.min_move_time_s <= clock.per_move_s <= s.max_move_time_s:
                raise RoomError(422, "bad_clock", f"a turn may last {s.min_move_time_s} to {s.max_move_time_s} seconds")
        elif (
            not s.min_game_time_s <= clock.base_s <= s.max_game_time_s
            or not 0 <= clock.increment_s <= s.max_increment_s
        ):
            raise RoomError(
                422,
                "bad_clock",
                f"a real-time game has {s.min_game_time_s} to {s.max_game_time_s} seconds per seat"
                f" and an increment of 0 to {s.max_increment_s}",
            )

    def _check_creator(self, lg: LobbyGame, token: str, client: str) -> None:
        wait = self.rooms.token_failure_wait(client)
        if wait is not None:
            raise RoomError(429, "too_many_failures", "too many wrong tokens from this address", retry_after=wait)
        if not secrets.compare_digest(hash_token(token), lg.creator_hash):
            self.rooms.count_token_failure(client)
            raise RoomError(403, "not_creator", "only the game's creator can do this")

    # ----- tables: the hooks from the rooms ------------------------------------------

    async def loaded(self, room: Room) -> None:
        """A match was read from the store: its table (if it has one) comes with it."""
        engine = self.rooms.store.engine
        row = await self.rooms.run_db(db.load_table, engine, room.id)
        if row is None:
            return
        clock = MatchClock.from_json(row.clock) if row.clock else None
        table = MatchTable(room.id, row.public, row.settings, clock, list(row.seat_status), row.ended, row.rematch)
        room.ended = row.ended
        if clock is not None and clock.ply != len(room.moves):
            last_ms = await self.rooms.run_db(db.last_action_ms, engine, room.id)
            catch_up(clock, self._clock_seat(room, table), len(room.moves), last_ms)
            self._save(table)
        table.turn_seat = self._seat_to_move(room)
        table.turn_started_ms = clock.turn_started_ms if clock else self.now_ms()
        self.tables[room.id] = table

    def changed(self, room: Room) -> None:
        table = self.tables.get(room.id)
        if table is None:
            return
        now_ms = self.now_ms()
        if table.clock is not None:
            table.clock.switch(self._clock_seat(room, table), len(room.moves), now_ms)
            self._save(table)
        self._note_turn(room, table, now_ms)
        self._send_table(room, table)

    def joined(self, room: Room, send: Subscriber) -> None:
        if room.id in self.tables:
            self._spawn(self._greet(room, send))

    def hello(self, room: Room, seat: int, send: Subscriber) -> None:
        table = self.tables.get(room.id)
        if table is None:
            return
        table.present.setdefault(seat, set()).add(send)
        table.gone_since_ms.pop(seat, None)
        self._send_table(room, table)

    def left(self, room: Room, send: Subscriber) -> None:
        table = self.tables.get(room.id)
        if table is None:
            return
        for seat, sends in table.present.items():
            if send in sends:
                sends.discard(send)
                if not sends:
                    table.gone_since_ms[seat] = self.now_ms()
                    self._send_table(room, table)
        if not room.subscribers and room.state.is_terminal():
            # The rooms forget a finished match nobody watches; its table goes with it
            # (both come back from the store on the next visit).
            self.tables.pop(room.id, None)

    async def _greet(self, room: Room, send: Subscriber) -> None:
        table = self.tables[room.id]
        await self.chat.load(table)
        with contextlib.suppress(Exception):
            send(self._table_text(room, table))
            send(json.dumps({"type": "chat", "match": room.id, "messages": [m.to_json() for m in table.chat or ()]}))

    # ----- tables: state -------------------------------------------------------------

    @staticmethod
    def _seat_to_move(room: Room) -> int | None:
        if room.ended is not None or room.state.is_terminal():
            return None
        seat = room.state.current_player
        return None if seat == TERMINAL else seat

    def _clock_seat(self, room: Room, table: MatchTable) -> int | None:
        """The seat whose clock runs: the one to move, if a person plays it."""
        seat = self._seat_to_move(room)
        return seat if seat is not None and table.seat_status[seat] == PLAYING else None

    def _note_turn(self, room: Room, table: MatchTable, now_ms: int) -> None:
        seat = self._seat_to_move(room)
        if seat != table.turn_seat:
            table.turn_seat = seat
            table.turn_started_ms = now_ms

    async def table(self, match_id: str) -> tuple[Room, MatchTable]:
        """The room and table of a lobby match.

        Raises:
            RoomError: 404 no such match, or one not started from the lobby.
        """
        room = await self.rooms.get(match_id)
        table = self.tables.get(match_id)
        if table is None:
            raise RoomError(404, "no_table", "this match was not started from the lobby")
        return room, table

    def table_view(self, room: Room, table: MatchTable) -> dict[str, Any]:
        """Clocks, seats, end and rematch as clients see them (``{"type": "table"}``)."""
        now_ms = self.now_ms()
        return {
            "type": "table",
            "match": room.id,
            "clock": table.clock.snapshot(now_ms) if table.clock else None,
            "server_now_ms": now_ms,
            "seats": [
                {"seat": i, "status": status, "present": bool(table.present.get(i))}
                for i, status in enumerate(table.seat_status)
            ],
            "to_move": self._seat_to_move(room),
            "ended": table.ended,
            "rematch": table.rematch,
            "abortable": room.ended is None
            and not room.state.is_terminal()
            and len(room.moves) < self.settings.abort_before_actions,
            "takeover": table.settings["takeover"],
            "grace_s": table.settings["grace_s"],
            "rated": table.settings["rated"] and (table.ended or {}).get("reason") != "aborted",
            "public": table.public,
        }

    def _table_text(self, room: Room, table: MatchTable) -> str:
        return json.dumps(self.table_view(room, table), separators=(",", ":"))

    def _send_table(self, room: Room, table: MatchTable) -> None:
        if room.subscribers:
            self.send_all(room, self._table_text(room, table))

    @staticmethod
    def send_all(room: Room, text: str) -> None:
        for send in list(room.subscribers):
            try:
                send(text)
            except Exception:  # a stalled socket must not keep the others from hearing
                room.subscribers.discard(send)

    def _save(self, table: MatchTable) -> None:
        values = table.row_values()  # taken now: later changes are saved by their own write
        self._spawn(self.rooms.run_db(db.save_table, self.rooms.store.engine, table.match_id, **values))

    # ----- clocks and takeover ---------------------------------------------------------

    async def check_clocks(self) -> int:
        """Hands every timed-out or dropped seat to its bot; returns how many.

        Timed out: the running clock is at zero.  Dropped (real-time and unclocked games
        only; a turn-based player is expected to come and go): the seat to move said
        hello on a websocket, has none open, and has been gone for the grace period
        during its turn.
        """
        now_ms = self.now_ms()
        taken = 0
        for match_id, table in list(self.tables.items()):
            room = self.rooms.loaded(match_id)
            if room is None or room.ended is not None or room.state.is_terminal():
                continue
            seat = self._seat_to_move(room)
            if seat is None or table.seat_status[seat] != PLAYING:
                continue
            reason = None
            if table.clock is not None and table.clock.is_out(now_ms):
                reason = TIMEOUT
            elif (table.clock is None or table.clock.settings.kind == REALTIME) and seat in table.gone_since_ms:
                gone_from = max(table.gone_since_ms[seat], table.turn_started_ms)
                if now_ms - gone_from >= 1000 * int(table.settings["grace_s"]):
                    reason = DROPPED
            if reason is not None and await self._take_over(room, table, seat, reason):
                taken += 1
        return taken

    async def _take_over(self, room: Room, table: MatchTable, seat: int, reason: str) -> bool:
        async with room.lock:
            if table.seat_status[seat] != PLAYING or room.ended is not None:
                return False
            agent = table.settings["takeover"]
            await self.rooms.run_db(db.set_seat_agent, self.rooms.store.engine, room.id, seat, agent)
            self.rooms.set_agent(room, seat, agent)
            table.seat_status[seat] = reason
            now_ms = self.now_ms()
            if table.clock is not None:
                if reason == TIMEOUT:
                    table.clock.timed_out.add(seat)
                table.clock.switch(self._clock_seat(room, table), len(room.moves), now_ms)
            self._save(table)
        log.info("seat %d of match %s %s: %s plays it", seat, room.id, reason, agent)
        self.rooms.refresh(room)
        self._send_table(room, table)
        return True

    async def reclaim(self, match_id: str, token: str, client: str) -> tuple[Room, MatchTable, int]:
        """The person of a taken-over seat plays it again.

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 the seat was not taken
                over (or it resigned, or the match is over).
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client)
        async with room.lock:
            if room.ended is not None or room.state.is_terminal():
                raise RoomError(409, "game_over", "the game is over")
            if table.seat_status[seat] not in TAKEN_OVER:
                raise RoomError(409, "not_taken_over", f"seat {seat} is {table.seat_status[seat]}, not taken over")
            await self.rooms.run_db(db.set_seat_agent, self.rooms.store.engine, room.id, seat, HUMAN)
            self.rooms.set_agent(room, seat, HUMAN)
            table.seat_status[seat] = PLAYING
            table.gone_since_ms.pop(seat, None)
            now_ms = self.now_ms()
            if table.clock is not None:
                clock = table.clock
                clock.switch(self._clock_seat(room, table), len(room.moves), now_ms)
                if clock.settings.kind == REALTIME:
                    minimum = max(RECLAIM_MIN_MS, clock.settings.initial_ms() // RECLAIM_SHARE)
                    clock.refill(seat, minimum, now_ms)
                else:
                    clock.timed_out.discard(seat)
            self._note_turn(room, table, now_ms)
            self._save(table)
        self.rooms.refresh(room)
        self._send_table(room, table)
        return room, table, seat

    # ----- resign, abort, rematch -------------------------------------------------------

    async def resign(self, match_id: str, token: str, client: str) -> tuple[Room, MatchTable]:
        """The token's person gives up.

        With two players the match ends and the other seat wins.  With more, the match
        goes on: the resigned seat is played by the takeover bot to the end and its
        person ranks last (docs/server.md, "Resign").

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 over or already resigned.
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client)
        async with room.lock:
            if room.ended is not None or room.state.is_terminal():
                raise RoomError(409, "game_over", "the game is over")
            if table.seat_status[seat] == RESIGNED:
                raise RoomError(409, "resigned", "this seat has resigned already")
            now_ms = self.now_ms()
            if len(room.seats) == 2:
                self._end(room, table, {"reason": "resigned", "seat": seat, "winners": [1 - seat], "at": iso_now()})
            else:
                agent = table.settings["takeover"]
                await self.rooms.run_db(db.set_seat_agent, self.rooms.store.engine, room.id, seat, agent)
                self.rooms.set_agent(room, seat, agent)
                table.seat_status[seat] = RESIGNED
                if table.clock is not None:
                    table.clock.switch(self._clock_seat(room, table), len(room.moves), now_ms)
            self._save(table)
        self.rooms.refresh(room)
        self._send_table(room, table)
        return room, table

    async def abort(self, match_id: str, token: str, client: str) -> tuple[Room, MatchTable]:
        """Calls the match off before ``abort_before_actions`` actions: it ends unrated.

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 too late or over.
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client)
        async with room.lock:
            if room.ended is not None or room.state.is_terminal():
                raise RoomError(409, "game_over", "the game is over")
            if len(room.moves) >= self.settings.abort_before_actions:
                raise RoomError(
                    409, "too_late", f"a game can be aborted only before {self.settings.abort_before_actions} actions"
                )
            self._end(room, table, {"reason": "aborted", "seat": seat, "winners": [], "at": iso_now()})
            self._save(table)
        self.rooms.refresh(room)
        self._send_table(room, table)
        return room, table

    def forfeited_seats(self, match_id: str) -> set[int]:
        """The seats whose person timed out, dropped or resigned and did not come back.

        For ratings: they rank last, whatever the bot that played them scored
        (docs/server.md, "Takeover and ratings").
        """
        table = self.tables.get(match_id)
        if table is None:
            return set()
        return {i for i, status in enumerate(table.seat_status) if status in (*TAKEN_OVER, RESIGNED)}

    def _end(self, room: Room, table: MatchTable, ended: dict[str, Any]) -> None:
        room.ended = table.ended = ended
        if table.clock is not None:
            table.clock.switch(None, len(room.moves), self.now_ms())
        if room.bot_task is not None:
            room.bot_task.cancel()

    async def rematch(self, match_id: str, token: str, client: str) -> tuple[LobbyGame, int, str]:
        """A new lobby game with the same settings, seats rotated by one; returns the
        token's person's new seat and token.

        The first player to ask creates it (and may start it with bots); each other
        person's seat is kept for them until they ask too, with their old token.

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 not over yet.
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client)
        old_hash = room.seats[seat].token_hash
        n = len(room.seats)
        if room.ended is None and not room.state.is_terminal():
            raise RoomError(409, "not_over", "a rematch can be asked for once the game is over")
        async with room.lock:
            if table.rematch is None:
                settings = table.settings
                clock = table.clock.settings if table.clock else None
                config = dict(room.config_json, seed=secrets.randbelow(2**31))
                new_seats: list[LobbySeat] = [LobbySeat("open", "")] * n
                for old in room.seats:
                    target = (old.seat + 1) % n
                    if old.token_hash is None:
                        new_seats[target] = LobbySeat("bot", old.name, old.agent)
                    else:
                        new_seats[target] = LobbySeat("reserved", old.name, HUMAN, None, old.token_hash)
                lg = LobbyGame(
                    secrets.token_urlsafe(9),
                    room.game.id,
                    table.public,
                    iso_now(),
                    config,
                    new_seats,
                    clock,
                    settings["takeover"],
                    int(settings["grace_s"]),
                    bool(settings["rated"]),
                    "",
                    rematch_of=room.id,
                )
                await self.rooms.run_db(
                    db.insert_lobby_game, self.rooms.store.engine, lg.id, lg.game, lg.setup_json(), lg.public
                )
                self.games[lg.id] = lg
                table.rematch = lg.id
                self._save(table)
                self._send_table(room, table)
        lg_or_none = self.games.get(table.rematch) or self._started.get(table.rematch)
        if lg_or_none is None:
            raise RoomError(409, "rematch_gone", "the rematch is no longer open")
        lg = lg_or_none
        async with lg.lock:
            new_seat = next((i for i, s in enumerate(lg.seats) if s.reserved_for == old_hash), None)
            if new_seat is None or lg.status != db.OPEN:
                raise RoomError(409, "rematch_taken", "your seat in the rematch is taken already")
            new_token = secrets.token_urlsafe(18)
            kept = lg.seats[new_seat]
            lg.seats[new_seat] = LobbySeat("taken", kept.name, HUMAN, hash_token(new_token))
            if not lg.creator_hash:
                lg.creator_hash = hash_token(new_token)
            await self._save_game(lg)
            if not lg.is_waiting():
                await self._start(lg)
        return lg, new_seat, new_token
