"""Where cargo is there, a missing native engine fails the native tests instead of
skipping them (``tests/native/__init__.py``), so CI cannot lose the differential tests."""

from __future__ import annotations

import shutil

import pytest

from tests.native import REQUIRE_VARIABLE, native_required, needs_native


def test_a_missing_engine_fails_where_it_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match="no native engine for no-such-game"):
        needs_native("no-such-game")


def test_a_missing_engine_skips_where_it_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "0")
    mark = needs_native("no-such-game")
    assert mark.name == "skipif" and mark.args == (True,)


def test_cargo_on_path_requires_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/cargo" if name == "cargo" else None)
    assert native_required()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert not native_required()
