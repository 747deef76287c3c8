"""Time and size of one board drawing (``render_board``), as the server makes one per update.

Plays a seeded random game of each game to a mid-game position, then draws it repeatedly
with the last 64 actions as history (what ``Room.board_svg`` passes) and prints the CPU
time per drawing (and of the first, before the caches fill), the SVG's size and its size
deflated (the websocket compresses).

    .venv/bin/python tools/board_render_time.py [--plies 60] [--repeat 200]
"""

from __future__ import annotations

import argparse
import random
import time
import zlib

from tabletop.ai.agent import random_move
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make


def measure(game_id: str, players: int, plies: int, repeat: int) -> str:
    game = make(game_id)
    state = game.new_initial_state(GameConfig(num_players=players, seed=1))
    rng = random.Random(1)
    history = []
    for _ in range(plies):
        if state.is_terminal():
            break
        move = random_move(state, rng)
        history.append((state.current_player, move))
        state = state.apply(move)
    render_board = game.render_board  # type: ignore[attr-defined]
    first = max(0, len(history) - 64)
    start = time.process_time()
    svg = render_board(state, history=history[first:], first_ply=first)  # cold: nothing cached yet
    cold = (time.process_time() - start) * 1000
    start = time.process_time()
    for _ in range(repeat):
        svg = render_board(state, history=history[first:], first_ply=first)
    per_board = (time.process_time() - start) / repeat * 1000
    raw = svg.encode()
    return (
        f"{game_id}: {per_board:.2f} ms CPU per board ({cold:.1f} ms the first, cold), "
        f"{len(raw)} bytes, {len(zlib.compress(raw, 6))} deflated"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    for game_id, players in (("terranova", 3), ("medina", 4)):
        print(measure(game_id, players, args.plies, args.repeat))


if __name__ == "__main__":
    main()
