"""The greedy bot: looks one turn ahead with the game's heuristic.

For every legal action it plays the rest of its own turn greedily (a turn may hold
several actions, e.g. Terra Nova's three) and values the position reached by
``Game.evaluate``: its own estimated final score minus the best rival's.  To keep a
turn of three actions with a hundred choices each affordable, only the ``beam`` best
first actions (by their immediate value) are completed.
"""

from __future__ import annotations

import random

from tabletop.ai.agent import register_agent
from tabletop.ai.evaluators import heuristic_margin, readable_state
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State


class GreedyAgent:
    """Picks the action whose greedily completed turn leads to the best heuristic margin.

    Args:
        seed: breaks ties between equally valued actions.
        beam: how many first actions (best by immediate value) get their turn completed.
        name: the spec shown in records.
    """

    def __init__(self, seed: int | None = None, *, beam: int = 4, name: str = "greedy") -> None:
        self.name = name
        self.beam = beam
        self._rng = random.Random(seed)

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """Returns the action with the best one-turn lookahead value."""
        state = readable_state(state)
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        seat = state.current_player
        scored = [(heuristic_margin(after, seat), i, after) for i, after in enumerate(state.apply(m) for m in moves)]
        # Random tie-breaking: many actions are worth the same to a heuristic, and always
        # taking the first would make the bot predictable and biased to one board side.
        self._rng.shuffle(scored)
        scored.sort(key=lambda t: t[0], reverse=True)
        best_value, best_index = -float("inf"), scored[0][1]
        for _, i, after in scored[: self.beam]:
            value = heuristic_margin(self._complete_turn(after, seat, state.turn), seat)
            if value > best_value:
                best_value, best_index = value, i
        return moves[best_index]

    def stop(self) -> None:
        """Nothing to stop: a greedy move takes a bounded, short time."""

    def _complete_turn(self, state: State, seat: int, turn: int) -> State:
        """Plays ``seat``'s remaining actions of ``turn``, each the best by immediate value."""
        while not state.is_terminal() and state.current_player == seat and state.turn == turn:
            after = [state.apply(m) for m in state.legal_moves()]
            state = max(after, key=lambda s: heuristic_margin(s, seat))
        return state


def _make_greedy(arg: str | None, seed: int | None) -> GreedyAgent:
    if arg is None:
        return GreedyAgent(seed)
    try:
        beam = int(arg)
    except ValueError:
        raise ConfigError(f"greedy takes a beam width, e.g. 'greedy:4', not {arg!r}") from None
    if beam < 1:
        raise ConfigError(f"greedy's beam width must be at least 1, got {beam}")
    return GreedyAgent(seed, beam=beam, name=f"greedy:{beam}")


register_agent("greedy", _make_greedy)
