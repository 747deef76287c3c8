"""Medina's rule variants: the :class:`RuleSet` flags, presets and their :class:`OptionSpec` list.

Every §6.A flag of the first-edition spec (``docs/rules/medina.md``) and every §6 flag of
the second-edition spec (``medina-2e.md``) is selectable on its own.  The edition is the
``edition`` field, chosen by a preset: ``second_edition`` (the published 2014 rules as the
spec reads them) and ``boardspace_v2`` (Boardspace's ``Medina-v2``) set ``edition=2`` and
the second edition's random starting merchant; a preset rather than a bare flag because an
edition changes several defaults at once and sits in the lobby's ruleset list beside
``default`` and ``boardspace``.  Second-edition flags have no effect in the first edition
(there are no neutral domes, tea tiles or well there).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Final

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import OptionSpec, OptionValue
from tabletop.games.medina.board import parse_square

DEFAULT_TOWER_VALUES: Final = "A13:1,R1:2,R13:3,A1:4"
"""Boardspace's tower→corner mapping (spec §1.4, ambiguity A5)."""

_TOWER_ORDER: Final = ("A1", "R1", "A13", "R13")
"""Tower slots in board order (see ``board.TOWER_SQUARES``)."""

_TOWER_ORDER_2P: Final = ("A1", "P1", "A12", "P12")
"""The same slots on the 2-player board (SW, SE, NW, NE): either name picks the slot."""

DEFAULT_NEUTRAL_DOMES: Final = "2:2,3:1,4:0"
"""Neutral domes per seat by player count (2e spec §1.2, E1)."""

TIE_BREAKS: Final = ("none", "largest_palace")
WELL_BONUS_SQUARES: Final = ("cross", "plaza_ring")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rule flags of one game (defaults = first edition as in the spec).

    Attributes:
        edition: rules edition; only ``1`` is implemented (``2`` is reserved for §6.B).
        abandoned_palace_claimable: A1, a dome may claim an abandoned (blocked) palace.
        new_chain_may_touch_one: A2, a new merchant chain may start next to one merchant.
        tower_reconnect_per_run: A4, touching a tower's second run is a new connection.
        tower_values: A5, ``"SQ:v,..."`` value of the tower tile of each corner.
        last_player_by_supply: A7, the dome obligation applies when only one player has
            any pieces in supply (instead of when only one player is able to place).
        dome_obligation_lookahead: A8, a first placement must leave a dome placement.
        start_merchant_anywhere: A10, the starting merchant may go on a border square.
        start_merchant: A10, ``"player"`` (the start player chooses) or ``"random"``.
        stable_adjacency_scores: A11, merchants next to a palace's stables score (walls always do).
        hide_supplies: clients hide other players' supplies (the engine always knows them).
        last_player_dome_obligation: 2e E11, the last able player must place an own dome (§5.2);
            off: no obligation at all (either edition).
        obligation_recheck: 2e E12b, the obligation is decided after the turn's first placement
            on the position then (Boardspace), not only at the start of the turn (either edition).
        tie_break: 2e E13, ``"none"`` (a shared win) or ``"largest_palace"`` (BGA; either edition).
        well: 2e E16, ``"random"``, a square name (tests, replays) or ``"none"``.
        neutral_domes: 2e E1, ``"n:k,..."`` neutral domes per seat for ``n`` players.
        neutral_claims_tiles: 2e E2, neutral-owned palaces take and hold tiles (held by nobody).
        neutral_dome_any_unowned: 2e E3, a neutral dome may also claim an abandoned palace.
        well_bonus_squares: 2e E5, ``"cross"`` (4 squares two steps away) or ``"plaza_ring"`` (12).
        tea_spend_when_stuck: 2e E6, with no second placement a tea holder must spend a tile.
        tea_usable_turn_received: 2e E7, a tea tile may be spent in the turn it was received.
        tower_events_claim_only: 2e E10, only claims (not later walls or stables) take tower tiles.
        neutral_dome_satisfies_obligation: 2e E12a, a neutral dome fulfils the dome obligation.
        start_square: 2e, the starting merchant's square instead of a draw (``""``: drawn).
            A new second-edition game records its drawn well and starting merchant in
            its config (``well``, ``start_square``), so that its record replays them.
    """

    edition: int = 1
    abandoned_palace_claimable: bool = False
    new_chain_may_touch_one: bool = False
    tower_reconnect_per_run: bool = False
    tower_values: str = DEFAULT_TOWER_VALUES
    last_player_by_supply: bool = False
    dome_obligation_lookahead: bool = True
    start_merchant_anywhere: bool = False
    start_merchant: str = "player"
    stable_adjacency_scores: bool = True
    hide_supplies: bool = True
    last_player_dome_obligation: bool = True
    obligation_recheck: bool = False
    tie_break: str = "none"
    well: str = "random"
    neutral_domes: str = DEFAULT_NEUTRAL_DOMES
    neutral_claims_tiles: bool = True
    neutral_dome_any_unowned: bool = False
    well_bonus_squares: str = "cross"
    tea_spend_when_stuck: bool = False
    tea_usable_turn_received: bool = True
    tower_events_claim_only: bool = False
    neutral_dome_satisfies_obligation: bool = False
    start_square: str = ""

    def tower_value_tuple(self) -> tuple[int, int, int, int]:
        """Tower tile values by tower slot (``A1``, ``R1``, ``A13``, ``R13``)."""
        return parse_tower_values(self.tower_values)

    def neutral_dome_count(self, num_players: int) -> int:
        """Neutral domes each seat starts with (always 0 in the first edition)."""
        if self.edition != 2:
            return 0
        return parse_neutral_domes(self.neutral_domes).get(num_players, 0)

    def to_json(self) -> dict[str, OptionValue]:
        """The flags as a JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


OPTIONS: Final = (
    OptionSpec("edition", 1, None, "rules edition: 1 (2001) or 2 (2014: 2 players, well, neutral domes, tea)"),
    OptionSpec("abandoned_palace_claimable", False, (False, True), "A1: a dome may claim a palace that can't grow"),
    OptionSpec("new_chain_may_touch_one", False, (False, True), "A2: a new merchant chain may touch one merchant"),
    OptionSpec("tower_reconnect_per_run", False, (False, True), "A4: each run of a tower connects separately"),
    OptionSpec("tower_values", DEFAULT_TOWER_VALUES, None, "A5: tower tile value per corner, 'A13:1,R1:2,...'"),
    OptionSpec("last_player_by_supply", False, (False, True), "A7: dome obligation when only one player has pieces"),
    OptionSpec("dome_obligation_lookahead", True, (False, True), "A8: the first placement must leave a dome"),
    OptionSpec("start_merchant_anywhere", False, (False, True), "A10: the starting merchant may go on the border"),
    OptionSpec("start_merchant", "player", ("player", "random"), "A10: who places the starting merchant"),
    OptionSpec("stable_adjacency_scores", True, (False, True), "A11: merchants next to stables score"),
    OptionSpec("hide_supplies", True, (False, True), "clients hide other players' supplies"),
    OptionSpec("last_player_dome_obligation", True, (False, True), "E11: the last able player must place an own dome"),
    OptionSpec("obligation_recheck", False, (False, True), "E12b: the dome obligation decided after the 1st placement"),
    OptionSpec("tie_break", "none", TIE_BREAKS, "E13: a tie is shared, or won by the largest palace"),
    OptionSpec("well", "random", None, "E16 (2nd ed.): the well's square: 'random', a square, or 'none'"),
    OptionSpec("neutral_domes", DEFAULT_NEUTRAL_DOMES, None, "E1 (2nd ed.): neutral domes per seat, 'players:n,...'"),
    OptionSpec("neutral_claims_tiles", True, (False, True), "E2 (2nd ed.): neutral palaces take tiles for nobody"),
    OptionSpec("neutral_dome_any_unowned", False, (False, True), "E3 (2nd ed.): neutral domes may claim abandoned"),
    OptionSpec("well_bonus_squares", "cross", WELL_BONUS_SQUARES, "E5 (2nd ed.): the well's +4 squares"),
    OptionSpec("tea_spend_when_stuck", False, (False, True), "E6 (2nd ed.): no 2nd placement: a tea tile must go"),
    OptionSpec("tea_usable_turn_received", True, (False, True), "E7 (2nd ed.): tea usable in the turn received"),
    OptionSpec("tower_events_claim_only", False, (False, True), "E10 (2nd ed.): only claims take tower tiles"),
    OptionSpec(
        "neutral_dome_satisfies_obligation", False, (False, True), "E12a (2nd ed.): a neutral dome meets the obligation"
    ),
    OptionSpec("start_square", "", None, "2nd ed.: the starting merchant's square (records); '' draws it"),
)
"""Every flag, in the order of :class:`RuleSet`'s fields."""

_BOARDSPACE: Final[Mapping[str, OptionValue]] = {
    "abandoned_palace_claimable": True,
    "new_chain_may_touch_one": True,
    "tower_reconnect_per_run": True,
    "dome_obligation_lookahead": False,
    "obligation_recheck": True,
}

PRESETS: Final[Mapping[str, Mapping[str, OptionValue]]] = {
    "default": {},
    "boardspace": dict(_BOARDSPACE),
    "boardspace_legacy": {**_BOARDSPACE, "stable_adjacency_scores": False},
    "second_edition": {"edition": 2, "start_merchant": "random"},
    "boardspace_v2": {
        **_BOARDSPACE,
        "edition": 2,
        "start_merchant": "random",
        "tea_spend_when_stuck": True,
        "neutral_dome_satisfies_obligation": True,
    },
}
"""Named rulesets: the first-edition spec's default and Boardspace's first-edition engine
(current and pre-rev-103), the second edition and Boardspace's ``Medina-v2`` (2e spec §6.C)."""


_SPECS: Final = {spec.name: spec for spec in OPTIONS}


@functools.lru_cache(maxsize=64)
def parse_tower_values(text: str) -> tuple[int, int, int, int]:
    """Reads a ``tower_values`` string into values by tower slot (SW, SE, NW, NE).

    A corner may be named as on either board (``R1`` or ``P1``, ``A13`` or ``A12``, ``R13``
    or ``P12``): the value belongs to the corner, whichever board is in use (2e E17).

    Raises:
        ConfigError: unless each of the four corners appears once with a non-negative value.
    """
    values: dict[int, int] = {}
    for part in text.split(","):
        name, sep, value = part.partition(":")
        name = name.strip().upper()
        slot = (
            _TOWER_ORDER.index(name)
            if name in _TOWER_ORDER
            else _TOWER_ORDER_2P.index(name)
            if name in _TOWER_ORDER_2P
            else -1
        )
        if not sep or slot < 0 or slot in values or not value.strip().isdigit():
            raise ConfigError(
                f"bad variant 'tower_values': {text!r} (expected each of A1, R1, A13, R13 once, e.g. "
                f"{DEFAULT_TOWER_VALUES!r})"
            )
        values[slot] = int(value)
    if len(values) != len(_TOWER_ORDER):
        raise ConfigError(f"bad variant 'tower_values': {text!r} names {len(values)} of the 4 towers")
    a1, r1, a13, r13 = (values[slot] for slot in range(4))
    return (a1, r1, a13, r13)


@functools.lru_cache(maxsize=16)
def parse_neutral_domes(text: str) -> dict[int, int]:
    """Reads a ``neutral_domes`` string (``"2:2,3:1,4:0"``) into domes per seat by player count.

    Raises:
        ConfigError: unless it gives a non-negative count for each of 2, 3 and 4 players once.
    """
    counts: dict[int, int] = {}
    for part in text.split(","):
        players, sep, count = part.partition(":")
        players, count = players.strip(), count.strip()
        if not sep or players not in ("2", "3", "4") or int(players) in counts or not count.isdigit():
            raise ConfigError(
                f"bad variant 'neutral_domes': {text!r} (expected a count for 2, 3 and 4 players, e.g. "
                f"{DEFAULT_NEUTRAL_DOMES!r})"
            )
        counts[int(players)] = int(count)
    if len(counts) != 3:
        raise ConfigError(f"bad variant 'neutral_domes': {text!r} gives {len(counts)} of the 3 player counts")
    return counts


def resolve_ruleset(ruleset: str, variants: Mapping[str, OptionValue]) -> RuleSet:
    """The :class:`RuleSet` for a preset name plus flag overrides.

    Raises:
        ConfigError: for an unknown preset, unknown flag or a value outside its choices;
            the message names the bad flag.
    """
    if ruleset not in PRESETS:
        raise ConfigError(f"unknown ruleset {ruleset!r} for medina (known: {', '.join(PRESETS)})")
    merged: dict[str, OptionValue] = {**PRESETS[ruleset], **variants}
    for name, value in merged.items():
        spec = _SPECS.get(name)
        if spec is None:
            raise ConfigError(f"unknown variant flag {name!r} for medina (known: {', '.join(_SPECS)})")
        if isinstance(spec.default, bool):
            ok = isinstance(value, bool)
        elif isinstance(spec.default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if name == "edition" and ok and value not in (1, 2):
            raise ConfigError(f"bad value {value!r} for variant flag 'edition' (allowed: 1, 2)")
        if not ok or (spec.choices is not None and value not in spec.choices):
            allowed = spec.choices if spec.choices is not None else type(spec.default).__name__
            raise ConfigError(f"bad value {value!r} for variant flag {name!r} (allowed: {allowed})")
    rules = replace(RuleSet(), **merged)  # type: ignore[arg-type]
    rules.tower_value_tuple()  # validates tower_values
    parse_neutral_domes(rules.neutral_domes)
    if rules.well not in ("random", "none") and not _is_square_name(rules.well):
        raise ConfigError(f"bad value {rules.well!r} for variant flag 'well' (allowed: 'random', 'none' or a square)")
    if rules.start_square and not _is_square_name(rules.start_square):
        raise ConfigError(f"bad value {rules.start_square!r} for variant flag 'start_square' (allowed: '' or a square)")
    return rules


def _is_square_name(text: str) -> bool:
    return parse_square(text) is not None
