"""Elo ratings with confidence intervals from multiplayer game results.

Every game is split into its pairwise results: for two seats played by different bots,
the higher final score wins the pair (1), equal scores draw (0.5 each).  The ratings
are the maximum-likelihood Bradley-Terry strengths of those pairwise results, on the
Elo scale (a 400-point gap means 10:1 odds), found by Hunter's MM iteration.

A bot that won every pair would get an infinite rating, so ``prior_draws`` virtual
draws are added between every two bots that met (as BayesElo does); 0 gives the pure
maximum-likelihood fit, which the tests compare with hand-worked numbers.  Confidence
intervals come from a seeded bootstrap over whole games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of strength."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """What the ratings need from one game: who sat where and the final scores."""

    bots: tuple[str, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Rating:
    """One bot's Elo and its confidence interval (equal to the Elo if not bootstrapped)."""

    bot: str
    elo: float
    low: float
    high: float
    pairs: float


PairCounts = dict[tuple[str, str], float]
"""``(a, b) -> points a scored against b`` (1 per pair won, 0.5 per pair drawn)."""


def pairwise(results: Sequence[GameResult]) -> PairCounts:
    """The pairwise points of every bot against every other, over all ``results``."""
    points: PairCounts = {}
    for game in results:
        seats = range(len(game.bots))
        for i in seats:
            for j in seats:
                a, b = game.bots[i], game.bots[j]
                if i == j or a == b:
                    continue
                si, sj = game.scores[i], game.scores[j]
                won = 1.0 if si > sj else 0.5 if si == sj else 0.0
                points[(a, b)] = points.get((a, b), 0.0) + won
                points.setdefault((b, a), 0.0)
    return points


def fit_elo(
    points: PairCounts,
    *,
    anchor: str | None = None,
    prior_draws: float = 1.0,
    iterations: int = 10_000,
    tolerance: float = 1e-10,
) -> dict[str, float]:
    """Bradley-Terry maximum-likelihood ratings on the Elo scale.

    Args:
        points: pairwise points, from :func:`pairwise`.
        anchor: the bot rated 0 (e.g. ``"random"``); ``None`` makes the mean 0.
        prior_draws: virtual draws added to every pair of bots that met.
        iterations: the MM iteration cap.
        tolerance: stop when no strength changes by more than this (relative).

    Returns:
        The Elo of every bot that appears in ``points``.
    """
    bots = sorted({a for a, _ in points} | {b for _, b in points})
    wins = dict.fromkeys(bots, 0.0)
    games: dict[tuple[str, str], float] = {}
    for (a, b), p in points.items():
        wins[a] += p
        games[(a, b)] = games.get((a, b), 0.0) + p
        games[(b, a)] = games.get((b, a), 0.0) + p
    if prior_draws > 0:
        for a, b in list(games):
            if a < b:
                games[(a, b)] += prior_draws
                games[(b, a)] += prior_draws
                wins[a] += prior_draws / 2
                wins[b] += prior_draws / 2
    opponents: dict[str, list[tuple[str, float]]] = {bot: [] for bot in bots}
    for (a, b), n in games.items():
        opponents[a].append((b, n))
    gamma = dict.fromkeys(bots, 1.0)
    for _ in range(iterations):
        change = 0.0
        new: dict[str, float] = {}
        for bot in bots:
            denominator = sum(n / (gamma[bot] + gamma[other]) for other, n in opponents[bot])
            # A bot with no points at all would go to 0 (-inf Elo): keep it tiny instead.
            new[bot] = max(wins[bot], 1e-9) / denominator if denominator > 0 else gamma[bot]
        norm = math.exp(sum(math.log(g) for g in new.values()) / len(new))
        for bot in bots:
            value = new[bot] / norm
            change = max(change, abs(value - gamma[bot]) / gamma[bot])
            gamma[bot] = value
        if change < tolerance:
            break
    elo = {bot: ELO_SCALE * math.log(g) for bot, g in gamma.items()}
    offset = elo[anchor] if anchor is not None and anchor in elo else sum(elo.values()) / len(elo)
    return {bot: value - offset for bot, value in elo.items()}


def rate(
    results: Sequence[GameResult],
    *,
    anchor: str | None = None,
    prior_draws: float = 1.0,
    bootstrap: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[Rating]:
    """Elo ratings with bootstrap confidence intervals, best first.

    Args:
        results: the games played.
        anchor: the bot rated 0 (``None``: the mean is 0).
        prior_draws: virtual draws per pair of bots (see :func:`fit_elo`).
        bootstrap: resamples of the games for the interval (0: no interval).
        confidence: the interval's coverage.
        seed: seeds the resampling, so the intervals are reproducible.

    Returns:
        One :class:`Rating` per bot, sorted by Elo (highest first).
    """
    points = pairwise(results)
    if not points:
        return []
    elo = fit_elo(points, anchor=anchor, prior_draws=prior_draws)
    samples: dict[str, list[float]] = {bot: [] for bot in elo}
    rng = random.Random(seed)
    for _ in range(bootstrap):
        resample = [results[rng.randrange(len(results))] for _ in results]
        fitted = fit_elo(pairwise(resample), anchor=anchor, prior_draws=prior_draws, iterations=2000, tolerance=1e-7)
        for bot, value in fitted.items():
            samples[bot].append(value)
    pairs_played: dict[str, float] = {}
    for (a, b), p in points.items():
        pairs_played[a] = pairs_played.get(a, 0.0) + p + points[(b, a)]
    ratings = []
    tail = (1.0 - confidence) / 2.0
    for bot, value in elo.items():
        ordered = sorted(samples[bot])
        if ordered:
            low = ordered[int(tail * (len(ordered) - 1))]
            high = ordered[math.ceil((1.0 - tail) * (len(ordered) - 1))]
        else:
            low = high = value
        ratings.append(Rating(bot, value, min(low, value), max(high, value), pairs_played.get(bot, 0.0)))
    return sorted(ratings, key=lambda r: r.elo, reverse=True)


def expected_score(elo_a: float, elo_b: float) -> float:
    """The expected score of a bot rated ``elo_a`` against one rated ``elo_b``."""
    return 1.0 / (1.0 + math.pow(10.0, (elo_b - elo_a) / 400.0))
