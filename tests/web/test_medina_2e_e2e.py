"""End-to-end in headless Chromium: a 2-player game of Medina's second edition against a bot,
created through the lobby and played to the end with clicks, with screenshots at 1,366 and
390 px (written to a temporary folder, or to ``$TABLETOP_SCREENSHOTS`` when it is set)."""

from __future__ import annotations

import os
import random
import re
import shutil
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tabletop.core.record import GameRecord, replay

from .driver import choose_seat, play_my_turns, view_of, wait_version

pytestmark = pytest.mark.slow


def _screenshots(page: Any, server: str, match_id: str, folder: Path, stage: str) -> None:
    wait_version(page, view_of(server, match_id)["version"])
    for width, height in ((1366, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(folder / f"medina-2e-{stage}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_a_two_player_second_edition_game_against_a_bot(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(server + "/")
    page.select_option("#game-select", "medina")
    page.select_option("#players-select", "2")
    # Two players: the lobby offers only the rulesets that seat two (the second edition's)
    # and lists what the chosen one sets, in words.
    offered = page.eval_on_selector_all("#ruleset-select option", "els => els.map(e => e.value)")
    assert offered == ["second_edition", "boardspace_v2"]
    assert "Rules edition" in (page.text_content("#ruleset-flags") or "")
    page.fill("#seat-0-name", "Ann")
    page.select_option("#seat-0-agent", "human")
    choose_seat(page, 1, "greedy")
    page.click("summary:has-text('Variants')")
    page.fill("#seed", "7")
    page.click("#create")
    page.wait_for_url(re.compile(r"/play/"))
    match_id = page.url.split("/play/")[1].split("#")[0]
    page.wait_for_selector("#board")
    view = view_of(server, match_id)
    assert view["state"]["edition"] == 2 and view["state"]["board"]["columns"] == 16
    # The board shows the well with its plaza, the panel the tea tiles and neutral domes.
    assert page.locator('#board g.well[data-on="{}"]'.format(view["state"]["well"]["square"])).count() == 1
    assert page.locator("#board .well-plaza g.plaza.red").count() == 8
    assert page.locator("#supplies tr[data-slot='tea']").count() == 1
    assert page.text_content("#tea-pool") == "Tea tiles left: 6"
    rng = random.Random(7)
    view = play_my_turns(page, server, match_id, {0}, rng, stop_after=30)
    _screenshots(page, server, match_id, tmp_path, "midgame")
    view = play_my_turns(page, server, match_id, {0}, rng)
    assert view["terminal"]
    wait_version(page, view["version"])
    page.wait_for_selector("#status.over")
    record = GameRecord.loads(httpx2.get(f"{server}/api/matches/{match_id}/record", timeout=10).text)
    assert record.config.variants["well"] == view["state"]["well"]["square"]  # the draw is recorded
    outcome = replay(record).outcome()
    assert outcome is not None and list(outcome.scores) == view["outcome"]["scores"]
    shown = [int(page.text_content(f'li.player .score[data-seat="{i}"]') or "-1") for i in range(2)]
    assert shown == list(outcome.scores)
    _screenshots(page, server, match_id, tmp_path, "end")
    keep = os.environ.get("TABLETOP_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for png in tmp_path.glob("medina-2e-*.png"):
            shutil.copy(png, Path(keep) / png.name)
