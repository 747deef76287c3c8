"""Replay steps: every position of a record, in the shape the client draws."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from tabletop.core.errors import RecordError
from tabletop.core.protocol import TERMINAL, Move
from tabletop.core.record import GameRecord, iter_replay
from tabletop.core.registry import make

MAX_REPLAY_ACTIONS = 5000
"""Uploaded records longer than this are refused (bounded work per request)."""

BOARD_HISTORY = 64
"""Actions passed to a board drawing: more than one round of either game (4 seats × 3 actions)."""


REPLAY_CACHE_CHARS = 64 * 1024 * 1024
"""Characters of replay answers (steps, records, drawings) the server keeps at most."""


class TextCache:
    """Answers that cost a replay, by key; the least recently asked is forgotten first.

    Bounded by the characters held, so a few huge replays cannot take the memory.  Keys
    carry the match's version: a finished match's answer never changes, so every later
    request for it is served from here.
    """

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self._entries: OrderedDict[str, str] = OrderedDict()
        self._chars = 0

    def get(self, key: str) -> str | None:
        """The cached text, or ``None``."""
        text = self._entries.get(key)
        if text is not None:
            self._entries.move_to_end(key)
        return text

    def put(self, key: str, text: str) -> None:
        """Keeps ``text`` (unless it alone is over the bound)."""
        if len(text) > self.max_chars:
            return
        old = self._entries.pop(key, None)
        if old is not None:
            self._chars -= len(old)
        self._entries[key] = text
        self._chars += len(text)
        while self._chars > self.max_chars:
            _, dropped = self._entries.popitem(last=False)
            self._chars -= len(dropped)

    def __len__(self) -> int:
        return len(self._entries)


def replay_steps(record: GameRecord) -> dict[str, Any]:
    """The record's header and one step per position (step 0 is the initial position).

    Raises:
        RecordError: if the record does not replay (bad game, config or action).
    """
    if len(record.actions) > MAX_REPLAY_ACTIONS:
        raise RecordError(f"record has {len(record.actions)} actions; at most {MAX_REPLAY_ACTIONS} can be replayed")
    steps: list[dict[str, Any]] = []
    previous = None
    for i, state in enumerate(iter_replay(record)):
        outcome = state.outcome()
        steps.append(
            {
                "ply": i,
                "action": record.actions[i - 1] if i else None,
                "seat": previous.current_player if previous is not None else None,
                "turn": state.turn,
                "current_player": state.current_player if state.current_player != TERMINAL else None,
                "state": state.to_json(),
                "scores": list(state.scores()),
                "outcome": outcome.to_json() if outcome is not None else None,
            }
        )
        previous = state
    final = steps[-1]["outcome"]
    if record.result is not None and final != record.result.to_json():
        raise RecordError(f"stored result {record.result.to_json()} does not match the replayed one {final}")
    return {
        "game": record.game,
        "colors": list(make(record.game).seat_colors(len(record.players))),
        "config": record.config.to_json(),
        "players": [{"seat": i, "name": p.name, "agent": p.agent} for i, p in enumerate(record.players)],
        "steps": steps,
    }


def replay_board(record: GameRecord, ply: int) -> str | None:
    """The game's board drawing (hook ``render_board``) of the position after ``ply`` actions.

    The replay page asks for one position at a time: a drawing per step of a long record
    up front would be megabytes.  The last :data:`BOARD_HISTORY` actions are marked as in
    a live game.

    Raises:
        RecordError: if the record does not replay or ``ply`` is not one of its positions.
    """
    if len(record.actions) > MAX_REPLAY_ACTIONS:
        raise RecordError(f"record has {len(record.actions)} actions; at most {MAX_REPLAY_ACTIONS} can be replayed")
    if not 0 <= ply <= len(record.actions):
        raise RecordError(f"ply {ply} is not a position of this record (0 to {len(record.actions)})")
    render_board = getattr(make(record.game), "render_board", None)
    if render_board is None:
        return None
    history: list[tuple[int, Move]] = []
    previous = None
    for i, state in enumerate(iter_replay(record)):
        if previous is not None:
            history.append((previous.current_player, previous.parse_move(record.actions[i - 1])))
        if i == ply:
            first = max(0, ply - BOARD_HISTORY)
            return str(render_board(state, history=history[first:], first_ply=first))
        previous = state
    return None
