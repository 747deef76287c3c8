"""Accounts (optional), log-in sessions, CSRF checks and seats bound to accounts.

Guests still play by link; an account adds an identity: a name and a password (an
argon2id hash, ``argon2-cffi``), a session cookie, the person's games and ratings.

**Sessions.** Logging in stores a random session id, hashed (sha256), in ``sessions``
and sets it as the cookie ``tabletop_session``: ``HttpOnly`` (page scripts cannot read
it), ``SameSite=Lax`` (other sites' requests do not carry it, except top-level GET
navigations), ``Secure`` on HTTPS requests or with ``secure_cookies``, ``Max-Age``
``session_days``.  Logging out deletes the row, so a stolen cookie dies with it.

**CSRF.** Every session also has a random CSRF token, given to the page by
``GET /api/session`` (and by log-in and registration).  A state-changing request
(anything but GET/HEAD/OPTIONS) counts as logged in only if it carries that token in
the ``X-CSRF-Token`` header and, when it has an ``Origin`` header, that origin is this
host.  Another site can neither read the token (no CORS) nor send a custom header
without a CORS preflight this server never grants.  Without both, an endpoint that needs
an account answers 403 ``csrf``, and a bound seat refuses the action.  The websocket
(which cannot carry headers from a browser) honours the cookie only when the handshake's
``Origin`` is this host (browsers always send it), which stops cross-site websocket
hijacking.

**Bound seats.** A seat bound to an account acts only for that account's session, so a
leaked link alone no longer plays for it.  Its token is derived from a secret of the
account (``seat_key``) and the match and seat, so the server can give the owner their
link again (``GET /api/me/matches``) without storing the token itself.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Depends, Request, Response, WebSocket
from sqlalchemy import Engine, delete, desc, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection

from tabletop.server.config import Settings
from tabletop.server.guard import Backoff, SlidingWindow
from tabletop.server.rooms import Room, RoomError, RoomManager, hash_token
from tabletop.server.store import DuplicateError, accounts, matches, now, rating_events, seats, sessions

COOKIE = "tabletop_session"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
NAME_MIN_LENGTH = 3
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
"""ASCII letters, digits, ``_`` and ``-`` (not first): no look-alike letters from other
scripts, no invisible or direction-changing characters, nothing to escape in a URL."""

HASHER = PasswordHasher()
"""argon2id with the library's defaults (RFC 9106's low-memory profile: 64 MiB, 3 passes)."""

_DUMMY_HASH = HASHER.hash("not a password of anyone")
"""Verified against when a name is unknown, so a failed log-in takes the same time either way."""


@dataclass(frozen=True, slots=True)
class Account:
    """A registered person, as the server uses one (never the password hash)."""

    id: int
    name: str
    seat_key: str


@dataclass(frozen=True, slots=True)
class Session:
    """A logged-in session: its account and CSRF token."""

    account: Account
    csrf: str


def name_key(name: str) -> str:
    """The form a name is unique in: ``Alice`` and ``alice`` are one account."""
    return name.lower()


def check_name(name: str, max_length: int) -> str:
    """The name if it is a valid account name.

    Raises:
        RoomError: 422 ``bad_name``.
    """
    if not NAME_MIN_LENGTH <= len(name) <= max_length:
        raise RoomError(422, "bad_name", f"a name has {NAME_MIN_LENGTH} to {max_length} characters")
    if not name.isascii() or NAME_PATTERN.fullmatch(name) is None:
        raise RoomError(
            422,
            "bad_name",
            "a name has only the letters A-Z and a-z, digits, '_' and '-', and starts with one of the first two",
        )
    return name


def check_password(password: str, settings: Settings) -> str:
    """The password if its length is within the settings' bounds.

    Raises:
        RoomError: 422 ``bad_password``.
    """
    if not settings.password_min_length <= len(password) <= settings.password_max_length:
        raise RoomError(
            422,
            "bad_password",
            f"a password has {settings.password_min_length} to {settings.password_max_length} characters",
        )
    return password


def seat_token(account: Account, match_id: str, seat: int) -> str:
    """The token of ``account``'s seat in a match, derived from the account's secret."""
    digest = hmac.new(account.seat_key.encode(), f"seat:{match_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def _account(row: Any) -> Account:
    return Account(row.id, row.name, row.seat_key)


# ----- the database --------------------------------------------------------------------


class AccountStore:
    """Accounts and their log-in sessions (``accounts``, ``sessions``), and each account's
    matches; a store in the stores' one style (:mod:`tabletop.server.store`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add_account(self, name: str, password_hash: str) -> Account:
        """Stores a new account.

        Raises:
            DuplicateError: if the name is taken (in any case).
        """
        try:
            with self.engine.begin() as conn:
                result = conn.execute(
                    insert(accounts).values(
                        name=name,
                        name_key=name_key(name),
                        password_hash=password_hash,
                        seat_key=secrets.token_hex(32),
                        created=now(),
                    )
                )
                (account_id,) = result.inserted_primary_key or (None,)
                row = conn.execute(select(accounts).where(accounts.c.id == account_id)).one()
        except IntegrityError as exc:
            raise DuplicateError(f"the name {name!r} is taken") from exc
        return _account(row)

    def get_account_by_name(self, name: str) -> tuple[Account, str] | None:
        """The account of a name and its password hash, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.name_key == name_key(name))).first()
        return None if row is None else (_account(row), row.password_hash)

    def get_account(self, account_id: int) -> Account | None:
        """The account with this id, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.id == account_id)).first()
        return None if row is None else _account(row)

    def update_password_hash(self, account_id: int, password_hash: str) -> None:
        """Replaces a hash (after a log-in, when the library's parameters have changed)."""
        with self.engine.begin() as conn:
            conn.execute(update(accounts).where(accounts.c.id == account_id).values(password_hash=password_hash))

    def add_session(self, account_id: int, token_hash: str, csrf: str, expires: int) -> None:
        """Stores a session (and drops the account's expired ones)."""
        with self.engine.begin() as conn:
            conn.execute(
                delete(sessions).where(sessions.c.account_id == account_id, sessions.c.expires < int(time.time()))
            )
            conn.execute(
                insert(sessions).values(
                    token_hash=token_hash, account_id=account_id, csrf=csrf, created=now(), expires=expires
                )
            )

    def get_session(self, token_hash: str) -> Session | None:
        """The live session of a cookie's hash, or ``None`` (unknown or expired)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(sessions.c.csrf, accounts.c.id, accounts.c.name, accounts.c.seat_key)
                .join(accounts, accounts.c.id == sessions.c.account_id)
                .where(sessions.c.token_hash == token_hash, sessions.c.expires >= int(time.time()))
            ).first()
        return None if row is None else Session(Account(row.id, row.name, row.seat_key), row.csrf)

    def delete_session(self, token_hash: str) -> None:
        """Ends a session."""
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    def list_matches_of(self, account: Account, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The account's matches, newest first: a page of them and how many there are."""
        with self.engine.connect() as conn:
            mine = select(seats.c.match_id, seats.c.seat).where(seats.c.account_id == account.id).subquery()
            total = conn.execute(select(func.count()).select_from(mine)).scalar_one()
            rows = conn.execute(
                select(matches, mine.c.seat)
                .join(mine, mine.c.match_id == matches.c.id)
                .order_by(desc(matches.c.created), matches.c.id)
                .offset(offset)
                .limit(limit)
            ).all()
            ids = [r.id for r in rows]
            seat_rows = conn.execute(select(seats).where(seats.c.match_id.in_(ids)).order_by(seats.c.seat)).all()
            events = conn.execute(
                select(rating_events).where(rating_events.c.match_id.in_(ids), rating_events.c.account_id == account.id)
            ).all()
        players: dict[str, list[dict[str, Any]]] = {}
        for s in seat_rows:
            players.setdefault(s.match_id, []).append({"seat": s.seat, "name": s.name, "agent": s.agent})
        change = {e.match_id: {"rank": e.rank, "mu_before": e.mu_before, "mu": e.mu, "sigma": e.sigma} for e in events}
        page = []
        for r in rows:
            token = seat_token(account, r.id, r.seat)
            page.append(
                {
                    "id": r.id,
                    "game": r.game,
                    "created": r.created,
                    "seat": r.seat,
                    "players": players.get(r.id, []),
                    "finished": bool(r.finished),
                    "rated": bool(r.rated),
                    "result": r.result,
                    "rating": change.get(r.id),
                    "link": f"/play/{r.id}#t={token}",
                }
            )
        return page, int(total)


# ----- the service on app.state.accounts -----------------------------------------------


class Accounts:
    """Registration, log-in and sessions for one app, with their per-address limits."""

    def __init__(self, store: AccountStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._logins = SlidingWindow(settings.login_attempts_per_minute)
        # Per address, never per name: a lock on a name would let anyone lock its owner out.
        self._login_backoff = Backoff()
        self._registrations = SlidingWindow(settings.registrations_per_minute)
        # Each hash holds 64 MiB for ~50 ms: a burst of log-ins must not exhaust memory.
        self._hashing = asyncio.Semaphore(2)

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(HASHER.hash, password)

    async def _verify(self, password_hash: str, password: str) -> bool:
        async with self._hashing:
            try:
                return await asyncio.to_thread(HASHER.verify, password_hash, password)
            except (VerificationError, InvalidHashError):
                return False

    async def register(self, name: str, password: str, client: str) -> Account:
        """A new account.

        Raises:
            RoomError: 422 bad name or password, 409 name taken, 429 too many from ``client``.
        """
        check_name(name, self.settings.name_max_length)
        check_password(password, self.settings)
        # Counted after the cheap checks: a typo costs nothing, each hash does.
        wait = self._registrations.allow(client)
        if wait is not None:
            raise RoomError(429, "too_many_registrations", "too many accounts from this address", retry_after=wait)
        try:
            return await asyncio.to_thread(self.store.add_account, name, await self._hash(password))
        except DuplicateError:
            raise RoomError(409, "name_taken", "this name is taken") from None

    async def log_in(self, name: str, password: str, client: str) -> Account:
        """The account whose password this is.

        Raises:
            RoomError: 401 ``bad_login`` (the same for an unknown name and a wrong
                password), 429 after too many attempts from ``client``, or while
                ``client`` backs off after failing several times in a row.  Failures are
                never counted per name, so nobody can lock an account's owner out.
        """
        wait = self._login_backoff.retry_after(client) or self._logins.allow(client)
        if wait is not None:
            raise RoomError(429, "too_many_logins", "too many log-in attempts; wait a little", retry_after=wait)
        found = await asyncio.to_thread(self.store.get_account_by_name, name) if len(name) <= 64 else None
        if found is None or not 1 <= len(password) <= self.settings.password_max_length:
            await self._verify(_DUMMY_HASH, password[: self.settings.password_max_length])
            self._login_backoff.failed(client)
            raise RoomError(401, "bad_login", "wrong name or password")
        account, password_hash = found
        if not await self._verify(password_hash, password):
            self._login_backoff.failed(client)
            raise RoomError(401, "bad_login", "wrong name or password")
        self._login_backoff.succeeded(client)
        if HASHER.check_needs_rehash(password_hash):
            await asyncio.to_thread(self.store.update_password_hash, account.id, await self._hash(password))
        return account

    async def start_session(self, account: Account, request: Request, response: Response) -> str:
        """Logs ``account`` in on ``response`` (the cookie); returns the CSRF token."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        max_age = self.settings.session_days * 86400
        await asyncio.to_thread(self.store.add_session, account.id, hash_token(token), csrf, int(time.time()) + max_age)
        response.set_cookie(
            COOKIE,
            token,
            max_age=max_age,
            path="/",
            httponly=True,
            samesite="lax",
            secure=self.settings.secure_cookies or request.url.scheme == "https",
        )
        return csrf

    async def end_session(self, request: Request, response: Response) -> None:
        """Logs the request's session out and clears the cookie."""
        token = request.cookies.get(COOKIE)
        if token:
            await asyncio.to_thread(self.store.delete_session, hash_token(token))
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")

    async def session_of(self, conn: HTTPConnection, *, fresh: bool = False) -> Session | None:
        """The live session of the request's or websocket's cookie (looked up once per request).

        ``fresh`` looks it up again: a websocket lives on after its handshake, and a
        log-out (on any server process) must end what it may do at once.
        """
        cached = conn.scope.setdefault("state", {}).get("tabletop_session", False)
        if cached is not False and not fresh:
            return cached  # type: ignore[no-any-return]
        token = conn.cookies.get(COOKIE)
        session = None
        if token and len(token) <= 200:
            session = await asyncio.to_thread(self.store.get_session, hash_token(token))
        conn.scope["state"]["tabletop_session"] = session
        return session


def get_accounts(conn: HTTPConnection) -> Accounts:
    """The app's account service."""
    service: Accounts = conn.app.state.accounts
    return service


def is_same_origin(conn: HTTPConnection) -> bool:
    """Whether the request's ``Origin`` names this host (``False`` without one)."""
    origin, host = conn.headers.get("origin"), conn.headers.get("host")
    if not origin or not host:
        return False
    try:
        return urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False


def passes_csrf(request: Request, session: Session) -> bool:
    """Whether a request may use its session: safe methods always, others with the token."""
    if request.method in SAFE_METHODS:
        return True
    if request.headers.get("origin") is not None and not is_same_origin(request):
        return False
    sent = request.headers.get(CSRF_HEADER, "")
    return hmac.compare_digest(sent.encode("utf-8", "replace"), session.csrf.encode())


async def optional_account(request: Request) -> Account | None:
    """The caller's account, or ``None`` (no session, or a state change without the CSRF token)."""
    session = await get_accounts(request).session_of(request)
    if session is None or not passes_csrf(request, session):
        return None
    return session.account


async def required_account(request: Request) -> Account:
    """The caller's account.

    Raises:
        RoomError: 401 ``not_logged_in``; 403 ``csrf`` for a state change without the
            session's CSRF token (or from another origin).
    """
    session = await get_accounts(request).session_of(request)
    if session is None:
        raise RoomError(401, "not_logged_in", "log in first")
    if not passes_csrf(request, session):
        raise RoomError(403, "csrf", f"send the session's CSRF token in the {CSRF_HEADER} header, from this site")
    return session.account


OptionalAccountDep = Annotated[Account | None, Depends(optional_account)]
AccountDep = Annotated[Account, Depends(required_account)]


async def socket_account(ws: WebSocket, *, fresh: bool = False) -> Account | None:
    """The websocket's account: its cookie's session, honoured only from this site's pages.

    ``fresh``: asked again (each action of a socket that had a session), so a socket
    opened before a log-out does not act for the account after it.
    """
    if not is_same_origin(ws):
        return None
    session = await get_accounts(ws).session_of(ws, fresh=fresh)
    return None if session is None else session.account


# ----- binding seats -----------------------------------------------------------------


async def bind_seat(rooms: RoomManager, room: Room, seat: int, account: Account, *, at_creation: bool = False) -> str:
    """Binds a person's seat to ``account``; returns the seat's new (derived) token.

    The seat takes the account's name.  Binding after the first action clears the
    match's ``rated`` flag: nobody joins or claims a rated game midway (``at_creation``:
    the creator's own seat, bound while a bot may already have moved).  A seat already
    bound to ``account`` is left as it is: its token again, the match as rated as it was.

    Raises:
        RoomError: 409 ``already_seated`` if the account holds another seat of the
            match, 403 ``seat_bound`` if this one is another account's, 409
            ``bot_seat`` for a bot's seat.
    """
    async with room.lock:
        current = room.seats[seat]
        if current.is_bot:
            raise RoomError(409, "bot_seat", "a bot plays this seat")
        if any(s.account_id == account.id and s.seat != seat for s in room.seats):
            raise RoomError(409, "already_seated", "you already hold another seat of this match")
        if current.account_id not in (None, account.id):
            raise RoomError(403, "seat_bound", "this seat belongs to another account")
        token = seat_token(account, room.id, seat)
        if current.account_id == account.id:
            # Already the caller's: the same derived token, nothing changes (and a player
            # who is losing cannot make a rated match unrated by claiming their own seat).
            return token
        unrate = room.rated and bool(room.moves) and not at_creation
        await rooms.run_db(
            rooms.store.update_seat_account, room.id, seat, account.id, account.name, hash_token(token), unrate
        )
        bound = dataclasses.replace(current, name=account.name, account_id=account.id, token_hash=hash_token(token))
        room.seats = tuple(bound if s.seat == seat else s for s in room.seats)
        if unrate:
            room.rated = False
        room._view_cache = None  # the seat's name changed within this version
    rooms.broadcast(room)
    return token


async def unrate(rooms: RoomManager, room: Room, *, locked: bool = False) -> None:
    """Makes a match unrated (an abort, say); nothing is rated when it ends.

    ``locked``: the caller holds ``room.lock`` already.
    """
    if locked:
        room.rated = False
        await rooms.run_db(rooms.store.update_unrated, room.id)
        return
    async with room.lock:
        await unrate(rooms, room, locked=True)
