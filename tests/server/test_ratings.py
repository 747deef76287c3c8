"""Ratings: each rated match moves ratings exactly as the OpenSkill library's own ``rate()``.

The expected values are computed here with the library directly (``PlackettLuce().rate``),
never through the server's helpers, so a wrong rank, a wrong prior or a double update
fails these tests.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from tabletop.ai.ladder import LADDER
from tabletop.server import ratings
from tabletop.server.store import make_engine

from .accounts_helpers import Person, act, create_toy_match, register

LIBRARY = PlackettLuce()


def _claim(person: Person, match: dict[str, Any], seat: int) -> str:
    r = person.post(f"/api/matches/{match['id']}/claim", {"token": match["seats"][seat]["token"]})
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def _play_toy_to_the_end(client: TestClient, match_id: str, moves: list[tuple[str, Person | None, str]]) -> None:
    """Plays ``(token, person, cell)`` actions in order; the last one ends the game."""
    for version, (token, person, cell) in enumerate(moves):
        r = act(client, match_id, token, version, cell, person)
        assert r.status_code == 200, r.text
    assert client.get(f"/api/matches/{match_id}").json()["terminal"]


def _rating(person: Person, family: str = "2p") -> dict[str, Any] | None:
    profile = person.get(f"/api/players/{person.name}").json()
    found = [r for r in profile["ratings"] if r["game"] == "toy" and r["family"] == family]
    return found[0] if found else None


def _two_person_game(client: TestClient, alice: Person, bob: Person) -> str:
    """A rated toy game that Alice wins 4 cells to 2."""
    m = create_toy_match(client, alice)
    a, b = m["seats"][0]["token"], _claim(bob, m, 1)
    _play_toy_to_the_end(
        client,
        m["id"],
        [(a, alice, "a"), (a, alice, "b"), (b, bob, "c"), (b, bob, "d"), (a, alice, "e"), (a, alice, "f")],
    )
    return str(m["id"])


def test_a_rated_game_moves_both_ratings_as_the_library_says(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    _two_person_game(client, alice, bob)
    [[winner], [loser]] = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[1, 2])
    got_a, got_b = _rating(alice), _rating(bob)
    assert got_a is not None and got_b is not None
    assert got_a["mu"] == pytest.approx(winner.mu) and got_a["sigma"] == pytest.approx(winner.sigma)
    assert got_b["mu"] == pytest.approx(loser.mu) and got_b["sigma"] == pytest.approx(loser.sigma)
    assert got_a["rating"] == pytest.approx(winner.ordinal()) and got_a["games"] == 1
    assert got_a["mu"] > 25 > got_b["mu"]
    [event] = got_a["history"]
    assert event["rank"] == 1 and event["rating_before"] == pytest.approx(LIBRARY.rating().ordinal())

    # The second game starts from the first one's ratings; Bob wins it.
    m = create_toy_match(client, bob)
    b, a = m["seats"][0]["token"], _claim(alice, m, 1)
    _play_toy_to_the_end(
        client, m["id"], [(b, bob, "a"), (b, bob, "b"), (a, alice, "c"), (a, alice, "d"), (b, bob, "e"), (b, bob, "f")]
    )
    [[bob2], [alice2]] = LIBRARY.rate(
        [[LIBRARY.rating(mu=loser.mu, sigma=loser.sigma)], [LIBRARY.rating(mu=winner.mu, sigma=winner.sigma)]],
        ranks=[1, 2],
    )
    got_a, got_b = _rating(alice), _rating(bob)
    assert got_a is not None and got_b is not None
    assert (got_a["mu"], got_a["sigma"]) == (pytest.approx(alice2.mu), pytest.approx(alice2.sigma))
    assert (got_b["mu"], got_b["sigma"]) == (pytest.approx(bob2.mu), pytest.approx(bob2.sigma))
    assert got_a["games"] == got_b["games"] == 2 and len(got_a["history"]) == 2

    mine = alice.get("/api/me/matches").json()["matches"]
    assert mine[0]["rating"]["rank"] == 2 and mine[0]["rating"]["mu"] == pytest.approx(alice2.mu)


def test_three_seats_that_tie_share_a_place(client: TestClient) -> None:
    alice, bob, carol = register(client), register(client), register(client)
    m = create_toy_match(client, alice, ("human", "human", "human"))
    a, b, c = m["seats"][0]["token"], _claim(bob, m, 1), _claim(carol, m, 2)
    _play_toy_to_the_end(
        client,
        m["id"],
        [(a, alice, "a"), (a, alice, "b"), (b, bob, "c"), (b, bob, "d"), (c, carol, "e"), (c, carol, "f")],
    )
    expected = LIBRARY.rate([[LIBRARY.rating()] for _ in range(3)], ranks=[1, 1, 1])
    for person, [want] in zip((alice, bob, carol), expected, strict=True):
        got = _rating(person, "multi")
        assert got is not None and got["history"][0]["rank"] == 1
        assert (got["mu"], got["sigma"]) == (pytest.approx(want.mu), pytest.approx(want.sigma))
    assert _rating(alice, "2p") is None


def test_a_bot_counts_with_its_fixed_rating(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ratings.BOT_ELO, ("toy", "2p"), {"random": 200.0})
    alice = register(client)
    m = create_toy_match(client, alice, ("human", "random"))
    a = m["seats"][0]["token"]
    # Alice takes a, b; the bot c, d; Alice e, f: she wins.
    version = 0
    for cell in "abef":
        view = client.get(f"/api/matches/{m['id']}").json()
        while view["current_player"] == 1:  # the bot's turn: wait for it
            view = client.get(f"/api/matches/{m['id']}").json()
        version = view["version"]
        legal = [x for moves in view["legal"].values() for x in moves]
        r = act(client, m["id"], a, version, cell if cell in legal else legal[0], alice)
        assert r.status_code == 200, r.text
    view = client.get(f"/api/matches/{m['id']}").json()
    assert view["terminal"]
    bot_mu = 25 + 200 * math.log(10) / 400 * math.sqrt(2) * LIBRARY.beta
    ranks = [1, 2] if view["outcome"]["winners"] == [0] else [2, 1] if view["outcome"]["winners"] == [1] else [1, 1]
    [[want], [bot_after]] = LIBRARY.rate(
        [[LIBRARY.rating()], [LIBRARY.rating(mu=bot_mu, sigma=ratings.BOT_SIGMA)]], ranks=ranks
    )
    got = _rating(alice)
    assert got is not None
    assert (got["mu"], got["sigma"]) == (pytest.approx(want.mu), pytest.approx(want.sigma))
    # The bot's own update is thrown away: its rating is fixed.
    board = client.get("/api/ratings/toy").json()
    assert board["bots"][0]["mu"] == pytest.approx(bot_mu) and board["bots"][0]["bot"] == "random"
    assert bot_after.mu != pytest.approx(bot_mu)


def test_a_bot_without_a_fixed_rating_makes_the_match_unrated(client: TestClient) -> None:
    alice = register(client)
    m = create_toy_match(client, alice, ("random", "human"), me=1)
    a = m["seats"][1]["token"]
    # Known at creation: the match is unrated from the start, not only once it ends.
    assert alice.get("/api/me/matches").json()["matches"][0]["rated"] is False
    while not (view := client.get(f"/api/matches/{m['id']}").json())["terminal"]:
        if view["current_player"] == 1:
            legal = [x for moves in view["legal"].values() for x in moves]
            assert act(client, m["id"], a, view["version"], legal[0], alice).status_code == 200
    assert _rating(alice) is None
    assert alice.get("/api/me/matches").json()["matches"][0]["rated"] is False


def test_a_guest_seat_makes_the_match_unrated(client: TestClient) -> None:
    alice = register(client)
    m = create_toy_match(client, alice)
    a, g = m["seats"][0]["token"], m["seats"][1]["token"]
    _play_toy_to_the_end(
        client,
        m["id"],
        [(a, alice, "a"), (a, alice, "b"), (g, None, "c"), (g, None, "d"), (a, alice, "e"), (a, alice, "f")],
    )
    assert _rating(alice) is None
    assert alice.get("/api/me/matches").json()["matches"][0]["rated"] is False


def test_claiming_ones_own_seat_again_keeps_the_match_rated(client: TestClient) -> None:
    """The rating dodge: a player about to lose re-claims their own bound seat midway."""
    alice, bob = register(client), register(client)
    m = create_toy_match(client, alice)
    a, b = m["seats"][0]["token"], _claim(bob, m, 1)
    assert act(client, m["id"], a, 0, "a", alice).status_code == 200
    assert act(client, m["id"], a, 1, "b", alice).status_code == 200
    assert _claim(bob, {**m, "seats": [m["seats"][0], {"token": b}]}, 1) == b  # the same token back
    rest = [(b, bob, "c"), (b, bob, "d"), (a, alice, "e"), (a, alice, "f")]
    for version, (token, person, cell) in enumerate(rest, start=2):
        assert act(client, m["id"], token, version, cell, person).status_code == 200
    assert client.get(f"/api/matches/{m['id']}").json()["terminal"]
    assert bob.get("/api/me/matches").json()["matches"][0]["rated"] is True
    lost = _rating(bob)
    assert lost is not None and lost["games"] == 1


def test_an_unrated_game_changes_nothing(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    m = create_toy_match(client, alice, rated=False)
    a, b = m["seats"][0]["token"], _claim(bob, m, 1)
    _play_toy_to_the_end(
        client,
        m["id"],
        [(a, alice, "a"), (a, alice, "b"), (b, bob, "c"), (b, bob, "d"), (a, alice, "e"), (a, alice, "f")],
    )
    assert _rating(alice) is None and _rating(bob) is None


def test_a_match_is_rated_exactly_once(client: TestClient, db_url: str) -> None:
    alice, bob = register(client), register(client)
    match_id = _two_person_game(client, alice, bob)
    engine = make_engine(db_url)
    try:
        assert ratings.RatingStore(engine).update_ratings(match_id) is None
        assert ratings.RatingStore(engine).list_unrated_finished() == []
    finally:
        engine.dispose()
    got = _rating(alice)
    assert got is not None and got["games"] == 1


def test_the_leaderboard_ranks_by_displayed_rating(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    _two_person_game(client, alice, bob)
    board = client.get("/api/ratings/toy?family=2p&limit=100").json()
    names = [p["name"] for p in board["players"]]
    assert names.index(alice.name) < names.index(bob.name)
    ranks = [p["rating"] for p in board["players"]]
    assert ranks == sorted(ranks, reverse=True)
    assert board["players"][0]["rank"] == 1 and board["total"] >= 2
    page = client.get("/api/ratings/toy?family=2p&limit=1&offset=1").json()
    assert len(page["players"]) == 1 and page["players"][0]["rank"] == 2


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("/api/ratings/nosuch", 404),
        ("/api/ratings/toy?family=5p", 422),
        ("/api/ratings/toy?family=" + "x" * 100, 422),
        ("/api/ratings/toy?limit=0", 422),
        ("/api/ratings/toy?limit=1001", 422),
        ("/api/ratings/toy?offset=-1", 422),
        ("/api/ratings/toy?offset=1e3", 422),
        ("/api/ratings/toy?offset=99999999999999999999999", 422),
        ("/api/players/nobody" + "x" * 10, 404),
        ("/api/players/" + "x" * 5000, 404),
        ("/api/players/%E2%80%AEevil", 404),
    ],
)
def test_bad_rating_queries_are_refused(client: TestClient, query: str, status: int) -> None:
    r = client.get(query)
    assert r.status_code == status, r.text
    assert set(r.json()) == {"error", "detail"}


def test_bot_ratings_are_per_player_count_family(client: TestClient) -> None:
    """Terra Nova's bots are measured in the duel only: a 3-4 player Terra Nova game with a
    bot is unrated, while the duel with the same bot and a 3-4 player game of people are rated."""
    assert ratings.bot_rating("terranova", 2, "random") is not None
    assert ratings.bot_rating("terranova", 3, "random") is None
    assert ratings.bot_rating("terranova", 4, "casual") is None
    assert ratings.bot_rating("medina", 4, "casual") == ratings.bot_rating("medina", 3, "greedy") is not None
    assert client.get("/api/ratings/terranova?family=multi").json()["bots"] == []
    alice = register(client)
    rated: dict[tuple[str, ...], bool] = {}
    for agents in (("human", "random"), ("human", "human", "random"), ("human", "human", "human")):
        seats = [{"name": f"P{i}", "agent": a, **({"me": True} if i == 0 else {})} for i, a in enumerate(agents)]
        body = {"game": "terranova", "seats": seats, "start_player": 0, "seed": 1, "rated": True}
        r = alice.post("/api/matches", body)
        assert r.status_code == 201, r.text
        mine = {m["id"]: m for m in alice.get("/api/me/matches").json()["matches"]}
        rated[agents] = mine[r.json()["id"]]["rated"]
    assert rated == {
        ("human", "random"): True,
        ("human", "human", "random"): False,
        ("human", "human", "human"): True,  # asked rated; it stays so if every person logs in
    }
    assert ratings.bots_rateable("medina", ["human", "human", "mcts:2@0.5s"])
    assert not ratings.bots_rateable("medina", ["human", "human", "nosuch"])


def test_the_leaderboard_lists_the_bot_ladder_for_real_games(client: TestClient) -> None:
    board = client.get("/api/ratings/medina?family=multi").json()
    bots = {b["bot"]: b for b in board["bots"]}
    # The ladder's measured levels (ai.ladder), shifted so that Casual starts where people do.
    assert bots["casual"]["mu"] == pytest.approx(25.0) and bots["casual"]["elo"] == pytest.approx(1500.0)
    assert bots["club"]["rating"] > bots["casual"]["rating"] > bots["beginner"]["rating"]
    # (but a level that plays a network on three seats only: test below)
    medina = {level.key: level.elo["medina"] for level in LADDER if "medina" in level.elo and not level.scale_specs}
    for key, elo in medina.items():
        assert bots[key]["elo"] == pytest.approx(1500.0 + elo - medina["casual"])


# ----- the pure parts ---------------------------------------------------------------------


def test_ranks_put_winners_first_then_scores() -> None:
    assert ratings.ranks_of({"scores": [4, 2], "winners": [0]}) == [1, 2]
    assert ratings.ranks_of({"scores": [3, 5, 3, 1], "winners": [1]}) == [2, 1, 2, 4]
    assert ratings.ranks_of({"scores": [5, 5, 1], "winners": [1]}) == [2, 1, 3]  # a tie-break
    assert ratings.ranks_of({"scores": [2, 2, 2], "winners": [0, 1, 2]}) == [1, 1, 1]


def test_forfeited_seats_rank_last_and_tie() -> None:
    # A seat lost to a bot's takeover ranks last whatever its score.
    assert ratings.ranks_of({"scores": [9, 5, 3], "winners": [0]}, forfeited={0}) == [3, 1, 2]
    assert ratings.ranks_of({"scores": [9, 5, 3, 1], "winners": [0]}, forfeited={0, 3}) == [3, 1, 2, 3]
    # A resignation without a result: the others share first place.
    assert ratings.ranks_of(None, forfeited={1}, num_seats=3) == [1, 3, 1]


def test_bot_specs_resolve_to_ladder_entries() -> None:
    assert ratings.bot_spec_key("mcts:3@1s") == "mcts:3"
    assert ratings.bot_spec_key("mcts") == "mcts:3"
    assert ratings.bot_spec_key("greedy:4") == "greedy"
    assert ratings.bot_spec_key("Casual@1s") == "casual"  # the lobby default is a named level
    assert ratings.bot_rating("medina", 3, "club") == ratings.bot_rating("medina", 3, "mcts:2") is not None
    assert ratings.bot_rating("terranova", 2, "casual") == (pytest.approx(25.0), ratings.BOT_SIGMA)
    assert ratings.bot_rating("terranova", 2, "greedy") == ratings.bot_rating("terranova", 2, "casual")
    # A level is rated by its key; the engine spec of a level on a clock is not that
    # level on another machine, and a spec no SPRT measured is unrated.
    assert ratings.bot_rating("terranova", 2, "strong") is not None
    assert ratings.bot_rating("terranova", 2, "native:3,horizon=160@0.1cpu") is None
    assert ratings.bot_rating("terranova", 2, "native:2") is None
    assert ratings.bot_rating("terranova", 3, "club") is None  # Terra Nova for 3-4: not measured
    assert ratings.bot_rating("terranova", 2, "greedy:9") is None
    assert ratings.bot_rating("nosuch", 2, "random") is None


def test_one_elo_step_is_the_same_win_chance_on_both_scales() -> None:
    # Two settled players 200 Elo apart: Elo's chance and Plackett-Luce's agree.
    elo_chance = 1 / (1 + 10 ** (-200 / 400))
    strong = LIBRARY.rating(mu=ratings.elo_to_mu(200), sigma=1e-6)
    weak = LIBRARY.rating(mu=ratings.elo_to_mu(0), sigma=1e-6)
    [p_strong, _] = LIBRARY.predict_rank([[strong], [weak]])
    c = math.sqrt(2) * LIBRARY.beta
    pl_chance = 1 / (1 + math.exp(-(strong.mu - weak.mu) / c))
    assert pl_chance == pytest.approx(elo_chance)
    assert p_strong[0] == 1  # the library ranks the stronger first


@given(st.floats(min_value=-3000, max_value=3000, allow_nan=False))
def test_elo_and_mu_convert_both_ways(elo: float) -> None:
    assert ratings.mu_to_elo(ratings.elo_to_mu(elo)) == pytest.approx(elo, abs=1e-6)


@given(st.lists(st.integers(min_value=0, max_value=50), min_size=2, max_size=4))
def test_rate_is_the_library_rate(scores: list[int]) -> None:
    top = max(scores)
    result = {"scores": scores, "winners": [i for i, s in enumerate(scores) if s == top]}
    ranks = ratings.ranks_of(result)
    players = [(25.0 + i, 8.0 - i) for i in range(len(scores))]
    expected = LIBRARY.rate([[LIBRARY.rating(mu=m, sigma=s)] for m, s in players], ranks=ranks)
    got = ratings.rate(players, ranks)
    assert got == [(pytest.approx(t[0].mu), pytest.approx(t[0].sigma)) for t in expected]


def test_a_rated_match_left_unrated_by_a_stop_is_rated_at_the_next_start(
    client: TestClient, settings: Any, db_url: str
) -> None:
    from sqlalchemy import delete, update

    from tabletop.server.app import create_app
    from tabletop.server.store import rating_events
    from tabletop.server.store import ratings as rating_rows

    alice, bob = register(client), register(client)
    match_id = _two_person_game(client, alice, bob)
    # As if the server had stopped between the last action's commit and the rating.
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            ids = select_account_ids(conn, (alice.name, bob.name))
            conn.execute(delete(rating_events).where(rating_events.c.match_id == match_id))
            conn.execute(delete(rating_rows).where(rating_rows.c.account_id.in_(ids), rating_rows.c.game == "toy"))
            conn.execute(update(rating_rows).where(rating_rows.c.account_id.in_(ids)).values(games=0))
        assert match_id in ratings.RatingStore(engine).list_unrated_finished()
    finally:
        engine.dispose()
    assert _rating(alice) is None
    with TestClient(create_app(settings)) as restarted:
        # Rated at the start of a process that leads, or (on PostgreSQL, where the first
        # app still leads) by the leader's next sweep.
        deadline = time.monotonic() + 10
        while (got := _rating(Person(restarted, alice.name, alice.cookie, alice.csrf))) is None:
            assert time.monotonic() < deadline, "the match was never rated"
            time.sleep(0.1)
    [[winner], _] = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[1, 2])
    assert got is not None and got["games"] == 1 and got["mu"] == pytest.approx(winner.mu)


def select_account_ids(conn: Any, names: tuple[str, ...]) -> list[int]:
    from sqlalchemy import select

    from tabletop.server.store import accounts

    return [row.id for row in conn.execute(select(accounts.c.id).where(accounts.c.name.in_(names)))]


def test_medina_second_edition_is_its_own_rating_pool(client: TestClient) -> None:
    """Medina's second edition is rated apart from the first (families ``2p-2e``,
    ``multi-2e``), its bots at the Elo of the ladder measured there (not the first
    edition's); a bot no SPRT placed there makes a match unrated at creation."""
    from tabletop.core.protocol import GameConfig

    second = GameConfig(num_players=3, ruleset="second_edition")
    assert ratings.pool_of("medina", second) == "2e"
    assert ratings.pool_of("medina", GameConfig(num_players=3).to_json()) == ""
    assert ratings.pool_of("terranova", GameConfig(num_players=2)) == ""
    assert ratings.family(2, "2e") == "2p-2e" and ratings.family(4, "2e") == "multi-2e"
    assert ratings.bots_rateable("medina", ["human", "human", "greedy"])
    assert ratings.bots_rateable("medina", ["human", "human", "club"], second)
    assert not ratings.bots_rateable("medina", ["human", "human", "mcts:5"], second)
    two = ratings.BOT_ELO[("medina", "2p-2e")]
    three = ratings.BOT_ELO[("medina", "multi-2e")]
    assert two["club"] == LADDER[2].elo["medina-2e-2p"] - LADDER[1].elo["medina-2e-2p"]
    assert three["club"] == LADDER[2].elo["medina-2e-3p"] - LADDER[1].elo["medina-2e-3p"]
    assert three["club"] != ratings.BOT_ELO[("medina", "multi")]["club"]  # measured apart
    bots = client.get("/api/ratings/medina?family=2p-2e").json()["bots"]
    assert {b["bot"] for b in bots} >= {"beginner", "casual", "club"}
    alice = register(client)
    for agent, rated in (("club", True), ("mcts:5", False)):
        seats = [{"name": "P0", "agent": "human", "me": True}, {"name": "P1", "agent": agent}]
        body = {"game": "medina", "seats": seats, "ruleset": "second_edition", "seed": 1, "rated": True}
        r = alice.post("/api/matches", body)
        assert r.status_code == 201, r.text
        mine = {m["id"]: m for m in alice.get("/api/me/matches").json()["matches"]}
        assert mine[r.json()["id"]]["rated"] is rated, agent


def test_two_matches_of_one_person_rated_at_once_chain_their_ratings(
    client: TestClient, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes rating two of Alice's matches at the same moment (PostgreSQL): the
    second reads the rating the first wrote, and neither fails on her first rating row."""
    import threading

    from sqlalchemy import delete, select, update

    from tabletop.server.bus import is_postgres
    from tabletop.server.store import rating_events
    from tabletop.server.store import ratings as rating_rows

    if not is_postgres(db_url):
        pytest.skip("one process on SQLite: no two ratings at once")
    alice, bob, carol = register(client), register(client), register(client)
    first, second = _two_person_game(client, alice, bob), _two_person_game(client, alice, carol)
    engines = [make_engine(db_url) for _ in range(2)]
    try:
        with engines[0].begin() as conn:  # as if both had ended while no process could rate
            conn.execute(delete(rating_events).where(rating_events.c.match_id.in_([first, second])))
            conn.execute(delete(rating_rows).where(rating_rows.c.game == "toy"))
            conn.execute(update(rating_rows).values(games=0))
        for engine in engines:  # connected before the race starts
            with engine.connect():
                pass
        # Each rating thinks a while between reading the ratings and writing them: the
        # other one's read falls in between unless it waits for the first to commit.
        library_rate = ratings.rate
        monkeypatch.setattr(ratings, "rate", lambda *args: (time.sleep(0.3), library_rate(*args))[1])
        start = threading.Barrier(2)
        failures: list[BaseException] = []

        def rate(engine: Any, match_id: str) -> None:
            start.wait()
            try:
                ratings.RatingStore(engine).update_ratings(match_id)
            except BaseException as exc:  # reported below
                failures.append(exc)

        threads = [threading.Thread(target=rate, args=pair) for pair in zip(engines, (first, second), strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert failures == []
        with engines[0].connect() as conn:
            [alice_id] = select_account_ids(conn, (alice.name,))
            events = conn.execute(
                select(rating_events).where(rating_events.c.account_id == alice_id).order_by(rating_events.c.id)
            ).all()
    finally:
        for engine in engines:
            engine.dispose()
    assert len(events) == 2
    assert (events[1].mu_before, events[1].sigma_before) == (events[0].mu, events[0].sigma)
    got = _rating(alice)
    assert got is not None and got["games"] == 2 and got["mu"] == pytest.approx(events[1].mu)


def test_a_level_whose_network_plays_one_seat_count_of_a_family_is_not_rated_in_it() -> None:
    from tabletop.server.ratings import BOT_ELO

    # Grandmaster's Medina Elo is its network's with three seats; with four it plays
    # Master's search: no fixed rating of the family fits both, and Master's stays Master's.
    multi = BOT_ELO[("medina", "multi")]
    assert "grandmaster" not in multi and multi["native:4"] == multi["master"]
