"""The bus listener's hand-over to the event loop: in order, one wake-up for many notices."""

from __future__ import annotations

import asyncio
import threading
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
    from tabletop.server.bus import CHANNEL, CHAT_CHANNEL, SEATS_CHANNEL

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
        listener._dispatch(CHANNEL, "m1 4 3 0 P1-abc")
        listener._dispatch(CHANNEL, "m2 4 3 0 P1-abc")  # not held: dropped before the loop
        listener._dispatch(SEATS_CHANNEL, "m2 1")
        listener._dispatch(SEATS_CHANNEL, "m1 1")
        listener._dispatch(CHAT_CHANNEL, "m2 7")  # chat is not filtered here: its handler looks at the tables
        listener._dispatch(CHANNEL, "not a notice")
        listener._dispatch("other", "m1 4")
        await asyncio.sleep(0.01)
        return heard

    heard = asyncio.run(scenario())
    assert [kind for kind, _ in heard] == ["match", "seats", "chat"]
    assert heard[0][1][:2] == ("m1", 4) and heard[0][1][2] is not None
    assert heard[1][1] == ("m1", 1) and heard[2][1] == ("m2", 7)
