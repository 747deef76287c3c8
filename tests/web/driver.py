"""Plays through the real page: reads the server's legal moves, then clicks like a person."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx2

CELL = r"[A-Za-z]+\d+"


def view_of(base: str, match_id: str) -> dict[str, Any]:
    data: dict[str, Any] = httpx2.get(f"{base}/api/matches/{match_id}", timeout=10).json()
    return data


def create(base: str, game: str, seats: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    body = {"game": game, "seats": [{"name": n, "agent": a} for n, a in seats], **extra}
    r = httpx2.post(f"{base}/api/matches", json=body, timeout=10)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def page_version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version") or -1)


def wait_version(page: Any, version: int, timeout_ms: int = 15000) -> None:
    """Waits until the page shows ``version`` or later."""
    page.wait_for_function(
        "v => Number(document.querySelector('#game')?.dataset.version ?? -1) >= v", arg=version, timeout=timeout_ms
    )


def click_move(page: Any, move: str) -> None:
    """Enters ``move`` with clicks only: piece button if needed, then its cells in order."""
    import re

    cells = re.findall(CELL, move)
    if not cells:
        page.click(f'button.free-move[data-move="{move}"]')
        return
    pattern = re.sub(CELL, "·", move)
    piece = page.query_selector(f'button.piece[data-piece="{pattern}"]')
    if piece is not None and piece.get_attribute("aria-pressed") != "true":
        piece.click()
    for cell in cells:
        page.click(f'[data-cell="{cell}"]')
    chooser = page.query_selector(f'#chooser button[data-move="{move}"]')
    if chooser is not None:
        chooser.click()


def pick(view: dict[str, Any], rng: random.Random) -> str:
    """Kind-first random choice, but a border stone whenever one may be placed: stones
    divide the board, so a game through the page ends sooner (Terra Nova's end E1)."""
    kinds: dict[str, list[str]] = view["legal"]
    kind = "stone" if "stone" in kinds else rng.choice(sorted(kinds))
    return rng.choice(kinds[kind])


def play_my_turns(
    page: Any,
    base: str,
    match_id: str,
    seats: set[int],
    rng: random.Random,
    *,
    max_actions: int = 2000,
    stop_after: int | None = None,
    deadline_s: float = 240,
) -> dict[str, Any]:
    """Plays every action of ``seats`` through the page until the game ends (or ``stop_after`` actions)."""
    done = 0
    end = time.monotonic() + deadline_s
    while time.monotonic() < end and done < max_actions:
        view = view_of(base, match_id)
        if view["terminal"] or (stop_after is not None and done >= stop_after):
            return view
        if view["current_player"] not in seats:
            time.sleep(0.03)
            continue
        wait_version(page, view["version"])
        page.wait_for_selector('#game[data-mine="1"]', timeout=10000)
        click_move(page, pick(view, rng))
        wait_version(page, view["version"] + 1)
        done += 1
    raise AssertionError(f"game did not finish: {done} actions played")


def choose_seat(page: Any, seat: int, agent: str) -> None:
    """Seats ``agent`` in the lobby form: a person or a named level from the seat's menu, a
    raw engine spec ("random", "mcts:2") from the "Advanced" disclosure."""
    if page.locator(f'#seat-{seat}-agent option[value="{agent}"]').count():
        page.select_option(f"#seat-{seat}-agent", agent)
        return
    advanced = page.locator("#seat-advanced")
    if advanced.get_attribute("open") is None:
        advanced.locator("summary").click()
    page.select_option(f"#seat-{seat}-engine", agent)
