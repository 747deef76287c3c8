"""Tournaments: many games between bots, seats rotated fairly, played in parallel.

Seat rotation.  With ``players`` equal to the number of bot entries, every game seats
all entries, and the games cycle through every distinct seating order (all
permutations of the entries; a bot listed twice, as in ``mcts:3,random,random``, fills
two seats).  With fewer players than entries, the games cycle through every seating of
every ``players``-subset of the entries.  Either way, over each full cycle every entry
sits in every seat equally often, so the start-player advantage cancels out.

Reproducibility.  Game ``i`` gets its config seed and every agent's seed from
``(seed, i)`` alone, so the results do not depend on ``jobs``, on the backend (local
processes or Ray, :mod:`tabletop.compute.batch`) or on which worker played which game
(bots with a time budget are the exception: they depend on speed).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import partial

from tabletop.ai.agent import make_agent
from tabletop.arena.match import new_game, play_match
from tabletop.arena.ratings import GameResult, pairwise
from tabletop.compute.batch import Backend, LocalBackend, LostCallback
from tabletop.core.errors import ConfigError
from tabletop.core.record import GameRecord


@dataclass(frozen=True)
class TournamentConfig:
    """What to play.

    Attributes:
        game: the game id.
        bots: the bot entries (agent specs); an entry may repeat.
        games: the number of games.
        players: seats per game (``None``: one per entry).
        seed: the master seed.
        move_time: seconds per move for bots that accept a deadline (``None``: their own budget).
        ruleset: the game's ruleset preset.
    """

    game: str
    bots: tuple[str, ...]
    games: int
    players: int | None = None
    seed: int = 0
    move_time: float | None = None
    ruleset: str = "default"

    @property
    def num_players(self) -> int:
        """Seats per game."""
        return self.players if self.players is not None else len(self.bots)


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every seating the tournament cycles through, in a fixed order.

    Args:
        bots: the bot entries (may repeat).
        players: seats per game, at most ``len(bots)``.

    Raises:
        ConfigError: if there are fewer entries than seats or fewer than two entries.
    """
    if len(bots) < 2:
        raise ConfigError("a tournament needs at least two bot entries")
    if players > len(bots):
        raise ConfigError(
            f"{players} seats but only {len(bots)} bot entries: list a bot more than once to fill seats "
            f"(e.g. --bots {bots[0]},{bots[-1]},{bots[-1]})"
        )
    seen: dict[tuple[str, ...], None] = {}
    for combo in itertools.combinations(range(len(bots)), players):
        for order in itertools.permutations(combo):
            seen.setdefault(tuple(bots[i] for i in order), None)
    return list(seen)


def check_tournament(config: TournamentConfig) -> list[tuple[str, ...]]:
    """Checks everything about ``config`` that would otherwise fail only in the first game.

    Front ends call this before they write anything (an arena directory), so a typo in
    a bot spec or a ruleset does not leave behind a half-made arena.

    Returns:
        The seatings the tournament cycles through (:func:`lineups`).

    Raises:
        ConfigError: for an unknown game, bot spec or ruleset, a player count the game
            does not allow, a bad lineup, fewer than one game or a move time that is not
            positive.
    """
    if config.games < 1:
        raise ConfigError("a tournament needs at least one game")
    if config.move_time is not None and not 0 < config.move_time < math.inf:
        raise ConfigError(f"the move time must be a positive, finite number of seconds, got {config.move_time}")
    new_game(config.game, config.num_players, seed=0, ruleset=config.ruleset)
    seatings = lineups(config.bots, config.num_players)
    for spec in set(config.bots):
        make_agent(spec, seed=0)
    return seatings


def derived_seed(*parts: object) -> int:
    """A 63-bit seed derived from ``parts`` (stable across runs and machines)."""
    return random.Random(":".join(map(str, parts))).getrandbits(63)


@dataclass(frozen=True)
class ArenaGame:
    """One tournament game.

    Attributes:
        index: the game's number, from 0.
        lineup: the bot entry in each seat.
        seed: the game's config seed.
        record: the game record.
        think_seconds: seconds each seat spent choosing moves.
        moves_by_seat: moves each seat chose.
        node: where it was played (a Ray node id or a host name; empty if not known).
    """

    index: int
    lineup: tuple[str, ...]
    seed: int
    record: GameRecord
    think_seconds: tuple[float, ...] = field(default=())
    moves_by_seat: tuple[int, ...] = field(default=())
    node: str = ""

    @property
    def scores(self) -> tuple[int, ...]:
        """Final scores (empty for a game cut off by the move cap)."""
        return self.record.result.scores if self.record.result is not None else ()

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats sharing the win."""
        return self.record.result.winners if self.record.result is not None else ()


def play_game(config: TournamentConfig, index: int) -> ArenaGame:
    """Plays game ``index`` of the tournament (deterministic given config and index)."""
    seats = lineups(config.bots, config.num_players)
    lineup = seats[index % len(seats)]
    seed = derived_seed(config.seed, index)
    initial = new_game(config.game, config.num_players, seed=seed, ruleset=config.ruleset)
    agents = [make_agent(spec, seed=derived_seed(config.seed, index, seat)) for seat, spec in enumerate(lineup)]
    names = [f"{spec} (seat {seat + 1})" for seat, spec in enumerate(lineup)]
    result = play_match(initial, agents, move_time=config.move_time, names=names)
    return ArenaGame(index, lineup, seed, result.record, result.think_seconds, result.moves_by_seat)


def run_tournament(
    config: TournamentConfig,
    *,
    jobs: int = 1,
    on_game: Callable[[ArenaGame], None] | None = None,
    skip: Collection[int] = (),
    backend: Backend | None = None,
    on_lost: LostCallback | None = None,
) -> list[ArenaGame]:
    """Plays every game of the tournament, in ``jobs`` worker processes or on ``backend``.

    Args:
        config: what to play.
        jobs: worker processes (1: play in this process), when no ``backend`` is given.
        on_game: called in this process after each game, in finishing order (progress,
            saving each game as it finishes).
        skip: indices not to play (games already played, when resuming).
        backend: where to play (:mod:`tabletop.compute.batch`: local processes or Ray).
        on_lost: told about each game lost with its worker, which is played again.

    Returns:
        The games played, in index order.

    Raises:
        ConfigError: for a bad lineup or bot spec (checked before any game starts).
    """
    check_tournament(config)
    games: list[ArenaGame] = []
    todo = [index for index in range(config.games) if index not in skip]
    runner = backend if backend is not None else LocalBackend(jobs)
    try:
        for finished in runner.run(partial(play_game, config), todo, on_lost=on_lost):
            game = dataclasses.replace(finished.value, node=finished.node)
            games.append(game)
            if on_game is not None:
                on_game(game)
    finally:
        if backend is None:
            runner.close()
    return sorted(games, key=lambda g: g.index)


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot entry's results over a tournament.

    Attributes:
        bot: the agent spec.
        seats: seats played (a bot listed twice plays two seats per game).
        wins: seats that won alone.
        shared_wins: seats that shared the win.
        win_share: mean win share per seat (1 for a win, 1/k for a k-way tie).
        win_share_ci: half-width of the 95 % confidence interval of ``win_share``.
        mean_score: mean final score per seat.
        score_ci: half-width of the 95 % confidence interval of ``mean_score``.
        seconds_per_move: mean thinking time per move.
    """

    bot: str
    seats: int
    wins: int
    shared_wins: int
    win_share: float
    win_share_ci: float
    mean_score: float
    score_ci: float
    seconds_per_move: float


def _mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal-approximation 95 % interval."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def results_table(games: Sequence[ArenaGame]) -> list[BotStats]:
    """Per-bot results over the finished games, best win share first."""
    shares: dict[str, list[float]] = {}
    scores: dict[str, list[float]] = {}
    wins: dict[str, int] = {}
    shared: dict[str, int] = {}
    think: dict[str, float] = {}
    moves: dict[str, int] = {}
    for game in games:
        if game.record.result is None:
            continue
        winners = game.winners
        for seat, bot in enumerate(game.lineup):
            won = seat in winners
            shares.setdefault(bot, []).append(1.0 / len(winners) if won else 0.0)
            scores.setdefault(bot, []).append(float(game.scores[seat]))
            wins[bot] = wins.get(bot, 0) + (won and len(winners) == 1)
            shared[bot] = shared.get(bot, 0) + (won and len(winners) > 1)
            if game.think_seconds:
                think[bot] = think.get(bot, 0.0) + game.think_seconds[seat]
                moves[bot] = moves.get(bot, 0) + game.moves_by_seat[seat]
    table = []
    for bot in shares:
        share, share_ci = _mean_ci(shares[bot])
        score, score_ci = _mean_ci(scores[bot])
        per_move = think.get(bot, 0.0) / moves[bot] if moves.get(bot) else 0.0
        table.append(
            BotStats(bot, len(shares[bot]), wins[bot], shared[bot], share, share_ci, score, score_ci, per_move)
        )
    return sorted(table, key=lambda s: s.win_share, reverse=True)


def rating_inputs(games: Sequence[ArenaGame]) -> list[GameResult]:
    """The finished games as input for :func:`tabletop.arena.ratings.rate`."""
    return [
        GameResult(game.lineup, tuple(float(s) for s in game.scores))
        for game in games
        if game.record.result is not None
    ]


def head_to_head(games: Sequence[ArenaGame]) -> dict[tuple[str, str], tuple[float, float]]:
    """``(a, b) -> (a's score rate against b, pairs)`` for every two bots that met.

    Each game counts once per pair of seats held by different bots: 1 to the seat with
    the higher final score, 0.5 each for equal scores.  In a two-player game this is the
    plain win rate; in a three-player game it says how often a finished ahead of b.
    """
    points = pairwise(rating_inputs(games))
    table = {}
    for (a, b), won in points.items():
        pairs = won + points[(b, a)]
        if pairs:
            table[(a, b)] = (won / pairs, pairs)
    return table
