"""Medina (Stefan Dorra, Hans im Glück): the first edition (2001) for 3–4 players, and the
second edition (2014: the well, neutral domes, tea tiles, tower merchants; 2–4 players, a
16×12 board for two) as the rulesets ``second_edition`` and ``boardspace_v2``.

Modules: ``board.py`` (the grid, regions and neighbour tables as bitsets), ``state.py``
(:class:`State`), ``placement.py`` (where each piece may go: the street, merchant and wall
rules), ``moves.py`` (the move types, legal move generation, legality with reasons),
``rules.py`` (setup, ``apply``: palaces, tiles, towers, turn order and game end),
``scoring.py`` (final scoring), ``notation.py``, ``render.py``, ``heuristics.py``,
and ``ruleset.py`` (the variant flags).  Test positions: ``tests/builders.py``.

>>> from tabletop.core.protocol import GameConfig
>>> from tabletop.core.registry import make
>>> game = make("medina")
>>> state = game.new_initial_state(GameConfig(num_players=3))
>>> state.legal_kinds()
('merchant_start',)
>>> str(state.apply(state.parse_move("start@E5")).legal_moves_of_kind("wall")[0])
'wall@B1'
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from tabletop.core.errors import ConfigError, short_repr
from tabletop.core.protocol import GameConfig, OptionSpec, OptionValue
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.protocol import State as ProtocolState
from tabletop.core.registry import register
from tabletop.core.setups import SetupCache
from tabletop.games.medina import heuristics, notation, render, rules, scoring
from tabletop.games.medina.board import SQUARE_NAMES, geometry_for
from tabletop.games.medina.encoding import MedinaEncoding, encoding_for
from tabletop.games.medina.moves import (
    PALACE_COLORS,
    Dome,
    Merchant,
    Move,
    NeutralDome,
    PalacePiece,
    Pass,
    Stable,
    StartMerchant,
    Tea,
    Wall,
)
from tabletop.games.medina.ruleset import OPTIONS, PRESETS, RuleSet, resolve_ruleset
from tabletop.games.medina.state import SEAT_COLORS, Context, State
from tabletop.render.svg import SvgImage


class MedinaGame:
    """The Medina game object: metadata, the initial-state factory and the hooks."""

    id: Final = "medina"
    name: Final = "Medina"
    min_players: Final = 2
    """Two players only in the second edition (``ruleset="second_edition"``)."""
    max_players: Final = 4
    options: Final[tuple[OptionSpec, ...]] = OPTIONS
    rulesets: Final[Mapping[str, Mapping[str, OptionValue]]] = PRESETS
    bench_player_counts: Final = (3, 4)
    bench_rulesets: Final[Mapping[str, tuple[int, ...]]] = {"default": (3, 4), "second_edition": (2, 3, 4)}
    """The rulesets ``tabletop bench engine`` measures side by side, each with its player
    counts (an optional hook read by ``cli.bench_cmd``): both editions."""
    rollout_horizon: Final = 160
    """The longest rest of a game that the MCTS levels value by random rollouts (longer
    rests get the evaluation): an optional hook read by ``ai.evaluators.AdaptiveRollout``,
    tuned on this game (docs/bots.md)."""

    def __init__(self) -> None:
        self._setups = SetupCache(self._check)
        """Checked once per seedless config (``core.setups``): a new game with a new seed
        (every random game does that) then costs no validation."""

    def ruleset(self, config: GameConfig) -> RuleSet:
        """The :class:`RuleSet` of a configuration.

        Raises:
            ConfigError: as :meth:`new_initial_state`.
        """
        return self._setups.get(config).rules

    def canonical_config(self, config: GameConfig) -> GameConfig:
        """The validated config with only the flags that differ from the preset (``config``
        itself when it names no flag and needs none).

        Raises:
            ConfigError: for a player count other than 3 or 4 (2 to 4 in the second
                edition), a bad ruleset, flag or start player, a ``well`` that is no
                inner square of the board, or a map (Medina has one board per count).
        """
        return self._setups.get(config).canonical(config)

    def new_initial_state(self, config: GameConfig) -> State:
        """The initial state: the start player is about to place the starting merchant.

        Raises:
            ConfigError: as :meth:`canonical_config`.
        """
        setup = self._setups.get(config)
        n = config.num_players
        return rules.initial_state(
            Context(self, setup.canonical(config), setup.rules, geometry_for(n), n, SEAT_COLORS[:n])
        )

    def initial_draw(self, config: GameConfig) -> tuple[GameConfig, Hashable] | None:
        """The config that the initial state of ``config`` holds, and what its seed draws
        there: nothing, unless the starting merchant's square is drawn.  A first-edition
        draw is ``None`` (every seed has its own position); the second edition's config
        records its draws (the well and the starting merchant's square), which are the
        draw: the names of the well (``"none"`` without one) and of the starting
        merchant's square (``""`` before it is placed).  Configs with the same seedless
        key (``core.setups``) and the same draw start from equal positions.

        An optional hook: the native engine starts a game whose draw it has seen
        without building this engine's initial state, and a second-edition draw from a
        kept start of the same config (``MedinaState.with_draw``, ``tabletop.native``).

        Raises:
            ConfigError: as :meth:`canonical_config`.
        """
        setup = self._setups.get(config)
        r = setup.rules
        if r.edition == 2:
            if r.well == "random" or (r.start_merchant == "random" and not r.start_square):
                drawn: dict[str, str] = {}
                well, start = rules.setup_squares(r, config.num_players, config.seed, drawn)
                canonical = setup.canonical(config)
                held = replace(canonical, variants={**canonical.variants, **drawn})
                return held, (SQUARE_NAMES[well] if well >= 0 else "none", SQUARE_NAMES[start] if start >= 0 else "")
        elif r.start_merchant == "random":
            return None
        return setup.canonical(config), None

    def _check(self, config: GameConfig) -> _Setup:
        """Validates ``config`` (all but the seed) and makes its setup.

        Raises:
            ConfigError: as :meth:`canonical_config`.
        """
        n = config.num_players
        if isinstance(n, bool) or not isinstance(n, int) or not self.min_players <= n <= self.max_players:
            raise ConfigError(f"medina needs 3 or 4 players (2 to 4 in the second edition), got {n!r}")
        if config.map is not None:
            raise ConfigError(f"medina has a single board; map must be None, got {short_repr(config.map)}")
        sp = config.start_player
        if sp is not None and (isinstance(sp, bool) or not isinstance(sp, int) or not 0 <= sp < n):
            raise ConfigError(f"start_player must be a seat from 0 to {n - 1}, got {sp!r}")
        rules_ = resolve_ruleset(config.ruleset, config.variants)
        if n == 2 and rules_.edition != 2:
            raise ConfigError(
                "medina's first edition is for 3 or 4 players; 2 players need the second edition "
                "(ruleset 'second_edition' or 'boardspace_v2')"
            )
        if rules_.edition == 2 and rules_.well not in ("random", "none"):
            rules.well_square(rules_.well, n)
        if rules_.edition == 2 and rules_.start_square:
            rules.start_square(rules_, n)
        preset = resolve_ruleset(config.ruleset, {})
        variants = {
            spec.name: getattr(rules_, spec.name)
            for spec in OPTIONS
            if getattr(rules_, spec.name) != getattr(preset, spec.name)
        }
        return _Setup(rules_, variants)

    def rating_pool(self, config: GameConfig) -> str:
        """The rating pool of ``config`` (an optional hook read by ``server.ratings``): the
        second edition is rated apart from the first (``"2e"``; ``""`` the first edition).

        Raises:
            ConfigError: as :meth:`canonical_config`.
        """
        return "2e" if self.ruleset(config).edition == 2 else ""

    def parse_move(self, text: str) -> Move:
        """Reads context-free move notation (``gray@E5``, ``dome@E5``, ``pass`` ...).

        Raises:
            InvalidMoveError: if ``text`` is not well-formed notation.
        """
        return notation.parse_move(text)

    def render_text(self, state: ProtocolState, *, color: bool = False) -> str:
        """The city for a terminal, with coordinates, supplies and tile holders."""
        return render.render_text(_medina(state), color=color)

    def render_svg(self, state: ProtocolState, *, last_moves: Sequence[ProtocolMove] = ()) -> SvgImage:
        """The position as a standalone SVG document."""
        return render.render_svg(_medina(state), last_moves=last_moves)

    def render_board(
        self, state: ProtocolState, *, history: Sequence[tuple[int, ProtocolMove]] = (), first_ply: int = 0
    ) -> SvgImage:
        """The board alone, as the web page shows it (hook ``render_board``)."""
        return render.render_board(_medina(state), history=history, first_ply=first_ply)

    def describe_score(self, state: ProtocolState) -> str:
        """The per-palace breakdown (pieces, stables, merchants, walls) plus tiles."""
        return scoring.describe_score(_medina(state))

    def score_sheet(self, state: ProtocolState) -> dict[str, Any]:
        """Per-seat totals with tiles, and every owned palace, as tables."""
        return scoring.score_sheet(_medina(state))

    def seat_colors(self, num_players: int) -> tuple[str, ...]:
        """Dome colours in seat order (red, blue, green, yellow)."""
        return SEAT_COLORS[:num_players]

    def evaluate(self, state: ProtocolState) -> tuple[float, ...]:
        """Each seat's score if the game ended now (see ``heuristics.evaluate``)."""
        return heuristics.evaluate(_medina(state))

    def encoding(self, config: GameConfig) -> MedinaEncoding:
        """The fixed action space and observation tensors (``encoding.py``; an optional
        hook for ``tabletop.envs``, see ``core.encoding``).

        Raises:
            ConfigError: as :meth:`canonical_config`.
        """
        state = self.new_initial_state(config)
        return encoding_for(config.num_players, state.supply, state.rules.edition, state.neutral[0])


@dataclass(frozen=True, slots=True)
class _Setup:
    """What a configuration decides apart from its seed."""

    rules: RuleSet
    variants: Mapping[str, OptionValue]
    """The flags that differ from the preset."""

    def canonical(self, config: GameConfig) -> GameConfig:
        """``config`` (of this setup) with only these flags: ``config`` itself when it
        names no flag and needs none, else a copy with its own dict of them."""
        if not self.variants and not config.variants:
            return config
        return replace(config, variants=dict(self.variants))


def _medina(state: ProtocolState) -> State:
    if not isinstance(state, State):
        raise TypeError(f"not a Medina state: {state!r}")
    return state


GAME: Final = register(MedinaGame())

__all__ = [
    "GAME",
    "PALACE_COLORS",
    "Context",
    "Dome",
    "MedinaGame",
    "Merchant",
    "Move",
    "NeutralDome",
    "PalacePiece",
    "Pass",
    "RuleSet",
    "Stable",
    "StartMerchant",
    "State",
    "Tea",
    "Wall",
]
