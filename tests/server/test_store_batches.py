"""The group commit: many matches' actions in one transaction, each its own compare-and-set."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from functools import partial

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.server.bots import BotPool
from tabletop.server.rooms import RoomManager
from tabletop.server.store import AppendAction, MatchStore, RemoveAction, SeatRow, open_database

from . import toygame  # noqa: F401 - registers the "toy" game


@pytest.fixture
def store(db_url: str) -> Iterator[MatchStore]:
    s = MatchStore(open_database(db_url))
    try:
        yield s
    finally:
        s.close()
        s.engine.dispose()


def _match(store: MatchStore) -> str:
    match_id = f"batch{secrets.token_hex(6)}"
    store.add_match(match_id, "toy", {}, False, [SeatRow(0, "A", "human", None), SeatRow(1, "B", "human", None)])
    return match_id


def _stored(store: MatchStore, match_id: str) -> tuple[int, list[str]]:
    row = store.get_match(match_id)
    assert row is not None
    return row.version, [action for _, action in row.actions]


def test_a_stale_write_is_refused_alone(store: MatchStore) -> None:
    first, second, third = _match(store), _match(store), _match(store)
    answers = store.commit_writes(
        [
            AppendAction(first, 0, 0, 0, "a", None),
            AppendAction(second, 5, 0, 0, "a", None),  # the match is at 0, not 5
            AppendAction(third, 0, 0, 0, "a", None),
        ]
    )
    assert answers == [True, False, True]
    assert _stored(store, first) == (1, ["a"])
    assert _stored(store, second) == (0, [])
    assert _stored(store, third) == (1, ["a"])


def test_one_match_moves_twice_in_a_batch(store: MatchStore) -> None:
    # Each compare-and-set sees the writes before it in the same transaction.
    match_id, other = _match(store), _match(store)
    answers = store.commit_writes(
        [
            AppendAction(match_id, 0, 0, 0, "a", None),
            AppendAction(other, 0, 0, 0, "x", None),
            AppendAction(match_id, 1, 1, 1, "b", None),
            AppendAction(match_id, 1, 1, 1, "c", None),  # stale: the action before moved it to 2
        ]
    )
    assert answers == [True, True, True, False]
    assert _stored(store, match_id) == (2, ["a", "b"])
    assert _stored(store, other) == (1, ["x"])


def test_a_failing_write_fails_alone_and_the_others_commit(store: MatchStore) -> None:
    first, second = _match(store), _match(store)
    assert store.commit_writes([AppendAction(first, 0, 0, 0, "a", None)]) == [True]
    answers = store.commit_writes(
        [
            AppendAction(second, 0, 0, 0, "a", None),
            AppendAction(first, 1, 0, 1, "b", None),  # ply 0 is stored already: the insert fails
            AppendAction(second, 1, 1, 1, "b", None),
        ]
    )
    assert answers[0] is True and answers[2] is True
    assert isinstance(answers[1], Exception)
    assert _stored(store, first) == (1, ["a"])  # its version did not move either
    assert _stored(store, second) == (2, ["a", "b"])
    # The writer goes on after a failure.
    assert store.commit_writes([AppendAction(first, 1, 1, 1, "b", {"winners": [1]})]) == [True]
    assert _stored(store, first) == (2, ["a", "b"])


def test_an_undo_in_a_batch(store: MatchStore) -> None:
    match_id = _match(store)
    assert store.commit_writes([AppendAction(match_id, 0, 0, 0, "a", None)]) == [True]
    assert store.commit_writes([RemoveAction(match_id, 1, 0), RemoveAction(match_id, 1, 0)]) == [True, False]
    assert _stored(store, match_id) == (2, [])


# ----- the rooms' writer: on the event loop on SQLite, on the database thread otherwise ----


async def _rooms_scenario(db_url: str, body: Callable[[RoomManager, MatchStore], Awaitable[None]]) -> None:
    store = MatchStore(open_database(db_url))
    bots = BotPool("thread", 1, 5.0)
    rooms = RoomManager(store, bots)
    try:
        await body(rooms, store)
    finally:
        await rooms.close()
        bots.shutdown()
        store.close()
        store.engine.dispose()


def _committing_threads(store: MatchStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    threads: list[str] = []
    commit = store.commit_writes

    def recorded(writes: Sequence[AppendAction | RemoveAction]) -> list[bool | Exception]:
        threads.append(threading.current_thread().name)
        return commit(writes)

    monkeypatch.setattr(store, "commit_writes", recorded)
    return threads


def test_actions_commit_on_the_event_loop_on_sqlite_only(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(rooms: RoomManager, store: MatchStore) -> None:
        threads = _committing_threads(store, monkeypatch)
        room, tokens = await rooms.create("toy", GameConfig(num_players=2, start_player=0), [("A", "human")] * 2)
        assert tokens[0] is not None and tokens[1] is not None
        await asyncio.gather(rooms.act(room.id, tokens[0], 0, "a"))
        loop_thread = threading.current_thread().name
        if store.engine.dialect.name == "sqlite":
            assert threads == [loop_thread]
        else:
            assert threads and loop_thread not in threads
        assert _stored(store, room.id) == (1, ["a"])

    asyncio.run(_rooms_scenario(db_url, body))


def test_a_write_is_committed_before_a_later_database_job(db_url: str) -> None:
    """A job given to the database thread after a write sees the write (the loop's commit
    is made first, not raced by the thread)."""

    async def body(rooms: RoomManager, store: MatchStore) -> None:
        match_id = _match(store)
        for version in range(20):
            write = asyncio.create_task(rooms._write(AppendAction(match_id, version, version, 0, "a", None)))
            await asyncio.sleep(0)  # the write waits for its commit
            # Waited for with the event loop blocked: only a commit made before the job was
            # handed over can be seen by it.
            row = rooms._submit(partial(store.get_match, match_id)).result(timeout=10)
            assert row is not None and row.version == version + 1
            assert await write is True

    asyncio.run(_rooms_scenario(db_url, body))


def test_a_write_waits_behind_a_busy_database_thread(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the database thread has a job, a write goes to it, after that job."""

    async def body(rooms: RoomManager, store: MatchStore) -> None:
        threads = _committing_threads(store, monkeypatch)
        match_id = _match(store)
        release = threading.Event()
        order: list[str] = []

        def slow_job() -> None:
            release.wait(10)
            order.append("job")

        job = asyncio.ensure_future(rooms.run_db(slow_job))
        write = asyncio.create_task(rooms._write(AppendAction(match_id, 0, 0, 0, "a", None)))
        await asyncio.sleep(0.05)
        assert not write.done() and threads == []
        release.set()
        assert await write is True
        await job
        assert order == ["job"] and threads and threads[0] != threading.current_thread().name
        assert _stored(store, match_id) == (1, ["a"])

    asyncio.run(_rooms_scenario(db_url, body))


def test_closing_ends_every_bot_turn_before_the_database_thread(db_url: str) -> None:
    """A bot still thinking when the server stops is cancelled and has ended when
    ``close()`` returns: a move it wrote after the database thread stopped would fail."""

    async def scenario() -> bool:
        store = MatchStore(open_database(db_url))
        bots = BotPool("thread", 1, 5.0)
        rooms = RoomManager(store, bots, bot_delay_s=30.0)  # the bot waits out its delay
        task: asyncio.Task[None] | None = None
        try:
            room, _ = await rooms.create(
                "toy", GameConfig(num_players=2, start_player=0), [("B", "random"), ("A", "human")]
            )
            task = room.bot_task
            assert task is not None
            await asyncio.sleep(0)
            assert not task.done()
        finally:
            await rooms.close()
            ended = task is not None and task.done() and task.cancelled()
            bots.shutdown()
            store.close()
            store.engine.dispose()
        return ended

    assert asyncio.run(scenario())
