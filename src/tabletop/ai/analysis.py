"""Hints and post-game analysis: any bot's suggested turn, and every turn of a game judged.

Both work with any agent spec (``greedy``, ``mcts:3``, ``mcts:2@0.2s``, the ladder's
names...): the bot only *chooses*; the *value* of a turn is measured the same way for
every bot, so the played turn and the bot's turn are compared on one scale.

**What is judged: a turn, not an action.**  A Terra Nova turn is a slide and up to two
stones, a Medina turn two placements; a player thinks of them together, and one action
alone is often worth nothing until the rest of the turn is played.  So a hint is the
bot's whole remaining turn from the position (its first action is what to play next),
and the analysis compares each played turn with the turn the bot plays from the same
starting position.  Turns where every action was forced (one legal move, e.g. a pass)
are not judged.

**The value of a turn** is the mover's estimated final-score margin once the turn is
over *and the next player has answered*: ``Game.evaluate``'s estimate of the mover's
final score minus the best rival's, in points (the real scores once the game is over),
after the next seat's turn, each of its actions the one that raises that seat's own
margin most at once (:func:`reply_move`: the cheapest answer that takes what is offered).  It is the
same for every judging bot and reads like a score ("+6: I expect to win by six").  The
answer matters: valued straight after the turn, a Medina turn that leaves a big palace
for the next player to dome, or a Terra Nova slide that lets the rival close an area,
would look as good as any, and a one-ply greedy bot would never be found wrong.
``replies=0`` values the position right after the turn instead (cheaper, blinder).

**Loss and marks.**  A turn's loss is how much less its value is than the bot's turn's
(zero when the played turn is worth as much or more).  Losses are marked like a chess
site's: :class:`Thresholds` says how many points make an inaccuracy, a mistake and a
blunder.  By default they are fractions of the game's *stake*, the winner's final score
(at least :data:`MIN_STAKE`), so one rule suits Terra Nova (scored near a hundred) and
Medina (in the twenties): see :data:`DEFAULT_FRACTIONS`.

**Cost.**  A hint costs the bot one search per action of the turn; an analysis one per
action of every judged turn.  ``time_per_action`` and ``deadline`` bound it for bots
that take deadlines (every search bot here): ``analyse`` shares what is left of
``deadline`` among the actions still to think about, thinking less per action when the
game is long; turns not begun by the deadline are left unjudged (``judged_until``).

Everything is deterministic for a given seed and simulation budget: each turn gets a
fresh agent seeded from ``seed`` and the turn's index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from tabletop.ai.agent import Agent, ask, make_agent
from tabletop.ai.jsonview import fields_json
from tabletop.core.protocol import Move, State
from tabletop.core.record import GameRecord, iter_replay

INACCURACY: Final = "inaccuracy"
MISTAKE: Final = "mistake"
BLUNDER: Final = "blunder"
MARKS: Final = (INACCURACY, MISTAKE, BLUNDER)
"""The marks, mildest first."""

MIN_STAKE: Final = 10.0
"""The smallest stake the default thresholds are scaled by (points)."""

DEFAULT_FRACTIONS: Final = (0.04, 0.08, 0.15)
"""Inaccuracy, mistake and blunder as fractions of the stake.

In a Terra Nova game won with 80 points a turn that costs 3.2 points against the bot's
is an inaccuracy, 6.4 a mistake and 12 (a big area lost) a blunder; in a Medina game won
with 25, 1, 2 and 3.75 points (a palace given away is a blunder)."""

DEFAULT_REPLIES: Final = 1
"""Turns of answer played before a turn is valued (the next seat's)."""

MAX_TURN_ACTIONS: Final = 64
"""A bot's turn is cut here: no game has turns this long, so a longer one is a bug."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The losses, in points of estimated final-score margin, that earn each mark."""

    inaccuracy: float
    mistake: float
    blunder: float

    def __post_init__(self) -> None:
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder:
            raise ValueError(f"thresholds must be positive and rising, got {self.as_tuple()}")

    @classmethod
    def for_stake(cls, stake: float, fractions: Sequence[float] = DEFAULT_FRACTIONS) -> Thresholds:
        """The thresholds for a game whose winner scores ``stake`` (at least :data:`MIN_STAKE`)."""
        base = max(MIN_STAKE, stake)
        low, mid, high = fractions
        return cls(round(low * base, 2), round(mid * base, 2), round(high * base, 2))

    def mark(self, loss: float) -> str | None:
        """The mark a turn losing ``loss`` points gets (``None``: a good turn)."""
        if loss >= self.blunder:
            return BLUNDER
        if loss >= self.mistake:
            return MISTAKE
        if loss >= self.inaccuracy:
            return INACCURACY
        return None

    def as_tuple(self) -> tuple[float, float, float]:
        """The three thresholds, mildest first."""
        return (self.inaccuracy, self.mistake, self.blunder)


def margin(state: State, seat: int) -> float:
    """``seat``'s estimated final score minus the best rival's, in points.

    Uses the real scores once the game is over, ``Game.evaluate`` before.
    """
    scores: Sequence[float] = state.scores() if state.is_terminal() else state.game.evaluate(state)
    rival = max((s for i, s in enumerate(scores) if i != seat), default=0.0)
    return float(scores[seat]) - float(rival)


def reply_move(state: State) -> Move:
    """The answer's action: the legal move after which the mover's margin is largest.

    One evaluation per legal move, no look-ahead (half the cost of ``greedy:1``, which
    also completes the turn of its best candidate); ties go to the first in the game's
    order, so the answer is deterministic.
    """
    moves = state.legal_moves()
    if len(moves) == 1:
        return moves[0]
    seat = state.current_player
    return max(moves, key=lambda move: margin(state.apply(move), seat))


def turn_value(after: State, seat: int, replies: int = DEFAULT_REPLIES) -> float:
    """The value of the position ``after`` a turn of ``seat``: its margin once ``replies``
    turns of answer (each action by :func:`reply_move`) are played.

    Args:
        after: the position straight after ``seat``'s turn.
        seat: the seat whose turn is valued.
        replies: how many following turns are played first (0: value ``after`` itself).
    """
    state = after
    for _ in range(replies):
        if state.is_terminal():
            break
        replier, turn, actions = state.current_player, state.turn, 0
        while _is_same_turn(state, replier, turn) and actions < MAX_TURN_ACTIONS:
            state = state.apply(reply_move(state))
            actions += 1
    return margin(state, seat)


def _is_same_turn(state: State, seat: int, turn: int) -> bool:
    return not state.is_terminal() and state.current_player == seat and state.turn == turn


def play_turn(agent: Agent, state: State, *, deadline_of: Callable[[], float | None] = lambda: None) -> list[Move]:
    """The actions ``agent`` plays from ``state`` until the mover's turn is over.

    Args:
        agent: the bot (not shared with other threads meanwhile).
        state: a position that is not over.
        deadline_of: called before each action for its :func:`time.monotonic` deadline.
    """
    seat, turn = state.current_player, state.turn
    moves: list[Move] = []
    while _is_same_turn(state, seat, turn) and len(moves) < MAX_TURN_ACTIONS:
        legal = state.legal_moves()
        move = legal[0] if len(legal) == 1 else ask(agent, state, deadline=deadline_of())
        moves.append(move)
        state = state.apply(move)
    return moves


def _texts(state: State, moves: Sequence[Move]) -> tuple[str, ...]:
    texts = []
    for move in moves:
        texts.append(state.move_to_str(move))
        state = state.apply(move)
    return tuple(texts)


def _apply_all(state: State, moves: Sequence[Move]) -> State:
    for move in moves:
        state = state.apply(move)
    return state


@dataclass(frozen=True, slots=True)
class Hint:
    """A bot's suggestion for the player to act.

    Attributes:
        seat: the seat the hint is for.
        level: the bot spec that made it.
        actions: the bot's remaining turn, in notation; the first is the action to play now.
        value: the seat's estimated final-score margin after those actions and the
            next seat's answer (points; :func:`turn_value`).
        current: the seat's estimated margin now, before them (no answer played).
    """

    seat: int
    level: str
    actions: tuple[str, ...]
    value: float
    current: float

    def to_json(self) -> dict[str, Any]:
        """The hint as JSON (values rounded to a tenth of a point)."""
        return {"move": self.actions[0], **fields_json(self, digits={"value": 1, "current": 1})}


def hint(
    state: State,
    spec: str,
    *,
    seed: int = 0,
    time_per_action: float | None = None,
    replies: int = DEFAULT_REPLIES,
) -> Hint:
    """The bot's suggested turn for ``state.current_player``, with its estimated value.

    Args:
        state: a position that is not over.
        spec: any agent spec (``make_agent``).
        seed: seeds the bot (same seed, same hint for a budget in simulations).
        time_per_action: seconds the bot may think per action (``None``: its own budget).
        replies: turns of answer played before the turn is valued (:func:`turn_value`).

    Raises:
        ConfigError: for an unknown spec.
        ValueError: if the game is over.
    """
    if state.is_terminal():
        raise ValueError("the game is over: there is nothing to suggest")
    agent = make_agent(spec, seed=seed)
    seat = state.current_player
    moves = play_turn(agent, state, deadline_of=_per_action(time_per_action))
    after = _apply_all(state, moves)
    value = turn_value(after, seat, replies)
    return Hint(seat, agent.name, _texts(state, moves), value, margin(state, seat))


def _per_action(seconds: float | None) -> Callable[[], float | None]:
    if seconds is None:
        return lambda: None
    return lambda: time.monotonic() + seconds


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One judged turn.

    Attributes:
        ply: the index of the turn's first action (the position before it is the
            record's position after ``ply`` actions).
        turn: the game's turn index.
        seat: who played it.
        played: the actions played, in notation.
        best: the bot's turn from the same position, in notation.
        played_value: the mover's estimated margin after the played turn (points).
        best_value: the same after the bot's turn.
        loss: ``max(0, best_value - played_value)``.
        mark: ``"inaccuracy"``, ``"mistake"``, ``"blunder"`` or ``None``.
        same: whether the played turn reached the bot's position.
    """

    ply: int
    turn: int
    seat: int
    played: tuple[str, ...]
    best: tuple[str, ...]
    played_value: float
    best_value: float
    loss: float
    mark: str | None
    same: bool

    def to_json(self) -> dict[str, Any]:
        """The review as JSON (values rounded to a tenth of a point)."""
        return fields_json(self, digits={"played_value": 1, "best_value": 1, "loss": 1})


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """How one seat played.

    Attributes:
        seat: the seat.
        turns: its judged turns.
        inaccuracies, mistakes, blunders: how many of each mark.
        average_loss: points lost per judged turn, on average.
        accuracy: the percentage of judged turns that earned no mark (100 with none judged).
    """

    seat: int
    turns: int
    inaccuracies: int
    mistakes: int
    blunders: int
    average_loss: float
    accuracy: float

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON."""
        return fields_json(self, digits={"average_loss": 2, "accuracy": 1})


@dataclass(frozen=True)
class Analysis:
    """Every judged turn of a game and a summary per seat.

    Attributes:
        game: the game id.
        level: the bot spec that judged.
        thresholds: the marks' thresholds used.
        turns: the judged turns, in order.
        seats: one summary per seat.
        actions: how many actions the game had.
        judged_until: the turns starting before this ply were judged: ``actions``
            unless the deadline came first (the rest of the game is not judged).
        players: the display names, if known.
    """

    game: str
    level: str
    thresholds: Thresholds
    turns: tuple[TurnReview, ...]
    seats: tuple[SeatSummary, ...]
    actions: int
    judged_until: int
    players: tuple[str, ...] = field(default=())

    @property
    def complete(self) -> bool:
        """Whether every turn was judged (no deadline cut the analysis short)."""
        return self.judged_until >= self.actions

    def to_json(self) -> dict[str, Any]:
        """The analysis as JSON (``docs/analysis.md`` describes the fields)."""
        return {
            "game": self.game,
            "level": self.level,
            "actions": self.actions,
            "judged_until": self.judged_until,
            "complete": self.complete,
            "players": list(self.players),
            "thresholds": dict(zip(MARKS, self.thresholds.as_tuple(), strict=True)),
            "seats": [s.to_json() for s in self.seats],
            "turns": [t.to_json() for t in self.turns],
        }


Progress = Callable[[int, int], None]
"""Told ``(actions_done, actions_total)`` as the analysis goes."""


def split_turns(initial: State, moves: Sequence[Move]) -> list[tuple[int, State, list[Move]]]:
    """The game cut into turns: ``(ply of the first action, position before, actions)``.

    A turn is the run of actions one seat plays with the same ``state.turn``.  A last
    turn cut short (the record of an unfinished game) is left out.
    """
    turns: list[tuple[int, State, list[Move]]] = []
    state = initial
    for ply, move in enumerate(moves):
        if not turns or not _is_same_turn(state, turns[-1][1].current_player, turns[-1][1].turn):
            turns.append((ply, state, []))
        turns[-1][2].append(move)
        state = state.apply(move)
    if turns and _is_same_turn(state, turns[-1][1].current_player, turns[-1][1].turn):
        turns.pop()
    return turns


def _is_forced(start: State, moves: Sequence[Move]) -> bool:
    state = start
    for move in moves:
        if len(state.legal_moves()) > 1:
            return False
        state = state.apply(move)
    return True


def analyse(
    initial: State,
    moves: Sequence[Move],
    spec: str,
    *,
    seed: int = 0,
    thresholds: Thresholds | None = None,
    time_per_action: float | None = None,
    deadline: float | None = None,
    progress: Progress | None = None,
    players: Sequence[str] = (),
    replies: int = DEFAULT_REPLIES,
) -> Analysis:
    """Judges every turn of every seat of a game against the bot's turn from the same position.

    Args:
        initial: the initial state.
        moves: the actions played (a finished game, or the start of one).
        spec: the judging bot's spec.
        seed: seeds the bot; turn ``i`` uses ``seed + i``.
        thresholds: the marks' thresholds; default: :meth:`Thresholds.for_stake` of the
            winner's final score (the best estimated final score if unfinished).
        time_per_action: the most seconds the bot thinks per action.
        deadline: a :func:`time.monotonic` instant by which the analysis ends; what is
            left of it is shared evenly among the actions still to think about, and a
            turn not begun by then is not judged (``Analysis.judged_until``).
        progress: told ``(actions done, actions in all)`` after each turn.
        players: display names, kept in the result.
        replies: turns of answer played before a turn is valued (:func:`turn_value`).

    Raises:
        ConfigError: for an unknown spec.
        IllegalMoveError: if a move is not legal where it was played.
    """
    make_agent(spec, seed=seed)  # an unknown spec fails before any work
    turns = split_turns(initial, moves)
    judged = [(i, t) for i, t in enumerate(turns) if not _is_forced(t[1], t[2])]
    total = sum(len(t[2]) for _, t in judged)
    done = 0
    reviews: list[tuple[int, int, int, tuple[str, ...], tuple[str, ...], float, float, bool]] = []
    name = spec
    judged_until = len(moves)
    for index, (ply, start, played) in judged:
        if deadline is not None and time.monotonic() >= deadline:
            judged_until = ply
            break
        agent = make_agent(spec, seed=seed + index)
        name = agent.name
        actions_left = total - done

        def deadline_of(left: int = actions_left) -> float | None:
            return _share(time_per_action, deadline, left)

        best = play_turn(agent, start, deadline_of=deadline_of)
        seat = start.current_player
        played_end, best_end = _apply_all(start, played), _apply_all(start, best)
        same = played_end == best_end
        played_value = turn_value(played_end, seat, replies)
        best_value = played_value if same else turn_value(best_end, seat, replies)
        reviews.append(
            (ply, start.turn, seat, _texts(start, played), _texts(start, best), played_value, best_value, same)
        )
        done += len(played)
        if progress is not None:
            progress(done, total)
    final = _apply_all(initial, moves) if moves else initial
    if thresholds is None:
        estimate: Sequence[float] = final.scores() if final.is_terminal() else final.game.evaluate(final)
        thresholds = Thresholds.for_stake(max(estimate))
    reviewed = tuple(_review(r, thresholds) for r in reviews)
    return Analysis(
        game=initial.game.id,
        level=name,
        thresholds=thresholds,
        turns=reviewed,
        seats=tuple(_summary(seat, reviewed) for seat in range(initial.num_players)),
        actions=len(moves),
        judged_until=judged_until,
        players=tuple(players),
    )


def _share(time_per_action: float | None, deadline: float | None, actions_left: int) -> float | None:
    """The deadline of the next action: its share of what is left, at most ``time_per_action``."""
    now = time.monotonic()
    limits = []
    if time_per_action is not None:
        limits.append(now + time_per_action)
    if deadline is not None:
        limits.append(now + max(0.0, deadline - now) / max(1, actions_left))
    return min(limits) if limits else None


def _review(
    raw: tuple[int, int, int, tuple[str, ...], tuple[str, ...], float, float, bool], thresholds: Thresholds
) -> TurnReview:
    ply, turn, seat, played, best, played_value, best_value, same = raw
    loss = 0.0 if same else max(0.0, best_value - played_value)
    return TurnReview(ply, turn, seat, played, best, played_value, best_value, loss, thresholds.mark(loss), same)


def _summary(seat: int, reviews: Sequence[TurnReview]) -> SeatSummary:
    own = [r for r in reviews if r.seat == seat]
    marks = [r.mark for r in own]
    clean = sum(1 for m in marks if m is None)
    return SeatSummary(
        seat=seat,
        turns=len(own),
        inaccuracies=marks.count(INACCURACY),
        mistakes=marks.count(MISTAKE),
        blunders=marks.count(BLUNDER),
        average_loss=sum(r.loss for r in own) / len(own) if own else 0.0,
        accuracy=100.0 * clean / len(own) if own else 100.0,
    )


def analyse_record(
    record: GameRecord,
    spec: str,
    *,
    seed: int = 0,
    thresholds: Thresholds | None = None,
    time_per_action: float | None = None,
    deadline: float | None = None,
    progress: Progress | None = None,
    replies: int = DEFAULT_REPLIES,
) -> Analysis:
    """:func:`analyse` of a game record (replayed and checked first).

    Raises:
        RecordError: if the record does not replay.
        ConfigError: for an unknown spec.
    """
    states = list(iter_replay(record))
    initial = states[0]
    moves = [state.parse_move(text) for state, text in zip(states, record.actions, strict=False)]
    return analyse(
        initial,
        moves,
        spec,
        seed=seed,
        thresholds=thresholds,
        time_per_action=time_per_action,
        deadline=deadline,
        progress=progress,
        players=[p.name for p in record.players],
        replies=replies,
    )
