"""Medina's rule variants: the :class:`RuleSet` flags, presets and their :class:`OptionSpec` list.

Every §6.A flag of the spec is selectable on its own.  ``edition`` is reserved for the
second-edition material of §6.B (only ``1`` is implemented; the data model keeps room for
neutral domes, the well, tea tiles and the 2-player board).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Final

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import OptionSpec, OptionValue

DEFAULT_TOWER_VALUES: Final = "A13:1,R1:2,R13:3,A1:4"
"""Boardspace's tower→corner mapping (spec §1.4, ambiguity A5)."""

_TOWER_ORDER: Final = ("A1", "R1", "A13", "R13")
"""Tower slots in board order (see ``board.TOWER_SQUARES``)."""


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

    def tower_value_tuple(self) -> tuple[int, int, int, int]:
        """Tower tile values by tower slot (``A1``, ``R1``, ``A13``, ``R13``)."""
        return parse_tower_values(self.tower_values)

    def to_json(self) -> dict[str, OptionValue]:
        """The flags as a JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


OPTIONS: Final = (
    OptionSpec("edition", 1, (1,), "rules edition (2 is reserved for second-edition material, not implemented)"),
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
)
"""Every flag, in the order of :class:`RuleSet`'s fields."""

PRESETS: Final[Mapping[str, Mapping[str, OptionValue]]] = {
    "default": {},
    "boardspace": {
        "abandoned_palace_claimable": True,
        "new_chain_may_touch_one": True,
        "tower_reconnect_per_run": True,
        "dome_obligation_lookahead": False,
    },
    "boardspace_legacy": {
        "abandoned_palace_claimable": True,
        "new_chain_may_touch_one": True,
        "tower_reconnect_per_run": True,
        "dome_obligation_lookahead": False,
        "stable_adjacency_scores": False,
    },
}
"""Named rulesets: the spec's default and Boardspace's first-edition engine (current and pre-rev-103)."""

_SPECS: Final = {spec.name: spec for spec in OPTIONS}


@functools.lru_cache(maxsize=64)
def parse_tower_values(text: str) -> tuple[int, int, int, int]:
    """Reads a ``tower_values`` string into values by tower slot.

    Raises:
        ConfigError: unless each of the four corners appears once with a non-negative value.
    """
    values: dict[str, int] = {}
    for part in text.split(","):
        name, sep, value = part.partition(":")
        name = name.strip().upper()
        if not sep or name not in _TOWER_ORDER or name in values or not value.strip().isdigit():
            raise ConfigError(
                f"bad variant 'tower_values': {text!r} (expected each of A1, R1, A13, R13 once, e.g. "
                f"{DEFAULT_TOWER_VALUES!r})"
            )
        values[name] = int(value)
    if len(values) != len(_TOWER_ORDER):
        raise ConfigError(f"bad variant 'tower_values': {text!r} names {len(values)} of the 4 towers")
    a1, r1, a13, r13 = (values[name] for name in _TOWER_ORDER)
    return (a1, r1, a13, r13)


def make_ruleset(preset: str, variants: Mapping[str, OptionValue]) -> RuleSet:
    """Builds the :class:`RuleSet` of a preset plus flag overrides.

    Raises:
        ConfigError: for an unknown preset, unknown flag or a value outside its choices;
            the message names the bad flag.
    """
    if preset not in PRESETS:
        raise ConfigError(f"unknown ruleset {preset!r} for medina (known: {', '.join(PRESETS)})")
    merged: dict[str, OptionValue] = {**PRESETS[preset], **variants}
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
        if name == "edition" and ok and value == 2:
            raise ConfigError("variant flag 'edition': only the first edition (1) is implemented; 2 is reserved")
        if not ok or (spec.choices is not None and value not in spec.choices):
            allowed = spec.choices if spec.choices is not None else type(spec.default).__name__
            raise ConfigError(f"bad value {value!r} for variant flag {name!r} (allowed: {allowed})")
    rules = replace(RuleSet(), **merged)  # type: ignore[arg-type]
    rules.tower_value_tuple()  # validates tower_values
    return rules
