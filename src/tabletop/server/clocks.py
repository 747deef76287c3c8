"""Clocks kept by the server: pure values, no I/O, time passed in (an injectable clock).

Two kinds (``docs/server.md``, "Clocks"):

- **turn-based** (asynchronous, correspondence): each turn may last at most
  ``per_move_s`` (hours or days); the time left never carries over to the next turn.
- **real-time** (Fischer): each seat has a bank of ``base_s`` for the whole game and gains
  ``increment_s`` at the end of each of its turns.

A clock runs for the seat to move while that seat is a person's; a bot seat (from the
start, or a person's seat taken over by a bot) is never charged.  A turn is a run of
actions by the same seat (Terra Nova's turns have up to three): the clock switches, and
the increment is added, when the seat to move changes.

Everything is in integer milliseconds since the Unix epoch (``now_ms``), so a stored clock
means the same after a restart: the deadline of the running seat is
``turn_started_ms + remaining_ms[seat]``, and time keeps running while the server is down.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ClockKind = Literal["turn", "realtime"]
TURN: ClockKind = "turn"
REALTIME: ClockKind = "realtime"

Now = Callable[[], float]
"""The server's time source in seconds since the epoch (``time.time``; tests pass a fake)."""


def wall_clock() -> float:
    """The default time source."""
    return time.time()


def to_ms(seconds: float) -> int:
    """Seconds (a time source's reading) as integer milliseconds."""
    return round(seconds * 1000)


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """How a match's clock runs (chosen by its creator, checked against the server's limits).

    Attributes:
        kind: ``"turn"`` or ``"realtime"``.
        per_move_s: turn-based: the most one turn may last.
        base_s: real-time: each seat's time for the whole game.
        increment_s: real-time: added to a seat's time at the end of each of its turns.
    """

    kind: ClockKind
    per_move_s: int = 0
    base_s: int = 0
    increment_s: int = 0

    def to_json(self) -> dict[str, Any]:
        """The stored and sent form."""
        return {
            "kind": self.kind,
            "per_move_s": self.per_move_s,
            "base_s": self.base_s,
            "increment_s": self.increment_s,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClockSettings:
        """Reads :meth:`to_json`'s output."""
        kind = data["kind"]
        if kind not in (TURN, REALTIME):
            raise ValueError(f"unknown clock kind {kind!r}")
        return cls(kind, int(data["per_move_s"]), int(data["base_s"]), int(data["increment_s"]))

    def initial_ms(self) -> int:
        """Each seat's time when the game starts (a turn-based seat: one turn's)."""
        return 1000 * (self.per_move_s if self.kind == TURN else self.base_s)


@dataclass(slots=True)
class MatchClock:
    """The clock of one match: every seat's time left, and whose turn runs since when.

    ``remaining_ms[s]`` is seat ``s``'s time at the start of the running turn (for the
    running seat) or now (for the others, whose clocks are stopped).
    """

    settings: ClockSettings
    remaining_ms: list[int]
    running: int | None
    """The seat whose clock runs, or ``None`` (a bot's turn, the game over or not started)."""
    turn_started_ms: int
    ply: int
    """The number of actions the clock has seen (to tell a stale stored clock after a crash)."""
    timed_out: set[int] = field(default_factory=set)
    started_ms: int = 0
    """When the game's clock started (for the benchmark's drift check: every moment since
    is charged to exactly one seat while people alone play)."""
    version: int = 0
    """The match version this clock reflects: of two copies (a process's and the stored
    one) the later is brought up to date (:func:`replay_switches`)."""

    @classmethod
    def start(cls, settings: ClockSettings, num_seats: int, first: int | None, now_ms: int) -> MatchClock:
        """A fresh clock whose first turn (``first``'s, unless ``None``) begins at ``now_ms``."""
        return cls(settings, [settings.initial_ms()] * num_seats, first, now_ms, 0, started_ms=now_ms)

    def left_ms(self, seat: int, now_ms: int) -> int:
        """Seat ``seat``'s time left at ``now_ms`` (never below zero)."""
        left = self.remaining_ms[seat]
        if seat == self.running:
            left -= max(0, now_ms - self.turn_started_ms)
        return max(0, left)

    def deadline_ms(self) -> int | None:
        """When the running seat's time is up, or ``None`` if no clock runs."""
        if self.running is None:
            return None
        return self.turn_started_ms + self.remaining_ms[self.running]

    def is_out(self, now_ms: int) -> bool:
        """Whether the running seat's time is up at ``now_ms``."""
        deadline = self.deadline_ms()
        return deadline is not None and now_ms >= deadline

    def switch(self, next_seat: int | None, ply: int, now_ms: int) -> None:
        """Ends the running turn at ``now_ms`` and starts ``next_seat``'s (``None``: stop).

        The same seat to move again (another action in its turn) changes nothing but the
        action count.  A finished turn-based turn leaves the seat a full turn for next
        time; a finished real-time turn keeps what is left and adds the increment.
        """
        self.ply = ply
        if next_seat == self.running:
            return
        if self.running is not None:
            seat = self.running
            if self.settings.kind == TURN:
                self.remaining_ms[seat] = self.settings.initial_ms()
            else:
                self.remaining_ms[seat] = self.left_ms(seat, now_ms) + 1000 * self.settings.increment_s
        self.running = next_seat
        self.turn_started_ms = now_ms
        if next_seat is not None and self.settings.kind == TURN:
            self.remaining_ms[next_seat] = self.settings.initial_ms()

    def refill(self, seat: int, minimum_ms: int, now_ms: int) -> None:
        """Gives ``seat`` at least ``minimum_ms`` from ``now_ms`` (a person taking a seat back)."""
        self.timed_out.discard(seat)
        if seat == self.running:
            self.turn_started_ms = now_ms
            self.remaining_ms[seat] = max(minimum_ms, 0)
        else:
            self.remaining_ms[seat] = max(self.remaining_ms[seat], minimum_ms)

    def snapshot(self, now_ms: int) -> dict[str, Any]:
        """What clients are sent: each seat's time at ``now_ms`` and the server's ``now_ms``.

        A client counts the running seat down from the moment it received this, so the
        difference between its own clock and the server's does not matter.
        """
        return {
            **self.settings.to_json(),
            "remaining_ms": [self.left_ms(s, now_ms) for s in range(len(self.remaining_ms))],
            "running": self.running,
            "server_now_ms": now_ms,
            "deadline_ms": self.deadline_ms(),
            "turn_started_ms": self.turn_started_ms,
            "started_ms": self.started_ms,
        }

    def to_json(self) -> dict[str, Any]:
        """The stored form (what a restart reads back)."""
        return {
            "settings": self.settings.to_json(),
            "remaining_ms": list(self.remaining_ms),
            "running": self.running,
            "turn_started_ms": self.turn_started_ms,
            "ply": self.ply,
            "timed_out": sorted(self.timed_out),
            "started_ms": self.started_ms,
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchClock:
        """Reads :meth:`to_json`'s output."""
        return cls(
            ClockSettings.from_json(data["settings"]),
            [int(x) for x in data["remaining_ms"]],
            None if data["running"] is None else int(data["running"]),
            int(data["turn_started_ms"]),
            int(data["ply"]),
            {int(s) for s in data.get("timed_out", ())},
            int(data.get("started_ms", 0)),
            int(data.get("version", 0)),
        )


def replay_switches(
    clock: MatchClock,
    actors: Sequence[int],
    action_ms: Sequence[int],
    to_move: int | None,
    runs_for: Callable[[int | None], int | None],
) -> None:
    """Brings a clock up to the match's actions it has not seen, at the times they were stored.

    Whichever process accepted an action, it stored the action's time; a clock that
    missed actions (another process took them, or this one died before storing its
    clock) makes each missed switch at that action's time, so every seat is charged
    exactly its turns.  The seat to move after an action is the next action's actor, and
    ``to_move`` after the last; ``runs_for(seat)`` is the seat whose clock runs when
    ``seat`` is to move (``None`` for a bot's seat or no seat).
    """
    count = len(actors)
    for ply in range(min(clock.ply, count), count):
        after = actors[ply + 1] if ply + 1 < count else to_move
        clock.switch(runs_for(after), ply + 1, action_ms[ply])
    clock.ply = count
