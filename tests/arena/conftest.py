"""Makes the Coins toy game of tests/ai importable here (tests/ai is not a package)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ai"))
