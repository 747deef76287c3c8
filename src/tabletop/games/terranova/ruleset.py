"""Terra Nova rule variants (spec §6): the :class:`RuleSet` flags, presets and option specs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Final

from tabletop.core.errors import ConfigError, short_repr
from tabletop.core.protocol import OptionSpec, OptionValue

RETURN_RULES: Final = ("end_of_turn", "strict", "three_moves_only")
SCORING_TIMINGS: Final = ("immediate", "end_of_turn")
MOBILITY_TESTS: Final = ("current", "potential")
COLOUR_RULES: Final = ("fixed", "free")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule flag of spec §6; the defaults are preset ``default``.

    Attributes:
        return_rule: §3.5 return restriction: ``end_of_turn`` (default), ``strict``
            (no move may end on the mover's turn-start cell) or ``three_moves_only``.
        scoring_timing: A16: ``immediate`` (after each stone) or ``end_of_turn``.
        score_on_type_reduction: A18: a stone that leaves a zone with ≤ 3 landscapes
            without splitting it scores that zone.
        lake_is_landscape: A2: lake cells count towards t.
        end_on_player_eliminated: A23/E3: a player with no pioneers ends the game.
        mobility_test: A22/E2: ``current`` or ``potential`` mobility.
        end_on_stones_exhausted: A24/E4: an empty supply ends the game.
        stall_limit_rounds: A25/E5: rounds without a stone that end the game
            (``None``: never, human play only).
        colour_rule: A3: ``fixed`` colours by player count, or ``free`` choice
            (display only; the rules do not depend on colours).
    """

    return_rule: str = "end_of_turn"
    scoring_timing: str = "immediate"
    score_on_type_reduction: bool = True
    lake_is_landscape: bool = True
    end_on_player_eliminated: bool = False
    mobility_test: str = "current"
    end_on_stones_exhausted: bool = True
    stall_limit_rounds: int | None = 10
    colour_rule: str = "fixed"

    def to_json(self) -> dict[str, OptionValue]:
        """Every flag and its value."""
        # The names are listed once: ``fields()`` per call was most of the cost, and a
        # server's view of every position carries the rules.
        return {name: getattr(self, name) for name in _FLAG_NAMES}


_FLAG_NAMES: Final = tuple(f.name for f in fields(RuleSet))

OPTIONS: Final[tuple[OptionSpec, ...]] = (
    OptionSpec("return_rule", "end_of_turn", RETURN_RULES, "§3.5: when a moved pioneer may stand on its start cell"),
    OptionSpec("scoring_timing", "immediate", SCORING_TIMINGS, "A16: score after each stone or once per turn"),
    OptionSpec("score_on_type_reduction", True, (False, True), "A18: covering a landscape's last cell can score"),
    OptionSpec("lake_is_landscape", True, (False, True), "A2: lake cells count as a landscape"),
    OptionSpec("end_on_player_eliminated", False, (False, True), "A23/E3: a player without pioneers ends the game"),
    OptionSpec("mobility_test", "current", MOBILITY_TESTS, "A22/E2: how 'can still move' is tested"),
    OptionSpec("end_on_stones_exhausted", True, (False, True), "A24/E4: the game ends when the supply is empty"),
    OptionSpec("stall_limit_rounds", 10, None, "A25/E5: rounds without a stone that end the game (null: never)"),
    OptionSpec("colour_rule", "fixed", COLOUR_RULES, "A3: fixed colours by player count, or free choice"),
)

PRESETS: Final[Mapping[str, Mapping[str, OptionValue]]] = {
    "default": {},
    "english": {"return_rule": "strict", "end_on_player_eliminated": True},
}

_SPECS: Final = {spec.name: spec for spec in OPTIONS}


def resolve_ruleset(ruleset: str, variants: Mapping[str, OptionValue]) -> RuleSet:
    """The :class:`RuleSet` for a preset name plus flag overrides.

    Raises:
        ConfigError: naming an unknown preset, an unknown flag or a bad value.
    """
    if ruleset not in PRESETS:
        raise ConfigError(f"unknown Terra Nova ruleset {short_repr(ruleset)} (known: {', '.join(PRESETS)})")
    values: dict[str, OptionValue] = dict(PRESETS[ruleset])
    for name, value in variants.items():
        spec = _SPECS.get(name)
        if spec is None:
            raise ConfigError(f"unknown Terra Nova variant flag {short_repr(name)} (known: {', '.join(_SPECS)})")
        _check_value(spec, value)
        values[name] = value
    return RuleSet(**values)  # type: ignore[arg-type]


def _check_value(spec: OptionSpec, value: OptionValue) -> None:
    if spec.name == "stall_limit_rounds":
        if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            return
        raise ConfigError(
            f"variant flag 'stall_limit_rounds' must be a positive integer or null, got {short_repr(value)}"
        )
    assert spec.choices is not None
    # bool is a subclass of int: True must not pass as 1 or vice versa.
    if not any(value == choice and type(value) is type(choice) for choice in spec.choices):
        allowed = ", ".join(repr(c) for c in spec.choices)
        raise ConfigError(f"variant flag {spec.name!r} must be one of {allowed}, got {short_repr(value)}")


DEFAULT_RULES: Final = RuleSet()
