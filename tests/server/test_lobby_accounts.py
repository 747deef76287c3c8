"""Lobby games played by logged-in people: bound seats, rated results, unrated aborts.

Expected ratings come from the OpenSkill library directly (``PlackettLuce().rate``), as in
test_ratings.py, so a missing or doubled update fails here.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce

from tabletop.server.ratings import ranks_of as ratings_ranks_of

from .accounts_helpers import Person, act, register

LIBRARY = PlackettLuce()


def _rating(person: Person) -> dict[str, Any] | None:
    profile = person.get(f"/api/players/{person.name}").json()
    found = [r for r in profile["ratings"] if r["game"] == "toy" and r["family"] == "2p"]
    return found[0] if found else None


def _rated_lobby_game(client: TestClient, alice: Person, bob: Person, **extra: Any) -> tuple[str, str, str]:
    """Alice opens a rated toy game (seat 0, to move), Bob joins: (id, Alice's token, Bob's token)."""
    body = {
        "game": "toy",
        "seats": [{"kind": "me", "name": "ignored"}, {"kind": "open"}],
        "start_player": 0,
        "rated": True,
        **extra,
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


def _play_out(client: TestClient, match_id: str, tokens: dict[int, tuple[str, Person]]) -> dict[str, Any]:
    """Plays the toy match to its end, each seat's first free cell, each as its own person."""
    view: dict[str, Any] = client.get(f"/api/matches/{match_id}").json()
    while not view["terminal"]:
        token, person = tokens[view["current_player"]]
        r = act(client, match_id, token, view["version"], view["legal"]["claim"][0], person)
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def test_a_rematch_binds_the_same_accounts_and_keeps_rated_and_the_clock(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    clock = {"kind": "realtime", "base_s": 300, "increment_s": 2}
    match_id, a, b = _rated_lobby_game(client, alice, bob, clock=clock)
    _play_out(client, match_id, {0: (a, alice), 1: (b, bob)})
    _assert_ratings(alice, bob, 1, 2)
    # Bob's old link alone, or with Alice's session, cannot ask for Bob's rematch seat.
    for person in (None, alice):
        headers = person.headers() if person is not None else {}
        r = client.post(f"/api/matches/{match_id}/rematch", json={"token": b}, headers=headers)
        assert r.status_code == 403 and r.json()["error"] == "seat_bound", r.text
    r = alice.post(f"/api/matches/{match_id}/rematch", {"token": a})
    assert r.status_code == 200, r.text
    alice_new = r.json()
    rematch_id, game = alice_new["id"], alice_new["game"]
    assert alice_new["seat"] == 1 and game["rated"] is True and game["clock"] == {**game["clock"], **clock}
    assert [s["state"] for s in game["seats"]] == ["reserved", "taken"]
    # The seat kept for Bob is kept for his account: nobody else's session takes it ...
    r = client.post(f"/api/matches/{match_id}/rematch", json={"token": b})
    assert r.status_code == 403
    r = bob.post(f"/api/matches/{match_id}/rematch", {"token": b})
    assert r.status_code == 200, r.text
    bob_new = r.json()
    assert bob_new["seat"] == 0 and bob_new["id"] == rematch_id
    # ... and the started rematch binds both seats to the same accounts, rated, clocked.
    view = client.get(f"/api/matches/{rematch_id}").json()
    assert [p["name"] for p in view["players"]] == [bob.name, alice.name]
    table = client.get(f"/api/matches/{rematch_id}/table").json()
    assert table["rated"] is True and table["clock"] == {**table["clock"], **clock}
    assert table["clock"]["remaining_ms"][1] == 300_000  # Bob (seat 0) is to move
    tokens = {0: (bob_new["token"], bob), 1: (alice_new["token"], alice)}
    first = view["legal"]["claim"][0]
    for person in (None, alice):  # Bob's new link alone does not act for him
        r = act(client, rematch_id, bob_new["token"], view["version"], first, person)
        assert r.status_code == 403 and r.json()["error"] == "seat_bound", r.text
    for person in (alice, bob):
        mine = {m["id"]: m for m in person.get("/api/me/matches").json()["matches"]}
        assert mine[rematch_id]["rated"] is True
    end = _play_out(client, rematch_id, tokens)
    # Rated again: the second game moves both ratings once more, as the library says.
    ranks = dict(enumerate(ratings_ranks_of(end["outcome"])))
    first_game = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[1, 2])
    after_a, after_b = first_game[0][0], first_game[1][0]
    [[exp_b], [exp_a]] = LIBRARY.rate([[after_b], [after_a]], ranks=[ranks[0], ranks[1]])
    got_a, got_b = _rating(alice), _rating(bob)
    assert got_a is not None and got_b is not None and got_a["games"] == got_b["games"] == 2
    assert (got_a["mu"], got_a["sigma"]) == (pytest.approx(exp_a.mu), pytest.approx(exp_a.sigma))
    assert (got_b["mu"], got_b["sigma"]) == (pytest.approx(exp_b.mu), pytest.approx(exp_b.sigma))


def test_a_rated_lobby_game_with_a_bot_unrated_in_its_family_starts_unrated(client: TestClient) -> None:
    """Terra Nova's bots have ratings for the duel only (server/ratings.py): a rated Terra Nova
    lobby game for three with a bot starts unrated, and the table says so."""
    alice, bob = register(client), register(client)
    seats = [{"kind": "me", "name": "A"}, {"kind": "open"}, {"kind": "bot", "name": "B", "agent": "random"}]
    created = alice.post("/api/lobby", {"game": "terranova", "seats": seats, "rated": True, "start_player": 0})
    assert created.status_code == 201, created.text
    assert created.json()["game"]["rated"] is True  # asked for; decided when the seats are known
    game_id = created.json()["id"]
    assert bob.post(f"/api/lobby/{game_id}/join", {"name": "B"}).status_code == 200
    assert client.get(f"/api/matches/{game_id}/table").json()["rated"] is False
    for person in (alice, bob):
        mine = {m["id"]: m for m in person.get("/api/me/matches").json()["matches"]}
        assert mine[game_id]["rated"] is False
