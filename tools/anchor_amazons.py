"""Yardstick from ../shared/notes/performance-anchors.md: OpenSpiel Amazons random games.

Not part of tabletop: run it in a separate venv (``pip install open_spiel==2.0.2``) right
before ``tabletop bench`` so both figures come from the same machine state.
"""

import random
import sys
import time

import pyspiel  # type: ignore[import-not-found]

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
game, rng, n, actions, t0 = pyspiel.load_game("amazons"), random.Random(0), 0, 0, time.perf_counter()
while time.perf_counter() - t0 < seconds:
    s = game.new_initial_state()
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
        actions += 1
    n += 1
elapsed = time.perf_counter() - t0
print(f"amazons python-loop: {n / elapsed:.0f} games/s, {actions / elapsed:,.0f} actions/s")
