"""A masked policy-gradient learner for Medina against the random bot, in NumPy only.

    .venv/bin/python examples/train_masked_pg.py                 # the full run: 3 minutes of training
    .venv/bin/python examples/train_masked_pg.py --quick         # a few seconds (what CI runs)

The learner plays seat 0 of 3-player Medina against two ``random`` bots in the vector env
(``tabletop.envs.vector_games``: ``--batch`` games stepped by one call into Rust, the bots
played there, observations and masks written into NumPy arrays; it needs the native
extension, ``make native``).  Its policy is a softmax over the legal actions only (the
action mask): the logit of "piece kind k on square q" is ``W[k] . f(q) + U[k] . v``, where ``f(q)`` is
the observation's planes at square q and their 3x3 neighbourhood sums, and ``v`` the
global numbers (scaled); the pass has its own bias.  About 1,500 weights, trained by
REINFORCE with a running-mean baseline on the win share at the end of each game, the
policy evaluated for the whole batch at once.

Before and after training the policy plays arena games (``tabletop.arena.tournament``,
seats rotated, the same seeds): 300 against ``random`` bots and 20 against ``greedy``
bots (Medina's greedy bot takes seconds a game).  Written to ``--out`` (default
``examples/out``): ``learning_curve.svg`` (the win share over training, a rolling mean),
``policy.npz`` (the weights) and ``results.json`` (every number the summary prints).
"""

from __future__ import annotations

import argparse
import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.ai.agent import register_agent
from tabletop.arena.tournament import TournamentConfig, results_table, run_tournament
from tabletop.core.encoding import encoding_of
from tabletop.core.protocol import GameConfig, Move, State
from tabletop.core.registry import make
from tabletop.envs import vector_games

GAME = "medina"
PLAYERS = 3
SQUARES = 13 * 18
BLOCKS = 9  # start merchant, 4 palace colours, dome, stable, merchant, wall (encoding.py)
PASS = BLOCKS * SQUARES
VECTOR_SCALE = 0.1


class Policy:
    """The masked softmax policy (see the module docstring)."""

    def __init__(self, channels: int, vector: int, rng: np.random.Generator) -> None:
        self.W = rng.normal(0.0, 0.01, (BLOCKS, 2 * channels))
        self.U = np.zeros((BLOCKS + 1, vector))
        self.b = np.zeros(BLOCKS + 1)

    @staticmethod
    def features(planes: np.ndarray) -> np.ndarray:
        """Per square: the planes and their 3x3 neighbourhood sums, (2C, squares)."""
        padded = np.pad(planes, ((0, 0), (1, 1), (1, 1)))
        box = sum(padded[:, i : i + planes.shape[1], j : j + planes.shape[2]] for i in range(3) for j in range(3))
        return np.concatenate([planes, box / 9.0]).reshape(2 * planes.shape[0], -1)

    def probabilities(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The action probabilities (zero off the mask), with the features used."""
        f = self.features(obs["observation"])
        v = obs["vector"] * VECTOR_SCALE
        kind = self.U @ v + self.b
        logits = np.empty(PASS + 1)
        logits[:PASS] = (self.W @ f + kind[:BLOCKS, None]).ravel()
        logits[PASS] = kind[BLOCKS]
        mask = obs["action_mask"].astype(bool)
        logits[~mask] = -np.inf
        logits -= logits[mask].max()
        p = np.exp(logits)
        p /= p.sum()
        return p, f, v

    def gradient(self, p: np.ndarray, f: np.ndarray, v: np.ndarray, action: int) -> tuple[np.ndarray, ...]:
        """The gradient of log p(action) for W, U and b."""
        onehot = np.zeros(PASS + 1)
        onehot[action] = 1.0
        diff = onehot - p
        by_square = diff[:PASS].reshape(BLOCKS, SQUARES)
        by_kind = np.append(by_square.sum(axis=1), diff[PASS])
        return by_square @ f.T, np.outer(by_kind, v), by_kind

    def act(self, obs: dict[str, np.ndarray], rng: np.random.Generator, greedy: bool = False) -> int:
        p = self.probabilities(obs)[0]
        return int(p.argmax()) if greedy else int(rng.choice(len(p), p=p))


def batch_probabilities(
    policy: Policy, planes: np.ndarray, vector: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, ...]:
    """:meth:`Policy.probabilities` for a batch of observations: ``(p, f, v)`` with a
    leading batch axis."""
    padded = np.pad(planes, ((0, 0), (0, 0), (1, 1), (1, 1)))
    height, width = planes.shape[2], planes.shape[3]
    box = sum(padded[:, :, i : i + height, j : j + width] for i in range(3) for j in range(3))
    f = np.concatenate([planes, box / 9.0], axis=1).reshape(planes.shape[0], 2 * planes.shape[1], -1)
    v = vector * VECTOR_SCALE
    kind = v @ policy.U.T + policy.b
    logits = np.empty((planes.shape[0], PASS + 1))
    logits[:, :PASS] = (np.einsum("kc,bcs->bks", policy.W, f) + kind[:, :BLOCKS, None]).reshape(planes.shape[0], -1)
    logits[:, PASS] = kind[:, BLOCKS]
    legal = mask.astype(bool)
    logits[~legal] = -np.inf
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p, f, v


def train(policy: Policy, seconds: float, max_episodes: int, seed: int, lr: float, batch: int) -> list[float]:
    """REINFORCE over ``batch`` games at once in the vector env (``tabletop.envs.vector_games``):
    one action per game per step, each game's gradient summed over its episode and applied
    when it ends (the vector env starts the next game in the same step)."""
    envs = vector_games(GAME, batch, num_players=PLAYERS, opponents=("random",), seat=0, reward="win")
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    baseline = 1.0 / PLAYERS
    wins: list[float] = []
    grad_w = np.zeros((batch, *policy.W.shape))
    grad_u = np.zeros((batch, *policy.U.shape))
    grad_b = np.zeros((batch, *policy.b.shape))
    rows = np.arange(batch)
    start = time.perf_counter()
    while len(wins) < max_episodes and time.perf_counter() - start < seconds:
        p, f, v = batch_probabilities(policy, envs.observation, envs.vector, envs.action_mask)
        actions = (p.cumsum(axis=1) > rng.random((batch, 1))).argmax(axis=1)
        actions = np.where(envs.action_mask[rows, actions] > 0, actions, p.argmax(axis=1))  # float rounding at the top
        diff = -p
        diff[rows, actions] += 1.0
        by_square = diff[:, :PASS].reshape(batch, BLOCKS, SQUARES)
        by_kind = np.concatenate([by_square.sum(axis=2), diff[:, PASS:]], axis=1)
        grad_w += np.einsum("bks,bcs->bkc", by_square, f)
        grad_u += by_kind[:, :, None] * v[:, None, :]
        grad_b += by_kind
        envs.step(actions)
        for i in np.flatnonzero(envs.terminated):
            ret = float(envs.rewards[i, 0])
            advantage = ret - baseline
            baseline += 0.01 * (ret - baseline)
            policy.W += lr * advantage * grad_w[i]
            policy.U += lr * advantage * grad_u[i]
            policy.b += lr * advantage * grad_b[i]
            grad_w[i] = grad_u[i] = grad_b[i] = 0.0
            wins.append(ret)
    return wins


class PolicyAgent:
    """The trained policy as a tabletop agent (for the arena): sampled moves."""

    def __init__(self, policy: Policy, seed: int | None) -> None:
        self.name = "pg"
        self._policy = policy
        self._rng = np.random.default_rng(seed)
        self._enc = encoding_of(make(GAME), GameConfig(num_players=PLAYERS))

    def choose_move(self, state: State) -> Move:
        planes, vector = self._enc.observe(state, state.current_player)
        spec = self._enc.spec
        obs = {
            "observation": np.frombuffer(planes, np.float32).reshape(spec.shape),
            "vector": np.frombuffer(vector, np.float32),
            "action_mask": np.frombuffer(self._enc.action_mask(state), np.int8),
        }
        return self._enc.decode(self._policy.act(obs, self._rng))


def arena(policy: Policy, opponent: str, games: int, seed: int) -> dict[str, Any]:
    register_agent("pg", lambda _arg, s: PolicyAgent(policy, s))
    config = TournamentConfig(GAME, ("pg", opponent, opponent), games, PLAYERS, seed)
    table = {row.bot: row for row in results_table(run_tournament(config))}
    pg = table["pg"]
    return {"opponent": opponent, "games": games, "win_share": pg.win_share, "ci95": pg.win_share_ci}


def rolling(values: list[float], window: int) -> list[float]:
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out


def curve_svg(wins: list[float], window: int, path: Path) -> None:
    """The learning curve, drawn by hand as SVG (no plotting library)."""
    width, height, left, bottom, top, right = 640, 320, 60, 40, 30, 20
    w, h = width - left - right, height - top - bottom
    svg = ET.Element("svg", xmlns="http://www.w3.org/2000/svg", width=str(width), height=str(height))
    svg.set("font-family", "sans-serif")
    svg.set("font-size", "12")
    ET.SubElement(svg, "rect", x="0", y="0", width=str(width), height=str(height), fill="white")
    title = ET.SubElement(svg, "text", x=str(left), y="18")
    title.text = f"Medina, 3 players: learner's win share against two random bots (rolling mean of {window} games)"
    n = max(len(wins), 2)

    def xy(i: float, y: float) -> tuple[float, float]:
        return left + w * i / (n - 1), top + h * (1 - y)

    for y in (0.0, 0.25, 1 / 3, 0.5, 0.75, 1.0):
        _, py = xy(0, y)
        line = ET.SubElement(svg, "line", x1=str(left), y1=f"{py:.1f}", x2=str(left + w), y2=f"{py:.1f}")
        line.set("stroke", "#999" if y == 1 / 3 else "#ddd")
        if y == 1 / 3:
            line.set("stroke-dasharray", "4 3")
        if y == 1 / 3:  # inside the plot, under its line: the axis labels' column is too narrow
            label = ET.SubElement(svg, "text", x=str(left + w - 4), y=f"{py + 14:.1f}", fill="#555")
            label.text = "chance (1/3)"
        else:
            label = ET.SubElement(svg, "text", x=str(left - 6), y=f"{py + 4:.1f}", fill="#555")
            label.text = f"{y:.2f}"
        label.set("text-anchor", "end")
    points = " ".join("{:.1f},{:.1f}".format(*xy(i, y)) for i, y in enumerate(rolling(wins, window)))
    ET.SubElement(svg, "polyline", points=points, fill="none", stroke="#c0392b")
    axis = ET.SubElement(svg, "text", x=str(left + w / 2), y=str(height - 8), fill="#555")
    axis.set("text-anchor", "middle")
    axis.text = f"training games (0 to {len(wins)})"
    path.write_text(ET.tostring(svg, encoding="unicode") + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument("--episodes", type=int, default=1_000_000, help="at most this many training games")
    parser.add_argument("--eval-games", type=int, default=300, help="arena games against random (before and after)")
    parser.add_argument(
        "--greedy-games", type=int, default=20, help="arena games against greedy (before and after; about 7 s each)"
    )
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--batch", type=int, default=32, help="games stepped together (the vector env)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--quick", action="store_true", help="a few seconds (what CI runs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.minutes, args.episodes, args.eval_games, args.greedy_games, args.batch = 0.2, 20, 2, 1, 8
    args.out.mkdir(parents=True, exist_ok=True)
    enc = encoding_of(make(GAME), GameConfig(num_players=PLAYERS))
    policy = Policy(len(enc.spec.planes), len(enc.spec.vector), np.random.default_rng(args.seed))

    games = {"random": args.eval_games, "greedy": args.greedy_games}
    before = {opp: arena(policy, opp, n, seed=1) for opp, n in games.items()}
    start = time.perf_counter()
    wins = train(policy, args.minutes * 60, args.episodes, args.seed, args.lr, args.batch)
    seconds = time.perf_counter() - start
    after = {opp: arena(policy, opp, n, seed=1) for opp, n in games.items()}

    window = max(1, min(200, len(wins) // 10))
    curve_svg(wins, window, args.out / "learning_curve.svg")
    np.savez(args.out / "policy.npz", W=policy.W, U=policy.U, b=policy.b)
    results = {
        "game": f"{GAME}, {PLAYERS} players, learner in seat 0 during training",
        "training_games": len(wins),
        "training_seconds": round(seconds, 1),
        "batch": args.batch,
        "first_games_win_share": round(float(np.mean(wins[:window])), 3),
        "last_games_win_share": round(float(np.mean(wins[-window:])), 3),
        "window": window,
        "arena_before": before,
        "arena_after": after,
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
