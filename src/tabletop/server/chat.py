"""Chat per match: plain text, length-limited, rate-limited; players write, everyone reads.

A message is cleaned (:func:`clean_chat_text`) and stored; the client shows it with
``textContent``, never as HTML, and each viewer can mute a seat (a client-side choice,
kept in the browser).  Limits: ``chat_max_chars``, ``chat_messages_per_minute`` (per
seat), ``chat_history`` (messages kept in memory and sent to a newcomer).
"""

from __future__ import annotations

import json
import unicodedata
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tabletop.server import lobby_store as db
from tabletop.server.guard import SlidingWindow
from tabletop.server.rooms import RoomError
from tabletop.server.store import now as iso_now

if TYPE_CHECKING:
    from tabletop.server.tables import MatchTable, Tables


@dataclass(slots=True)
class ChatMessage:
    n: int
    seat: int
    text: str
    at: str

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "seat": self.seat, "text": self.text, "at": self.at}


def clean_chat_text(text: str) -> str:
    """A chat line as plain text: control and format characters removed, spaces collapsed.

    The client shows it as text (``textContent``), never as HTML, so markup is harmless;
    removing controls keeps a line from breaking the page's layout or the logs.
    """
    kept = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(kept.split())


class Chat:
    """The chat of every lobby match."""

    def __init__(self, lobby: Tables, store: db.ChatStore) -> None:
        self.lobby = lobby
        self.store = store
        self._windows = SlidingWindow(lobby.settings.chat_messages_per_minute)

    # ----- chat ----------------------------------------------------------------------

    async def load(self, table: MatchTable) -> None:
        if table.chat is not None:
            return
        rows, next_n = await self.lobby.rooms.run_db(
            self.store.list_chat, table.match_id, self.lobby.settings.chat_history
        )
        if table.chat is None:  # another request may have loaded it meanwhile
            table.chat = deque((ChatMessage(*r) for r in rows), maxlen=self.lobby.settings.chat_history)
            table.chat_next = next_n

    async def history(self, match_id: str) -> list[dict[str, Any]]:
        """The match's last ``chat_history`` messages, oldest first.

        Read from the database, not this process's copy: a line posted through another
        process is there too.
        """
        await self.lobby.table(match_id)
        rows, _ = await self.lobby.rooms.run_db(self.store.list_chat, match_id, self.lobby.settings.chat_history)
        return [ChatMessage(*r).to_json() for r in rows]

    async def say(
        self, match_id: str, token: str, text: str, client: str, account_id: int | None = None
    ) -> dict[str, Any]:
        """Posts a chat line for the token's seat (players only; spectators read).

        Raises:
            RoomError: 403 bad token, 404 no such lobby match, 422 empty or too long,
                429 more than ``chat_messages_per_minute`` from this seat.
        """
        room, table = await self.lobby.table(match_id)
        seat = self.lobby.rooms.seat_for_token(room, token, client, account_id)
        line = clean_chat_text(text)
        if not line:
            raise RoomError(422, "empty_message", "the message is empty")
        if len(line) > self.lobby.settings.chat_max_chars:
            raise RoomError(
                422, "message_too_long", f"a message may be at most {self.lobby.settings.chat_max_chars} characters"
            )
        key = f"{match_id}:{seat}"
        wait = self._windows.retry_after(key)
        if wait is not None:
            raise RoomError(429, "too_many_messages", "too many chat messages; wait a little", retry_after=wait)
        self._windows.hit(key)
        await self.load(table)
        assert table.chat is not None
        at = iso_now()
        # The number comes from the database, so processes sharing it never repeat one.
        n = await self.lobby.rooms.run_db(self.store.add_chat_line, match_id, seat, line, at)
        message = ChatMessage(n, seat, line, at)
        self._deliver(match_id, [message])
        return message.to_json()

    def _deliver(self, match_id: str, messages: list[ChatMessage]) -> None:
        """Keeps the lines this process has not sent yet and sends them to its sockets."""
        table = self.lobby.tables.get(match_id)
        room = self.lobby.rooms.loaded(match_id)
        if table is None or table.chat is None or room is None:
            return  # not held here: a later visit reads the chat from the database
        known = {m.n for m in table.chat}
        fresh = [m for m in messages if m.n not in known]
        if not fresh:
            return
        table.chat.extend(fresh)
        if any(m.n < table.chat_next for m in fresh):  # a line from elsewhere came late
            table.chat = deque(sorted(table.chat, key=lambda m: m.n), maxlen=table.chat.maxlen)
        table.chat_next = max(table.chat_next, max(m.n for m in fresh) + 1)
        self.lobby.send_all(
            room, json.dumps({"type": "chat", "match": match_id, "messages": [m.to_json() for m in fresh]})
        )

    def heard(self, match_id: str, n: int) -> None:
        """The bus: line ``n`` of ``match_id`` was stored (by any process); this process's
        sockets get it, once."""
        table = self.lobby.tables.get(match_id)
        if table is None or table.chat is None or any(m.n == n for m in table.chat):
            return
        first = min(n, table.chat_next)

        async def fetch() -> None:
            rows = await self.lobby.rooms.run_db(self.store.list_chat_from, match_id, first)
            self._deliver(match_id, [ChatMessage(*r) for r in rows])

        self.lobby._spawn(fetch())
