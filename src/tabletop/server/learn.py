"""The tutorials (``/learn/<game>``): lessons on real positions, judged by the engine.

A tutorial is data, one file per game (``server/lessons/<game>.json``): the config of
its positions and its lessons.  A lesson is a position (``moves`` in the game's notation,
played from the config's initial state) and one or more tasks, each one move of the
learner.  A task names the moves it teaches (``accept``: a list, or every legal move of
one kind), the moves the engine refuses there (``refused``: each must be illegal, and
the learner who tries one gets the engine's reason), the legal moves it does not accept
(``nudged``: the page answers with the task's hint) and the cells the board marks.

Nothing is stored: a lesson's position is rebuilt from its moves and the moves the
learner has played so far in it, which the page sends with every request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from tabletop.core.errors import IllegalMoveError, InvalidMoveError, Message, reason_of
from tabletop.core.protocol import Game, GameConfig, State
from tabletop.core.registry import make

LESSONS_DIR = Path(__file__).with_name("lessons")
HISTORY = 6
"""Actions before the position that the board marks (the last turns)."""
MAX_PLAYED = 8
"""More moves than any lesson has tasks: a longer list is refused before any replay."""


class LessonError(ValueError):
    """An unknown tutorial or lesson, or moves that are not the lesson's."""


@dataclass(frozen=True)
class Task:
    """One move the learner makes: what it accepts, refuses and marks."""

    accept_moves: tuple[str, ...]
    accept_kind: str | None
    refused: tuple[str, ...]
    nudged: tuple[str, ...]
    highlight: tuple[str, ...]

    def accepts(self, state: State, text: str) -> bool:
        """Whether the legal move ``text`` (in its canonical notation) is what this task teaches."""
        if text in self.accept_moves:
            return True
        return self.accept_kind is not None and state.parse_move(text).kind == self.accept_kind


@dataclass(frozen=True)
class Lesson:
    id: str
    moves: tuple[str, ...]
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class Tutorial:
    game_id: str
    config: GameConfig
    lessons: tuple[Lesson, ...]

    def lesson(self, lesson_id: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise LessonError(f"the {self.game_id} tutorial has no lesson {lesson_id[:40]!r}")


@dataclass(frozen=True)
class Verdict:
    """What the engine and the lesson say of a move: ``correct``, ``nudge`` (legal, not
    the lesson's move) or ``refused`` (illegal: ``message`` is the engine's reason)."""

    kind: Literal["correct", "nudge", "refused"]
    move: str
    message: Message | None = None


def tutorial_games() -> tuple[str, ...]:
    """The games that have a tutorial."""
    return tuple(sorted(p.stem for p in LESSONS_DIR.glob("*.json")))


@cache
def load_tutorial(game_id: str) -> Tutorial:
    """The tutorial of ``game_id``, read from its lesson file.

    Raises:
        LessonError: no tutorial for this game.
    """
    if game_id not in tutorial_games():
        raise LessonError(f"no tutorial for the game {game_id[:40]!r}")
    data = json.loads((LESSONS_DIR / f"{game_id}.json").read_text(encoding="utf-8"))
    return parse_tutorial(data)


def parse_tutorial(data: dict[str, Any]) -> Tutorial:
    """A tutorial from its JSON data (see the module docstring)."""
    lessons = []
    for raw in data["lessons"]:
        tasks = tuple(
            Task(
                accept_moves=tuple(t["accept"].get("moves", ())),
                accept_kind=t["accept"].get("kind"),
                refused=tuple(t.get("refused", ())),
                nudged=tuple(t.get("nudged", ())),
                highlight=tuple(t.get("highlight", ())),
            )
            for t in raw["tasks"]
        )
        lessons.append(Lesson(id=raw["id"], moves=tuple(raw["moves"].split()), tasks=tasks))
    return Tutorial(game_id=data["game"], config=GameConfig(**data["config"]), lessons=tuple(lessons))


def game_of(tutorial: Tutorial) -> Game:
    # The Python engine: its states carry the rendering and the reasons the page shows.
    return make(tutorial.game_id, engine="python")


@lru_cache(maxsize=64)
def _replay(game_id: str, moves: tuple[str, ...]) -> tuple[State, tuple[tuple[int, object], ...]]:
    tutorial = load_tutorial(game_id)
    state = game_of(tutorial).new_initial_state(tutorial.config)
    history = []
    for text in moves:
        move = state.parse_move(text)
        history.append((state.current_player, move))
        state = state.apply(move)
    return state, tuple(history)


def position(tutorial: Tutorial, lesson: Lesson, played: Sequence[str]) -> tuple[State, list[tuple[int, object]]]:
    """The lesson's position after the learner's ``played`` moves, with the actions before it.

    Raises:
        LessonError: ``played`` is longer than the lesson, or a move of it is not one its
            task accepts.
    """
    if len(played) > len(lesson.tasks):
        raise LessonError(f"the lesson {lesson.id!r} has {len(lesson.tasks)} task(s), {len(played)} moves were sent")
    state, history = _replay(tutorial.game_id, lesson.moves)
    steps = list(history)
    for task, text in zip(lesson.tasks, played, strict=False):
        verdict = judge(state, task, text)
        if verdict.kind != "correct":
            raise LessonError(f"{text[:40]!r} is not a move the lesson {lesson.id!r} accepts here")
        move = state.parse_move(verdict.move)
        steps.append((state.current_player, move))
        state = state.apply(move)
    return state, steps


def judge(state: State, task: Task, text: str) -> Verdict:
    """The verdict on the learner's move ``text`` in ``state`` for ``task``."""
    try:
        move = state.parse_move(text)
        state.apply(move)
    except (InvalidMoveError, IllegalMoveError) as exc:
        reason = reason_of(exc) or Message("core.refused", str(exc)[:200], {"text": str(exc)[:200]})
        return Verdict("refused", text[:40], reason)
    canonical = state.move_to_str(move)
    return Verdict("correct" if task.accepts(state, canonical) else "nudge", canonical)


def lesson_view(tutorial: Tutorial, lesson: Lesson, played: Sequence[str]) -> dict[str, Any]:
    """What the page draws: the position (as a match view has it), the task and its marks.

    ``task`` is the index of the task to play now; ``done`` once every task is played.
    """
    state, steps = position(tutorial, lesson, played)
    game = game_of(tutorial)
    first = max(0, len(steps) - HISTORY)
    render_board = getattr(game, "render_board", None)
    board = str(render_board(state, history=steps[first:], first_ply=first)) if render_board else None
    index = len(played)
    done = index >= len(lesson.tasks)
    task = lesson.tasks[min(index, len(lesson.tasks) - 1)]
    outcome = state.outcome()
    kinds = () if done else state.legal_kinds()
    legal = {k: [state.move_to_str(m) for m in state.legal_moves_of_kind(k)] for k in kinds}
    return {
        "game": tutorial.game_id,
        "lesson": lesson.id,
        "lessons": [x.id for x in tutorial.lessons],
        "task": index,
        "tasks": len(lesson.tasks),
        "done": done,
        "played": list(played),
        "learner": state.current_player if not done else steps[-1][0],
        "current_player": None if state.is_terminal() else state.current_player,
        "terminal": state.is_terminal(),
        "colors": list(game.seat_colors(state.num_players)),
        "players": [{"seat": i, "name": f"P{i + 1}", "agent": "human"} for i in range(state.num_players)],
        "state": state.to_json(),
        "scores": list(state.scores()),
        "outcome": outcome.to_json() if outcome is not None else None,
        "legal": legal,
        "highlight": list(task.highlight),
        "board_svg": board,
    }
