"""The table of each match started from the lobby: what the rules do not hold.

The clock (:mod:`tabletop.server.clocks`), who plays each seat now (a person, a bot from
the start, a bot that took over a dropped or timed-out seat, a resigned seat), the end by
resignation or abort, the rematch's id and the chat.  :class:`Tables` is built on the
rooms and hears them as a :class:`~tabletop.server.rooms.RoomHooks` listener
(``create_app`` hands it to them), runs its database work on the rooms' database thread
(after the action it follows) and keeps the clocks: every ``clock_poll_s`` it hands
timed-out and dropped seats to their bot (the leader only, among several processes:
``server/leader.py``).  Time comes from ``Settings.clock`` (tests pass a fake and call
:meth:`Tables.check_clocks`).
docs/server.md, "Lobby, clocks and takeover", has the rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable, Collection, Coroutine
from dataclasses import dataclass, field
from typing import Any

from tabletop.core.protocol import TERMINAL
from tabletop.server import accounts
from tabletop.server import lobby_store as db
from tabletop.server.chat import Chat, ChatMessage
from tabletop.server.clocks import REALTIME, ClockSettings, MatchClock, replay_switches, to_ms
from tabletop.server.config import Settings
from tabletop.server.rooms import HUMAN, Room, RoomError, RoomHooks, RoomManager, Subscriber
from tabletop.server.store import MatchRow, StaleVersionError
from tabletop.server.store import now as iso_now

log = logging.getLogger("tabletop.server")

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
    """This process's sockets of each seat (said hello with its token)."""
    present_elsewhere: dict[int, set[int]] = field(default_factory=dict)
    """The other processes (their presence origins) that said a seat is on a socket there
    (the bus), per seat."""
    gone_since_ms: dict[int, int] = field(default_factory=dict)
    chat: deque[ChatMessage] | None = None
    """The last messages, once loaded (:mod:`tabletop.server.chat`)."""
    chat_next: int = 0

    def row_values(self) -> dict[str, Any]:
        """The columns :meth:`lobby_store.TableStore.update_table` writes."""
        return {
            "clock": self.clock.to_json() if self.clock else None,
            "seat_status": list(self.seat_status),
            "ended": self.ended,
            "rematch": self.rematch,
        }


PRESENCE_ORIGIN_BITS = 30
PRESENCE_SEAT_BITS = 7


def presence_code(origin: int, seat: int, here: bool) -> int:
    """A presence notice's number: the sending process, the seat, and here or gone."""
    return (origin << (PRESENCE_SEAT_BITS + 1)) | (seat << 1) | int(here)


def read_presence_code(code: int) -> tuple[int, int, bool]:
    """:func:`presence_code`'s ``(origin, seat, here)``."""
    return code >> (PRESENCE_SEAT_BITS + 1), (code >> 1) & ((1 << PRESENCE_SEAT_BITS) - 1), bool(code & 1)


class Tables(RoomHooks):
    """The tables of the started lobby matches and the clock keeper."""

    def __init__(
        self,
        rooms: RoomManager,
        settings: Settings,
        store: db.TableStore,
        presence: db.PresenceStore,
        chat_store: db.ChatStore,
    ) -> None:
        self.rooms = rooms
        self.settings = settings
        self.store = store
        self.presence = presence
        self.now: Callable[[], float] = settings.clock
        self.tables: dict[str, MatchTable] = {}
        self.chat = Chat(self, chat_store)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._keeper: asyncio.Task[None] | None = None
        self._origin = secrets.randbits(PRESENCE_ORIGIN_BITS)
        """This process, in the presence notices it sends (it ignores its own)."""
        self._switched: set[str] = set()
        """Tables whose clock switched since the last :meth:`flush_clocks`."""

    async def start(self, *, keep_clocks: bool = True) -> None:
        """Loads the tables of the unfinished matches (a process alone on its database;
        among several, the leader does, :meth:`load_live_tables`), then starts the clock keeper."""
        if self.rooms.leadership.alone:
            await self.load_live_tables()
            await self.check_clocks()
        if keep_clocks:
            self._keeper = asyncio.get_running_loop().create_task(self._keep_clocks())

    async def load_live_tables(self) -> int:
        """Loads every unfinished lobby match not in memory yet (their clocks are kept
        here); returns how many were loaded."""
        loaded = 0
        for match_id in await self.rooms.run_db(self.store.list_live_tables):
            if match_id in self.tables:
                continue
            with contextlib.suppress(RoomError):
                await self.rooms.get(match_id)  # the tables hear it loaded and bring its table
                loaded += 1
        return loaded

    # ----- life cycle ------------------------------------------------------------

    def now_ms(self) -> int:
        """The lobby's time in epoch milliseconds."""
        return to_ms(self.now())

    async def close(self) -> None:
        """Stops the clock keeper and waits for pending writes."""
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        await self.settle()

    async def settle(self) -> None:
        """Stores the switched clocks and waits until every write the lobby started is done
        (tests, shutdown)."""
        await self.flush_clocks()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def flush_clocks(self) -> None:
        """Stores every clock that switched since the last call, in one transaction.

        Clock switches are written in batches, every ``clock_poll_s``, rather than one
        transaction per turn: a server killed between two batches restarts with the
        clocks of the batch before, and :func:`~tabletop.server.clocks.replay_switches`
        makes the missed switches at the stored times of the actions, so no seat is
        charged another's time.  A clock older than the stored one is not written
        (:meth:`~tabletop.server.lobby_store.TableStore.update_clocks`).
        """
        if not self._switched:
            return
        clocks = [
            (match_id, table.clock.to_json())
            for match_id in self._switched
            if (table := self.tables.get(match_id)) is not None and table.clock is not None
        ]
        self._switched.clear()
        await self.rooms.run_db(self.store.update_clocks, clocks)

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
                if self.rooms.leadership.leading:  # a seat is handed to its bot once
                    await self.check_clocks()
                await self.flush_clocks()
            except Exception:
                log.exception("the clock keeper failed; trying again")

    async def open_table(self, room: Room, table: MatchTable, clock: ClockSettings | None) -> None:
        """Starts the table of a match the lobby has just created: its clock, its stored
        row, and its place here."""
        now_ms = self.now_ms()
        if clock is not None:
            table.clock = MatchClock.start(clock, len(table.seat_status), self._clock_seat(room, table), now_ms)
        self._note_turn(room, table, now_ms)
        row = db.TableRow(room.id, table.public, table.settings, None, table.seat_status, None, None)
        row = dataclasses.replace(row, clock=table.clock.to_json() if table.clock else None)
        await self.rooms.run_db(self.store.add_table, row)
        self.tables[room.id] = table
        # A bot in the first seat may have moved while the table was being stored: bring
        # the clock up to the position (nothing changes if it did not).
        self.changed(room)

    # ----- tables: what the rooms tell their listeners ------------------------------

    async def loaded(self, room: Room, match: MatchRow) -> None:
        """A match was read from the store: its table (if it has one) comes with it."""
        row = await self.rooms.run_db(self.store.get_table, room.id)
        if row is None:
            return
        clock = MatchClock.from_json(row.clock) if row.clock else None
        table = MatchTable(room.id, row.public, row.settings, clock, list(row.seat_status), row.ended, row.rematch)
        room.ended = row.ended
        if clock is not None and self._bring_up(room, table, clock, match):
            self._switched.add(room.id)
        table.turn_seat = self._seat_to_move(room)
        table.turn_started_ms = clock.turn_started_ms if clock else self.now_ms()
        if not self.rooms.leadership.alone:
            self._take_presence(table, await self.rooms.run_db(self.presence.list_presence, room.id))
        self.tables[room.id] = table

    def _take_presence(self, table: MatchTable, rows: list[tuple[int, int, int]]) -> None:
        """Which other processes hold each seat on a socket, and since when a seat nobody
        holds is gone, as the database says (``seat_presence``): a process that starts
        to lead hears of no socket opened before, the dead leader's included."""
        gone: dict[int, int] = {}
        for seat, process, since_ms in rows:
            if not 0 <= seat < len(table.seat_status) or process == self._origin:
                continue
            if process == db.NOBODY:
                gone[seat] = since_ms
            else:
                table.present_elsewhere.setdefault(seat, set()).add(process)
        for seat, since_ms in gone.items():
            if not table.present_elsewhere.get(seat) and not table.present.get(seat):
                table.gone_since_ms.setdefault(seat, since_ms)

    async def refreshed(self, room: Room, match: MatchRow) -> None:
        """Another process moved the match on: the stored table is the authority for the
        seats, the end and the rematch; of the stored clock and this process's, the later
        one is brought up to the actions (at their stored times)."""
        table = self.tables.get(room.id)
        if table is None:
            return
        row = await self.rooms.run_db(self.store.get_table, room.id)
        if row is None:
            return
        if table.clock is not None and table.clock.ply < match.first_ply:
            # The cache read only the newest actions; the clock needs the times of older ones.
            whole = await self.rooms.run_db(self.rooms.store.get_match, room.id)
            if whole is None:
                return
            match = whole
        table.seat_status, table.ended, table.rematch = list(row.seat_status), row.ended, row.rematch
        room.ended = row.ended
        stored = MatchClock.from_json(row.clock) if row.clock else None
        if stored is not None and (table.clock is None or stored.version > table.clock.version):
            table.clock = stored
        if table.clock is not None:
            self._bring_up(room, table, table.clock, match)
        self._note_turn(room, table, self.now_ms())
        self.send_table(room, table)

    def _bring_up(self, room: Room, table: MatchTable, clock: MatchClock, match: MatchRow) -> bool:
        """Makes ``clock``'s missed switches; returns whether it changed."""
        if clock.ply == len(room.moves) and clock.version == room.version:
            return False
        replay_switches(
            clock,
            room.actors,
            match.action_ms,
            match.first_ply,
            self._seat_to_move(room),
            lambda seat: self._runs_for(table.seat_status, seat),
        )
        clock.version = room.version
        return True

    def changed(self, room: Room) -> None:
        table = self.tables.get(room.id)
        if table is None:
            return
        now_ms = self.now_ms()
        if table.clock is not None:
            running = table.clock.running
            table.clock.switch(self._clock_seat(room, table), len(room.moves), now_ms)
            table.clock.version = room.version
            # Stored when the clock switches (in batches: flush_clocks); an action within
            # a turn changes only the action count, which a restart recovers from the
            # moves (clocks.catch_up).
            if table.clock.running != running:
                self._switched.add(room.id)
        self._note_turn(room, table, now_ms)
        self.send_table(room, table)

    def holds(self, room: Room) -> bool:
        # The clock keeper reads the rooms of unfinished tables: they stay in memory.
        return room.id in self.tables and self._seat_to_move(room) is not None

    def needs_stored_row(self, room: Room) -> bool:
        # A table's clock is charged at each action's stored time (refreshed, _bring_up).
        return room.id in self.tables

    def joined(self, room: Room, send: Subscriber) -> None:
        if room.id in self.tables:
            self._spawn(self._greet(room, send))

    def hello(self, room: Room, seat: int, send: Subscriber) -> None:
        table = self.tables.get(room.id)
        if table is None:
            return
        table.present.setdefault(seat, set()).add(send)
        table.gone_since_ms.pop(seat, None)
        self._announce_presence(room.id, seat, here=True)
        self.send_table(room, table)

    def left(self, room: Room, send: Subscriber) -> None:
        table = self.tables.get(room.id)
        if table is None:
            return
        for seat, sends in table.present.items():
            if send in sends:
                sends.discard(send)
                if not sends:
                    table.gone_since_ms[seat] = self.now_ms()
                    self._announce_presence(room.id, seat, here=False)
                    self.send_table(room, table)
        if not room.subscribers and room.state.is_terminal():
            # The rooms forget a finished match nobody watches; its table goes with it
            # (both come back from the store on the next visit).
            self.tables.pop(room.id, None)

    def _announce_presence(self, match_id: str, seat: int, *, here: bool) -> None:
        """Stores that this process holds a socket of the seat, or no more, and tells the
        others (the leader among them) on the bus."""
        if not self.rooms.leadership.alone:
            code = presence_code(self._origin, seat, here)
            change = self.presence.add_presence if here else self.presence.delete_presence
            self._spawn(self.rooms.run_db(change, match_id, seat, self._origin, self.now_ms(), code))

    def heard_presence(self, match_id: str, code: int) -> None:
        """The bus: a seat's person said hello on a socket somewhere, or one process's last
        socket of the seat closed.

        The leader hands a dropped seat to its bot, so it must hear of sockets on every
        process.  A process that still holds a socket of a seat said to be gone answers
        that it is here, so a person with a page open on another process is never taken
        for gone.  A process that dies says nothing: the leader's sweep finds it gone from
        the database's sessions (:meth:`forget_dead_processes`).
        """
        table = self.tables.get(match_id)
        origin, seat, here = read_presence_code(code)
        if origin == self._origin or table is None or not 0 <= seat < len(table.seat_status):
            return  # this process's own word (heard late, it would undo what happened since)
        elsewhere = table.present_elsewhere.setdefault(seat, set())
        if here:
            elsewhere.add(origin)
            table.gone_since_ms.pop(seat, None)
        else:
            elsewhere.discard(origin)
            if table.present.get(seat):
                self._announce_presence(match_id, seat, here=True)
            elif not elsewhere:
                table.gone_since_ms.setdefault(seat, self.now_ms())
        room = self.rooms.loaded(match_id)
        if room is not None:
            self.send_table(room, table)

    @property
    def process_name(self) -> str:
        """This process as its database sessions name it (``application_name``): the
        leader tells the presence of dead processes by it
        (:meth:`lobby_store.PresenceStore.delete_dead_processes`)."""
        return f"{db.PROCESS_PREFIX}{self._origin}"

    def forget_dead_processes(self, dropped: Collection[tuple[str, int, int]]) -> int:
        """The leader's sweep: the presence of processes without a database session was
        deleted (``dropped``: ``(match_id, seat, process)``,
        :meth:`lobby_store.PresenceStore.delete_dead_processes`); each seat that only they
        held is gone from now, and handed to its bot after the grace period as if its
        socket had closed.  Returns how many seats that made gone."""
        now_ms = self.now_ms()
        gone = 0
        for match_id, seat, process in dropped:
            table = self.tables.get(match_id)
            if table is None or not 0 <= seat < len(table.seat_status):
                continue
            holders = table.present_elsewhere.setdefault(seat, set())
            holders.discard(process)
            if not holders and not table.present.get(seat) and seat not in table.gone_since_ms:
                table.gone_since_ms[seat] = now_ms
                gone += 1
        return gone

    def reconnected(self) -> None:
        """The bus (re)connected: this process's seats on sockets are announced again
        (announcements made while it was away were lost, and the leader may have taken this
        process for dead while its sessions were gone)."""
        for match_id, table in self.tables.items():
            for seat, sends in table.present.items():
                if sends:
                    self._announce_presence(match_id, seat, here=True)

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
        return self._runs_for(table.seat_status, self._seat_to_move(room))

    @staticmethod
    def _runs_for(seat_status: list[str], seat: int | None) -> int | None:
        """The seat whose clock runs while ``seat`` is to move: itself, if a person plays it."""
        return seat if seat is not None and seat_status[seat] == PLAYING else None

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
                {"seat": i, "status": status, "present": bool(table.present.get(i) or table.present_elsewhere.get(i))}
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
            "rated": room.rated and table.settings["rated"] and (table.ended or {}).get("reason") != "aborted",
            "public": table.public,
        }

    def _table_text(self, room: Room, table: MatchTable) -> str:
        return json.dumps(self.table_view(room, table), separators=(",", ":"))

    def send_table(self, room: Room, table: MatchTable) -> None:
        if room.subscribers:
            self.send_all(room, self._table_text(room, table))

    @staticmethod
    def send_all(room: Room, text: str) -> None:
        for send in list(room.subscribers):
            try:
                send(text)
            except Exception:  # a stalled socket must not keep the others from hearing
                room.forget(send)

    def _save(self, table: MatchTable) -> None:
        values = table.row_values()  # taken now: later changes are saved by their own write
        self._spawn(self.rooms.run_db(self.store.update_table, table.match_id, **values))

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
            # The database is the authority: another process may have taken the seat's
            # move (or the seat) since this cache last heard.
            await self.rooms.refresh_from_store(room)
            if table.seat_status[seat] != PLAYING or room.ended is not None or self._seat_to_move(room) != seat:
                return False
            now_ms = self.now_ms()
            if reason == TIMEOUT and (table.clock is None or not table.clock.is_out(now_ms)):
                return False
            agent = table.settings["takeover"]
            draft = self._draft(table)
            draft.seat_status[seat] = reason
            if draft.clock is not None:
                if reason == TIMEOUT:
                    draft.clock.timed_out.add(seat)
                draft.clock.switch(self._clock_seat(room, draft), len(room.moves), now_ms)
            if not await self._commit(room, table, draft, (seat, agent)):
                return False
        log.info("seat %d of match %s %s: %s plays it", seat, room.id, reason, agent)
        self.rooms.refresh(room)
        self.send_table(room, table)
        return True

    async def reclaim(
        self, match_id: str, token: str, client: str, account_id: int | None = None
    ) -> tuple[Room, MatchTable, int]:
        """The person of a taken-over seat plays it again.

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 the seat was not taken
                over (or it resigned, or the match is over).
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client, account_id)
        async with room.lock:
            await self.rooms.refresh_from_store(room)
            if room.ended is not None or room.state.is_terminal():
                raise RoomError(409, "game_over", "the game is over")
            if table.seat_status[seat] not in TAKEN_OVER:
                raise RoomError(409, "not_taken_over", f"seat {seat} is {table.seat_status[seat]}, not taken over")
            draft = self._draft(table)
            draft.seat_status[seat] = PLAYING
            now_ms = self.now_ms()
            if draft.clock is not None:
                clock = draft.clock
                clock.switch(self._clock_seat(room, draft), len(room.moves), now_ms)
                if clock.settings.kind == REALTIME:
                    minimum = max(RECLAIM_MIN_MS, clock.settings.initial_ms() // RECLAIM_SHARE)
                    clock.refill(seat, minimum, now_ms)
                else:
                    clock.timed_out.discard(seat)
            if not await self._commit(room, table, draft, (seat, HUMAN)):
                raise RoomError(409, "stale_version", "the match changed meanwhile; try again")
            table.gone_since_ms.pop(seat, None)
            self._note_turn(room, table, now_ms)
        self.rooms.refresh(room)
        self.send_table(room, table)
        return room, table, seat

    # ----- resign, abort, rematch -------------------------------------------------------

    async def resign(
        self, match_id: str, token: str, client: str, account_id: int | None = None
    ) -> tuple[Room, MatchTable]:
        """The token's person gives up.

        With two players the match ends and the other seat wins.  With more, the match
        goes on: the resigned seat is played by the takeover bot to the end and its
        person ranks last (docs/server.md, "Resign").

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 over or already resigned.
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client, account_id)
        async with room.lock:
            await self.rooms.refresh_from_store(room)
            if room.ended is not None or room.state.is_terminal():
                raise RoomError(409, "game_over", "the game is over")
            if table.seat_status[seat] == RESIGNED:
                raise RoomError(409, "resigned", "this seat has resigned already")
            now_ms = self.now_ms()
            ends = len(room.seats) == 2
            draft = self._draft(table)
            seat_agent = None
            if ends:
                draft.ended = {"reason": "resigned", "seat": seat, "winners": [1 - seat], "at": iso_now()}
                if draft.clock is not None:
                    draft.clock.switch(None, len(room.moves), now_ms)
            else:
                seat_agent = (seat, table.settings["takeover"])
                draft.seat_status[seat] = RESIGNED
                if draft.clock is not None:
                    draft.clock.switch(self._clock_seat(room, draft), len(room.moves), now_ms)
            # Stored before the rooms' listeners hear of the end: the ratings read it finished.
            if not await self._commit(room, table, draft, seat_agent):
                raise RoomError(409, "stale_version", "the match changed meanwhile; try again")
        if ends:
            await self.rooms.game_over(room)  # rates it (the resigned seat ranks last)
        self.rooms.refresh(room)
        self.send_table(room, table)
        return room, table

    async def abort(
        self, match_id: str, token: str, client: str, account_id: int | None = None
    ) -> tuple[Room, MatchTable]:
        """Calls the match off before ``abort_before_actions`` actions: it ends unrated.

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 too late or over.
        """
        room, table = await self.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client, account_id)
        async with room.lock:
            if room.ended is not None or room.state.is_terminal():
                raise RoomError(409, "game_over", "the game is over")
            if len(room.moves) >= self.settings.abort_before_actions:
                raise RoomError(
                    409, "too_late", f"a game can be aborted only before {self.settings.abort_before_actions} actions"
                )
            await accounts.unrate(self.rooms, room, locked=True)  # before it is stored as finished
            draft = self._draft(table)
            draft.ended = {"reason": "aborted", "seat": seat, "winners": [], "at": iso_now()}
            if draft.clock is not None:
                draft.clock.switch(None, len(room.moves), self.now_ms())
            if not await self._commit(room, table, draft, None):
                raise RoomError(409, "stale_version", "the match changed meanwhile; try again")
        self.rooms.refresh(room)
        self.send_table(room, table)
        return room, table

    async def forfeited_seats(self, match_id: str) -> set[int]:
        """The seats whose person timed out, dropped or resigned and did not come back.

        For ratings: they rank last, whatever the bot that played them scored
        (docs/server.md, "Takeover and ratings").  A table this process does not hold
        (the leader rating a match another process ended) is read from the database.
        """
        table = self.tables.get(match_id)
        if table is not None:
            seat_status, ended = table.seat_status, table.ended
        else:
            row = await self.rooms.run_db(self.store.get_table, match_id)
            if row is None:
                return set()
            seat_status, ended = row.seat_status, row.ended
        forfeited = {i for i, status in enumerate(seat_status) if status in (*TAKEN_OVER, RESIGNED)}
        if ended is not None and ended.get("reason") == "resigned":
            forfeited.add(int(ended["seat"]))  # a 2-player resign ends the match
        return forfeited

    @staticmethod
    def _draft(table: MatchTable) -> MatchTable:
        """A copy of ``table`` to change and then :meth:`_commit` (the original stays as
        stored until the commit succeeds)."""
        clock = MatchClock.from_json(table.clock.to_json()) if table.clock is not None else None
        return dataclasses.replace(table, seat_status=list(table.seat_status), clock=clock)

    async def _commit(
        self, room: Room, table: MatchTable, draft: MatchTable, seat_agent: tuple[int, str] | None
    ) -> bool:
        """Stores ``draft`` (and who plays ``seat_agent``'s seat now) as the match's next
        version and takes it into ``table`` and ``room``; the caller holds ``room.lock``.

        Returns ``False``, with the room and table reloaded, when another process changed
        the match first.
        """
        version = room.version + 1
        if draft.clock is not None:
            draft.clock.version = version
        try:
            await self.rooms.run_db(
                self.store.update_table_version,
                room.id,
                room.version,
                **draft.row_values(),
                seat_agent=seat_agent,
            )
        except StaleVersionError:
            await self.rooms.refresh_from_store(room)
            return False
        table.seat_status, table.clock, table.ended = draft.seat_status, draft.clock, draft.ended
        room.version = version
        if seat_agent is not None:
            self.rooms.set_agent(room, *seat_agent)
        if draft.ended is not None:
            room.ended = draft.ended
            if room.bot_task is not None:
                room.bot_task.cancel()
        return True
