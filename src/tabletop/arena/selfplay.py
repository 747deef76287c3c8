"""Self-play records: bots play each other, game ``i`` seeded by ``seed + i`` alone.

``tabletop selfplay`` plays these games on any backend (:mod:`tabletop.compute.batch`);
a game's record depends only on the config and its index, so the records are the same
whichever process, backend or machine plays them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tabletop.ai.agent import make_agent
from tabletop.core.protocol import GameConfig, Move, OptionValue, State
from tabletop.core.record import GameRecord, PlayerInfo
from tabletop.core.registry import make


@dataclass(frozen=True)
class SelfplayConfig:
    """What every game of a self-play run plays.

    Attributes:
        game: the game id.
        specs: one bot spec per seat.
        ruleset: the ruleset preset.
        variants: variant flags on top of the preset.
        map: a built-in map id or a map object (already read from its file).
        seed: game ``i``'s config seed is ``seed + i``; seat ``k``'s bot seed ``seed + i + 1000 (k + 1)``.
    """

    game: str
    specs: tuple[str, ...]
    ruleset: str = "default"
    variants: Mapping[str, OptionValue] = field(default_factory=dict)
    map: str | dict[str, Any] | None = None
    seed: int = 0

    def initial_state(self, index: int) -> State:
        """Game ``index``'s initial state.

        Raises:
            TabletopError: for a bad game, ruleset, variant or map.
        """
        game = make(self.game)
        config = GameConfig(
            num_players=len(self.specs),
            ruleset=self.ruleset,
            variants=dict(self.variants),
            map=self.map,
            seed=self.seed + index,
        )
        return game.new_initial_state(game.canonical_config(config))


def play_selfplay_game(config: SelfplayConfig, index: int) -> GameRecord:
    """Plays game ``index`` to the end and returns its record (deterministic given both)."""
    initial = config.initial_state(index)
    base = config.seed + index
    agents = [make_agent(spec, seed=base + 1000 * (seat + 1)) for seat, spec in enumerate(config.specs)]
    state, moves = initial, list[Move]()
    while not state.is_terminal():
        move = agents[state.current_player].choose_move(state)
        moves.append(move)
        state = state.apply(move)
    players = [PlayerInfo(f"{spec} {seat + 1}", spec) for seat, spec in enumerate(config.specs)]
    return GameRecord.from_states(initial, moves, players)
