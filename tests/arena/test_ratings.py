"""Elo from pairwise results, checked against hand-worked numbers."""

from __future__ import annotations

import math

import pytest

from tabletop.arena.ratings import GameResult, expected_score, fit_elo, pairwise, rate

ELO_3_TO_1 = 400 * math.log10(3)  # 190.85: the gap at which the stronger scores 75 %


def test_two_bots_three_wins_in_four() -> None:
    results = [GameResult(("a", "b"), (5, 1))] * 3 + [GameResult(("b", "a"), (7, 2))]
    elo = fit_elo(pairwise(results), anchor="b", prior_draws=0)
    assert elo["a"] == pytest.approx(ELO_3_TO_1, abs=1e-6)
    assert elo["b"] == 0.0


def test_three_bots_with_consistent_strengths_9_3_1() -> None:
    # Strengths 9:3:1 predict a-b 75 %, b-c 75 %, a-c 90 %; results exactly matching those
    # rates are the maximum-likelihood fit, so the gaps are 400*log10(3) each.
    results = (
        [GameResult(("a", "b"), (1, 0))] * 3
        + [GameResult(("a", "b"), (0, 1))]
        + [GameResult(("b", "c"), (1, 0))] * 3
        + [GameResult(("b", "c"), (0, 1))]
        + [GameResult(("a", "c"), (1, 0))] * 9
        + [GameResult(("a", "c"), (0, 1))]
    )
    elo = fit_elo(pairwise(results), anchor="c", prior_draws=0)
    assert elo["b"] == pytest.approx(ELO_3_TO_1, abs=1e-6)
    assert elo["a"] == pytest.approx(2 * ELO_3_TO_1, abs=1e-6)


def test_multiplayer_game_splits_into_pairs_and_ties_are_draws() -> None:
    points = pairwise([GameResult(("a", "b", "c"), (10, 10, 3))])
    assert points[("a", "b")] == points[("b", "a")] == 0.5
    assert points[("a", "c")] == 1.0 and points[("c", "a")] == 0.0


def test_same_bot_in_two_seats_is_not_paired_with_itself() -> None:
    points = pairwise([GameResult(("a", "r", "r"), (3, 2, 1))])
    assert ("r", "r") not in points
    assert points[("a", "r")] == 2.0 and points[("r", "a")] == 0.0


def test_mean_anchor_and_draws_even() -> None:
    elo = fit_elo(pairwise([GameResult(("a", "b"), (1, 1))] * 4), prior_draws=0)
    assert elo["a"] == pytest.approx(0.0, abs=1e-9) and elo["b"] == pytest.approx(0.0, abs=1e-9)


def test_prior_keeps_a_perfect_record_finite() -> None:
    # 4 wins + 1 virtual draw: 4.5 of 5, odds 9:1, 400*log10(9) = 381.7 points.
    elo = fit_elo(pairwise([GameResult(("a", "b"), (1, 0))] * 4), anchor="b", prior_draws=1.0)
    assert elo["a"] == pytest.approx(400 * math.log10(9), abs=1e-6)


def test_bootstrap_interval_contains_the_estimate_and_is_seeded() -> None:
    results = [GameResult(("a", "b"), (1, 0))] * 7 + [GameResult(("a", "b"), (0, 1))] * 3
    first = rate(results, anchor="b", bootstrap=100, seed=3)
    assert first == rate(results, anchor="b", bootstrap=100, seed=3)
    top = first[0]
    assert top.bot == "a" and top.low <= top.elo <= top.high and top.low < top.high


def test_expected_score() -> None:
    assert expected_score(ELO_3_TO_1, 0.0) == pytest.approx(0.75)
    assert expected_score(0.0, 0.0) == 0.5
