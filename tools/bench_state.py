"""Fixed seeded CPU-time micro-benchmark of the engines (issue 23's state refactor).

Plays the same kind-first random games (config seed and move seed = game number) through
the protocol only, so any branch can run it, and reports the best of ``--repeat`` runs of
process CPU time per action (``time.process_time``): the figure least moved by a noisy,
shared machine.

    .venv/bin/python tools/bench_state.py [--games 40] [--repeat 5] [GAME ...]
"""

from __future__ import annotations

import argparse
import random
import time

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make


def play(game_id: str, players: int, games: int) -> int:
    game = make(game_id)
    actions = 0
    for i in range(games):
        rng = random.Random(i)
        state = game.new_initial_state(GameConfig(num_players=players, seed=i))
        while not state.is_terminal():
            kind = rng.choice(state.legal_kinds())
            state = state.apply(rng.choice(state.legal_moves_of_kind(kind)))
            actions += 1
    return actions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games_ids", nargs="*", default=["terranova", "medina"])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for game_id in args.games_ids:
        for players in make(game_id).bench_player_counts:
            best = float("inf")
            actions = 0
            for _ in range(args.repeat):
                start = time.process_time()
                actions = play(game_id, players, args.games)
                best = min(best, time.process_time() - start)
            print(f"{game_id} {players}p: {actions} actions, best {best * 1e6 / actions:.2f} us/action CPU")


if __name__ == "__main__":
    main()
