"""A tiny game implementing the protocol, for server tests that must not depend on the engines.

"Claim": a row of cells ``a``..``f`` (notation: the cell letter, or ``pass``).  Each turn a
player claims up to two free cells (turns of two actions exercise undo within a turn); a
turn ends after two claims or when the row is full.  Score = cells claimed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabletop.core.errors import ConfigError, IllegalMoveError, InvalidMoveError
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import TERMINAL, GameConfig, Move, OptionSpec, OptionValue, State
from tabletop.core.registry import register
from tabletop.core.state_base import StateDefaults

CELLS = "abcdef"


@dataclass(frozen=True, slots=True)
class Claim:
    cell: str
    kind: str = "claim"

    def __str__(self) -> str:
        return self.cell


@dataclass(frozen=True, slots=True)
class ToyState(StateDefaults):
    config: GameConfig
    owners: tuple[int, ...]
    current: int
    ply: int
    turn: int
    in_turn: int

    @property
    def game(self) -> ToyGame:
        return GAME

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.current

    def legal_moves(self) -> Sequence[Move]:
        if self.is_terminal():
            return ()
        return tuple(Claim(c) for i, c in enumerate(CELLS) if self.owners[i] < 0)

    def apply(self, move: Move) -> ToyState:
        if not isinstance(move, Claim) or not self.is_legal(move):
            raise IllegalMoveError(f"{move} is not free")
        i = CELLS.index(move.cell)
        owners = (*self.owners[:i], self.current, *self.owners[i + 1 :])
        full = all(o >= 0 for o in owners)
        if self.in_turn == 1 or full:
            return ToyState(self.config, owners, (self.current + 1) % self.num_players, self.ply + 1, self.turn + 1, 0)
        return ToyState(self.config, owners, self.current, self.ply + 1, self.turn, 1)

    def is_terminal(self) -> bool:
        return all(o >= 0 for o in self.owners)

    def outcome(self) -> Outcome | None:
        return Outcome.from_scores(self.scores(), "full") if self.is_terminal() else None

    def scores(self) -> tuple[int, ...]:
        return tuple(sum(1 for o in self.owners if o == p) for p in range(self.num_players))

    def parse_move(self, text: str) -> Move:
        return GAME.parse_move(text)

    def move_to_str(self, move: Move) -> str:
        return str(move)

    def to_json(self) -> dict[str, Any]:
        return {"cells": [{"id": c, "owner": o} for c, o in zip(CELLS, self.owners, strict=True)]}


class ToyGame:
    id = "toy"
    name = "Toy"
    min_players = 2
    max_players = 3
    options: tuple[OptionSpec, ...] = ()
    rulesets: Mapping[str, Mapping[str, OptionValue]] = {"default": {}}
    bench_player_counts = (2,)

    def new_initial_state(self, config: GameConfig) -> ToyState:
        config = self.canonical_config(config)
        start = config.start_player or 0
        return ToyState(config, (-1,) * len(CELLS), start, 0, 0, 0)

    def canonical_config(self, config: GameConfig) -> GameConfig:
        if not self.min_players <= config.num_players <= self.max_players:
            raise ConfigError(f"toy needs 2-3 players, not {config.num_players}")
        if config.ruleset not in self.rulesets:
            raise ConfigError(f"unknown ruleset {config.ruleset!r}")
        if config.variants:
            raise ConfigError("toy has no variants")
        return config

    def parse_move(self, text: str) -> Move:
        text = text.strip().lower()
        if len(text) != 1 or text not in CELLS:
            raise InvalidMoveError(f"{text!r} is not a cell a-f")
        return Claim(text)

    def render_text(self, state: State, *, color: bool = False) -> str:
        return str(state.to_json())

    def render_svg(self, state: State, *, last_moves: Sequence[Move] = ()) -> str:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'

    def describe_score(self, state: State) -> str:
        return str(state.scores())

    def score_sheet(self, state: State) -> dict[str, Any]:
        return {"tables": []}

    def seat_colors(self, num_players: int) -> tuple[str, ...]:
        return ("red", "blue", "green")[:num_players]

    def evaluate(self, state: State) -> tuple[float, ...]:
        return tuple(float(s) for s in state.scores())


GAME = register(ToyGame())
