"""The named ladder: five levels people understand, each mapped to an engine spec.

``make_agent("club")`` builds the Club level's bot; ``tabletop games`` prints the
ladder and the server's ``GET /api/games`` serves it to the lobby.  Every level's Elo
is measured on one scale per game, where ``random`` is 0, from sequential matches
between neighbouring levels (``tabletop sprt``); the time per move is CPU time on one
core of the development machine.  ``docs/bots.md`` has the commands and the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from tabletop.ai.agent import Agent, AgentFactory, make_agent, register_agent
from tabletop.ai.jsonview import fields_json
from tabletop.core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Level:
    """One rung of the ladder.

    Attributes:
        key: the spec that names it (``make_agent(key)``), e.g. ``"club"``.
        name: the display name, e.g. ``"Club"``.
        spec: the engine spec it plays, e.g. ``"mcts:2"``.
        description: one line for people choosing an opponent.
        elo: measured Elo per game id (``random`` = 0); a game missing here is not measured.
        seconds_per_move: typical CPU seconds per move on one core, per game id.
    """

    key: str
    name: str
    spec: str
    description: str
    elo: Mapping[str, int]
    seconds_per_move: Mapping[str, float]

    def to_json(self) -> dict[str, Any]:
        """The level as the server's game list shows it."""
        return fields_json(self)


LADDER: Final[tuple[Level, ...]] = (
    Level(
        "beginner",
        "Beginner",
        "random",
        "Plays any legal move, at random: for learning the rules.",
        {"terranova": 0, "medina": 0},
        {"terranova": 0.0, "medina": 0.0},
    ),
    Level(
        "casual",
        "Casual",
        "greedy",
        "Looks one turn ahead for the move that adds most to its estimated final score.",
        # SPRT against random (docs/bots.md): Terra Nova 17-1 in 18 games, Medina 54-0 pairs.
        {"terranova": 382, "medina": 512},
        {"terranova": 0.036, "medina": 0.027},
    ),
    Level(
        "club",
        "Club",
        "mcts:2",
        "Tree search, 100 simulations a move: sees a few moves ahead.",
        # SPRT over Casual (docs/bots.md): Medina 54-0 pairs in 27 games; Terra Nova undecided.
        {"medina": 1024},
        {"terranova": 0.093, "medina": 0.10},
    ),
    Level(
        "strong",
        "Strong",
        "mcts:3",
        "Tree search, 300 simulations a move: plays the rest of the game out in its head.",
        {},
        {"terranova": 0.29, "medina": 0.25},
    ),
    Level(
        "master",
        "Master",
        "mcts:4",
        "Tree search, 1,000 simulations a move: the strongest level, about a second a move.",
        {},
        {"terranova": 0.85, "medina": 0.69},
    ),
)
"""The levels, weakest first."""

DEFAULT_LEVEL: Final = "casual"
"""The level a newcomer meets first: a fair game that answers within a second."""


def ladder_level(key: str) -> Level:
    """The level named ``key`` (case-insensitive).

    Raises:
        ConfigError: for a name that is not on the ladder.
    """
    for level in LADDER:
        if level.key == key.lower():
            return level
    raise ConfigError(f"unknown level {key!r} (levels: {', '.join(level.key for level in LADDER)})")


def _level_factory(level: Level) -> AgentFactory:
    def build(arg: str | None, seed: int | None) -> Agent:
        if arg is not None:
            raise ConfigError(f"the level {level.key!r} takes no argument (its engine is {level.spec!r})")
        return make_agent(level.spec, seed=seed)

    return build


for _level in LADDER:
    register_agent(_level.key, _level_factory(_level))
