"""Yardstick for ``tabletop bench search GAME``: OpenSpiel's Python MCTS on Amazons.

The issue's bar for MCTS speed quotes OpenSpiel's Python ``MCTSBot`` at about 900
simulations per second on Amazons (initial position, one random rollout each) on the
machine the bar was set on.  Timing the same search here, in the same run as
``tabletop bench search``, tells how fast this machine is against that one.

Not part of tabletop: run it in a separate venv (``pip install open_spiel==2.0.2``).
"""

import sys
import time

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from open_spiel.python.algorithms import mcts  # type: ignore[import-not-found]

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
game = pyspiel.load_game("amazons")
rng = np.random.RandomState(0)
evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
simulations = 0
t0 = time.perf_counter()
while time.perf_counter() - t0 < seconds:
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=200, evaluator=evaluator, solve=False, random_state=rng)
    bot.mcts_search(game.new_initial_state())
    simulations += 200
elapsed = time.perf_counter() - t0
print(f"openspiel python MCTSBot, amazons initial position: {simulations / elapsed:,.0f} simulations/s")
