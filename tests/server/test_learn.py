"""The tutorials' lessons (server/lessons/*.json) against the engine, and their API.

Every task's accepted moves must be legal in its position, every ``refused`` move must be
refused with the engine's coded reason, every ``nudged`` move legal but not accepted; the
texts of every lesson exist in all five languages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tabletop.core.errors import IllegalMoveError, InvalidMoveError, reason_of
from tabletop.server.learn import LessonError, judge, load_tutorial, position, tutorial_games

WEB = Path(__file__).resolve().parents[2] / "src" / "tabletop" / "web"
LANGUAGES = ("en", "sv", "fi", "nl", "it")

TASKS = [
    (game, lesson.id, i)
    for game in tutorial_games()
    for lesson in load_tutorial(game).lessons
    for i in range(len(lesson.tasks))
]


def test_both_games_have_a_tutorial() -> None:
    assert tutorial_games() == ("medina", "terranova")


def first_accepted(game: str, lesson_id: str, upto: int) -> list[str]:
    """The learner's moves for the tasks before ``upto``: the first accepted legal move of each."""
    tut = load_tutorial(game)
    lesson = tut.lesson(lesson_id)
    played: list[str] = []
    for task in lesson.tasks[:upto]:
        state, _ = position(tut, lesson, played)
        legal = [state.move_to_str(m) for m in state.legal_moves()]
        played.append(next(m for m in legal if task.accepts(state, m)))
    return played


@pytest.mark.parametrize(("game", "lesson_id", "index"), TASKS, ids=[f"{g}-{les}-{i}" for g, les, i in TASKS])
def test_each_task_accepts_legal_moves_and_refuses_with_a_reason(game: str, lesson_id: str, index: int) -> None:
    tut = load_tutorial(game)
    lesson = tut.lesson(lesson_id)
    task = lesson.tasks[index]
    state, _ = position(tut, lesson, first_accepted(game, lesson_id, index))
    assert not state.is_terminal()
    legal = [state.move_to_str(m) for m in state.legal_moves()]
    accepted = [m for m in legal if task.accepts(state, m)]
    assert accepted, f"{lesson_id}: no legal move is accepted"
    for move in task.accept_moves:
        # A listed move may be out of reach only where an earlier task of the lesson let
        # the learner choose (the dome on whichever gray square was added).
        assert move in legal or index > 0, f"{move} is not legal in {lesson_id}"
    for move in accepted:
        assert judge(state, task, move).kind == "correct"
    for move in task.refused:
        with pytest.raises((IllegalMoveError, InvalidMoveError)) as refused:
            state.apply(state.parse_move(move))
        reason = reason_of(refused.value)
        assert reason is not None and reason.code.startswith(f"{game}."), f"{move}: no coded reason"
        verdict = judge(state, task, move)
        assert verdict.kind == "refused" and verdict.message == reason
    for move in task.nudged:
        assert move in legal and not task.accepts(state, move)
        assert judge(state, task, move).kind == "nudge"
    for cell in task.highlight:
        assert cell in json.dumps(state.to_json()), f"{cell} is not a cell of {game}"


def test_every_lesson_teaches_a_refusal_or_a_nudge() -> None:
    """A wrong move is part of each lesson: the page shows the engine's reason or the hint."""
    for game in tutorial_games():
        for lesson in load_tutorial(game).lessons:
            if lesson.id == "end":
                continue  # one move is left; any other is simply not the end
            assert any(t.refused or t.nudged for t in lesson.tasks), lesson.id


def test_the_last_terranova_lesson_ends_the_game() -> None:
    tut = load_tutorial("terranova")
    lesson = tut.lessons[-1]
    state, _ = position(tut, lesson, first_accepted("terranova", lesson.id, len(lesson.tasks)))
    assert state.is_terminal()


def test_a_move_the_lesson_does_not_accept_cannot_be_sent_as_played() -> None:
    tut = load_tutorial("terranova")
    with pytest.raises(LessonError, match="accepts"):
        position(tut, tut.lesson("slide"), ["b14-c13"])
    with pytest.raises(LessonError, match="task"):
        position(tut, tut.lesson("place"), ["a8", "b8"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_lesson_text_exists_in_every_language(lang: str) -> None:
    texts = json.loads((WEB / "i18n" / "learn" / f"{lang}.json").read_text(encoding="utf-8"))
    english = json.loads((WEB / "i18n" / "learn" / "en.json").read_text(encoding="utf-8"))
    assert set(texts) == set(english), sorted(set(english) ^ set(texts))
    for game in tutorial_games():
        assert f"learn.{game}.finished" in texts
        for lesson in load_tutorial(game).lessons:
            keys = ["title", "done"] + [f"{part}{i}" for i in range(len(lesson.tasks)) for part in ("task", "hint")]
            for key in keys:
                assert texts.get(f"learn.{game}.{lesson.id}.{key}"), f"{lang}: learn.{game}.{lesson.id}.{key}"
    if lang != "en":
        same = [k for k, v in texts.items() if len(v) > 30 and v == english[k]]
        assert not same, f"{lang}: not translated: {same}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_rules_exist_in_every_language_with_the_same_sections(game: str, lang: str) -> None:
    from tabletop.core.registry import make

    english = json.loads((WEB / "rules" / f"{game}.en.json").read_text(encoding="utf-8"))
    rules = json.loads((WEB / "rules" / f"{game}.{lang}.json").read_text(encoding="utf-8"))
    assert [s["id"] for s in rules["sections"]] == [s["id"] for s in english["sections"]]
    lessons = {lesson.id for lesson in load_tutorial(game).lessons}
    for section in rules["sections"]:
        assert section["title"] and section["paragraphs"]
        if "diagram" in section:
            assert section["diagram"]["lesson"] in lessons
    # Every variant flag the lobby offers is described in words.
    flags = {o.name for o in make(game).options}
    assert set(rules["variants"]) == flags
    for flag in flags:
        assert rules["variants"][flag]["name"] and rules["variants"][flag]["text"]


def test_the_api_judges_a_lesson(client: TestClient) -> None:
    lessons = client.get("/api/learn/terranova").json()
    assert [x["id"] for x in lessons["lessons"]] == ["place", "slide", "close", "end"]
    view = client.get("/api/learn/terranova/slide").json()
    assert view["task"] == 0 and not view["done"] and view["highlight"] == ["b14", "g9"]
    assert view["board_svg"].startswith("<svg") and 'data-cell="b14"' in view["board_svg"]
    assert set(view["legal"]) == {"move"}

    refused = client.post("/api/learn/terranova/slide/try", json={"move": "#c13"}).json()
    assert refused["verdict"] == "refused" and refused["message"]["code"] == "terranova.first_action_moves"
    assert "view" not in refused
    nudged = client.post("/api/learn/terranova/slide/try", json={"move": "b14-c13"}).json()
    assert nudged["verdict"] == "nudge" and nudged["message"] is None
    correct = client.post("/api/learn/terranova/slide/try", json={"move": "b14-g9"}).json()
    assert correct["verdict"] == "correct" and correct["view"]["task"] == 1
    assert correct["view"]["played"] == ["b14-g9"] and "stone" in correct["view"]["legal"]
    stone = client.post("/api/learn/terranova/slide/try", json={"played": ["b14-g9"], "move": "#g8"}).json()
    assert stone["verdict"] == "correct" and stone["view"]["done"] and stone["view"]["legal"] == {}

    replayed = client.get("/api/learn/terranova/slide", params={"played": ["b14-g9"]}).json()
    assert replayed["task"] == 1


def test_the_api_refuses_what_is_not_a_lesson(client: TestClient) -> None:
    assert client.get("/api/learn/chess").status_code == 404
    assert client.get("/api/learn/terranova/nope").json()["error"] == "bad_lesson"
    cheat = client.get("/api/learn/terranova/slide", params={"played": ["b14-c13"]})
    assert cheat.status_code == 422 and cheat.json()["error"] == "bad_lesson"
    over = client.post("/api/learn/terranova/place/try", json={"played": ["a8"], "move": "b8"})
    assert over.status_code == 422
    assert client.post("/api/learn/terranova/place/try", json={"move": "x" * 41}).status_code == 422


def test_the_pages_are_served(client: TestClient) -> None:
    for path in ("/learn/terranova", "/learn/medina", "/rules/terranova", "/rules/medina"):
        r = client.get(path)
        assert r.status_code == 200 and "app.js" in r.text
