"""The game suites test the Python engines, the readable reference: ``make(game_id)``
here gives the Python engine whatever the default (``docs/native.md``); the native
engines are checked against these in ``tests/native``."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def python_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_ENGINE", "python")
