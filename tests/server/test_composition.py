"""``create_app`` composes the service: the rooms hear the listeners it hands them, and
nothing else; the listeners fan out in order, and a failing end-of-match listener does
not keep the others from hearing (``docs/server.md``, "What composes what")."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient

from tabletop.server import ratings
from tabletop.server.accounts import Accounts, AccountStore
from tabletop.server.lobby import Lobby
from tabletop.server.lobby_store import ChatStore, LobbyStore, PresenceStore, TableStore
from tabletop.server.rooms import Room, RoomHooks, RoomListeners, RoomManager
from tabletop.server.store import MatchStore
from tabletop.server.tables import Tables


class Recorder(RoomHooks):
    """A listener that writes down what it heard, under its name."""

    def __init__(self, name: str, heard: list[str], *, holding: bool = False, failing: bool = False) -> None:
        self.name = name
        self.heard = heard
        self.holding = holding
        self.failing = failing

    def changed(self, room: Room) -> None:
        self.heard.append(f"{self.name} changed")

    def holds(self, room: Room) -> bool:
        return self.holding

    async def finished(self, room: Room) -> None:
        self.heard.append(f"{self.name} finished")
        if self.failing:
            raise RuntimeError("this listener fails")


ROOM = cast(Room, SimpleNamespace(id="m1"))
"""The listeners here only pass the room on (its id names it in the log)."""


def test_the_app_hands_the_rooms_the_tables_then_the_ratings(client: TestClient) -> None:
    state = client.app.state  # type: ignore[attr-defined]
    rooms: RoomManager = state.rooms
    tables: Tables = state.tables
    lobby: Lobby = state.lobby
    first, second = rooms.listeners.members
    assert first is tables
    assert isinstance(second, ratings.Rater) and second.forfeits == tables.forfeited_seats
    assert rooms.rateable is ratings.bots_rateable
    assert lobby.rooms is rooms and lobby.tables is tables and tables.rooms is rooms


def test_the_app_hands_each_part_its_store_on_one_engine(client: TestClient) -> None:
    state = client.app.state  # type: ignore[attr-defined]
    rooms: RoomManager = state.rooms
    tables: Tables = state.tables
    lobby: Lobby = state.lobby
    accounts: Accounts = state.accounts
    rater: ratings.Rater = state.ratings
    stores: list[tuple[Any, type]] = [
        (rooms.store, MatchStore),
        (tables.store, TableStore),
        (tables.presence, PresenceStore),
        (tables.chat.store, ChatStore),
        (lobby.store, LobbyStore),
        (lobby.account_store, AccountStore),
        (accounts.store, AccountStore),
        (rater.store, ratings.RatingStore),
    ]
    for store, kind in stores:
        assert store.engine is rooms.store.engine  # one engine, opened (and migrated) once
        assert type(store) is kind
    assert lobby.account_store is accounts.store
    assert rooms.listeners.members[1] is rater


def test_listeners_hear_in_the_order_handed_in() -> None:
    heard: list[str] = []
    listeners = RoomListeners()
    assert not listeners.holds(ROOM)  # none: the rooms work alone
    listeners.add(Recorder("a", heard))
    listeners.add(Recorder("b", heard, holding=True))
    listeners.changed(ROOM)
    assert heard == ["a changed", "b changed"]
    assert listeners.holds(ROOM)  # one listener holding the room keeps it


def test_a_failing_end_listener_is_logged_and_the_next_still_hears(caplog: pytest.LogCaptureFixture) -> None:
    heard: list[str] = []
    listeners = RoomListeners()
    listeners.add(Recorder("a", heard, failing=True))
    listeners.add(Recorder("b", heard))
    with caplog.at_level(logging.ERROR, logger="tabletop.server"):
        asyncio.run(listeners.finished(ROOM))
    assert heard == ["a finished", "b finished"]
    assert "a game-over listener failed" in caplog.text
