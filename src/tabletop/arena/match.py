"""Playing one game between agents, with an optional deadline per move."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from tabletop.ai.agent import Agent, ask
from tabletop.ai.clock import budget_now
from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig, Move, State
from tabletop.core.record import GameRecord, PlayerInfo
from tabletop.core.registry import make


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A finished (or cut off) game and how long each seat thought in all.

    Attributes:
        record: the game record.
        think_seconds: total seconds spent choosing moves, per seat.
        moves_by_seat: number of moves chosen, per seat.
    """

    record: GameRecord
    think_seconds: tuple[float, ...]
    moves_by_seat: tuple[int, ...]


def play_match(
    initial: State,
    agents: Sequence[Agent],
    *,
    move_time: float | None = None,
    names: Sequence[str] | None = None,
    max_moves: int = 100_000,
) -> MatchResult:
    """Plays ``agents`` (one per seat, in seat order) against each other from ``initial``.

    Args:
        initial: the starting position (usually an initial state).
        agents: one agent per seat.
        move_time: seconds each move may take; agents that accept a deadline answer by
            then (others are asked without one).
        names: display names per seat (default: ``"<agent> (seat N)"``).
        max_moves: a safety cap: the record of a game cut off there has no result.

    Returns:
        The record and the thinking time per seat, on the budget clock
        (:mod:`tabletop.ai.clock`: wall-clock seconds unless the process uses CPU time).

    Raises:
        ValueError: if the number of agents is not the number of seats.
        IllegalMoveError: if an agent returns an illegal move (a bug in the agent).
    """
    if len(agents) != initial.num_players:
        raise ValueError(f"{len(agents)} agents for {initial.num_players} seats")
    think = [0.0] * initial.num_players
    counts = [0] * initial.num_players
    moves: list[Move] = []
    state = initial
    while not state.is_terminal() and len(moves) < max_moves:
        seat = state.current_player
        start = budget_now()
        deadline = time.monotonic() + move_time if move_time is not None else None
        move = ask(agents[seat], state, deadline=deadline)
        think[seat] += budget_now() - start
        counts[seat] += 1
        if not state.is_legal(move):
            raise IllegalMoveError(f"agent {agents[seat].name!r} in seat {seat} chose the illegal move {move!s}")
        moves.append(move)
        state = state.apply(move)
    shown = names or [f"{agent.name} (seat {i + 1})" for i, agent in enumerate(agents)]
    players = [PlayerInfo(shown[i], agent.name) for i, agent in enumerate(agents)]
    record = GameRecord.from_states(initial, moves, players)
    return MatchResult(record, tuple(think), tuple(counts))


def new_game(game_id: str, num_players: int, *, seed: int, ruleset: str = "default") -> State:
    """The initial state of ``game_id`` for an arena game with its own config seed."""
    game = make(game_id)
    config = game.canonical_config(GameConfig(num_players=num_players, ruleset=ruleset, seed=seed))
    return game.new_initial_state(config)
