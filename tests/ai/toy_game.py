"""A tiny game implementing the protocol, for testing bots and the arena without the engines.

*Coins*: a row of coins; on a turn the current player takes ``actions`` coins, one per
action, each from the left or the right end of the row (so one player acts several
times in a row).  Each coin adds its value to the taker's score; the game ends when
the row is empty and the highest score wins.  Best moves are easy to work out by hand:
``3 9 1 2`` with one action a turn is a trap for greedy play (take the 2, not the 3).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tabletop.core.errors import IllegalMoveError, InvalidMoveError
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import TERMINAL, GameConfig, OptionSpec, OptionValue
from tabletop.core.registry import register


@dataclass(frozen=True, slots=True)
class Take:
    """Take the coin at one end of the row: side ``"L"`` or ``"R"``."""

    side: str

    @property
    def kind(self) -> str:
        return "left" if self.side == "L" else "right"

    def __str__(self) -> str:
        return self.side


LEFT, RIGHT = Take("L"), Take("R")


@dataclass(frozen=True, slots=True)
class CoinsState:
    game: CoinsGame = field(compare=False, repr=False)
    config: GameConfig = field(compare=False, repr=False)
    coins: tuple[int, ...]
    points: tuple[int, ...]
    player: int
    actions_left: int
    actions_per_turn: int
    ply: int = 0
    turn: int = 0

    @property
    def num_players(self) -> int:
        return len(self.points)

    @property
    def current_player(self) -> int:
        return TERMINAL if not self.coins else self.player

    def legal_moves(self) -> Sequence[Take]:
        if not self.coins:
            return ()
        return (LEFT,) if len(self.coins) == 1 else (LEFT, RIGHT)

    def legal_kinds(self) -> Sequence[str]:
        return tuple(m.kind for m in self.legal_moves())

    def legal_moves_of_kind(self, kind: str) -> Sequence[Take]:
        return tuple(m for m in self.legal_moves() if m.kind == kind)

    def is_legal(self, move: object) -> bool:
        return move in self.legal_moves()

    def apply(self, move: Any) -> CoinsState:
        if not self.is_legal(move):
            raise IllegalMoveError(f"{move!r} is not legal here")
        value = self.coins[0] if move.side == "L" else self.coins[-1]
        coins = self.coins[1:] if move.side == "L" else self.coins[:-1]
        points = list(self.points)
        points[self.player] += value
        player, left, turn = self.player, self.actions_left - 1, self.turn
        if left == 0:
            player, left, turn = (player + 1) % len(points), self.actions_per_turn, turn + 1
        return replace(
            self, coins=coins, points=tuple(points), player=player, actions_left=left, ply=self.ply + 1, turn=turn
        )

    def is_terminal(self) -> bool:
        return not self.coins

    def outcome(self) -> Outcome | None:
        return Outcome.from_scores(self.points, "coins_gone") if not self.coins else None

    def scores(self) -> tuple[int, ...]:
        return self.points

    def returns(self) -> tuple[float, ...]:
        result = self.outcome()
        return result.returns() if result is not None else (0.0,) * self.num_players

    def parse_move(self, text: str) -> Take:
        return self.game.parse_move(text)

    def move_to_str(self, move: Any) -> str:
        return str(move)

    def to_json(self) -> dict[str, Any]:
        return {"coins": list(self.coins), "scores": list(self.points), "player": self.current_player}


class CoinsGame:
    id = "coins"
    name = "Coins"
    min_players = 1
    max_players = 4
    options = (OptionSpec("actions", 1, None, "coins taken per turn"), OptionSpec("length", 8, None, "row length"))
    rulesets: Mapping[str, Mapping[str, OptionValue]] = {"default": {}}
    bench_player_counts = (2,)

    def new_initial_state(self, config: GameConfig) -> CoinsState:
        length = int(config.variants.get("length", 8) or 8)
        rng = random.Random(config.seed)
        coins = tuple(rng.randint(1, 9) for _ in range(length))
        return self.position(
            coins, num_players=config.num_players, actions=int(config.variants.get("actions", 1) or 1), config=config
        )

    def position(
        self,
        coins: Sequence[int],
        *,
        num_players: int = 2,
        actions: int = 1,
        points: Sequence[int] | None = None,
        player: int = 0,
        config: GameConfig | None = None,
    ) -> CoinsState:
        """A position built directly (for scenario tests)."""
        return CoinsState(
            game=self,
            config=config or GameConfig(num_players=num_players),
            coins=tuple(coins),
            points=tuple(points) if points is not None else (0,) * num_players,
            player=player,
            actions_left=actions,
            actions_per_turn=actions,
        )

    def canonical_config(self, config: GameConfig) -> GameConfig:
        return config

    def parse_move(self, text: str) -> Take:
        if text not in ("L", "R"):
            raise InvalidMoveError(f"{text!r} is not a move (expected 'L' or 'R')")
        return Take(text)

    def render_text(self, state: Any, *, color: bool = False) -> str:
        return " ".join(map(str, state.coins))

    def render_svg(self, state: Any, *, last_moves: Sequence[Any] = ()) -> str:
        return "<svg/>"

    def describe_score(self, state: Any) -> str:
        return " ".join(map(str, state.points))

    def score_sheet(self, state: Any) -> dict[str, Any]:
        return {"tables": []}

    def evaluate(self, state: Any) -> tuple[float, ...]:
        """Scores so far plus an equal share of the coins left."""
        if state.is_terminal():
            return tuple(float(p) for p in state.points)
        share = sum(state.coins) / state.num_players
        return tuple(p + share for p in state.points)


GAME = CoinsGame()
register(GAME)
