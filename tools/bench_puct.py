"""Speed of the network search (issue #40): PUCT simulations per CPU second of the
searching thread, at several batch sizes, against the native rollout MCTS (the
``native`` bot's search) timed in the same run as the yardstick.

The networks have random weights of the trained networks' sizes (the speed does not
depend on the values), for Medina 3p and Terra Nova 2p at ``tabletop bench search``'s
position (40 % through a seeded random game).  ``--tiny`` adds a network of one hidden
layer of 8, whose rate shows what the tree and the observations cost without the
network: ``1 / rate - 1 / tiny rate`` is the network's time per leaf.

    .venv/bin/python tools/bench_puct.py [--seconds 2] [--hidden 256,128] [--tiny] [--cells 32,32,32,32,32]

``--cells`` adds, in Terra Nova, a cells network of those widths (its value head 64 wide).

Needs the extension (``make native``) and NumPy (the ``rl`` extra).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from tabletop.bench.search import bench_position
from tabletop.core.encoding import encoding_of
from tabletop.core.network import PolicyValueNetwork
from tabletop.core.protocol import State
from tabletop.core.registry import make
from tabletop.native import native_module
from tabletop.native.mcts import GAME_LEVELS, level_config, search_options
from tabletop.native.puct import cell_geometry_arrays


def random_network(state: State, hidden: list[int]) -> Any:
    """A network of random weights of ``hidden`` widths for ``state``'s game."""
    encoding = encoding_of(state.game, state.config)
    planes, vector = encoding.observe(state, 0)
    inputs, actions, players = len(planes) + len(vector), encoding.num_distinct_actions, state.num_players
    rng = np.random.default_rng(0)
    arrays: dict[str, Any] = {}
    width = inputs
    for i, out in enumerate(hidden):
        arrays[f"w{i}"] = rng.normal(0, 1 / np.sqrt(width), (width, out)).astype(np.float32)
        arrays[f"b{i}"] = np.zeros(out, np.float32)
        width = out
    arrays["policy_w"] = rng.normal(0, 0.1, (width, actions)).astype(np.float32)
    arrays["policy_b"] = np.zeros(actions, np.float32)
    arrays["value_w"] = rng.normal(0, 0.1, (width, players)).astype(np.float32)
    arrays["value_b"] = np.zeros(players, np.float32)
    meta = {
        "format": "tabletop-pv-1",
        "game": state.game.id,
        "num_players": players,
        "ruleset": "default",
        "input_size": inputs,
        "num_actions": actions,
        "hidden": hidden,
        "made_by": "tools/bench_puct.py (random weights)",
    }
    module = native_module()
    assert module is not None, "build the extension: make native"
    return module.Network.from_arrays(json.dumps(meta), arrays)


def random_cells_network(state: State, hidden: list[int]) -> Any:
    """A cells network of random weights (``PolicyValueNetwork.random``) for ``state``'s game."""
    network = PolicyValueNetwork.random(
        state.game.id, state.config, hidden, 0, architecture="cells", value_hidden=64, made_by="tools/bench_puct.py"
    )
    module = native_module()
    assert module is not None, "build the extension: make native"
    return module.Network.from_arrays(
        json.dumps(network.meta.to_json()), dict(network.params), geometry=cell_geometry_arrays(network.meta)
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds a search")
    parser.add_argument("--hidden", default="256,128", help="the hidden widths")
    parser.add_argument("--batches", default="1,8,16,64", help="the batch sizes timed")
    parser.add_argument("--tiny", action="store_true", help="also a network of one hidden layer of 8")
    parser.add_argument("--cells", default="", help="also a cells network of these widths (Terra Nova)")
    args = parser.parse_args()
    module = native_module()
    assert module is not None, "build the extension: make native"
    hidden = [int(h) for h in args.hidden.split(",")]
    batches = [int(b) for b in args.batches.split(",")]
    print(f"CPU seconds a search: {args.seconds}; hidden {hidden}")
    for game_id, players in (("medina", 3), ("terranova", 2)):
        state = bench_position(make(game_id, engine="native"), players)
        native = state.native  # type: ignore[attr-defined]
        rollouts = native.search(cpu_seconds=args.seconds, seed=0)["simulations"] / args.seconds
        print(f"{game_id} {players}p ply {state.ply}: native MCTS (random rollouts) {rollouts:,.0f} sims/CPU s")
        if game_id in GAME_LEVELS:  # the game's own levels' search (Terra Nova: evaluation leaves)
            options = search_options(level_config("5", game_id)[0], game_id, 0)
            options.pop("simulations", None)
            own = native.search(cpu_seconds=args.seconds, **options)["simulations"] / args.seconds
            print(f"  native MCTS, the game's levels' settings: {own:,.0f} sims/CPU s ({1e6 / own:.1f} us a sim)")
        networks = [("", random_network(state, hidden))]
        if args.tiny:
            networks.append((" tiny [8]", random_network(state, [8])))
        if args.cells and game_id == "terranova":
            widths = [int(h) for h in args.cells.split(",")]
            networks.append((f" cells {widths}", random_cells_network(state, widths)))
        for label, network in networks:
            for batch in batches:
                found = module.puct_search(state, network, cpu_seconds=args.seconds, batch_size=batch, seed=0)
                rate = found["simulations"] / args.seconds
                print(
                    f"  puct{label} batch {batch:>2}: {rate:>8,.0f} sims/CPU s "
                    f"({1e6 / rate:6.1f} us a simulation, {rate / rollouts:.2f}x the rollout MCTS)"
                )


if __name__ == "__main__":
    main()
