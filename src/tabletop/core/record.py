"""Game records: a JSON header plus the list of actions in the game's notation.

Format (``docs/records.md``)::

    {"format": "tabletop-record", "version": 1, "game": "terranova",
     "config": {"num_players": 2, "ruleset": "default", "variants": {}, "map": "isola",
                "seed": 7, "start_player": null},
     "players": [{"name": "Ann", "agent": "human"}, {"name": "Bot", "agent": "random"}],
     "date": "2026-11-22T10:00:00+00:00",
     "result": {"scores": [30, 21], "winners": [0], "termination": "stones_exhausted"},
     "actions": ["c7", "e3", ...]}

``result`` is ``null`` for an unfinished game.  Replaying checks every action and,
when present, that the stored result matches the replayed one.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tabletop.core.errors import (
    ConfigError,
    IllegalMoveError,
    InvalidMoveError,
    RecordError,
    UnknownGameError,
    short_repr,
)
from tabletop.core.files import FileTooLargeError, read_bounded
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import GameConfig, Move, State
from tabletop.core.registry import make

RECORD_FORMAT = "tabletop-record"
MAX_RECORD_BYTES = 16_000_000
"""The largest record file read (about 200 times a 5,000-action game)."""
RECORD_VERSION = 1


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """Who sat in a seat: a display name and the agent spec (``human``, ``random``, ``mcts:3``)."""

    name: str
    agent: str = "human"


@dataclass(frozen=True)
class GameRecord:
    """A complete or partial game."""

    game: str
    config: GameConfig
    players: tuple[PlayerInfo, ...]
    actions: tuple[str, ...] = ()
    result: Outcome | None = None
    date: str = field(default_factory=lambda: _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))

    @classmethod
    def from_states(cls, initial: State, moves: Sequence[Move], players: Sequence[PlayerInfo]) -> GameRecord:
        """Builds the record of ``moves`` played from ``initial``.

        Args:
            initial: the initial state.
            moves: the moves applied, in order.
            players: one entry per seat.
        """
        actions: list[str] = []
        state = initial
        for move in moves:
            actions.append(state.move_to_str(move))
            state = state.apply(move)
        return cls(
            game=initial.game.id,
            config=initial.game.canonical_config(initial.config),
            players=tuple(players),
            actions=tuple(actions),
            result=state.outcome(),
        )

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": self.game,
            "config": self.config.to_json(),
            "players": [{"name": p.name, "agent": p.agent} for p in self.players],
            "date": self.date,
            "result": self.result.to_json() if self.result is not None else None,
            "actions": list(self.actions),
        }

    def dumps(self) -> str:
        """The record as JSON text (indented: one action per line, for readable diffs)."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """Reads a record from parsed JSON.

        Raises:
            RecordError: if the structure or a header field is wrong.
        """
        if not isinstance(data, Mapping):
            raise RecordError("a record must be a JSON object")
        if data.get("format") != RECORD_FORMAT:
            raise RecordError(
                f"not a tabletop record (format is {short_repr(data.get('format'))}, expected {RECORD_FORMAT!r})"
            )
        if data.get("version") != RECORD_VERSION:
            raise RecordError(
                f"unsupported record version {short_repr(data.get('version'))} (expected {RECORD_VERSION})"
            )
        try:
            header = _RecordModel.model_validate(data)
        except ValidationError as exc:
            raise _record_error(exc) from None
        game, actions_raw, date = header.game, header.actions, header.date
        try:
            config = GameConfig.from_json(header.config)
        except ConfigError as exc:
            raise RecordError(str(exc)) from None
        num_players = config.num_players
        if isinstance(config.map, str):
            _check_map_id(game, config.map)
        players = [PlayerInfo(name=p.name, agent=p.agent) for p in header.players]
        if len(players) != num_players:
            raise RecordError(f"{len(players)} players listed but config.num_players is {num_players}")
        result_raw = data.get("result")
        result: Outcome | None = None
        if result_raw is not None:
            try:
                if not isinstance(result_raw, Mapping):
                    raise ValueError("result must be an object or null")
                result = Outcome.from_json(dict(result_raw))
            except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
                raise RecordError(f"bad result: {short_repr(exc, 200)}") from None
        _check_unicode(
            {"game": game, "config.ruleset": config.ruleset, "date": date}
            | {f"players[{i}].name": p.name for i, p in enumerate(players)}
            | {f"players[{i}].agent": p.agent for i, p in enumerate(players)}
            | {f"action {i}": a for i, a in enumerate(actions_raw)}
        )
        return cls(
            game=game,
            config=config,
            players=tuple(players),
            actions=tuple(actions_raw),
            result=result,
            date=date,
        )

    @classmethod
    def read_file(cls, path: Path, *, max_bytes: int = MAX_RECORD_BYTES) -> GameRecord:
        """Reads a record file (at most ``max_bytes``: a 5,000-action record is under 100 kB).

        Raises:
            RecordError: if the file cannot be read, is too big, is not UTF-8 or is not a
                valid record.
        """
        try:
            raw = read_bounded(path, max_bytes)
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        except FileTooLargeError:
            raise RecordError(f"{path} is bigger than {max_bytes:,} bytes: not a record") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(f"{path} is not a UTF-8 text file") from None
        return cls.loads(text)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        """Reads a record from JSON text.

        Raises:
            RecordError: if the text is not valid JSON (nesting too deep included) or
                not a valid record.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc}") from None
        except RecursionError:
            raise RecordError("not a record: its JSON is nested too deeply") from None
        except ValueError as exc:  # e.g. an integer with more digits than Python converts
            raise RecordError(f"not valid JSON: {exc}") from None
        return cls.from_json(data)


class _PlayerModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    name: str
    agent: str = "human"


class _RecordModel(BaseModel):
    """A record's header and actions, typed (``config`` is read by ``GameConfig.from_json``)."""

    model_config = ConfigDict(strict=True, extra="ignore")
    game: str
    config: dict[str, Any]
    players: list[_PlayerModel]
    actions: list[str]
    date: str = ""


_EXPECTED = {"string_type": "str", "list_type": "list", "dict_type": "object", "model_type": "object"}


def _record_error(exc: ValidationError) -> RecordError:
    """The first problem pydantic found, said the way the record format names things.

    The value itself is quoted at most as a short prefix.
    """
    error = exc.errors()[0]
    loc = error["loc"]
    kind = error["type"]
    if loc and loc[0] == "actions" and len(loc) == 2 and isinstance(loc[1], int):
        index = loc[1]
        return RecordError(f"action {index} is {short_repr(error.get('input'))}, expected a string", index=index)
    if loc and loc[0] == "players" and len(loc) >= 2 and isinstance(loc[1], int):
        if len(loc) == 3 and loc[2] == "agent":
            return RecordError(f"players[{loc[1]}].agent must be a string, not {short_repr(error.get('input'))}")
        return RecordError(f"players[{loc[1]}] must be an object with a string 'name'")
    field_name = str(loc[0]) if loc else "record"
    if kind == "missing":
        return RecordError(f"missing field {field_name!r}")
    expected = _EXPECTED.get(kind, error.get("msg", "of another type").lower())
    return RecordError(f"field {field_name!r} must be {expected}, got {short_repr(error.get('input'))}")


def _check_unicode(texts: Mapping[str, str]) -> None:
    """Refuses strings that are not valid Unicode (a lone surrogate, as JSON's ``\\ud800``
    allows): they could be neither printed nor written back."""
    for where, text in texts.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise RecordError(f"{where} is not valid Unicode (it holds a lone surrogate)") from None


def _check_map_id(game_id: str, map_id: str) -> None:
    """Refuses a ``config.map`` string that is not one of the game's built-in map ids.

    A record carries any other map inline, so a string naming a file (which replaying
    would have read on the replaying machine) is corrupt.  An unknown game is left to
    :func:`iter_replay`, which names it.
    """
    try:
        game = make(game_id)
    except UnknownGameError:
        return
    known: tuple[str, ...] = tuple(getattr(game, "maps", ()))
    if map_id not in known:
        raise RecordError(
            f"config.map must be a built-in map id ({', '.join(known) or f'{game_id} has none'}) or an inline "
            f"map object; records never name map files (got {short_repr(map_id)})"
        )


def iter_replay(record: GameRecord, engine: str | None = None) -> Iterator[State]:
    """Yields the initial state and the state after each action of ``record``.

    Args:
        engine: the engine to replay on (:func:`~tabletop.core.registry.make`'s choice;
            ``None``: the default).

    Raises:
        RecordError: for an unknown game, a bad config, or an action that does not parse
            or is illegal (with ``index`` set to the action's position).
    """
    try:
        game = make(record.game, engine)
        state = game.new_initial_state(record.config)
    except (UnknownGameError, ConfigError) as exc:
        raise RecordError(f"cannot set up the game: {exc}") from None
    yield state
    for i, text in enumerate(record.actions):
        try:
            move = state.parse_move(text)
            state = state.apply(move)
        except InvalidMoveError as exc:
            raise RecordError(f"action {i} ({short_repr(text)}) does not parse: {exc}", index=i) from None
        except IllegalMoveError as exc:
            raise RecordError(f"action {i} ({short_repr(text)}) is illegal: {exc}", index=i) from None
        yield state


def replay(record: GameRecord, engine: str | None = None) -> State:
    """Replays ``record`` (on ``engine``, as :func:`iter_replay`) to its last state and
    checks the stored result.

    Raises:
        RecordError: as :func:`iter_replay`, or if the stored result differs from the
            replayed one.
    """
    states = iter_replay(record, engine)
    state = next(states)
    for state in states:  # noqa: B007 - only the last state is wanted
        pass
    if record.result is not None and state.outcome() != record.result:
        raise RecordError(f"stored result {record.result.to_json()} does not match the replay ({_describe(state)})")
    return state


def _describe(state: State) -> str:
    outcome = state.outcome()
    return "game not finished" if outcome is None else f"replayed result {outcome.to_json()}"
