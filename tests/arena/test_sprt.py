"""The SPRT maths against published values, and a sequential match on the Coins toy game."""

from __future__ import annotations

import math

import pytest
import toy_game  # noqa: F401 - registers "coins"
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tabletop.ai.clock import budget_clock
from tabletop.arena.sprt import (
    SprtConfig,
    check_sprt,
    elo_to_score,
    estimate_elo,
    llr,
    llr_normal,
    run_sprt,
    score_to_elo,
    sprt_bounds,
)
from tabletop.cli.main import app
from tabletop.compute.batch import LocalBackend
from tabletop.core.errors import ConfigError

# Reference LLRs of fastchess's SPRT tests (logistic model; trinomial W/D/L and
# pentanomial game pairs LL, LD, WL+DD, WD, WW), to two decimals.
TRINOMIAL = [
    ((21404, 40708, 21184), (0.5, 2.5), -1.57),
    ((57433, 106593, 57030), (0.0, 2.0), -2.59),
]
PENTANOMIAL = [
    ((223, 9863, 20279 + 1000, 10037, 246), (0.5, 2.5), -3.07),
    ((871, 26175, 55003 + 980, 26678, 821), (0.0, 2.0), -4.98),
]


@pytest.mark.parametrize(("wdl", "elos", "expected"), TRINOMIAL)
def test_trinomial_llr_matches_published_values(
    wdl: tuple[int, int, int], elos: tuple[float, float], expected: float
) -> None:
    wins, draws, losses = wdl
    counts = {1.0: wins, 0.5: draws, 0.0: losses}
    assert llr(counts, *elos) == pytest.approx(expected, abs=0.006)
    assert llr_normal(counts, *elos) == pytest.approx(expected, abs=0.006)


@pytest.mark.parametrize(("pairs", "elos", "expected"), PENTANOMIAL)
def test_pentanomial_llr_matches_published_values(
    pairs: tuple[int, ...], elos: tuple[float, float], expected: float
) -> None:
    counts = dict(zip((0.0, 0.25, 0.5, 0.75, 1.0), pairs, strict=True))
    assert llr(counts, *elos) == pytest.approx(expected, abs=0.006)


def test_wald_bounds_for_five_percent_errors() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)


def test_bounds_reject_error_rates_that_add_up_to_one() -> None:
    with pytest.raises(ConfigError):
        sprt_bounds(0.5, 0.5)


@given(st.floats(min_value=-800, max_value=800))
def test_elo_and_score_are_inverse(elo: float) -> None:
    assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo, abs=1e-6)


def test_llr_favours_h1_for_a_clear_winner_and_h0_for_a_clear_loser() -> None:
    assert llr({1.0: 45, 0.0: 15}, 0, 50) > 2.94
    assert llr({1.0: 15, 0.0: 45}, 0, 50) < -2.94
    assert llr({}, 0, 50) == 0.0


def test_a_perfect_record_still_has_a_finite_llr() -> None:
    value = llr({1.0: 20}, 0, 100)
    assert math.isfinite(value) and value > 2.94


def test_elo_estimate_of_a_75_percent_score() -> None:
    estimate = estimate_elo({1.0: 75, 0.0: 25}, prior_rounds=0)
    assert estimate.elo == pytest.approx(190.85, abs=0.01)
    assert estimate.low < estimate.elo < estimate.high


def test_a_perfect_record_gets_a_finite_elo_from_one_virtual_even_round() -> None:
    estimate = estimate_elo({1.0: 9})
    assert estimate.score == pytest.approx(0.95)
    assert estimate.elo == pytest.approx(score_to_elo(0.95))


def test_sprt_accepts_h1_for_greedy_against_random_on_coins() -> None:
    config = SprtConfig("coins", "greedy", "random", players=2, elo0=0, elo1=100, max_games=400, seed=3)
    result = run_sprt(config)
    assert result.decision == "H1"
    assert result.llr >= result.bounds[1]
    assert len(result.games) == 2 * result.rounds  # whole rounds only
    assert result.elo.elo > 0


def test_sprt_accepts_h0_for_random_against_greedy_in_three_player_coins() -> None:
    config = SprtConfig("coins", "random", "greedy", players=3, elo0=0, elo1=100, max_games=600, seed=1)
    result = run_sprt(config)
    assert result.decision == "H0"
    # Every round puts the candidate once in every seat.
    seats = [game.lineup.index("random") for game in result.games]
    assert seats[:6] == [0, 1, 2, 0, 1, 2]


def test_sprt_with_workers_decides_like_one_process() -> None:
    config = SprtConfig("coins", "greedy", "random", elo0=0, elo1=100, max_games=400, seed=3)
    # Worker processes are spawned: they learn "coins" by importing its module.
    with LocalBackend(2, plugins=("toy_game",)) as workers:
        assert run_sprt(config, backend=workers).decision == run_sprt(config).decision == "H1"


def test_sprt_stops_undecided_at_the_game_cap() -> None:
    config = SprtConfig("coins", "random", "random", elo0=-10, elo1=10, max_games=6, seed=2)
    result = run_sprt(config)
    assert result.decision == "undecided"
    assert len(result.games) == 6


@pytest.mark.parametrize(
    "config",
    [
        SprtConfig("coins", "greedy", "random", elo0=50, elo1=0),
        SprtConfig("coins", "greedy", "nobody"),
        SprtConfig("coins", "greedy", "random", alpha=0.0),
        SprtConfig("coins", "greedy", "random", players=9),
        SprtConfig("coins", "greedy", "random", clock="sundial"),
        SprtConfig("coins", "greedy", "random", clock="cpu", move_time=0.1),
    ],
)
def test_bad_configs_fail_before_any_game(config: SprtConfig) -> None:
    with pytest.raises(ConfigError):
        check_sprt(config)


@pytest.mark.parametrize(
    ("bots", "clock", "expected"),
    [
        (["greedy", "random"], "wall", ["H1 accepted", "Elo +", "wall clock", "seconds per move"]),
        # The CPU clock: the bots' own budgets and the reported seconds are CPU time.
        (["alphabeta@0.01s", "random"], "cpu", ["H1 accepted", "cpu clock", "CPU seconds per move"]),
    ],
)
def test_sprt_command_prints_the_decision_and_elo(bots: list[str], clock: str, expected: list[str]) -> None:
    args = ["sprt", *bots, "--game", "coins", "--elo1", "100", "--seed", "3", "--max-games", "400", "--clock", clock]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    for text in expected:
        assert text in result.output


def test_sprt_command_rejects_elo1_below_elo0() -> None:
    result = CliRunner().invoke(app, ["sprt", "greedy", "random", "--game", "coins", "--elo0", "10", "--elo1", "5"])
    assert result.exit_code == 2
    assert "elo1 must be greater" in result.output


def test_a_cpu_clock_match_leaves_the_process_on_the_wall_clock() -> None:
    run_sprt(SprtConfig("coins", "greedy", "random", elo1=100, max_games=4, seed=3, clock="cpu"))
    assert budget_clock() == "wall"
