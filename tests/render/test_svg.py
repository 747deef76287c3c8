"""What every board drawing shares: the choice of the last turns to mark."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tabletop.render.svg import Recent, last_turns


def test_last_turns_keeps_each_seats_newest_turn_within_one_round() -> None:
    history = [(0, "a"), (0, "b"), (1, "c"), (1, "d"), (2, "e"), (0, "f"), (0, "g"), (1, "h")]
    # Back from the newest: 1's turn, 0's, 2's, then 1 again: the walk stops there.
    assert last_turns(history, first_ply=10) == [
        Recent(14, 2, "e"),
        Recent(15, 0, "f"),
        Recent(16, 0, "g"),
        Recent(17, 1, "h"),
    ]
    assert last_turns([]) == []


@given(st.lists(st.integers(min_value=0, max_value=3), max_size=40))
def test_last_turns_is_a_tail_with_one_turn_per_seat(seats: list[int]) -> None:
    history = [(seat, i) for i, seat in enumerate(seats)]
    recent = last_turns(history)
    assert [(r.seat, r.move) for r in recent] == history[len(history) - len(recent) :]
    assert [r.ply for r in recent] == list(range(len(history) - len(recent), len(history)))
    runs = [r.seat for k, r in enumerate(recent) if k == 0 or recent[k - 1].seat != r.seat]
    assert len(runs) == len(set(runs))  # one turn per seat
    if len(recent) < len(history):  # stopped at an older turn of a seat already kept
        assert history[len(history) - len(recent) - 1][0] in runs
