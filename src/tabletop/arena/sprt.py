"""Sequential probability ratio tests (SPRT) between two bots, as chess engine testing does.

A match plays games until the evidence decides between two hypotheses about the
candidate's Elo against the baseline: H0 ``elo <= elo0`` and H1 ``elo >= elo1``, with
error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (the reverse).  After each
finished *round* the log-likelihood ratio (LLR) of the results is compared with
Wald's bounds ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``; the match stops
as soon as it leaves them.  Fishtest and cutechess-cli test engines this way.

**Rounds and scores.**  A round is one deal (one config seed) played once from every
seating of the candidate against the baseline: two games for two players (the
pentanomial "game pair" with colours reversed), three for three players (the candidate
in each seat, the baseline in the others), four for four.  The candidate's score in a
game is the fraction of baseline seats it finished ahead of (1 for higher final score,
0.5 for equal): in two-player games the plain win/draw/loss score, in three or four the
pairwise score that :mod:`tabletop.arena.ratings` fits Elo to, so the Elo tested here is
on the same scale as the arena's ratings.  A round's score is the mean of its games.
Playing every seating of the same deal cancels the start player's and the deal's
advantage within the round, which lowers the variance (the point of pentanomial
statistics in fishtest).

**The LLR** is the generalized SPRT (GSPRT) of Van den Bergh: the round scores are a
sample of a discrete distribution; its log-likelihood under "the mean score is ``s1``"
against "the mean score is ``s0``" (``s = 1 / (1 + 10 ** (-elo / 400))``, logistic Elo) is
maximized over all distributions with that mean (:func:`llr`).  :func:`llr_normal` is the
normal approximation ``N (s1 - s0) (2 m - s0 - s1) / (2 var)`` that cutechess-cli uses.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Final, Literal

from tabletop.ai.agent import make_agent
from tabletop.ai.clock import BUDGET_CLOCKS, WALL, using_budget_clock
from tabletop.arena.match import new_game, play_match
from tabletop.arena.tournament import ArenaGame, derived_seed
from tabletop.compute.batch import Backend, LocalBackend, LostCallback
from tabletop.core.errors import ConfigError
from tabletop.core.registry import make

REGULARIZATION: Final = 1e-3
"""Pseudo-count added at the scores 0 and 1 (fishtest's ``regularize``), so that a run of
identical results (every game won) still has a variance and a finite LLR."""

Decision = Literal["H1", "H0", "undecided"]
"""``H1``: the candidate is at least ``elo1`` stronger; ``H0``: at most ``elo0``; ``undecided``:
the game cap was reached first."""


def elo_to_score(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference that gives the expected ``score`` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's lower and upper LLR bounds for error rates ``alpha`` and ``beta``.

    Raises:
        ConfigError: unless both rates are in (0, 1) and ``alpha + beta < 1``.
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ConfigError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, got {alpha} and {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _distribution(counts: Mapping[float, float]) -> tuple[float, list[tuple[float, float]]]:
    """The number of samples and the regularized empirical distribution ``[(value, p)]``."""
    total = sum(counts.values())
    padded = dict(counts)
    for extreme in (0.0, 1.0):
        padded[extreme] = padded.get(extreme, 0.0) + REGULARIZATION
    mass = sum(padded.values())
    return total, sorted((value, n / mass) for value, n in padded.items() if n > 0)


def _mle_with_mean(pdf: Sequence[tuple[float, float]], mean: float) -> list[float]:
    """The distribution on ``pdf``'s values closest to it (max. likelihood) with this ``mean``.

    It is ``p_i / (1 + x (a_i - mean))`` for the ``x`` that solves
    ``sum p_i (a_i - mean) / (1 + x (a_i - mean)) = 0`` (fishtest's ``MLE``, by bisection:
    the left side decreases in ``x`` on the interval where every weight is positive).
    """
    low_value, high_value = pdf[0][0], pdf[-1][0]
    if not low_value < mean < high_value:
        raise ValueError(f"the mean {mean} must lie strictly between the scores {low_value} and {high_value}")
    eps = 1e-12
    lo, hi = -1.0 / (high_value - mean) + eps, 1.0 / (mean - low_value) - eps

    def slope(x: float) -> float:
        return sum(p * (a - mean) / (1.0 + x * (a - mean)) for a, p in pdf)

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if slope(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2.0
    return [p / (1.0 + x * (a - mean)) for a, p in pdf]


def llr(counts: Mapping[float, float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    Args:
        counts: how often each score in [0, 1] was observed: ``{1: wins, 0.5: draws, 0:
            losses}`` for single games (trinomial), ``{0, 0.25, 0.5, 0.75, 1}`` for game
            pairs (pentanomial), or any round scores.
        elo0: the Elo of H0.
        elo1: the Elo of H1 (greater than ``elo0``).

    Returns:
        ``N * sum_i p_i log(q1_i / q0_i)``, where ``p`` is the observed distribution and
        ``q0``, ``q1`` the distributions closest to it with the means of H0 and H1.
    """
    total, pdf = _distribution(counts)
    if total == 0:
        return 0.0
    q0 = _mle_with_mean(pdf, elo_to_score(elo0))
    q1 = _mle_with_mean(pdf, elo_to_score(elo1))
    return total * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1, strict=True))


def llr_normal(counts: Mapping[float, float], elo0: float, elo1: float) -> float:
    """The normal approximation of :func:`llr` (cutechess-cli's GSPRT formula)."""
    total, pdf = _distribution(counts)
    if total == 0:
        return 0.0
    mean = sum(a * p for a, p in pdf)
    var = sum(p * (a - mean) ** 2 for a, p in pdf)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """The Elo that a mean score implies, with a 95 % interval from the samples' variance."""

    score: float
    elo: float
    low: float
    high: float


def estimate_elo(counts: Mapping[float, float], *, prior_rounds: float = 1.0) -> EloEstimate:
    """The candidate's Elo from the observed scores (rounds or games) and its 95 % interval.

    Args:
        counts: how often each score was observed.
        prior_rounds: virtual even results (score 0.5) added, as the arena's ratings add
            virtual draws: a perfect record gets a finite estimate (0: none).
    """
    counts = dict(counts)
    if prior_rounds > 0:
        counts[0.5] = counts.get(0.5, 0.0) + prior_rounds
    total = sum(counts.values())
    if total == 0:
        return EloEstimate(0.5, 0.0, -math.inf, math.inf)
    mean = sum(a * n for a, n in counts.items()) / total
    var = sum(n * (a - mean) ** 2 for a, n in counts.items()) / total
    half = 1.96 * math.sqrt(var / total)
    return EloEstimate(mean, score_to_elo(mean), score_to_elo(mean - half), score_to_elo(mean + half))


@dataclass(frozen=True)
class SprtConfig:
    """What an SPRT match plays and decides.

    Attributes:
        game: the game id.
        candidate: the agent spec under test (one seat per game).
        baseline: the agent spec in every other seat.
        players: seats per game.
        elo0: the Elo of H0 (the candidate is no better than this).
        elo1: the Elo of H1 (the candidate is at least this much better).
        alpha: the chance of accepting H1 when H0 holds.
        beta: the chance of accepting H0 when H1 holds.
        max_games: stop undecided after this many games.
        seed: the master seed (round ``r``'s deal and every agent's seed derive from it).
        move_time: seconds per move for bots that accept a deadline (``None``: their own budget).
        ruleset: the game's ruleset preset.
        clock: the clock the bots' own time budgets (``mcts:4@0.5s``) and the reported
            seconds per move run on: ``"wall"`` or ``"cpu"`` (each searching thread's
            CPU time, so the machine's load does not bias a timed match;
            :mod:`tabletop.ai.clock`).  ``move_time`` is a wall-clock deadline, so it
            cannot be combined with ``"cpu"``.
    """

    game: str
    candidate: str
    baseline: str
    players: int = 2
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 1000
    seed: int = 0
    move_time: float | None = None
    ruleset: str = "default"
    clock: str = WALL

    @property
    def seatings(self) -> list[tuple[str, ...]]:
        """The seatings of one round: the candidate in seat 0, 1, ..., the baseline elsewhere."""
        return [
            tuple(self.candidate if seat == mine else self.baseline for seat in range(self.players))
            for mine in range(self.players)
        ]


def check_sprt(config: SprtConfig) -> None:
    """Checks ``config`` before any game is played.

    Raises:
        ConfigError: for a bad game, spec, player count, Elo pair, error rate or budget.
    """
    if config.elo1 <= config.elo0:
        raise ConfigError(f"elo1 must be greater than elo0, got elo0={config.elo0} and elo1={config.elo1}")
    sprt_bounds(config.alpha, config.beta)
    if config.max_games < 1:
        raise ConfigError("an SPRT match needs at least one game")
    if config.players < 2:
        raise ConfigError("an SPRT match needs at least two seats")
    if config.move_time is not None and not 0 < config.move_time < math.inf:
        raise ConfigError(f"the move time must be a positive, finite number of seconds, got {config.move_time}")
    if config.clock not in BUDGET_CLOCKS:
        raise ConfigError(f"unknown clock {config.clock!r} (clocks: {', '.join(BUDGET_CLOCKS)})")
    if config.clock != WALL and config.move_time is not None:
        raise ConfigError(
            "--move-time is a wall-clock deadline; with the CPU clock give the bots their own "
            "budgets instead, e.g. 'mcts:4@0.5s alphabeta@0.5s'"
        )
    game = make(config.game)
    if not game.min_players <= config.players <= game.max_players:
        raise ConfigError(f"{game.name} seats {game.min_players}-{game.max_players} players, not {config.players}")
    new_game(config.game, config.players, seed=0, ruleset=config.ruleset)
    for spec in {config.candidate, config.baseline}:
        make_agent(spec, seed=0)


def placings(scores: Sequence[float]) -> tuple[float, ...]:
    """Each seat's share of the other seats it finished ahead of by ``scores`` (ties
    count half): a seat's score in a match (and what a ``"placing"`` network learns)."""
    rivals = max(len(scores) - 1, 1)
    return tuple(
        sum(1.0 if own > other else 0.5 if own == other else 0.0 for j, other in enumerate(scores) if j != i) / rivals
        for i, own in enumerate(scores)
    )


def candidate_score(config: SprtConfig, game: ArenaGame, candidate_seat: int) -> float:
    """The fraction of baseline seats the candidate finished ahead of (ties count half)."""
    return placings(game.scores)[candidate_seat]


def candidate_seat(config: SprtConfig, index: int) -> int:
    """The candidate's seat in game ``index`` (the seatings put it in seat 0, 1, ... in turn)."""
    return index % config.players


def play_sprt_game(config: SprtConfig, index: int) -> ArenaGame:
    """Plays game ``index``: round ``index // len(seatings)``'s deal, the next seating."""
    seatings = config.seatings
    round_index, seating = divmod(index, len(seatings))
    lineup = seatings[seating]
    seed = derived_seed(config.seed, "sprt-round", round_index)
    initial = new_game(config.game, config.players, seed=seed, ruleset=config.ruleset)
    agents = [make_agent(spec, seed=derived_seed(config.seed, index, seat)) for seat, spec in enumerate(lineup)]
    names = [f"{spec} (seat {seat + 1})" for seat, spec in enumerate(lineup)]
    with using_budget_clock(config.clock):
        result = play_match(initial, agents, move_time=config.move_time, names=names)
    return ArenaGame(index, lineup, seed, result.record, result.think_seconds, result.moves_by_seat)


@dataclass
class SprtState:
    """The running tally of a match: finished games and the rounds counted so far.

    Rounds are counted in order (round ``r`` only once rounds ``0 .. r-1`` are), however
    the games finish, so the match stops after the same round, with the same games, for
    any number of workers and either backend.

    Attributes:
        config: the match.
        games: every finished game by index.
        round_counts: how often each round score occurred (counted rounds only).
    """

    config: SprtConfig
    games: dict[int, ArenaGame] = field(default_factory=dict)
    round_counts: dict[float, float] = field(default_factory=dict)
    _rounds_done: set[int] = field(default_factory=set)

    @property
    def rounds(self) -> int:
        """Counted rounds (complete, and every round before them too)."""
        return len(self._rounds_done)

    def add(self, game: ArenaGame) -> bool:
        """Records a finished game; returns whether the next round in order is now complete
        (then :meth:`count_round` counts it)."""
        self.games[game.index] = game
        return self.next_round_complete()

    def next_round_complete(self) -> bool:
        """Whether every game of the next round to count has finished."""
        size = len(self.config.seatings)
        first = self.rounds * size
        return all(first + k in self.games for k in range(size))

    def count_round(self) -> None:
        """Counts the next round (all its games must have finished)."""
        size = len(self.config.seatings)
        round_index = self.rounds
        members = [self.games[round_index * size + k] for k in range(size)]
        scores = [
            candidate_score(self.config, m, candidate_seat(self.config, m.index))
            for m in members
            if m.record.result is not None
        ]
        self._rounds_done.add(round_index)
        if len(scores) == size:  # a game cut off by the move cap voids its round
            value = round(sum(scores) / size, 9)
            self.round_counts[value] = self.round_counts.get(value, 0.0) + 1.0

    def llr(self) -> float:
        """The LLR of the complete rounds."""
        return llr(self.round_counts, self.config.elo0, self.config.elo1)

    def decision(self) -> Decision:
        """``H1`` or ``H0`` once the LLR has left the bounds, else ``undecided``."""
        lower, upper = sprt_bounds(self.config.alpha, self.config.beta)
        value = self.llr()
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return "undecided"


@dataclass(frozen=True)
class SprtResult:
    """A finished SPRT match.

    Attributes:
        config: the match.
        decision: ``H1``, ``H0`` or ``undecided`` (game cap reached).
        llr: the final LLR.
        bounds: the lower and upper bounds.
        games: the games counted (those of complete rounds), in index order.
        rounds: complete rounds.
        elo: the candidate's Elo estimate with its 95 % interval, from the round scores.
        wins: candidate wins, draws and losses per (candidate, baseline) pair of seats.
        seconds_per_move: mean thinking time per move of the candidate and the baseline.
        mean_scores: mean final score of the candidate and of a baseline seat.
    """

    config: SprtConfig
    decision: Decision
    llr: float
    bounds: tuple[float, float]
    games: tuple[ArenaGame, ...]
    rounds: int
    elo: EloEstimate
    wins: tuple[float, float, float]
    seconds_per_move: tuple[float, float]
    mean_scores: tuple[float, float]


def summarize(state: SprtState) -> SprtResult:
    """The result of the match so far (games of incomplete rounds are left out)."""
    config = state.config
    size = len(config.seatings)
    counted = tuple(sorted((g for g in state.games.values() if g.index // size in state._rounds_done), key=_index))
    won = drawn = lost = 0.0
    think = [0.0, 0.0]
    moves = [0, 0]
    points = [0.0, 0.0]
    seats = [0, 0]
    for game in counted:
        if game.record.result is None:
            continue
        mine = candidate_seat(config, game.index)
        for seat, score in enumerate(game.scores):
            side = 0 if seat == mine else 1
            points[side] += score
            seats[side] += 1
            if game.think_seconds:
                think[side] += game.think_seconds[seat]
                moves[side] += game.moves_by_seat[seat]
            if side == 1:
                own = game.scores[mine]
                won += own > score
                drawn += own == score
                lost += own < score
    return SprtResult(
        config=config,
        decision=state.decision(),
        llr=state.llr(),
        bounds=sprt_bounds(config.alpha, config.beta),
        games=counted,
        rounds=state.rounds,
        elo=estimate_elo(state.round_counts),
        wins=(won, drawn, lost),
        seconds_per_move=(think[0] / moves[0] if moves[0] else 0.0, think[1] / moves[1] if moves[1] else 0.0),
        mean_scores=(points[0] / seats[0] if seats[0] else 0.0, points[1] / seats[1] if seats[1] else 0.0),
    )


def _index(game: ArenaGame) -> int:
    return game.index


def run_sprt(
    config: SprtConfig,
    *,
    jobs: int = 1,
    on_round: Callable[[SprtState], None] | None = None,
    on_game: Callable[[ArenaGame], None] | None = None,
    backend: Backend | None = None,
    on_lost: LostCallback | None = None,
) -> SprtResult:
    """Plays rounds until the LLR leaves its bounds or ``max_games`` are played.

    The match is sequential in rounds: the LLR is updated round by round, in order, and
    the match stops after the first round that takes it out of its bounds.  The games
    themselves are played ``jobs`` at a time (or as many as ``backend`` has workers), so
    the games of the next rounds are in flight while a round is decided; those still
    in flight when the match stops are dropped, and finished ones past the deciding
    round are left out of the result.  So the result does not depend on the number of
    workers or the backend.

    Args:
        config: the match.
        jobs: worker processes, when no ``backend`` is given.
        on_round: called after every counted round (progress).
        on_game: called after every finished game, in finishing order.
        backend: where to play (:mod:`tabletop.compute.batch`: local processes or Ray).
        on_lost: told about each game lost with its worker, which is played again.

    Raises:
        ConfigError: for a bad config (before any game).
    """
    check_sprt(config)
    state = SprtState(config)
    size = len(config.seatings)
    cap = math.ceil(config.max_games / size) * size
    runner = backend if backend is not None else LocalBackend(jobs)
    try:
        for finished in runner.run(partial(play_sprt_game, config), range(cap), on_lost=on_lost):
            game = dataclasses.replace(finished.value, node=finished.node)
            if on_game is not None:
                on_game(game)
            state.add(game)
            decided = False
            while not decided and state.next_round_complete():
                state.count_round()
                if on_round is not None:
                    on_round(state)
                decided = state.decision() != "undecided" or state.rounds * size >= cap
            if decided:
                break
    finally:
        if backend is None:
            runner.close()
    return summarize(state)
