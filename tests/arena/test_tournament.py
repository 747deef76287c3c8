"""Seat rotation, reproducibility, the results table and the written outputs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from toy_game import GAME

from tabletop.ai.agent import RandomAgent
from tabletop.arena.match import play_match
from tabletop.arena.report import write_outputs
from tabletop.arena.tournament import (
    TournamentConfig,
    head_to_head,
    lineups,
    play_game,
    rating_inputs,
    results_table,
    run_tournament,
)
from tabletop.compute.batch import LocalBackend
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.core.record import replay


def test_every_bot_sits_in_every_seat_equally_often() -> None:
    seats = lineups(["a", "b", "c"], 3)
    assert len(seats) == 6
    for seat in range(3):
        assert Counter(lineup[seat] for lineup in seats) == {"a": 2, "b": 2, "c": 2}


def test_repeated_entry_fills_seats() -> None:
    assert lineups(["m", "r", "r"], 3) == [("m", "r", "r"), ("r", "m", "r"), ("r", "r", "m")]


def test_fewer_seats_than_entries_plays_every_pairing_both_ways() -> None:
    assert sorted(lineups(["a", "b", "c"], 2)) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]


def test_more_seats_than_entries_is_an_error() -> None:
    with pytest.raises(ConfigError, match="list a bot more than once"):
        lineups(["a", "b"], 3)


def test_games_cycle_through_the_lineups() -> None:
    config = TournamentConfig(game="coins", bots=("greedy", "random"), games=4, seed=1)
    assert [play_game(config, i).lineup for i in range(4)] == [
        ("greedy", "random"),
        ("random", "greedy"),
        ("greedy", "random"),
        ("random", "greedy"),
    ]


def test_seeded_tournament_is_reproducible_and_independent_of_jobs() -> None:
    config = TournamentConfig(game="coins", bots=("mcts:1", "greedy", "random"), games=6, players=2, seed=11)
    once = run_tournament(config, jobs=1)
    again = run_tournament(config, jobs=1)
    with LocalBackend(2, plugins=("toy_game",)) as workers:  # spawned: they import "coins"
        parallel = run_tournament(config, backend=workers)
    key = [(g.index, g.lineup, g.seed, g.record.actions, g.scores) for g in once]
    assert key == [(g.index, g.lineup, g.seed, g.record.actions, g.scores) for g in again]
    assert key == [(g.index, g.lineup, g.seed, g.record.actions, g.scores) for g in parallel]


def test_results_table_counts_wins_and_shared_wins() -> None:
    config = TournamentConfig(game="coins", bots=("greedy", "random"), games=8, seed=2)
    games = run_tournament(config)
    stats = {s.bot: s for s in results_table(games)}
    assert stats["greedy"].seats == stats["random"].seats == 8
    shared = sum(1 for g in games if len(g.winners) > 1)
    assert stats["greedy"].shared_wins == stats["random"].shared_wins == shared
    assert stats["greedy"].wins + stats["random"].wins + shared == 8
    assert len(rating_inputs(games)) == 8


def test_records_replay_and_outputs_are_written(tmp_path: Path) -> None:
    config = TournamentConfig(game="coins", bots=("greedy", "random"), games=2, seed=3)
    games = run_tournament(config)
    for game in games:
        assert replay(game.record).outcome() == game.record.result
        assert [p.agent for p in game.record.players] == list(game.lineup)
    from tabletop.arena.ratings import rate

    ratings = rate(rating_inputs(games), anchor="random", bootstrap=10)
    written = write_outputs(tmp_path, config, games, results_table(games), ratings)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["coins-0000.json", "coins-0001.json"]
    assert json.loads(written[0].read_text())["config"]["bots"] == ["greedy", "random"]
    assert written[2].read_text().startswith("<svg")


def test_match_rejects_a_wrong_number_of_agents() -> None:
    with pytest.raises(ValueError, match="agents"):
        play_match(GAME.new_initial_state(GameConfig(num_players=3, seed=0)), [RandomAgent(0)])


def test_head_to_head_rates_of_a_pair_add_up_to_one() -> None:
    config = TournamentConfig(game="coins", bots=("greedy", "random", "random"), games=3, seed=4)
    pairs = head_to_head(run_tournament(config))
    (ahead, n), (behind, m) = pairs[("greedy", "random")], pairs[("random", "greedy")]
    assert n == m == 6  # 3 games x 2 random seats
    assert ahead + behind == pytest.approx(1.0)
