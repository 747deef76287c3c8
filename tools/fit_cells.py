"""Fits a cells network offline on a training run's replay buffer (Terra Nova 2p): the
first 80 % of its positions to train on, the last 20 % (other games) held out, printing
the held-out policy and value loss as it goes, to tell whether the network generalises
across games (docs/bots.md, "What Terra Nova's networks learn").

    .venv/bin/python tools/fit_cells.py REPLAY.npz [--hidden 32,32,32,32,32] [--value-hidden 64]
        [--steps 2000] [--batch 128] [--lr 1e-3] [--l2 1e-3] [--every 250] [--out cells-fit.npz]

Needs the ``train`` extra (JAX).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from tabletop.core.network import PolicyValueNetwork
from tabletop.core.protocol import GameConfig
from tabletop.learn.model import Batch, Hyper, Trainer
from tabletop.learn.selfplay import ReplayBuffer

HELD_OUT = 1500
"""Positions of the held-out part scored at each report."""


def split(buffer: ReplayBuffer, share: float, input_size: int) -> tuple[ReplayBuffer, ReplayBuffer]:
    """The buffer's first ``share`` of positions and the rest, as two buffers."""
    n = len(buffer)
    cut = int(n * share)
    starts = np.concatenate([[0], np.cumsum(buffer._lengths)])
    parts = []
    for part in (slice(0, cut), slice(cut, n)):
        out = ReplayBuffer(part.stop - part.start, input_size, 2)
        out._x = buffer._x[part]
        out._value = buffer._value[part]
        out._lengths = buffer._lengths[part]
        out._legal = buffer._legal[starts[part.start] : starts[part.stop]]
        out._target = buffer._target[starts[part.start] : starts[part.stop]]
        parts.append(out)
    return parts[0], parts[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("replay", type=Path, help="a Terra Nova 2p run's replay.npz")
    parser.add_argument("--hidden", default="32,32,32,32,32")
    parser.add_argument("--value-hidden", type=int, default=64)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--out", type=Path, default=None, help="where to write the fitted network")
    args = parser.parse_args()
    hidden = tuple(int(h) for h in args.hidden.split(","))
    network = PolicyValueNetwork.random(
        "terranova", GameConfig(num_players=2), hidden, 7, value="placing", architecture="cells",
        value_hidden=args.value_hidden,
    )  # fmt: skip
    inputs, actions = network.meta.input_size, network.meta.num_actions
    train, held_out = split(ReplayBuffer.load(args.replay, inputs, 2), 0.8, inputs)
    held = held_out.batch(np.random.default_rng(1), HELD_OUT, actions)
    targets = held["policy"]
    entropy = -np.sum(np.where(targets > 0, targets * np.log(np.maximum(targets, 1e-30)), 0), axis=1).mean()
    uniform = np.mean(np.log(held["legal"].sum(1)))
    print(f"{len(train)} positions to train on; held out: targets' entropy {entropy:.3f}, uniform {uniform:.3f}")
    trainer = Trainer(network, Hyper(args.lr, args.l2))

    def held_out_loss() -> np.ndarray:
        total = np.zeros(2)
        for i in range(0, HELD_OUT, 250):
            part = slice(i, i + 250)
            total += trainer.evaluate(
                Batch(held["x"][part], held["legal"][part], held["policy"][part], held["value"][part])
            )
        return (total / (HELD_OUT / 250)).round(3)

    print(0, "held out (policy, value)", held_out_loss(), flush=True)
    rng = np.random.default_rng(0)
    start = time.process_time()
    losses = np.zeros(3)
    for step in range(1, args.steps + 1):
        drawn = train.batch(rng, args.batch, actions)
        losses += trainer.step(Batch(drawn["x"], drawn["legal"], drawn["policy"], drawn["value"]))
        if step % args.every == 0:
            print(
                step, "train", (losses / args.every).round(3)[1:], "held out", held_out_loss(),
                "CPU s", round(time.process_time() - start), flush=True,
            )  # fmt: skip
            losses[:] = 0
    if args.out is not None:
        trainer.trained(f"tools/fit_cells.py {args.replay.name} --hidden {args.hidden} --steps {args.steps}").save(
            args.out
        )


if __name__ == "__main__":
    main()
