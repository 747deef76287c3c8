"""Makes the Coins toy game of tests/ai and this directory's plugins importable (neither is a package).

Worker processes import them by name (``--plugin toy_game``): spawned local workers are
given this ``sys.path``; Ray's workers get the same directories through ``PYTHONPATH``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.ai import agent

HERE = Path(__file__).resolve().parent

for entry in (str(HERE), str(HERE.parent / "ai")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

collect_ignore = ["dying_bot.py", "unhurried_bot.py"]
"""Not imported for their doctests: importing them registers test bots (one kills its process)."""


@pytest.fixture(autouse=True)
def forget_the_test_bots() -> Iterator[None]:
    """A test that loads this directory's bot plugins unregisters them afterwards, so no
    later test (the server's bot list, say) meets a bot that kills its process or dawdles."""
    yield
    for name, module in (("dieonce", "dying_bot"), ("unhurried", "unhurried_bot")):
        agent._AGENTS.pop(name, None)  # the registry has no public way to unregister
        sys.modules.pop(module, None)
