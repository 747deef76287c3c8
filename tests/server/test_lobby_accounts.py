"""Lobby games played by logged-in people: bound seats, rated results, unrated aborts.

Expected ratings come from the OpenSkill library directly (``PlackettLuce().rate``), as in
test_ratings.py, so a missing or doubled update fails here.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce

from .accounts_helpers import Person, act, register

LIBRARY = PlackettLuce()


def _rating(person: Person) -> dict[str, Any] | None:
    profile = person.get(f"/api/players/{person.name}").json()
    found = [r for r in profile["ratings"] if r["game"] == "toy" and r["family"] == "2p"]
    return found[0] if found else None


def _rated_lobby_game(client: TestClient, alice: Person, bob: Person) -> tuple[str, str, str]:
    """Alice opens a rated toy game (seat 0, to move), Bob joins: (id, Alice's token, Bob's token)."""
    body = {
        "game": "toy",
        "seats": [{"kind": "me", "name": "ignored"}, {"kind": "open"}],
        "start_player": 0,
        "rated": True,
    }
    created = alice.post("/api/lobby", body)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    joined = bob.post(f"/api/lobby/{game_id}/join", {"name": "ignored too"})
    assert joined.status_code == 200, joined.text
    return game_id, created.json()["token"], joined.json()["token"]


def _assert_ratings(alice: Person, bob: Person, alice_rank: int, bob_rank: int) -> None:
    [[expected_a], [expected_b]] = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[alice_rank, bob_rank])
    got_a, got_b = _rating(alice), _rating(bob)
    assert got_a is not None and got_b is not None
    assert (got_a["mu"], got_a["sigma"]) == (pytest.approx(expected_a.mu), pytest.approx(expected_a.sigma))
    assert (got_b["mu"], got_b["sigma"]) == (pytest.approx(expected_b.mu), pytest.approx(expected_b.sigma))
    assert got_a["games"] == got_b["games"] == 1


def test_a_rated_lobby_game_played_to_the_end_rates_both_accounts(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    match_id, a, b = _rated_lobby_game(client, alice, bob)
    view = client.get(f"/api/matches/{match_id}").json()
    assert [p["name"] for p in view["players"]] == [alice.name, bob.name]
    moves = [(a, alice, "a"), (a, alice, "b"), (b, bob, "c"), (b, bob, "d"), (a, alice, "e"), (a, alice, "f")]
    for version, (token, person, cell) in enumerate(moves):
        r = act(client, match_id, token, version, cell, person)
        assert r.status_code == 200, r.text
    assert client.get(f"/api/matches/{match_id}").json()["terminal"]
    _assert_ratings(alice, bob, 1, 2)  # Alice wins 4 cells to 2


def test_a_two_player_resign_rates_the_other_seat_first(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    match_id, a, _b = _rated_lobby_game(client, alice, bob)
    assert act(client, match_id, a, 0, "a", alice).status_code == 200
    r = alice.post(f"/api/matches/{match_id}/resign", {"token": a})
    assert r.status_code == 200, r.text
    _assert_ratings(alice, bob, 2, 1)


def test_an_aborted_rated_lobby_game_changes_no_rating(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    match_id, a, b = _rated_lobby_game(client, alice, bob)
    assert client.get(f"/api/matches/{match_id}/table").json()["rated"] is True
    [mine] = alice.get("/api/me/matches").json()["matches"]
    assert mine["id"] == match_id and mine["rated"] is True  # the match was created rated
    assert mine["link"] == f"/play/{match_id}#t={a}"  # the lobby's token is the account's
    assert act(client, match_id, a, 0, "a", alice).status_code == 200
    r = bob.post(f"/api/matches/{match_id}/abort", {"token": b})
    assert r.status_code == 200 and r.json()["rated"] is False
    assert _rating(alice) is None and _rating(bob) is None
    [mine] = alice.get("/api/me/matches").json()["matches"]
    assert mine["finished"] is True and mine["rated"] is False


def test_a_joined_seat_is_bound_to_its_account(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    match_id, a, b = _rated_lobby_game(client, alice, bob)
    assert act(client, match_id, a, 0, "a", alice).status_code == 200
    assert act(client, match_id, a, 1, "b", alice).status_code == 200
    # Bob's token alone (no session, or Alice's) does not act for Bob's seat.
    for person in (None, alice):
        r = act(client, match_id, b, 2, "c", person)
        assert r.status_code == 403 and r.json()["error"] == "seat_bound", r.text
    assert act(client, match_id, b, 2, "c", bob).status_code == 200


def test_one_account_takes_one_seat_of_a_lobby_game(client: TestClient) -> None:
    alice = register(client)
    body = {"game": "toy", "seats": [{"kind": "me", "name": "A"}, {"kind": "open"}, {"kind": "open"}]}
    created = alice.post("/api/lobby", body)
    assert created.status_code == 201, created.text
    r = alice.post(f"/api/lobby/{created.json()['id']}/join", {"name": "again"})
    assert r.status_code == 409 and r.json()["error"] == "already_seated"
