"""Default implementations of the derivable parts of the State protocol.

A game's State may inherit :class:`StateDefaults` and override what it can do faster
(``legal_kinds``/``legal_moves_of_kind`` in particular: kind-first random play calls
them on every step).
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop.core.outcome import Outcome
from tabletop.core.protocol import Move


class StateDefaults:
    """Mixin deriving ``legal_kinds``, ``legal_moves_of_kind``, ``is_legal`` and ``returns``."""

    __slots__ = ()

    def legal_moves(self) -> Sequence[Move]:  # pragma: no cover - overridden
        raise NotImplementedError

    def outcome(self) -> Outcome | None:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def num_players(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def legal_kinds(self) -> Sequence[str]:
        """The distinct kinds among the legal moves, in order of first appearance."""
        return tuple(dict.fromkeys(m.kind for m in self.legal_moves()))

    def legal_moves_of_kind(self, kind: str) -> Sequence[Move]:
        """The legal moves of one kind."""
        return tuple(m for m in self.legal_moves() if m.kind == kind)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is among the legal moves."""
        return move in self.legal_moves()

    def returns(self) -> tuple[float, ...]:
        """Win share per seat once terminal, zeros before."""
        result = self.outcome()
        return result.returns() if result is not None else (0.0,) * self.num_players
