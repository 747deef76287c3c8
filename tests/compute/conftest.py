"""Makes the Coins toy game of tests/ai and this directory's plugins importable (neither is a package).

Worker processes import them by name (``--plugin toy_game``): forked local workers see
this ``sys.path``; Ray's workers get the same directories through ``PYTHONPATH``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLUGIN_PATH = [str(HERE.parent / "ai"), str(HERE)]

for entry in reversed(PLUGIN_PATH):
    if entry not in sys.path:
        sys.path.insert(0, entry)
