"""The clock values (server/clocks.py): pure, with time passed in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tabletop.server.clocks import REALTIME, TURN, ClockSettings, MatchClock, replay_switches

T0 = 1_800_000_000_000
REAL = ClockSettings(REALTIME, base_s=600, increment_s=5)


@given(
    st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 3)), max_size=40),
    st.integers(0, 5),
)
def test_every_millisecond_is_charged_to_the_seat_to_move(turns: list[tuple[int, int]], increment_s: int) -> None:
    settings = ClockSettings(REALTIME, base_s=3600, increment_s=increment_s)
    clock = MatchClock.start(settings, 4, 0, T0)
    now, changes = T0, 0
    for ply, (elapsed, seat) in enumerate(turns, start=1):
        now += elapsed
        changes += seat != clock.running
        clock.switch(seat, ply, now)
    used = sum(3_600_000 - clock.left_ms(s, now) for s in range(4)) + 1000 * increment_s * changes
    assert used == now - T0
    assert clock.ply == len(turns)


def test_realtime_increment_and_running_seat() -> None:
    clock = MatchClock.start(REAL, 2, 0, T0)
    assert clock.deadline_ms() == T0 + 600_000
    clock.switch(0, 1, T0 + 3_000)  # another action in the same turn: nothing changes
    assert clock.running == 0 and clock.left_ms(0, T0 + 3_000) == 597_000
    clock.switch(1, 2, T0 + 10_000)
    assert clock.left_ms(0, T0 + 99_000) == 595_000  # stopped, with the increment
    assert clock.left_ms(1, T0 + 15_000) == 595_000
    assert not clock.is_out(T0 + 609_999) and clock.is_out(T0 + 610_000)
    assert clock.left_ms(1, T0 + 10**9) == 0  # never negative


def test_turn_based_time_never_carries_over() -> None:
    settings = ClockSettings(TURN, per_move_s=3600)
    clock = MatchClock.start(settings, 2, 0, T0)
    clock.switch(1, 1, T0 + 10)
    clock.switch(0, 2, T0 + 3_000_000)
    assert clock.remaining_ms == [3_600_000, 3_600_000]
    assert clock.deadline_ms() == T0 + 3_000_000 + 3_600_000


def test_stored_form_round_trips_and_stopped_clock_has_no_deadline() -> None:
    clock = MatchClock.start(REAL, 3, 2, T0)
    clock.switch(None, 4, T0 + 500)
    clock.timed_out.add(1)
    again = MatchClock.from_json(clock.to_json())
    assert again == clock
    assert again.deadline_ms() is None and not again.is_out(T0 + 10**9)


def _person(seat: int | None) -> int | None:
    return seat


def test_replay_switches_at_the_time_of_the_missing_action() -> None:
    clock = MatchClock.start(REAL, 2, 0, T0)  # stored at ply 0; the server died after ply 1
    replay_switches(clock, [0], [T0 + 20_000], 1, _person)
    assert clock.running == 1 and clock.turn_started_ms == T0 + 20_000
    assert clock.remaining_ms[0] == 600_000 - 20_000 + 5_000
    replay_switches(clock, [0], [T0 + 99_000], 1, _person)  # up to date: nothing happens
    assert clock.turn_started_ms == T0 + 20_000


def test_replay_switches_charges_each_missed_turn_to_its_seat() -> None:
    # Another process took three actions (seat 0, seat 1, seat 1 again in the same turn):
    # each seat is charged its own turn, not the whole stretch.
    clock = MatchClock.start(REAL, 2, 0, T0)
    replay_switches(clock, [0, 1, 1], [T0 + 10_000, T0 + 40_000, T0 + 45_000], 0, _person)
    assert clock.ply == 3 and clock.running == 0 and clock.turn_started_ms == T0 + 45_000
    assert clock.remaining_ms[0] == 600_000 - 10_000 + 5_000
    assert clock.remaining_ms[1] == 600_000 - 35_000 + 5_000


def test_replay_switches_stops_no_clock_for_a_bot_seat() -> None:
    clock = MatchClock.start(REAL, 2, 0, T0)
    replay_switches(clock, [0], [T0 + 10_000], 1, lambda seat: None if seat == 1 else seat)
    assert clock.running is None and clock.remaining_ms[0] == 600_000 - 10_000 + 5_000


def test_refill_gives_a_returning_person_time() -> None:
    clock = MatchClock.start(REAL, 2, 0, T0)
    clock.timed_out.add(0)
    clock.refill(0, 60_000, T0 + 700_000)
    assert clock.left_ms(0, T0 + 700_000) == 60_000 and 0 not in clock.timed_out
