"""The named ladder: six levels people understand, each mapped to an engine spec per game.

``make_agent("club")`` builds the Club level's bot (:class:`LevelAgent`: it plays the
level's spec for the game of the position it is asked about); ``tabletop games`` prints the
ladder and the server's ``GET /api/games`` serves it to the lobby.  Every level's Elo
is measured on one scale per game, where ``random`` is 0, from sequential matches
between neighbouring levels (``tabletop sprt``); the time per move is CPU time on one
core of the development machine.  ``docs/bots.md`` has the commands and the results.

A scale (:data:`SCALES`) is one game, player count and edition the ladder was measured
in: Terra Nova duels, Medina's first edition for three, its second edition for two and
for three.  A level's Elo and time are kept per scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Final

from tabletop.ai.agent import Agent, AgentFactory, AnytimeAgent, ask, make_agent, register_agent
from tabletop.ai.jsonview import fields_json
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State


@dataclass(frozen=True, slots=True)
class Scale:
    """One game setting the ladder was measured in (a column of the ladder table).

    Attributes:
        key: the key of the levels' ``elo`` and ``seconds_per_move``, e.g. ``"medina-2e-2p"``.
        game: the game id.
        num_players: the seats of the measuring matches.
        ruleset: the ruleset preset they were played under.
        players: every seat count a match may have and still be rated on this scale (the
            rating family it stands for: 3 and 4 players share one).
    """

    key: str
    game: str
    num_players: int
    ruleset: str
    players: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The scale as the server's game list shows it."""
        return fields_json(self)


SCALES: Final[tuple[Scale, ...]] = (
    Scale("terranova", "terranova", 2, "default", (2,)),
    Scale("medina", "medina", 3, "default", (3, 4)),
    Scale("medina-2e-2p", "medina", 2, "second_edition", (2,)),
    Scale("medina-2e-3p", "medina", 3, "second_edition", (3, 4)),
)
"""The settings the ladder was measured in, one Elo scale each (``random`` = 0)."""


def scale_of(state: State) -> Scale | None:
    """The scale whose exact setting ``state`` is in (game, seats, ruleset), if any."""
    config = state.config
    for s in SCALES:
        if (s.game, s.num_players, s.ruleset) == (state.game.id, config.num_players, config.ruleset):
            return s
    return None


def scale(key: str) -> Scale:
    """The scale named ``key``.

    Raises:
        ConfigError: for a key that is not a scale.
    """
    for s in SCALES:
        if s.key == key:
            return s
    raise ConfigError(f"unknown ladder scale {key!r} (scales: {', '.join(s.key for s in SCALES)})")


@dataclass(frozen=True, slots=True)
class Level:
    """One rung of the ladder.

    Attributes:
        key: the spec that names it (``make_agent(key)``), e.g. ``"club"``.
        name: the display name, e.g. ``"Club"``.
        specs: the engine spec it plays in each game, e.g. ``{"medina": "mcts:2", ...}``:
            a level is a strength people understand, and what reaches it differs by game.
        description: one line for people choosing an opponent.
        elo: measured Elo per scale key (:data:`SCALES`; ``random`` = 0); a scale missing
            here is not measured.
        seconds_per_move: typical CPU seconds per move on one core, per scale key.
        fallbacks: the spec played in a game where its own cannot be built here (a
            native level where the Rust extension is not built); not measured.
        scale_specs: the spec played on a scale (a key of :data:`SCALES`) instead of
            the game's: a network trained for that one setting (its game, seats and
            ruleset exactly); dropped, with its Elo, where it cannot be built here.
    """

    key: str
    name: str
    specs: Mapping[str, str]
    description: str
    elo: Mapping[str, int]
    seconds_per_move: Mapping[str, float]
    fallbacks: Mapping[str, str] = field(default_factory=dict)
    scale_specs: Mapping[str, str] = field(default_factory=dict)

    def spec(self, game_id: str) -> str:
        """The engine spec this level plays in ``game_id``.

        Raises:
            ConfigError: for a game the level has no spec for.
        """
        try:
            return self.specs[game_id]
        except KeyError:
            raise ConfigError(f"the level {self.key!r} has no bot for the game {game_id!r}") from None

    def scale_spec_key(self, state: State) -> str | None:
        """The scale whose own spec this level plays from ``state`` (the state's exact
        setting), or ``None`` where it plays its game's."""
        on_scale = scale_of(state)
        return on_scale.key if on_scale is not None and on_scale.key in self.scale_specs else None

    def spec_for(self, state: State) -> str:
        """The engine spec this level plays from ``state``: its scale's where it has one
        for the state's exact setting, else its game's.

        Raises:
            ConfigError: for a game the level has no spec for.
        """
        key = self.scale_spec_key(state)
        return self.spec(state.game.id) if key is None else self.scale_specs[key]

    def installed(self) -> Level:
        """The level as this installation plays it: in a game whose spec cannot be built
        here, its fallback, with no Elo or time (they were measured for the spec); a scale
        spec that cannot be built here is dropped, with its scale's Elo and time."""
        missing = {g for g, spec in self.specs.items() if g in self.fallbacks and not _builds(spec)}
        missing_scales = {key for key, spec in self.scale_specs.items() if not _builds(spec)}
        if not missing and not missing_scales:
            return self
        unmeasured = {s.key for s in SCALES if s.game in missing} | missing_scales
        return replace(
            self,
            specs={g: self.fallbacks[g] if g in missing else spec for g, spec in self.specs.items()},
            elo={k: elo for k, elo in self.elo.items() if k not in unmeasured},
            seconds_per_move={k: t for k, t in self.seconds_per_move.items() if k not in unmeasured},
            fallbacks={},
            scale_specs={k: spec for k, spec in self.scale_specs.items() if k not in missing_scales},
        )

    def to_json(self) -> dict[str, Any]:
        """The level as the server's game list shows it."""
        return fields_json(self)


@cache
def _builds(spec: str) -> bool:
    try:
        make_agent(spec, seed=0)
    except ConfigError:
        return False
    return True


def installed_ladder() -> tuple[Level, ...]:
    """:data:`LADDER` as this installation plays it (:meth:`Level.installed`)."""
    return tuple(level.installed() for level in LADDER)


GRANDMASTER_NETWORKS: Final[Mapping[str, str]] = {"medina": "medina-3p"}
"""The networks the Grandmaster level plays, by scale key: files the package ships
(``tabletop/native/networks/NAME.npz``, or ``TABLETOP_NETWORKS``); where one is missing,
or the extension is not built, the level plays Master's search on that scale, unmeasured."""

GRANDMASTER_EVALUATIONS: Final[Mapping[str, str]] = {"terranova": "terranova-2p"}
"""The learned evaluations the Grandmaster level searches with, by scale key
(``tabletop.native.learned``: ``NAME.evaluation.json`` beside the networks), with the
same fallback."""


def _same(spec: str) -> dict[str, str]:
    return {"terranova": spec, "medina": spec}


LADDER: Final[tuple[Level, ...]] = (
    Level(
        "beginner",
        "Beginner",
        _same("random"),
        "Plays any legal move, at random: for learning the rules.",
        {"terranova": 0, "medina": 0, "medina-2e-2p": 0, "medina-2e-3p": 0},
        {"terranova": 0.0, "medina": 0.0, "medina-2e-2p": 0.0, "medina-2e-3p": 0.0},
    ),
    Level(
        "casual",
        "Casual",
        _same("greedy"),
        "Looks one turn ahead for the move that adds most to its estimated final score.",
        # SPRT against random (docs/bots.md): Terra Nova 17-1 in 18 games, Medina 54-0 pairs;
        # Medina's second edition 18-0 (2p) and 54-0 pairs (3p).
        {"terranova": 382, "medina": 512, "medina-2e-2p": 512, "medina-2e-3p": 512},
        {"terranova": 0.036, "medina": 0.014, "medina-2e-2p": 0.011, "medina-2e-3p": 0.016},
    ),
    Level(
        "club",
        "Club",
        {"terranova": "native:1", "medina": "mcts:2"},
        "Tree search that sees a few moves ahead, in a blink.",
        # SPRT over Casual (docs/bots.md): Terra Nova +301 (fifth part), Medina +512;
        # second edition +512 (2p), +436 (3p).
        {"terranova": 683, "medina": 1024, "medina-2e-2p": 1024, "medina-2e-3p": 948},
        {"terranova": 0.003, "medina": 0.022, "medina-2e-2p": 0.005, "medina-2e-3p": 0.006},
        {"terranova": "mcts:2"},
    ),
    Level(
        "strong",
        "Strong",
        {"terranova": "native:3,horizon=160@0.1cpu", "medina": "mcts:4"},
        "Deeper tree search that plays the end of the game out in its head.",
        # SPRT over Club (docs/bots.md): Terra Nova +382 (fifth part), Medina +183 (fourth part);
        # second edition +354 (2p), +280 (3p).
        {"terranova": 1065, "medina": 1207, "medina-2e-2p": 1378, "medina-2e-3p": 1228},
        {"terranova": 0.10, "medina": 0.20, "medina-2e-2p": 0.061, "medina-2e-3p": 0.068},
        {"terranova": "mcts:4"},
    ),
    Level(
        "master",
        "Master",
        {"terranova": "native:5,horizon=160@0.5cpu", "medina": "native:4"},
        "Tree search in the native engine, tens of thousands of positions a move.",
        # SPRT over Strong (docs/bots.md): Terra Nova +338 (fifth part), Medina +116 (sixth part);
        # second edition +209 (2p), +229 (3p).
        {"terranova": 1403, "medina": 1323, "medina-2e-2p": 1587, "medina-2e-3p": 1457},
        # Medina: 0.19 CPU s a move in the SPRTs of 2026-11-29 (0.36 when first measured;
        # the native engine got faster since, at the same 30,000 simulations).
        {"terranova": 0.5, "medina": 0.19, "medina-2e-2p": 0.161, "medina-2e-3p": 0.232},
        {"terranova": "mcts:5", "medina": "mcts:5"},
    ),
    Level(
        "grandmaster",
        "Grandmaster",
        {"terranova": "native:5,horizon=160@0.5cpu", "medina": "native:4"},
        "Learned by playing itself: in Medina for three a network guides the search, in Terra "
        "Nova for two the search weighs positions as its self-play taught it; elsewhere it "
        "plays as Master.",
        # SPRT over Master at Master's CPU time a move (docs/bots.md, "Grandmaster"):
        # Medina 3p +108 (+41 .. +185), Terra Nova 2p +116 (+38 .. +207); H1 at elo1 100 both,
        # and again with other seeds: Medina +75 (+41 .. +110), Terra Nova +145 (+59 .. +252).
        # Elsewhere it is Master's search.
        {"terranova": 1519, "medina": 1431},
        {"terranova": 0.5, "medina": 0.19},
        {"terranova": "mcts:5", "medina": "mcts:5"},
        {
            "terranova": f"learned:{GRANDMASTER_EVALUATIONS['terranova']},5,horizon=160@0.5cpu",
            "medina": f"puct:{GRANDMASTER_NETWORKS['medina']},mix=0.5@0.19cpu",
        },
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


class LevelAgent:
    """A ladder level as a bot: it plays the level's spec for the game of the position.

    The agents of every game are built up front, so a level that cannot play somewhere
    (a native spec where the extension is not built) fails when it is made, as any other
    spec does, not at its first move.
    """

    def __init__(self, level: Level, seed: int | None) -> None:
        self._level = level = level.installed()
        self._agents = {game_id: make_agent(spec, seed=seed) for game_id, spec in level.specs.items()}
        self._scale_agents = {key: make_agent(spec, seed=seed) for key, spec in level.scale_specs.items()}
        self._thinking: Agent | None = None

    @property
    def name(self) -> str:
        """The level's key: the spec it was made from."""
        return self._level.key

    def for_game(self, game_id: str) -> Agent:
        """The agent this level plays in ``game_id`` off its scale specs.

        Raises:
            ConfigError: for a game the level has no spec for.
        """
        self._level.spec(game_id)
        return self._agents[game_id]

    def for_state(self, state: State) -> Agent:
        """The agent this level plays from ``state`` (:meth:`Level.spec_for`).

        Raises:
            ConfigError: for a game the level has no spec for.
        """
        key = self._level.scale_spec_key(state)
        return self.for_game(state.game.id) if key is None else self._scale_agents[key]

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """The move of the level's agent for ``state``, by ``deadline`` where it takes one."""
        agent = self._thinking = self.for_state(state)
        return ask(agent, state, deadline=deadline)

    def stop(self) -> None:
        """Stops the search under way (a level whose agent takes no deadline ignores it)."""
        agent = self._thinking
        if isinstance(agent, AnytimeAgent):
            agent.stop()


def _level_factory(level: Level) -> AgentFactory:
    def build(arg: str | None, seed: int | None) -> Agent:
        if arg is not None:
            raise ConfigError(f"the level {level.key!r} takes no argument (its engines: {_spec_list(level)})")
        try:
            return LevelAgent(level, seed)
        except ConfigError as exc:
            raise ConfigError(f"the level {level.key!r} cannot play here: {exc}") from None

    return build


def _spec_list(level: Level) -> str:
    return ", ".join(f"{game_id} {spec}" for game_id, spec in level.specs.items())


for _level in LADDER:
    register_agent(_level.key, _level_factory(_level))
