"""The lobby and the table of each match started from it (docs/server.md, "Lobby").

- A **lobby game** gathers people: its creator sits in one seat, leaves others open or
  gives them to bots; anyone with the link (or anyone, for a public game) joins a free
  seat and gets that seat's secret token.  The match is created when the last seat is
  taken, or when the creator starts it with bots in the empty seats; its id is the
  lobby game's.
- The **table** of a started match (:mod:`tabletop.server.tables`) holds what the rules
  do not: clock, takeover, resignation, abort and chat.  A **rematch** (here) is a new
  lobby game with the same settings and the seats rotated.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from tabletop.ai.agent import make_agent
from tabletop.core.errors import ConfigError, TabletopError, short_repr
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.server import accounts as accounts_mod
from tabletop.server import lobby_store as db
from tabletop.server.accounts import Account
from tabletop.server.clocks import TURN, ClockSettings
from tabletop.server.config import Settings
from tabletop.server.guard import SlidingWindow
from tabletop.server.rooms import HUMAN, RoomError, RoomManager, hash_token
from tabletop.server.store import iso_at
from tabletop.server.store import now as iso_now
from tabletop.server.tables import BOT, PLAYING, MatchTable, Tables

log = logging.getLogger("tabletop.server")
T = TypeVar("T")

START_STALL_S = 30.0
"""How long a lobby game may stay starting (normally milliseconds: the match and its table
are stored) before the leader takes it for a start cut short and finishes it."""

SeatState = Literal["open", "taken", "bot", "reserved"]
"""A lobby seat: free, a person's, a bot's, or kept for a person (a rematch)."""


@dataclass(slots=True)
class LobbySeat:
    """One seat of a lobby game."""

    state: SeatState
    name: str
    agent: str = HUMAN
    token_hash: str | None = None
    reserved_for: str | None = None
    """A rematch keeps the seat for the person whose old token hashes to this."""
    account_id: int | None = None
    """The account of a person who took the seat logged in: the seat is bound to it at the start."""

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
    starting_since: str | None = None
    """When the game was decided full (ISO time): a start not finished long after that
    was cut short by a process's death, and the leader finishes it (:meth:`Lobby.finish_stalled_starts`)."""

    def begin_start(self, at: str) -> None:
        """Marks the game as starting at ``at`` (ISO time; the caller holds its row's
        lock): it starts once."""
        self.status = db.STARTING
        self.starting_since = at

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
            "starting_since": self.starting_since,
        }

    @classmethod
    def from_row(cls, row: db.LobbyRow) -> LobbyGame:
        game_id, game, setup, public, created, status = row
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
            status=status,
            rematch_of=setup.get("rematch_of"),
            starting_since=setup.get("starting_since"),
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


class Lobby:
    """The open games; a game that fills starts a match in the rooms and its table in the
    tables (:class:`~tabletop.server.tables.Tables`)."""

    def __init__(
        self,
        rooms: RoomManager,
        tables: Tables,
        settings: Settings,
        store: db.LobbyStore,
        account_store: accounts_mod.AccountStore,
    ) -> None:
        self.rooms = rooms
        self.tables = tables
        self.settings = settings
        self.store = store
        self.account_store = account_store
        self._creations = SlidingWindow(settings.matches_per_minute)
        self._joins = SlidingWindow(settings.joins_per_minute)
        self._opened_by: dict[str, list[str]] = {}
        """The lobby games each address opened through this process (for the per-address
        cap; whether each is still open is asked of the database)."""

    def _now(self) -> str:
        """The time as stored (the store's time source, as the actions')."""
        return iso_at(self.rooms.store.clock())

    async def _change(self, game_id: str, change: Callable[[LobbyGame], T]) -> tuple[LobbyGame, T]:
        """Runs ``change`` on the stored lobby game with its row locked and stores the result.

        ``change`` runs on the database thread, so it must not touch the event loop's
        objects; a :class:`RoomError` it raises leaves the game unchanged.

        Raises:
            RoomError: 404 if there is no such game open.
        """

        def locked(row: db.LobbyRow | None) -> tuple[tuple[LobbyGame, T], dict[str, Any], str]:
            if row is None or row[5] != db.OPEN:  # a started game is a match now
                raise RoomError(404, "unknown_game", f"no open game {short_repr(game_id)}")
            lg = LobbyGame.from_row(row)
            result = change(lg)
            return (lg, result), lg.setup_json(), lg.status

        return await self.rooms.run_db(self.store.update_lobby_game_with, game_id, locked)

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
        account: Account | None = None,
    ) -> tuple[LobbyGame, int, str]:
        """Opens a lobby game; returns it, the creator's seat and the creator's token.

        ``seats`` are ``(kind, name, agent)`` with kind ``"me"`` (exactly one: the
        creator), ``"open"`` or ``"bot"``.  A logged-in creator (``account``) gets the
        account's token for the seat, which is bound to the account at the start.

        Raises:
            RoomError: 404 unknown game, 422 bad seats, clock, bot or configuration,
                429 too many games created from ``client`` or open on the server.
        """
        wait = self._creations.retry_after(client)
        if wait is not None:
            raise RoomError(429, "too_many_matches", "too many games created from this address", retry_after=wait)
        if await self.rooms.run_db(self.store.count_open_games) >= self.settings.max_open_games:
            raise RoomError(429, "lobby_full", "the lobby has as many open games as the server allows", retry_after=60)
        opened = self._opened_by.setdefault(client, [])
        if len(opened) >= self.settings.open_games_per_client:
            still_open = await self.rooms.run_db(self.store.list_open_ids, opened)
            opened[:] = [i for i in opened if i in still_open]
        if len(opened) >= self.settings.open_games_per_client:
            raise RoomError(
                429, "too_many_open_games", "this address has as many open games as it may: start or cancel one"
            )
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
        lobby_id = secrets.token_urlsafe(9)
        creator_seat = next(i for i, (kind, _, _) in enumerate(seats) if kind == "me")
        # A logged-in creator's token is the account's for that seat of the match to be, so
        # it still opens the seat once the start has bound it to the account.
        token = (
            secrets.token_urlsafe(18) if account is None else accounts_mod.seat_token(account, lobby_id, creator_seat)
        )
        lobby_seats: list[LobbySeat] = []
        for kind, name, agent in seats:
            if kind == "bot":
                self._check_agent(agent)
                lobby_seats.append(LobbySeat("bot", name.strip() or agent, agent))
            elif kind == "me":
                if account is not None:
                    name = account.name
                if not name.strip():
                    raise RoomError(422, "bad_name", "the creator's seat needs a name")
                account_id = None if account is None else account.id
                lobby_seats.append(LobbySeat("taken", name.strip(), HUMAN, hash_token(token), account_id=account_id))
            else:
                lobby_seats.append(LobbySeat("open", ""))
        self._creations.hit(client)
        lg = LobbyGame(
            lobby_id,
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
        await self.rooms.run_db(self.store.add_lobby_game, lg.id, lg.game, lg.setup_json(), public)
        if lg.is_waiting():
            opened.append(lg.id)
        else:  # no seat to wait for: nobody else can change it
            lg.begin_start(self._now())
            await self._save_game(lg)
            await self._start(lg)
        return lg, creator_seat, token

    async def join(
        self, game_id: str, name: str, seat: int | None, client: str, account: Account | None = None
    ) -> tuple[LobbyGame, int, str]:
        """Takes a free seat (``seat``, or the first free one); returns the seat and its token.

        A logged-in person (``account``) gets the account's token for the seat, which is
        bound to the account at the start.

        Raises:
            RoomError: 404 no such open game, 409 the seat is not free (or none is), the
                game started or the account holds another seat of it, 422 empty name,
                429 too many joins from ``client``.
        """
        wait = self._joins.retry_after(client)
        if wait is not None:
            raise RoomError(429, "too_many_joins", "too many joins from this address", retry_after=wait)
        if account is not None:
            name = account.name
        if not name.strip():
            raise RoomError(422, "bad_name", "a seat needs a name")

        def take(lg: LobbyGame) -> tuple[int, str]:
            if lg.status != db.OPEN:
                raise RoomError(409, "not_open", f"this game is {lg.status}")
            free = [i for i, s in enumerate(lg.seats) if s.state == "open"]
            chosen = seat
            if chosen is None:
                if not free:
                    raise RoomError(409, "no_free_seat", "every seat of this game is taken")
                chosen = free[0]
            elif not 0 <= chosen < len(lg.seats) or chosen not in free:
                raise RoomError(409, "seat_taken", f"seat {chosen} is not free")
            if account is not None and any(s.account_id == account.id for s in lg.seats):
                raise RoomError(409, "already_seated", "you already hold another seat of this game")
            token = secrets.token_urlsafe(18) if account is None else accounts_mod.seat_token(account, lg.id, chosen)
            account_id = None if account is None else account.id
            lg.seats[chosen] = LobbySeat("taken", name.strip()[:80], HUMAN, hash_token(token), account_id=account_id)
            if not lg.is_waiting():
                lg.begin_start(self._now())  # decided under the row's lock: started once, here
            return chosen, token

        lg, (taken, token) = await self._change(game_id, take)
        self._joins.hit(client)
        if lg.status == db.STARTING:
            await self._start(lg)
        return lg, taken, token

    async def start_now(self, game_id: str, token: str, agent: str | None, client: str) -> LobbyGame:
        """The creator starts the game, bots of level ``agent`` (else the takeover bot) in the empty seats.

        Raises:
            RoomError: 403 not the creator's token, 404 no such game, 409 not open,
                422 unknown bot.
        """
        lg = await self.lobby_game(game_id)
        self._check_creator(lg, token, client)
        agent = agent or lg.takeover
        self._check_agent(agent)

        def fill(lg: LobbyGame) -> None:
            if lg.status != db.OPEN:
                raise RoomError(409, "not_open", f"this game is {lg.status}")
            for i, s in enumerate(lg.seats):
                if s.state in ("open", "reserved"):
                    lg.seats[i] = LobbySeat("bot", f"{agent} {i + 1}", agent)
            lg.begin_start(self._now())

        lg, _ = await self._change(game_id, fill)
        await self._start(lg)
        return lg

    async def cancel(self, game_id: str, token: str, client: str) -> LobbyGame:
        """The creator withdraws a game that has not started.

        Raises:
            RoomError: 403 not the creator's token, 404 no such game, 409 not open.
        """
        self._check_creator(await self.lobby_game(game_id), token, client)

        def withdraw(lg: LobbyGame) -> None:
            if lg.status != db.OPEN:
                raise RoomError(409, "not_open", f"this game is {lg.status}")
            lg.status = db.CANCELLED

        lg, _ = await self._change(game_id, withdraw)
        return lg

    async def lobby_game(self, game_id: str) -> LobbyGame:
        """An open or started lobby game, as stored.

        Raises:
            RoomError: 404 if there is none with this id (or it was cancelled).
        """
        row = await self.rooms.run_db(self.store.get_lobby_game, game_id)
        if row is None or row[5] == db.CANCELLED:
            raise RoomError(404, "unknown_game", f"no open game {short_repr(game_id)}")
        return LobbyGame.from_row(row)

    async def open_games(self, game: str | None, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Public open games, newest first, and how many there are."""
        rows, total = await self.rooms.run_db(self.store.list_open_games, game, offset, limit)
        return [LobbyGame.from_row(row).view() for row in rows], total

    async def games_in_progress(self, game: str | None, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Public matches being played, newest first, and how many there are."""
        rows, total = await self.rooms.run_db(self.store.list_games_in_progress, game, offset, limit)
        out = []
        for match_id, game_id, created in rows:
            entry: dict[str, Any] = {"id": match_id, "game": game_id, "created": created, "players": None}
            room = self.rooms.loaded(match_id)
            if room is not None:
                entry["players"] = [{"seat": s.seat, "name": s.name, "agent": s.agent} for s in room.seats]
                entry["ply"] = len(room.moves)
            out.append(entry)
        return out, total

    async def _start(self, lg: LobbyGame, *, resumed: bool = False) -> None:
        """Creates the match of a full lobby game and its table, then marks it started.

        The caller stored the game as starting (under its row's lock), so this runs once;
        or again for a start cut short (``resumed``: by the leader's sweep), when each step
        already stored (the match, a seat's binding, the table) is kept as it is.
        """
        room = None
        if resumed:
            with contextlib.suppress(RoomError):  # 404: the match was not stored yet
                room = await self.rooms.get(lg.id)
        if room is None:
            config = GameConfig.from_json(lg.config)
            room, _ = await self.rooms.create(
                lg.game,
                config,
                [(s.name, s.agent) for s in lg.seats],
                match_id=lg.id,
                token_hashes=[s.token_hash for s in lg.seats],
                rated=lg.rated,
            )
        for i, s in enumerate(lg.seats):
            if s.account_id is None or room.seats[i].account_id == s.account_id:
                continue
            account = await self.rooms.run_db(self.account_store.get_account, s.account_id)
            if account is not None:  # else deleted since it joined: the seat stays a guest's
                # The seat's token stays the one handed out at join time (the account's).
                await accounts_mod.bind_seat(self.rooms, room, i, account, at_creation=True)
        if room.id not in self.tables.tables:  # a resumed start may have stored it (loaded with the room)
            creator_seat = next(i for i, s in enumerate(lg.seats) if s.token_hash == lg.creator_hash)
            table = MatchTable(
                room.id,
                lg.public,
                # ``room.rated``: a bot with no rating in this family made it unrated at creation.
                {"takeover": lg.takeover, "grace_s": lg.grace_s, "rated": room.rated, "creator_seat": creator_seat},
                None,
                [PLAYING if s.agent == HUMAN else BOT for s in lg.seats],
            )
            await self.tables.open_table(room, table, lg.clock)
        await self.rooms.run_db(self.store.update_started, lg.id)
        lg.status = db.STARTED
        log.debug("lobby game %s started", lg.id)

    async def finish_stalled_starts(self, stall_s: float = START_STALL_S) -> int:
        """The leader's sweep: finishes each lobby game left starting for over ``stall_s``
        (the process starting it died midway, or failed); returns how many."""
        finished = 0
        cutoff = iso_at(self.rooms.store.clock() - stall_s)
        for row in await self.rooms.run_db(self.store.list_starting_games):
            lg = LobbyGame.from_row(row)
            if lg.starting_since is not None and lg.starting_since > cutoff:
                continue  # a live process may be starting it right now
            if not self.rooms.leadership.leading:
                break
            log.warning("lobby game %s was left starting; finishing its start here", lg.id)
            try:
                await self._start(lg, resumed=True)
            except Exception:
                log.exception("lobby game %s could not be started", lg.id)
                continue
            finished += 1
        return finished

    async def _save_game(self, lg: LobbyGame) -> None:
        await self.rooms.run_db(self.store.update_lobby_game, lg.id, lg.setup_json(), lg.status)

    # ----- checks ------------------------------------------------------------------

    def _game(self, game_id: str) -> Any:
        try:
            return make(game_id, self.rooms.engine)
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

    async def _rematch_token(
        self, lg: LobbyGame, seat: int, kept: LobbySeat, account_id: int | None
    ) -> tuple[str, str, int | None]:
        """The token, name and account of a person taking the rematch seat kept for them.

        A seat that was bound to an account stays bound to it (the start binds it again),
        with the account's token, so a link alone does not play for that person in the
        rematch either.  An account deleted since plays on as a guest.

        Raises:
            RoomError: 403 ``seat_bound`` if the caller is not the seat's account (the
                old seat's check refuses that first; this keeps the rule where it binds).
        """
        if kept.account_id is not None:
            if account_id != kept.account_id:
                raise RoomError(403, "seat_bound", "this seat belongs to an account: log in as it to play")
            account = await self.rooms.run_db(self.account_store.get_account, kept.account_id)
            if account is not None:
                return accounts_mod.seat_token(account, lg.id, seat), account.name, account.id
        return secrets.token_urlsafe(18), kept.name, None

    async def rematch(
        self, match_id: str, token: str, client: str, account_id: int | None = None
    ) -> tuple[LobbyGame, int, str]:
        """A new lobby game with the same settings (clock, takeover, rated), seats rotated
        by one; returns the token's person's new seat and token.

        The first player to ask creates it (and may start it with bots); each other
        person's seat is kept for them until they ask too, with their old token.  A seat
        bound to an account is kept for that account and bound to it again at the start.

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 409 not over yet.
        """
        room, table = await self.tables.table(match_id)
        seat = self.rooms.seat_for_token(room, token, client, account_id)
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
                    else:  # kept for the same person, and for the same account if it was bound
                        new_seats[target] = LobbySeat(
                            "reserved", old.name, HUMAN, None, old.token_hash, account_id=old.account_id
                        )
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
                await self.rooms.run_db(self.store.add_lobby_game, lg.id, lg.game, lg.setup_json(), lg.public)
                # Another process may have made one first: the first named is the rematch.
                named = await self.rooms.run_db(self.store.update_rematch, room.id, lg.id)
                if named != lg.id:
                    lg.status = db.CANCELLED
                    await self._save_game(lg)
                table.rematch = named
                self.tables.send_table(room, table)
        assert table.rematch is not None
        lg = await self.lobby_game(table.rematch)
        new_seat = next((i for i, s in enumerate(lg.seats) if s.reserved_for == old_hash), None)
        if new_seat is None or lg.status != db.OPEN:
            raise RoomError(409, "rematch_taken", "your seat in the rematch is taken already")
        new_token, name, bound_to = await self._rematch_token(lg, new_seat, lg.seats[new_seat], account_id)

        def take(lg: LobbyGame) -> None:
            if lg.status != db.OPEN or new_seat is None or lg.seats[new_seat].reserved_for != old_hash:
                raise RoomError(409, "rematch_taken", "your seat in the rematch is taken already")
            lg.seats[new_seat] = LobbySeat("taken", name, HUMAN, hash_token(new_token), account_id=bound_to)
            if not lg.creator_hash:
                lg.creator_hash = hash_token(new_token)
            if not lg.is_waiting():
                lg.begin_start(self._now())

        lg, _ = await self._change(lg.id, take)
        if lg.status == db.STARTING:
            await self._start(lg)
        return lg, new_seat, new_token
