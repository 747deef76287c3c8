"""Authoritative match logic: one :class:`Room` per live match, kept by :class:`RoomManager`.

The room is the only writer of its match.  Every action is checked against the engine
(token, turn, version, notation, legality), committed to the store, and only then
acknowledged and broadcast to every connected client.  Bot seats are played by the
:class:`~tabletop.server.bots.BotPool` through the same path as people.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import hashlib
import json
import logging
import secrets
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar, cast

from tabletop.ai.agent import make_agent
from tabletop.core.errors import (
    ConfigError,
    IllegalMoveError,
    InvalidMoveError,
    Message,
    TabletopError,
    reason_of,
    short_repr,
)
from tabletop.core.protocol import TERMINAL, Game, GameConfig, Move, State
from tabletop.core.record import GameRecord, PlayerInfo
from tabletop.core.registry import make
from tabletop.server.bots import BotPool, fallback_action
from tabletop.server.bus import FollowedMatches, Step
from tabletop.server.guard import MAX_DETAIL, SlidingWindow, clip
from tabletop.server.leader import Leadership, SoleProcess
from tabletop.server.replay import BOARD_HISTORY
from tabletop.server.store import AppendAction, MatchRow, MatchStore, RemoveAction, SeatRow, iso_at

log = logging.getLogger("tabletop.server")
T = TypeVar("T")

HUMAN = "human"
HISTORY = 16
"""Positions a room keeps in memory; a turn has at most a few actions (3 in Terra Nova)."""
SWEEP_S = 60.0
"""The longest time between two looks for idle rooms (:meth:`RoomManager.evict_idle`)."""
INLINE_REPLAY = 8
"""Actions from another process applied on the event loop (a few engine steps); more go to a thread."""


class RoomError(Exception):
    """A refused request, carrying its HTTP status and a machine-readable code.

    The detail is clipped (:data:`~tabletop.server.guard.MAX_DETAIL`), so an error never
    carries a client's oversized value back.  ``retry_after`` (seconds) is set on 429s.
    ``reason`` is the engine's coded reason for a refused move, sent as ``message``
    (``{"code", "params", "text"}``) so the client can say it in the player's language.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        retry_after: float | None = None,
        reason: Message | None = None,
    ) -> None:
        detail = clip(detail, MAX_DETAIL)
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after
        self.reason = reason

    def to_json(self) -> dict[str, Any]:
        """The error body sent to clients."""
        body: dict[str, Any] = {"error": self.code, "detail": self.detail}
        if self.reason is not None:
            body["message"] = self.reason.to_json()
        return body


@functools.lru_cache(maxsize=4096)
def hash_token(token: str) -> str:
    """Seat tokens are stored hashed, so a leaked database does not leak seats.

    Remembered for the tokens in play (every action sends one), a few thousand at most.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat of a match."""

    seat: int
    name: str
    agent: str
    token_hash: str | None
    account_id: int | None = None
    """The account the seat is bound to (``server/accounts.py``): only its session acts for it."""

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays this seat."""
        return self.agent != HUMAN


Subscriber = Callable[[str], None]
"""Receives each update as JSON text; it must not block (a websocket queues it)."""

Rateable = Callable[[str, Sequence[str], GameConfig], bool]
"""Whether a match of a game (its id, its seats' agents, its config) can be rated."""


def rate_any(game_id: str, agents: Sequence[str], config: GameConfig) -> bool:
    """The rooms' rule without the ratings: any match asked for rated is rated."""
    return True


class RoomHooks:
    """What a listener of the rooms hears: the tables (clocks, takeover, chat:
    :mod:`tabletop.server.tables`) and the ratings (:class:`~tabletop.server.ratings.Rater`).

    ``create_app`` hands the listeners to the rooms (:meth:`RoomManager.listen`).  The
    default does nothing, so rooms work alone; every method runs on the event loop and
    must not block.
    """

    async def loaded(self, room: Room, row: MatchRow) -> None:
        """A stored match (``row``) was rebuilt, before anyone can use it."""

    def changed(self, room: Room) -> None:
        """An action was committed (a person's or a bot's), or one was undone."""

    async def refreshed(self, room: Room, row: MatchRow) -> None:
        """The room caught up with its stored match (``row``), which another process moved
        on; the caller holds ``room.lock``."""

    def joined(self, room: Room, send: Subscriber) -> None:
        """A client connected and was sent the full view."""

    def hello(self, room: Room, seat: int, send: Subscriber) -> None:
        """A connected client proved (with its token) that it plays ``seat``."""

    def left(self, room: Room, send: Subscriber) -> None:
        """A client disconnected."""

    def holds(self, room: Room) -> bool:
        """Whether the room must stay in memory although nobody used it for a while."""
        return False

    def needs_stored_row(self, room: Room) -> bool:
        """Whether :meth:`refreshed` must see the stored match of every change another
        process made (a clock charges each action at its stored time), so an action a bus
        notice carries is not applied from the notice alone."""
        return False

    async def finished(self, room: Room) -> None:
        """The match has just ended and is stored as finished: awaited once (the ratings
        rate it here)."""


class RoomListeners(RoomHooks):
    """Every listener of the rooms, heard in the order they were handed in."""

    def __init__(self) -> None:
        self.members: tuple[RoomHooks, ...] = ()

    def add(self, listener: RoomHooks) -> None:
        self.members = (*self.members, listener)

    async def loaded(self, room: Room, row: MatchRow) -> None:
        for listener in self.members:
            await listener.loaded(room, row)

    def changed(self, room: Room) -> None:
        for listener in self.members:
            listener.changed(room)

    async def refreshed(self, room: Room, row: MatchRow) -> None:
        for listener in self.members:
            await listener.refreshed(room, row)

    def joined(self, room: Room, send: Subscriber) -> None:
        for listener in self.members:
            listener.joined(room, send)

    def hello(self, room: Room, seat: int, send: Subscriber) -> None:
        for listener in self.members:
            listener.hello(room, seat, send)

    def left(self, room: Room, send: Subscriber) -> None:
        for listener in self.members:
            listener.left(room, send)

    def holds(self, room: Room) -> bool:
        return any(listener.holds(room) for listener in self.members)

    def needs_stored_row(self, room: Room) -> bool:
        return any(listener.needs_stored_row(room) for listener in self.members)

    async def finished(self, room: Room) -> None:
        """Each listener's :meth:`RoomHooks.finished`; a failing one is logged, and the
        others still hear."""
        for listener in self.members:
            try:
                await listener.finished(room)
            except Exception:
                log.exception("a game-over listener failed for match %s", room.id)


@dataclass
class Room:
    """One live match: its states, log and connected clients."""

    id: str
    game: Game
    config_json: dict[str, Any]
    hotseat: bool
    seats: tuple[Seat, ...]
    version: int
    initial: State
    moves: list[Move] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    actors: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    """The turn index of each action (the state's ``turn`` before it)."""
    states: list[State] = field(default_factory=list)
    """The most recent positions, the current one last (enough to undo within a turn)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    board_subscribers: set[Subscriber] = field(default_factory=set)
    """The subscribers that show the board: their updates carry ``board_svg``."""
    bot_task: asyncio.Task[None] | None = None
    ended: dict[str, Any] | None = None
    """Set when the match ended outside the rules (resigned, aborted): no more actions."""
    _view_cache: tuple[int, dict[str, Any], str | None] | None = None
    _board_cache: tuple[int, str | None] | None = None
    _sent: tuple[int, dict[str, Any], int] | None = None
    _log: list[dict[str, Any]] = field(default_factory=list)
    rated: bool = False
    """Asked for rated and not made unrated since (``server/ratings.py``)."""
    used: float = 0.0
    """When the room was last asked for (:meth:`RoomManager.get`; monotonic seconds)."""

    def __post_init__(self) -> None:
        if not self.states:
            self.states.append(self.initial)

    @property
    def state(self) -> State:
        """The current position."""
        return self.states[-1]

    def push(self, state: State, move: Move, text: str, seat: int) -> None:
        """Records an applied action.

        Only the last :data:`HISTORY` positions are kept: undo never goes back further
        than the current turn, and a room holding every position of a long game would
        give the garbage collector a large heap to walk (long pauses under load).
        """
        self.turns.append(self.states[-1].turn)
        self.states.append(state)
        if len(self.states) > HISTORY:
            del self.states[: len(self.states) - HISTORY]
        self.moves.append(move)
        self.texts.append(text)
        self.actors.append(seat)

    def pop(self) -> None:
        """Takes back the last action (the caller checked :meth:`undoable_by`)."""
        self.states.pop()
        self.moves.pop()
        self.texts.pop()
        self.actors.pop()
        self.turns.pop()

    def seat_for_token(self, token: str) -> int:
        """The seat this secret token acts for.

        Raises:
            RoomError: 403 if it is nobody's token.
        """
        digest = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, digest):
                return s.seat
        raise RoomError(403, "bad_token", "this token does not belong to a seat of this match")

    def forget(self, send: Subscriber) -> None:
        """Stops sending updates to a client (gone, or too slow to keep)."""
        self.subscribers.discard(send)
        self.board_subscribers.discard(send)

    def undoable_by(self) -> int | None:
        """The seat that may undo the last action now, or ``None``.

        Only one's own action, only while the same turn of the same player goes on, so an
        undo never crosses players or turns.
        """
        if not self.moves or len(self.states) < 2:
            return None
        before, after = self.states[-2], self.states[-1]
        actor = self.actors[-1]
        if self.seats[actor].is_bot or after.is_terminal():
            return None
        if after.current_player != actor or after.turn != before.turn:
            return None
        return actor

    def log_entries(self) -> list[dict[str, Any]]:
        """The move log as sent to clients (built incrementally: rebuilding it per action is O(n²))."""
        log = self._log
        del log[len(self.moves) :]  # after an undo
        for i in range(len(log), len(self.moves)):
            log.append({"ply": i, "seat": self.actors[i], "action": self.texts[i], "turn": self.turns[i]})
        return log

    def view(self) -> dict[str, Any]:
        """What every client sees (neither game has hidden information), less ``board_svg``.

        The board drawing costs more CPU than the rest of an update (1.3-2.6 ms a version),
        so it is added only for a version someone will show: for a page's socket that asked
        for it (``?board=1``) or an HTTP view (:meth:`view_text`); see :meth:`with_board`.
        """
        state = self.state
        outcome = state.outcome()
        # Grouped by kind through the protocol's kind-first queries: lists of strings
        # encode about three times faster than one object per move.
        legal = {kind: legal_notation(state, kind) for kind in state.legal_kinds()}
        return {
            "type": "state",
            "full": True,
            "match": self.id,
            "game": self.game.id,
            "game_name": self.game.name,
            "config": self.config_json,
            "hotseat": self.hotseat,
            "version": self.version,
            "ply": len(self.moves),
            "turn": state.turn,
            "current_player": state.current_player if state.current_player != TERMINAL else None,
            "terminal": state.is_terminal(),
            "players": [{"seat": s.seat, "name": s.name, "agent": s.agent} for s in self.seats],
            "colors": list(self.game.seat_colors(len(self.seats))),
            "state": state.to_json(),
            "scores": list(state.scores()),
            "outcome": outcome.to_json() if outcome is not None else None,
            "legal": legal,
            "log": list(self.log_entries()),
            "undoable_by": self.undoable_by(),
            # The engine's own breakdown of the final scores (English), shown after the game.
            "score_text": self.game.describe_score(state) if outcome is not None else None,
            # The same as data: translated tables the page draws in the player's language.
            "score_sheet": self.game.score_sheet(state) if outcome is not None else None,
            "ended": self.ended,
        }

    def board_svg(self) -> str | None:
        """The game's drawing of the board (hook ``render_board``), the same as ``tabletop render``'s.

        The last :data:`BOARD_HISTORY` actions go with it, for the last turns' marks.
        """
        if self._board_cache is not None and self._board_cache[0] == self.version:
            return self._board_cache[1]
        render_board = getattr(self.game, "render_board", None)
        svg = None
        if render_board is not None:
            first = max(0, len(self.moves) - BOARD_HISTORY)
            history = list(zip(self.actors[first:], self.moves[first:], strict=True))
            svg = str(render_board(self.state, history=history, first_ply=first))
        self._board_cache = (self.version, svg)
        return svg

    def with_board(self, text: str) -> str:
        """A view or patch as JSON text (an object) with this version's ``board_svg`` added.

        Spliced into the text, so a view is encoded once whether or not the board goes with it.
        """
        return f'{text[:-1]},"board_svg":{json.dumps(self.board_svg())}}}'

    def view_text(self, board: bool = True) -> str:
        """:meth:`view` as JSON text, with ``board_svg`` if ``board``; cached per version.

        Every client gets the same bytes.
        """
        version, view, text = self._cached_view()
        if text is None:
            text = json.dumps(view, separators=(",", ":"))
            self._view_cache = (version, view, text)
        return self.with_board(text) if board else text

    def _cached_view(self) -> tuple[int, dict[str, Any], str | None]:
        """:meth:`view` of this version (built once: an update, the joins and the HTTP views
        of one version share it), with its JSON text once someone needed it.

        Whatever changes the view without a new version (a seat's player or name, the end
        of a resigned match) sets ``_view_cache`` to ``None``.
        """
        if self._view_cache is None or self._view_cache[0] != self.version:
            self._view_cache = (self.version, self.view(), None)
        return self._view_cache

    def join_text(self, board: bool = False) -> str:
        """The full view for a newly connected client; later updates patch this version."""
        if self._sent is None or self._sent[0] != self.version:
            view = self._cached_view()[1]
            self._sent = (self.version, view["state"], len(view["log"]))
        return self.view_text(board)

    def update_text(self) -> str:
        """The change since the last update as JSON text, for connected clients (no board:
        :meth:`with_board` adds it for the sockets that show one).

        Only the top-level keys of ``state`` that changed and only the new log entries are
        sent (the map, for one, never changes), with ``base`` naming the version the patch
        applies to; a client that holds another version reconnects for a full view.
        """
        view = self._cached_view()[1]
        sent = self._sent
        self._sent = (self.version, view["state"], len(view["log"]))
        if sent is None:
            return self.view_text(board=False)
        base_version, base_state, base_log = sent
        state = view["state"]
        log_from = min(base_log, len(view["log"]))
        patch = {
            **view,
            "full": False,
            "base": base_version,
            "state": {k: v for k, v in state.items() if k not in base_state or base_state[k] != v},
            "drop": [k for k in base_state if k not in state],
            "log_from": log_from,
            "log": view["log"][log_from:],
        }
        return json.dumps(patch, separators=(",", ":"))

    def record(self, moves: Sequence[Move] | None = None) -> GameRecord:
        """The match as a record in the standard JSON record format.

        Args:
            moves: the moves to record; the room's own by default.  A caller that builds
                the record in another thread passes a copy taken on the event loop.
        """
        players = [PlayerInfo(name=s.name, agent=s.agent) for s in self.seats]
        return GameRecord.from_states(self.initial, self.moves if moves is None else moves, players)


class RoomManager:
    """Loads, creates and runs rooms; the one place that talks to the store.

    It also keeps the per-client caps that concern matches: matches created per minute,
    wrong seat tokens per minute (both per client address) and live sockets per match
    and per address (``docs/server.md``, Limits).
    """

    def __init__(
        self,
        store: MatchStore,
        bots: BotPool,
        *,
        bot_delay_s: float = 0.0,
        matches_per_minute: int = 20,
        token_failures_per_minute: int = 20,
        max_sockets_per_match: int = 100,
        max_sockets_per_client: int = 32,
        engine: str = "python",
        leadership: Leadership | None = None,
        idle_s: float = 1800.0,
        rateable: Rateable | None = None,
        followed: FollowedMatches | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.followed = followed if followed is not None else FollowedMatches()
        """The matches held here, whose changes the bus brings (``server/bus.py``): every
        room in memory, added and discarded with it."""
        self.leadership = leadership or SoleProcess()
        """Whether this process does the work that must happen once (``server/leader.py``)."""
        self.idle_s = idle_s
        """A room nobody used for this long leaves memory (:meth:`evict_idle`)."""
        self.now = now
        self._swept = now()
        self.engine = engine
        """The engine the matches run on (``Settings.engine``)."""
        self.bots = bots
        self.bot_delay_s = bot_delay_s
        self._rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        # One database thread: the event loop never waits on a read, and SQLite sees one
        # writer at a time (on SQLite the loop itself commits actions and undos while that
        # thread is idle: :meth:`_write`).
        self._db = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="db")
        self._db_jobs = 0
        """Jobs given to the database thread and not finished yet (counted on both threads)."""
        self._jobs_lock = threading.Lock()
        self._waiting_writes: list[tuple[AppendAction | RemoveAction, asyncio.Future[bool]]] = []
        self._waiting_lock = threading.Lock()
        self._flush_queued = False
        self._closing = False
        self._catching_up: set[asyncio.Task[None]] = set()
        self._bot_tasks: set[asyncio.Task[None]] = set()
        """Every bot loop running, whether or not its room is still in memory."""
        self._creations = SlidingWindow(matches_per_minute)
        self._token_failures = SlidingWindow(token_failures_per_minute)
        self.max_sockets_per_match = max_sockets_per_match
        self.max_sockets_per_client = max_sockets_per_client
        self._sockets: dict[str, int] = {}
        self._socket_client: dict[Subscriber, str] = {}
        self.listeners = RoomListeners()
        """The listeners ``create_app`` handed in (:meth:`listen`); none: rooms work alone."""
        self.rateable: Rateable = rateable or rate_any
        """Whether a match of this game with these seats' agents can be rated (``create_app``
        passes the ratings' rule: a bot with no fixed rating in the family makes the match
        unrated at creation)."""

    def listen(self, listener: RoomHooks) -> None:
        """Adds a listener; ``create_app`` hands each in before any room is loaded (the
        listeners are built on the rooms, so they come after them)."""
        self.listeners.add(listener)

    async def game_over(self, room: Room) -> None:
        """Tells the listeners that a match has just ended; a failing one is logged."""
        await self.listeners.finished(room)

    def _submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Gives ``fn`` to the database thread, counting it until it has run (or was
        cancelled before it ran: its caller left)."""
        with self._jobs_lock:
            self._db_jobs += 1
        future = self._db.submit(fn)
        future.add_done_callback(self._job_done)
        return future

    def _job_done(self, _future: concurrent.futures.Future[Any]) -> None:
        with self._jobs_lock:
            self._db_jobs -= 1

    async def _run_db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(self._submit(partial(fn, *args)))

    async def _write(self, write: AppendAction | RemoveAction) -> bool:
        """Commits an action or an undo; ``False`` if the match is no longer at its version.

        On SQLite (:attr:`MatchStore.commits_on_loop`), while the database thread has nothing to
        do, the write is committed here, on the event loop: a commit to the WAL takes tens
        of microseconds, less than handing it to a thread and waking the loop again.
        Otherwise the writes wait in a list while the database thread is busy, and it
        commits all that wait in one transaction (:meth:`MatchStore.commit_writes`): under load
        one commit (and one wake-up of the event loop) serves many actions.  Either way a
        write is committed before its caller goes on, and before anything :meth:`run_db`
        is given later.
        """
        if self.store.commits_on_loop and not self._db_jobs and not self._flush_queued:
            answer = self.store.commit_writes([write])[0]
            if isinstance(answer, Exception):
                raise answer
            return answer
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        with self._waiting_lock:
            self._waiting_writes.append((write, future))
            first = not self._flush_queued
            self._flush_queued = True
        if first:
            # The executor runs its jobs in order, so a run_db queued after this write
            # runs after the flush that commits it.
            self._submit(partial(self._flush_writes, loop))
        return await future

    def _flush_writes(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the database thread: commits every waiting write, then answers them all at once."""
        with self._waiting_lock:
            batch, self._waiting_writes = self._waiting_writes, []
            self._flush_queued = False
        try:
            answers = self.store.commit_writes([write for write, _ in batch])
        except Exception as exc:
            answers = [exc] * len(batch)
        loop.call_soon_threadsafe(_settle, [future for _, future in batch], answers)

    async def run_db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Runs ``fn(*args, **kwargs)`` on the database thread, after every write queued before it."""
        return await self._run_db(partial(fn, *args, **kwargs))

    def loaded(self, match_id: str) -> Room | None:
        """The room if it is in memory (no loading)."""
        return self._rooms.get(match_id)

    def set_agent(self, room: Room, seat: int, agent: str) -> None:
        """Who plays ``seat`` from now on (the caller holds ``room.lock`` and stored it)."""
        seats = list(room.seats)
        seats[seat] = dataclasses.replace(seats[seat], agent=agent)
        room.seats = tuple(seats)
        room._view_cache = None  # the view names each seat's agent

    def refresh(self, room: Room) -> None:
        """Sends the view again after a change that kept the version (a seat's player, the
        end of a resigned match) and lets a bot move if one is to."""
        room._view_cache = None
        self.broadcast(room)
        self._schedule_bot(room)

    def token_failure_wait(self, client: str) -> float | None:
        """Seconds ``client`` must wait after too many wrong tokens, or ``None``."""
        return self._token_failures.retry_after(client)

    def count_token_failure(self, client: str) -> None:
        """Counts a wrong token from ``client`` (for tokens checked outside a room)."""
        self._token_failures.hit(client)

    async def close(self) -> None:
        """Stops bot tasks and the database thread."""
        self._closing = True
        tasks = [*self._catching_up, *self._bot_tasks]
        for task in tasks:
            task.cancel()
        # They end before the database thread does: a bot's move written after it stopped
        # would fail (and be logged as a task exception nobody retrieved).
        await asyncio.gather(*tasks, return_exceptions=True)
        self._db.shutdown(wait=True)

    # ----- creation and loading -------------------------------------------------

    async def create(
        self,
        game_id: str,
        config: GameConfig,
        seat_specs: Sequence[tuple[str, str]],
        *,
        hotseat: bool = False,
        client: str = "",
        match_id: str | None = None,
        token_hashes: Sequence[str | None] | None = None,
        rated: bool = False,
    ) -> tuple[Room, list[str | None]]:
        """Creates a match; returns its room and each seat's token (``None`` for bots).

        The lobby starts a match it has gathered with its own ``match_id`` and the hashes
        of the tokens it gave out (``token_hashes``: then no token is made or returned,
        and the per-address creation limit was counted when the lobby game was made).

        Raises:
            RoomError: 404 for an unknown game, 422 for a bad configuration or agent,
                429 when ``client`` created too many matches in the last minute.
        """
        wait = self._creations.retry_after(client) if token_hashes is None else None
        if wait is not None:
            raise RoomError(429, "too_many_matches", "too many matches created from this address", retry_after=wait)
        game = self._game(game_id)
        if config.seed is None:
            # The seed is fixed at creation so a restart replays the very same game.
            config = GameConfig(
                num_players=config.num_players,
                ruleset=config.ruleset,
                variants=config.variants,
                map=config.map,
                seed=secrets.randbelow(2**31),
                start_player=config.start_player,
            )
        for name, agent in seat_specs:
            if agent != HUMAN:
                try:
                    make_agent(agent, seed=0)
                except ConfigError as exc:
                    raise RoomError(422, "bad_agent", str(exc)) from None
            if not name.strip():
                raise RoomError(422, "bad_name", "every seat needs a name")
        try:
            # Off the event loop: a custom map builds its board tables here.
            canonical, initial = await asyncio.to_thread(_set_up, game, config)
        except ConfigError as exc:
            raise RoomError(422, "bad_config", str(exc)) from None
        tokens: list[str | None] = []
        seats: list[Seat] = []
        if token_hashes is None:
            self._creations.hit(client)
            for i, (name, agent) in enumerate(seat_specs):
                token = secrets.token_urlsafe(18) if agent == HUMAN else None
                tokens.append(token)
                seats.append(Seat(i, name.strip()[:80], agent, hash_token(token) if token else None))
        else:
            for i, ((name, agent), digest) in enumerate(zip(seat_specs, token_hashes, strict=True)):
                tokens.append(None)
                seats.append(Seat(i, name.strip()[:80], agent, digest))
        match_id = match_id or secrets.token_urlsafe(9)
        config_json = canonical.to_json()
        rated = rated and self.rateable(game.id, [agent for _, agent in seat_specs], canonical)
        await self._run_db(
            self.store.add_match,
            match_id,
            game.id,
            config_json,
            hotseat,
            [SeatRow(s.seat, s.name, s.agent, s.token_hash) for s in seats],
            rated,
        )
        room = Room(match_id, game, config_json, hotseat, tuple(seats), 0, initial, rated=rated, used=self.now())
        self._hold(room)
        self._schedule_bot(room)
        return room, tokens

    def _game(self, game_id: str) -> Game:
        try:
            return make(game_id, self.engine)
        except TabletopError as exc:
            raise RoomError(404, "unknown_game", str(exc)) from None

    async def get(self, match_id: str) -> Room:
        """The live room, loaded from the store (and replayed) on first use.

        Raises:
            RoomError: 404 if there is no such match, 410 if its stored game can no
                longer be set up or replayed by this version of the engines.
        """
        now = self.now()
        if now - self._swept >= min(self.idle_s / 4, SWEEP_S):
            self.evict_idle(now)
        room = self._rooms.get(match_id)
        if room is not None:
            room.used = now
            return room
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        try:
            async with lock:
                room = self._rooms.get(match_id)
                if room is not None:
                    return room
                row = await self._run_db(self.store.get_match, match_id)
                if row is None:
                    raise RoomError(404, "unknown_match", f"no match {short_repr(match_id)}")
                game = self._game(row.game)
                try:
                    # A long game is thousands of engine steps: not on the event loop.
                    room = await asyncio.to_thread(_rebuild_room, game, row)
                except TabletopError as exc:
                    log.error("match %s cannot be replayed: %s", match_id, exc)
                    raise RoomError(
                        410, "unavailable_match", "this match can no longer be replayed by this server"
                    ) from None
                await self.listeners.loaded(room, row)
                room.used = self.now()
                self._hold(room)
        finally:
            self._loading.pop(match_id, None)
        if self.leadership.alone:
            self._schedule_bot(room)
        else:  # the process that took the last action plays the bot; the leader if it stalls
            self._watch_bot(room)
        return room

    def evict_idle(self, now: float | None = None) -> int:
        """Drops the rooms nobody used for :attr:`idle_s`; returns how many.

        Kept: a room with a socket, a request or a write under way (its lock), a bot
        thinking, or one a listener holds (a lobby match's running clock).  The database has
        all of a dropped room, so :meth:`get` reloads it as after a restart.  Called from
        :meth:`get` (at most every :data:`SWEEP_S`), synchronously: no request can take
        a room between the check and the drop.
        """
        now = self.now() if now is None else now
        self._swept = now
        idle = [
            match_id
            for match_id, room in self._rooms.items()
            if now - room.used >= self.idle_s
            and not room.subscribers
            and not room.lock.locked()
            and (room.bot_task is None or room.bot_task.done())
            and not self.listeners.holds(room)
        ]
        for match_id in idle:
            self._let_go(match_id)
        if idle:
            log.info("dropped %d idle matches from memory", len(idle))
        return len(idle)

    async def resume_bots(self) -> int:
        """Loads every unfinished match with bots so their turns go on after a restart.

        A match that cannot be loaded any more is logged and skipped: one bad row must
        not keep the server from starting.
        """
        ids = await self._run_db(self.store.list_unfinished_bot_matches)
        resumed = 0
        for match_id in ids:
            try:
                await self.get(match_id)
            except RoomError:
                continue
            resumed += 1
        return resumed

    # ----- actions -------------------------------------------------------------

    async def act(
        self,
        match_id: str,
        token: str,
        version: int,
        action: str,
        *,
        client: str = "",
        origin: Subscriber | None = None,
        account_id: int | None = None,
    ) -> Room:
        """Applies a person's action after every check; returns the room once committed.

        ``origin``, the acting client's socket, hears the update before anyone else, so
        its acknowledgement never waits behind the audience.

        Raises:
            RoomError: 403 bad token or not this seat's turn, 404 unknown match, 409 stale
                version or finished game, 422 notation that does not parse or an illegal
                move, 429 after too many wrong tokens from ``client``.
        """
        room = await self.get(match_id)
        async with room.lock:
            seat = self.seat_for_token(room, token, client, account_id)
            await self._catch_up_to(room, version)
            if room.ended is not None:  # said before the version: the end is a version of its own
                raise RoomError(409, "game_over", "the game is over")
            self._check_version(room, version)
            if room.seats[seat].is_bot:
                raise RoomError(409, "bot_plays", "a bot plays this seat now: take it back first")
            await self._apply(room, seat, action)
        self._after_change(room, origin)
        return room

    async def undo(
        self,
        match_id: str,
        token: str,
        version: int,
        *,
        client: str = "",
        origin: Subscriber | None = None,
        account_id: int | None = None,
    ) -> Room:
        """Takes back the caller's last action, if still within their own turn.

        Raises:
            RoomError: 403 bad token, 404 unknown match, 409 stale version or nothing to
                undo, 429 after too many wrong tokens from ``client``.
        """
        room = await self.get(match_id)
        async with room.lock:
            seat = self.seat_for_token(room, token, client, account_id)
            await self._catch_up_to(room, version)
            self._check_version(room, version)
            if room.undoable_by() != seat:
                raise RoomError(409, "cannot_undo", "only your own actions within your current turn can be undone")
            ply = len(room.moves) - 1
            if not await self._write(RemoveAction(room.id, room.version, ply)):
                await self._stale(room)
                raise RoomError(409, "stale_version", "the match changed meanwhile; reload")
            room.pop()
            room.version += 1
        self._after_change(room, origin)
        return room

    async def explain(self, match_id: str, action: str) -> Message | None:
        """Why ``action`` would be refused now (the engine's coded reason), or ``None`` if legal.

        Changes nothing and needs no token: the web page asks it when a click matches no
        legal move, to show the engine's reason in the player's language.

        Raises:
            RoomError: 404 unknown match; 409 when the game is over.
        """
        room = await self.get(match_id)
        state = room.state
        if state.is_terminal():
            raise RoomError(409, "game_over", "the game is over")
        try:
            state.apply(state.parse_move(action))
        except (InvalidMoveError, IllegalMoveError) as exc:
            return reason_of(exc) or Message("core.refused", str(exc), {"text": clip(str(exc), MAX_DETAIL)})
        return None

    def seat_for_token(self, room: Room, token: str, client: str = "", account_id: int | None = None) -> int:
        """The seat ``token`` acts for in ``room``, counting wrong tokens per client.

        A seat bound to an account acts only for a caller logged in as that account
        (``account_id``, from a CSRF-checked session): its link alone is not enough.

        Raises:
            RoomError: 403 for a wrong token, or a bound seat and another caller; 429
                (with ``retry_after``) once ``client`` has sent too many wrong tokens in
                the last minute, whatever it sends now.
        """
        wait = self._token_failures.retry_after(client)
        if wait is not None:
            raise RoomError(429, "too_many_failures", "too many wrong tokens from this address", retry_after=wait)
        try:
            seat = room.seat_for_token(token)
        except RoomError:
            self._token_failures.hit(client)
            raise
        bound = room.seats[seat].account_id
        if bound is not None and bound != account_id:
            raise RoomError(403, "seat_bound", "this seat belongs to an account: log in as it to play")
        return seat

    # ----- the database is the authority ---------------------------------------

    async def refresh_from_store(self, room: Room) -> bool:
        """Brings a cached room up to its stored match (another process moved it on).

        New actions are applied to the cached position; anything else (an undo among
        them) rebuilds the room.  Its sockets, lock and bot task stay.  The caller holds
        ``room.lock``.  Returns whether the room changed.
        """
        known = len(room.texts)
        # Only the actions from the last known one on are read: with no undo since, the
        # stored log is the cached one and more (its version moved by as many as its
        # actions), and the overlap checks that the last known action is still there.
        since = max(known - 1, 0)
        row = await self._run_db(self.store.get_match, room.id, since)
        if row is None or row.version == room.version:
            return False
        texts = [text for _, text in row.actions]
        appended = row.version - room.version == since + len(texts) - known
        if appended and (known == 0 or texts[:1] == room.texts[-1:]):
            new = row.actions[known - since :]
            if len(new) <= INLINE_REPLAY:
                steps = _replay_further(room.state, new)
            else:
                steps = await asyncio.to_thread(_replay_further, room.state, new)
            for (seat, text), (state, move) in zip(new, steps, strict=True):
                room.push(state, move, text, seat)
        else:
            if since:
                row = await self._run_db(self.store.get_match, room.id)
                if row is None:
                    return False
            fresh = await asyncio.to_thread(_rebuild_room, room.game, row)
            room.initial, room.states = fresh.initial, fresh.states
            room.moves, room.texts, room.actors, room.turns = fresh.moves, fresh.texts, fresh.actors, fresh.turns
            room._log = []
            room._sent = None  # the log was rewritten: the next update is a full view
        room.seats = tuple(Seat(s.seat, s.name, s.agent, s.token_hash, s.account_id) for s in row.seats)
        room.version = row.version
        room.rated = row.rated
        room._view_cache = None
        room._board_cache = None
        await self.listeners.refreshed(room, row)
        return True

    async def _catch_up_to(self, room: Room, version: int) -> None:
        # A client that names a version this process has not seen acted through another
        # process: the stored match is ahead of the cache.
        if version > room.version:
            await self.refresh_from_store(room)

    async def _stale(self, room: Room) -> None:
        """After a refused compare-and-set: reload, and tell this process's sockets."""
        if await self.refresh_from_store(room):
            asyncio.get_running_loop().call_soon(self.broadcast, room)

    def _hold(self, room: Room) -> None:
        """Keeps ``room`` in memory, and its match's changes coming (the bus)."""
        self._rooms[room.id] = room
        self.followed.add(room.id)

    def _let_go(self, match_id: str) -> None:
        """Drops a room from memory; the bus stops bringing its changes."""
        del self._rooms[match_id]
        self.followed.discard(match_id)

    def listened(self, match_ids: list[str]) -> None:
        """The bus: it now hears the changes of ``match_ids``; a change committed between a
        room's load and then was announced to nobody here, so their versions are read once
        more (one query for all) and a room behind catches up."""

        async def check() -> None:
            held = [match_id for match_id in match_ids if match_id in self._rooms]
            if not held or self._closing:
                return
            try:
                versions = await self._run_db(self.store.versions, held)
            except Exception:
                log.exception("the versions of %d matches could not be read", len(held))
                return
            for match_id, version in versions.items():
                self.heard(match_id, version)

        task = asyncio.get_running_loop().create_task(check())
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    def holds(self, match_id: str) -> bool:
        """Whether ``match_id`` is cached here.  Asked from the bus's thread (a dict
        lookup, atomic under the GIL): a notice of a match not cached is dropped there,
        as :meth:`heard` and :meth:`seats_changed` would drop it; a room cached a moment
        later reads the database when it loads."""
        return match_id in self._rooms

    def heard(self, match_id: str, version: int, step: Step | None = None) -> None:
        """The bus: ``match_id`` is at ``version`` in the database (any process wrote it),
        after ``step`` if the notice carried the action."""
        room = self._rooms.get(match_id)
        if room is None or room.version >= version or self._closing:
            return
        if self._unfollowed(room):
            # Nothing here needs it current: forget it rather than apply every action
            # another process commits (the process that made a match caches it, while its
            # players' sockets may all sit on another); the next request reloads it.
            self._let_go(match_id)
            return
        task = asyncio.get_running_loop().create_task(self._catch_up(room, version, step))
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    def _unfollowed(self, room: Room) -> bool:
        """Whether no socket, request, bot or listener of this process follows ``room`` (it
        can leave memory as :meth:`evict_idle` would drop it, idle or not)."""
        return (
            not room.subscribers
            and not room.lock.locked()
            and (room.bot_task is None or room.bot_task.done())
            and not any(seat.is_bot for seat in room.seats)
            and not self.listeners.holds(room)
        )

    def seats_changed(self, match_id: str, _seat: int) -> None:
        """The bus: a seat of ``match_id`` was bound to an account (by any process), which
        leaves the version as it is: the cached seats are read again."""
        room = self._rooms.get(match_id)
        if room is None or self._closing:
            return

        async def reload_seats() -> None:
            async with room.lock:
                row = await self._run_db(self.store.get_match, match_id)
                if row is None:
                    return
                room.seats = tuple(Seat(s.seat, s.name, s.agent, s.token_hash, s.account_id) for s in row.seats)
                room.rated = row.rated
                room._view_cache = None
            self.broadcast(room)

        task = asyncio.get_running_loop().create_task(reload_seats())
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    def reconnected(self) -> None:
        """The bus (re)connected: what it missed meanwhile is caught up for every cached room."""
        for room in list(self._rooms.values()):
            task = asyncio.get_running_loop().create_task(self._catch_up(room))
            self._catching_up.add(task)
            task.add_done_callback(self._catching_up.discard)

    async def _catch_up(self, room: Room, version: int | None = None, step: Step | None = None) -> None:
        try:
            async with room.lock:
                # This process's own commit is often heard before its writer is answered:
                # by the time the lock is free the room is there, with nothing to read.
                if version is not None and room.version >= version:
                    return
                from_notice = step is not None and not self.listeners.needs_stored_row(room)
                if version is not None and step is not None and from_notice and self._step(room, version, step):
                    changed = True
                else:
                    changed = await self.refresh_from_store(room)
        except Exception:
            log.exception("match %s could not be reloaded", room.id)
            return
        if changed:
            self.broadcast(room)
            self._watch_bot(room)

    @staticmethod
    def _step(room: Room, version: int, step: Step) -> bool:
        """Applies an action another process committed, as its notice carries it, if the
        room is at the version and ply just before; ``False`` (nothing changed) otherwise,
        and for an action this engine refuses: then the caller reads the database."""
        if version != room.version + 1 or step.ply != len(room.moves) or room.state.current_player != step.seat:
            return False
        try:
            ((state, move),) = _replay_further(room.state, [(step.seat, step.action)])
        except TabletopError:
            return False
        room.push(state, move, step.action, step.seat)
        room.version = version
        return True

    @property
    def bot_stall_s(self) -> float:
        """How long a bot turn another process is playing may take before this one plays it:
        twice the thinking budget, plus the pause before a bot's move."""
        return 2 * self.bots.budget_s + self.bot_delay_s

    def _watch_bot(self, room: Room) -> None:
        """A bot is to move in a match another process moved on: that process plays it.

        If the match has not moved after :attr:`bot_stall_s` (that process died, say),
        this one plays the turn, so a bot never stalls; the compare-and-set on the version
        keeps a turn from being played twice even if both try.  Only the leader watches
        (``server/leader.py``); it also finds the stalled matches nobody caches
        (:meth:`play_stalled_bots`).
        """
        state = room.state
        if not self.leadership.leading or self._closing or room.ended is not None or state.is_terminal():
            return
        if not room.seats[state.current_player].is_bot:
            return
        if room.bot_task is not None and not room.bot_task.done():
            return
        version = room.version

        async def take_over_if_stalled() -> None:
            await asyncio.sleep(self.bot_stall_s)
            async with room.lock:
                changed = await self.refresh_from_store(room)
            if room.version == version:
                log.warning("the bot turn of match %s stalled elsewhere; playing it here", room.id)
                self._schedule_bot(room)
            elif changed:  # moved on, and the bus has not said so yet: as _catch_up does
                self.broadcast(room)
                self._watch_bot(room)

        task = asyncio.get_running_loop().create_task(take_over_if_stalled())
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    async def play_stalled_bots(self, stall_s: float | None = None) -> int:
        """The leader's sweep: plays each bot turn that has waited over ``stall_s`` (by
        default :attr:`bot_stall_s`) in the database (the process playing it died, or
        never cached the match); returns how many it started.

        A turn still being played by a live process is taken only after the stall, and
        then the compare-and-set lets one of the two moves in, once.
        """
        idle_since = iso_at(self.store.clock() - (self.bot_stall_s if stall_s is None else stall_s))
        started = 0
        for match_id, version in await self._run_db(self.store.list_idle_bot_matches, idle_since):
            if self._closing or not self.leadership.leading:
                break
            try:
                room = await self.get(match_id)
            except RoomError:
                continue
            if room.bot_task is not None and not room.bot_task.done():
                continue  # this process plays it already
            if room.version < version:
                async with room.lock:
                    if await self.refresh_from_store(room):
                        self.broadcast(room)
            state = room.state
            if room.ended is None and not state.is_terminal() and room.seats[state.current_player].is_bot:
                log.warning("the bot turn of match %s stalled; playing it here", room.id)
                self._schedule_bot(room)
                started += 1
        return started

    @staticmethod
    def _check_version(room: Room, version: int) -> None:
        if version != room.version:
            raise RoomError(
                409, "stale_version", f"the action was made on version {version}, the match is at {room.version}"
            )

    async def _apply(self, room: Room, seat: int, action: str) -> None:
        """Checks and commits one action for ``seat``; the caller holds ``room.lock``."""
        state = room.state
        if state.is_terminal() or room.ended is not None:
            raise RoomError(409, "game_over", "the game is over")
        if state.current_player != seat:
            raise RoomError(
                403, "not_your_turn", f"seat {seat} cannot act now: it is seat {state.current_player}'s turn"
            )
        try:
            move = state.parse_move(action)
        except InvalidMoveError as exc:
            raise RoomError(422, "invalid_move", str(exc), reason=reason_of(exc)) from None
        try:
            new_state = state.apply(move)
        except IllegalMoveError as exc:
            raise RoomError(422, "illegal_move", str(exc), reason=reason_of(exc)) from None
        text = state.move_to_str(move)
        outcome = new_state.outcome()
        write = AppendAction(
            room.id, room.version, len(room.moves), seat, text, outcome.to_json() if outcome is not None else None
        )
        if not await self._write(write):
            await self._stale(room)
            raise RoomError(409, "stale_version", "the match changed meanwhile; reload")
        room.push(new_state, move, text, seat)
        room.version += 1
        if outcome is not None:
            await self.game_over(room)

    def _after_change(self, room: Room, origin: Subscriber | None = None) -> None:
        self.broadcast(room, origin)
        self.listeners.changed(room)
        self._schedule_bot(room)

    def broadcast(self, room: Room, origin: Subscriber | None = None) -> None:
        """Sends the current view to every client of the room.

        ``origin`` gets it at once; the audience in the next turn of the event loop, so
        the caller's answer (an HTTP response, a websocket ack) is on its way before a
        thousand spectators' sockets are fed.  The update is computed once, now, so every
        client gets the same patch in the same order as the versions.
        """
        if not room.subscribers:
            room._sent = None  # nobody holds a base to patch
            return
        text = room.update_text()
        # The board is drawn (once a version) only if a connected page shows it.
        board_text = room.with_board(text) if room.board_subscribers else text

        def text_for(send: Subscriber) -> str:
            return board_text if send in room.board_subscribers else text

        audience = [(send, text_for(send)) for send in room.subscribers if send is not origin]
        if origin is not None and origin in room.subscribers:
            self._deliver(room, [(origin, text_for(origin))])
        asyncio.get_running_loop().call_soon(self._deliver, room, audience)

    @staticmethod
    def _deliver(room: Room, deliveries: Sequence[tuple[Subscriber, str]]) -> None:
        for send, text in deliveries:
            try:
                send(text)
            except Exception:  # a dead or stalled socket must not stop the others from hearing
                room.forget(send)

    # ----- bots ----------------------------------------------------------------

    def _schedule_bot(self, room: Room) -> None:
        if self._closing or room.ended is not None or (room.bot_task is not None and not room.bot_task.done()):
            return
        state = room.state
        if state.is_terminal() or not room.seats[state.current_player].is_bot:
            return
        room.bot_task = task = asyncio.get_running_loop().create_task(self._bot_loop(room))
        self._bot_tasks.add(task)
        task.add_done_callback(self._bot_tasks.discard)

    async def _bot_loop(self, room: Room) -> None:
        """Plays bot turns until a person (or nobody) is to move."""
        while not self._closing:
            state = room.state
            if state.is_terminal() or not room.seats[state.current_player].is_bot:
                return
            seat = state.current_player
            version = room.version
            # From the game's seed, so a game created with a seed replays identically.
            seed = zlib.crc32(f"{room.config_json.get('seed')}:{len(room.moves)}".encode())
            if self.bot_delay_s:
                await asyncio.sleep(self.bot_delay_s)
            try:
                text, in_time = await self.bots.choose(
                    state, room.game.id, room.config_json, room.texts, room.seats[seat].agent, seed
                )
            except Exception:
                log.exception("bot failed in match %s; playing a random move", room.id)
                text, in_time = fallback_action(state, seed), False
            if not in_time:
                log.warning("bot %s overran its budget in match %s", room.seats[seat].agent, room.id)
            async with room.lock:
                if room.ended is not None or not room.seats[seat].is_bot:
                    return  # the match was resigned, or a person took the seat back
                if room.version != version:
                    continue  # someone undid or the position moved on; think again
                try:
                    await self._apply(room, seat, text)
                except RoomError as exc:
                    if exc.code == "stale_version":
                        # Another process played this turn first (a take-over after a
                        # stall): the database kept its move, this one is dropped, and
                        # that process plays on.
                        log.info("bot turn of match %s was played elsewhere", room.id)
                    else:
                        log.exception("bot move %r refused in match %s", text, room.id)
                    return
            self.broadcast(room)
            self.listeners.changed(room)

    # ----- subscriptions -------------------------------------------------------

    def subscribe(self, room: Room, send: Subscriber, client: str = "", *, board: bool = False) -> None:
        """Adds a client that receives every update (with the board drawing if ``board``).

        Raises:
            RoomError: 429 if the match or the client address has as many live sockets
                as the limits allow.
        """
        if len(room.subscribers) >= self.max_sockets_per_match:
            raise RoomError(429, "too_many_sockets", "this match has as many connections as the server allows")
        if self._sockets.get(client, 0) >= self.max_sockets_per_client:
            raise RoomError(429, "too_many_sockets", "this address has as many connections as the server allows")
        room.subscribers.add(send)
        if board:
            room.board_subscribers.add(send)
        self._sockets[client] = self._sockets.get(client, 0) + 1
        self._socket_client[send] = client

    def unsubscribe(self, room: Room, send: Subscriber) -> None:
        """Removes a client; a finished match nobody watches leaves memory (it reloads on demand).

        Only finished matches are dropped: nothing can change them any more, so a request
        still holding the old room object cannot race a freshly loaded one.
        """
        room.forget(send)
        self.listeners.left(room, send)
        client = self._socket_client.pop(send, None)
        if client is not None:
            left = self._sockets[client] - 1
            if left:
                self._sockets[client] = left
            else:
                del self._sockets[client]
        if not room.subscribers and room.state.is_terminal() and self._rooms.get(room.id) is room:
            self._let_go(room.id)

    def is_loaded(self, match_id: str) -> bool:
        """Whether the match is in memory (for tests)."""
        return match_id in self._rooms


def _settle(futures: Sequence[asyncio.Future[bool]], answers: Sequence[bool | Exception]) -> None:
    """Hands each waiting write its answer (on the event loop); a caller that left is skipped."""
    for future, answer in zip(futures, answers, strict=True):
        if future.done():
            continue
        if isinstance(answer, Exception):
            future.set_exception(answer)
        else:
            future.set_result(answer)


def legal_notation(state: State, kind: str) -> list[str]:
    """The legal moves of one kind in notation, for a view.

    A game's state may list them itself (``legal_notation_of_kind``: Terra Nova's Python
    state reads its moves' labels, five times cheaper than formatting each move; a view
    of every version lists them all); otherwise each move goes through ``move_to_str``.
    """
    of_kind = getattr(state, "legal_notation_of_kind", None)
    if of_kind is not None:
        return cast("list[str]", of_kind(kind))
    return [state.move_to_str(m) for m in state.legal_moves_of_kind(kind)]


def _set_up(game: Game, config: GameConfig) -> tuple[GameConfig, State]:
    """The canonical config and the initial state of a new match."""
    canonical = game.canonical_config(config)
    return canonical, game.new_initial_state(canonical)


def _replay_further(state: State, actions: Sequence[tuple[int, str]]) -> list[tuple[State, Move]]:
    """The positions and moves after ``state`` of the stored ``(seat, notation)`` actions."""
    steps = []
    for _, text in actions:
        move = state.parse_move(text)
        state = state.apply(move)
        steps.append((state, move))
    return steps


def _rebuild_room(game: Game, row: MatchRow) -> Room:
    """A stored match as a live room, its actions replayed through the engine."""
    state = game.new_initial_state(GameConfig.from_json(row.config))
    room = Room(
        row.id,
        game,
        row.config,
        row.hotseat,
        tuple(Seat(s.seat, s.name, s.agent, s.token_hash, s.account_id) for s in row.seats),
        row.version,
        state,
        rated=row.rated,
    )
    for seat, text in row.actions:
        move = state.parse_move(text)
        state = state.apply(move)
        room.push(state, move, text, seat)
    return room
