"""Terra Nova move values.

Moves name cells by board index (see :mod:`tabletop.games.terranova.board`).  The board
builds one interned object per possible move, with its notation in ``label`` (not part
of equality), so move generation never allocates and ``str(move)`` is the notation.

Kinds: ``"place"`` (setup placement), ``"move"`` (slide a pioneer), ``"stone"`` (place a
border stone) and ``"pass"`` (a turn with no possible action).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class Place:
    """Setup: put one of your pioneers on the empty cell ``cell``."""

    kind: ClassVar[str] = "place"
    cell: int
    label: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return self.label or f"@{self.cell}"


@dataclass(frozen=True, slots=True)
class Slide:
    """Action M: slide your pioneer from ``src`` in a straight line to ``dst``."""

    kind: ClassVar[str] = "move"
    src: int
    dst: int
    label: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return self.label or f"@{self.src}-@{self.dst}"


@dataclass(frozen=True, slots=True)
class Stone:
    """Action P: put a border stone from the supply on ``cell``."""

    kind: ClassVar[str] = "stone"
    cell: int
    label: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return self.label or f"#@{self.cell}"


@dataclass(frozen=True, slots=True)
class Pass:
    """The only move of a player none of whose pioneers can move at the start of a turn."""

    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
"""The pass move (all passes are equal)."""

Move = Place | Slide | Stone | Pass
"""Any Terra Nova move."""
