"""The static client: translations complete, imports resolvable, nothing fetched from elsewhere."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tabletop.core.registry import make
from tabletop.server.config import WEB_DIR
from tabletop.testing.playthrough import shipped_games

LANGUAGES = ("en", "sv", "fi", "nl", "it")


def strings(lang: str) -> dict[str, str]:
    data: dict[str, Any] = json.loads((WEB_DIR / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_key_and_the_same_placeholders(lang: str) -> None:
    en, other = strings("en"), strings(lang)
    assert set(other) == set(en)
    for key, text in en.items():
        # A text with plural forms is an object of forms (web/i18n.js picks one): each
        # form of every language has the placeholders of English's "other" form.
        wanted = set(re.findall(r"\{(\w+)\}", text["other"] if isinstance(text, dict) else text))
        forms = other[key].values() if isinstance(other[key], dict) else [other[key]]
        for form in forms:
            assert set(re.findall(r"\{(\w+)\}", form)) <= wanted | {"n"}, key
        assert isinstance(other[key], dict) == isinstance(text, dict), key
        if not isinstance(text, dict):
            assert set(re.findall(r"\{(\w+)\}", other[key])) == wanted, key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_summary_for_each_game(lang: str) -> None:
    for game in ("terranova", "medina"):
        assert len(strings(lang)[f"rules.{game}"]) > 200


def test_every_variant_flag_is_described_in_every_language() -> None:
    for game_id in shipped_games():
        for option in make(game_id).options:
            key = f"variant.{game_id}.{option.name}"
            for lang in LANGUAGES:
                assert strings(lang).get(key), f"{lang}.json lacks {key}"


def test_js_imports_resolve_and_nothing_is_loaded_from_other_hosts() -> None:
    files = [*WEB_DIR.rglob("*.js"), WEB_DIR / "index.html", WEB_DIR / "style.css"]
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text, path
        for target in re.findall(r'from "(\.[^"]+)"', text):
            assert (path.parent / target).resolve().is_file(), f"{path.name} imports missing {target}"


def test_swedish_speaks_of_a_piece_as_the_page_does() -> None:
    """A piece is a "pjäs" on the Swedish page (its supplies table's heading): the end of a
    Medina game once read "ingen kan längre placera en del" ("a part"), which no player says."""
    sv = strings("sv")
    assert sv["game.piece"].lower() == "pjäs"
    reason = sv["end.medina.no_legal_placements"]
    assert "pjäs" in reason and " en del" not in reason
