"""The group commit: many matches' actions in one transaction, each its own compare-and-set."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from tabletop.server.store import AppendAction, RemoveAction, SeatRow, Store


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store(db_url)
    try:
        yield s
    finally:
        s.close()


def _match(store: Store) -> str:
    match_id = f"batch{secrets.token_hex(6)}"
    store.create_match(match_id, "toy", {}, False, [SeatRow(0, "A", "human", None), SeatRow(1, "B", "human", None)])
    return match_id


def _stored(store: Store, match_id: str) -> tuple[int, list[str]]:
    row = store.load_match(match_id)
    assert row is not None
    return row.version, [action for _, action in row.actions]


def test_a_stale_write_is_refused_alone(store: Store) -> None:
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


def test_a_failing_write_fails_alone_and_the_others_commit(store: Store) -> None:
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


def test_an_undo_in_a_batch(store: Store) -> None:
    match_id = _match(store)
    assert store.commit_writes([AppendAction(match_id, 0, 0, 0, "a", None)]) == [True]
    assert store.commit_writes([RemoveAction(match_id, 1, 0), RemoveAction(match_id, 1, 0)]) == [True, False]
    assert _stored(store, match_id) == (2, [])
