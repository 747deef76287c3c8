"""The bus listener: the matches' channels it follows, and its hand-over to the event
loop (in order, one wake-up for many notices)."""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tabletop.server.bus import PostgresListener


def _listener(loop: asyncio.AbstractEventLoop) -> PostgresListener:
    # Never started: the test plays the listening thread itself.
    return PostgresListener("postgresql+psycopg://u:p@127.0.0.1:1/x", loop, {}, lambda: None)


def test_notices_reach_the_loop_in_order_with_few_wake_ups() -> None:
    async def scenario() -> tuple[list[int], int]:
        loop = asyncio.get_running_loop()
        listener = _listener(loop)
        heard: list[int] = []
        wake_ups = 0
        drain = listener._drain

        def counted_drain() -> None:
            nonlocal wake_ups
            wake_ups += 1
            drain()

        listener._drain = counted_drain  # type: ignore[method-assign]

        def thread() -> None:
            for n in range(2000):
                listener._hand_over(heard.append, (n,))

        worker = threading.Thread(target=thread)
        worker.start()
        while worker.is_alive() or len(heard) < 2000:
            await asyncio.sleep(0.001)
        return heard, wake_ups

    heard, wake_ups = asyncio.run(scenario())
    assert heard == list(range(2000))
    assert wake_ups < 2000  # the loop slept on a millisecond at a time: notices waited together


def test_a_failing_handler_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> list[Any]:
        listener = _listener(asyncio.get_running_loop())
        heard: list[Any] = []

        def fails(_n: int) -> None:
            raise ValueError("boom")

        for handler, n in ((heard.append, 1), (fails, 2), (heard.append, 3)):
            listener._hand_over(handler, (n,))
        await asyncio.sleep(0.01)
        return heard

    assert asyncio.run(scenario()) == [1, 3]
    assert "a bus handler failed" in caplog.text


def test_a_closed_loop_is_said_and_the_next_hand_over_tries_again() -> None:
    loop = asyncio.new_event_loop()
    listener = _listener(loop)
    loop.close()
    with pytest.raises(RuntimeError):
        listener._hand_over(print, ("x",))
    with pytest.raises(RuntimeError):  # not silently queued for ever behind a drain that never ran
        listener._hand_over(print, ("y",))


def test_notices_of_matches_not_held_stay_in_the_listeners_thread() -> None:
    from tabletop.server.bus import CHANNEL, CHAT_CHANNEL, SEATS_CHANNEL, match_channel

    async def scenario() -> list[tuple[str, Any]]:
        loop = asyncio.get_running_loop()
        heard: list[tuple[str, Any]] = []
        handlers = {
            CHANNEL: lambda *args: heard.append(("match", args)),
            SEATS_CHANNEL: lambda *args: heard.append(("seats", args)),
            CHAT_CHANNEL: lambda *args: heard.append(("chat", args)),
        }
        held = {"m1"}
        listener = PostgresListener(
            "postgresql+psycopg://u:p@127.0.0.1:1/x", loop, handlers, lambda: None, holds=held.__contains__
        )
        listener._dispatch(match_channel("m1"), "m1 4 3 0 P1-abc")
        # Not held (discarded, its UNLISTEN not yet sent): dropped before the loop.
        listener._dispatch(match_channel("m2"), "m2 4 3 0 P1-abc")
        listener._dispatch(SEATS_CHANNEL, "m2 1")
        listener._dispatch(SEATS_CHANNEL, "m1 1")
        listener._dispatch(CHAT_CHANNEL, "m2 7")  # chat is not filtered here: its handler looks at the tables
        listener._dispatch(match_channel("m1"), "not a notice")
        listener._dispatch(match_channel("m1"), "m2 4 3 0 P1-abc")  # another match's notice on m1's channel
        listener._dispatch(CHANNEL, "m1 4 3 0 P1-abc")  # no process sends on the handler's key
        listener._dispatch("other", "m1 4")
        await asyncio.sleep(0.01)
        return heard

    heard = asyncio.run(scenario())
    assert [kind for kind, _ in heard] == ["match", "seats", "chat"]
    assert heard[0][1][:2] == ("m1", 4) and heard[0][1][2] is not None
    assert heard[1][1] == ("m1", 1) and heard[2][1] == ("m2", 7)


def test_followed_matches_tell_what_to_listen_on_and_wake_the_listener() -> None:
    import select

    from tabletop.server.bus import FollowedMatches

    followed = FollowedMatches()
    followed.add("a")
    wake = followed.fileno()  # made after a change: readable at once
    assert select.select([wake], [], [], 0)[0] == [wake]
    followed.add("b")
    assert followed.take() == (["a", "b"], [])
    assert select.select([wake], [], [], 0)[0] == [] and not followed.has_changes
    followed.discard("a")
    followed.add("c")
    followed.discard("c")  # never LISTENed: nothing to undo
    assert select.select([wake], [], [], 0)[0] == [wake]
    assert followed.take() == ([], ["a"])
    followed.discard("b")
    followed.add("b")  # held again before its UNLISTEN: LISTENed again (its versions read again)
    assert followed.take() == (["b"], [])
    assert "b" in followed and "a" not in followed and len(followed) == 1
    followed.reset()  # a new connection listens on nothing
    assert followed.take() == (["b"], [])


TEST_DB = os.environ.get("TABLETOP_TEST_DB")


@pytest.mark.skipif(not TEST_DB or not TEST_DB.startswith("postgresql"), reason="needs PostgreSQL ($TABLETOP_TEST_DB)")
def test_a_process_hears_the_matches_it_follows_and_only_those() -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    from tabletop.server.bus import CHANNEL, FollowedMatches, match_channel

    assert TEST_DB is not None
    conninfo = make_url(TEST_DB).set(drivername="postgresql").render_as_string(hide_password=False)
    ids = [f"follow{secrets.token_hex(4)}-_X{i}" for i in range(3)]  # as token_urlsafe makes them

    async def scenario() -> tuple[list[tuple[str, int]], list[list[str]]]:
        loop = asyncio.get_running_loop()
        heard: list[tuple[str, int]] = []
        listened: list[list[str]] = []
        followed = FollowedMatches()
        followed.add(ids[0])
        listener = PostgresListener(
            TEST_DB,
            loop,
            {CHANNEL: lambda match_id, version, _step: heard.append((match_id, version))},
            lambda: None,
            holds=followed.__contains__,
            followed=followed,
            listened=listened.append,
        )
        await asyncio.to_thread(listener.start)

        async def until(condition: Callable[[], bool]) -> None:
            for _ in range(200):
                if condition():
                    return
                await asyncio.sleep(0.01)

        try:
            with psycopg.connect(conninfo, autocommit=True) as sender:

                def notify(match_id: str, version: int) -> None:
                    sender.execute("SELECT pg_notify(%s, %s)", (match_channel(match_id), f"{match_id} {version}"))

                notify(ids[0], 1)
                notify(ids[1], 1)  # not followed: never heard
                await until(lambda: len(heard) >= 1)
                followed.add(ids[1])  # the listener is woken, LISTENs, then says so
                await until(lambda: bool(listened))
                notify(ids[1], 2)
                followed.discard(ids[0])
                await until(lambda: len(heard) >= 2)
                await asyncio.sleep(0.1)  # its UNLISTEN
                notify(ids[0], 3)
                notify(ids[2], 3)
                notify(ids[1], 4)
                await until(lambda: len(heard) >= 3)
                await asyncio.sleep(0.1)
        finally:
            await asyncio.to_thread(listener.close)
        return heard, listened

    heard, listened = asyncio.run(scenario())
    assert heard == [(ids[0], 1), (ids[1], 2), (ids[1], 4)]
    assert listened == [[ids[1]]]
