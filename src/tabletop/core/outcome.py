"""How a finished game ended: scores, winners and the reason it ended."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game.

    Attributes:
        scores: final score per seat.
        winners: the seats that share the win (every seat with the highest score).
        termination: a short game-specific reason, e.g. ``"board_divided"``.
    """

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    termination: str

    @classmethod
    def from_scores(cls, scores: tuple[int, ...], termination: str) -> Outcome:
        """Builds an outcome in which every seat with the top score shares the win."""
        top = max(scores)
        return cls(scores, tuple(i for i, s in enumerate(scores) if s == top), termination)

    def returns(self) -> tuple[float, ...]:
        """Win share per seat: 1/k for each of k winners, 0 for everyone else."""
        share = 1.0 / len(self.winners)
        return tuple(share if i in self.winners else 0.0 for i in range(len(self.scores)))

    def to_json(self) -> dict[str, object]:
        """The outcome as a JSON-ready dict (the ``result`` of a game record)."""
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "termination": self.termination,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Outcome:
        """Inverse of :meth:`to_json`."""
        scores = data["scores"]
        winners = data["winners"]
        if not isinstance(scores, list) or not isinstance(winners, list):
            raise ValueError("result.scores and result.winners must be lists")
        return cls(tuple(int(s) for s in scores), tuple(int(w) for w in winners), str(data["termination"]))
