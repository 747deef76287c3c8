"""Fits a learned Terra Nova evaluation (``tabletop.native.learned``) on self-play records.

    tabletop selfplay terranova -n 2 --bots strong -g 40 -j 2 --seed 1000 -o runs/tn-strong
    python tools/fit_evaluation.py runs/tn-strong --out terranova-2p.evaluation.json

Every position of every finished game gives one row: the features of seat 0 minus those of
seat 1, and the lead still to come. A quarter of the games (every fourth record) is held
out and scored before the final fit on all of them: the root mean square error of the
lead still to come and how often its sign is the final winner's, by no territory at all,
by the hand-written evaluation (its own weights on the same features) and by the fit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from tabletop.core.record import GameRecord
from tabletop.native.learned import LearnedEvaluation, fit_weights, record_leads, save_evaluation

CELL_VALUE = 0.5  # the hand-written evaluation: this weight on "going_territory", nothing else


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", type=Path, help="a directory of game records (tabletop selfplay -o)")
    parser.add_argument("--out", type=Path, required=True, help="the learned evaluation to write (.evaluation.json)")
    parser.add_argument("--l2", type=float, default=1.0, help="ridge penalty on the weights")
    parser.add_argument("--every", type=int, default=1, help="keep every k-th position of a game")
    args = parser.parse_args()

    started = time.process_time()
    paths = sorted(args.records.glob("*.json"))
    records = [GameRecord.read_file(path) for path in paths]
    if not records:
        sys.exit(f"no records in {args.records}")
    ruleset = records[0].config.ruleset
    x_rows, y_rows, games = record_leads(records, every=args.every)
    x, y, game = np.asarray(x_rows), np.asarray(y_rows), np.asarray(games)
    names = _feature_names()
    held = game % 4 == 3
    hand = np.array([CELL_VALUE if name == "going_territory" else 0.0 for name in names])
    fitted = np.asarray(fit_weights(x[~held], y[~held], l2=args.l2))
    print(f"{len(records)} records, {len(y)} positions ({int(held.sum())} held out, every 4th game)")
    for label, weights in (("no territory", np.zeros_like(hand)), ("hand-written", hand), ("fitted", fitted)):
        print(f"{label:>13}: " + "; ".join(_scores(x[part], y[part], weights) for part in (~held, held)))
    weights = fit_weights(x, y, l2=args.l2)
    evaluation = LearnedEvaluation(
        game="terranova",
        num_players=2,
        ruleset=ruleset,
        features=tuple(names),
        weights=tuple(weights),
        made_by={
            "command": "python tools/fit_evaluation.py " + " ".join(sys.argv[1:]),
            "records": len(records),
            "positions": len(y),
            "players": sorted({player.agent for record in records for player in record.players}),
            "l2": args.l2,
            "cpu_seconds_to_fit": round(time.process_time() - started, 1),
        },
    )
    save_evaluation(evaluation, args.out)
    print(json.dumps(dict(zip(names, [round(w, 4) for w in weights], strict=True))))


def _scores(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> str:
    predicted = x @ weights
    rmse = float(np.sqrt(np.mean((predicted - y) ** 2)))
    decided = y != 0
    agree = float(np.mean(np.sign(predicted[decided]) == np.sign(y[decided])))
    return f"rmse {rmse:6.2f}, sign of the lead to come {agree:.3f}"


def _feature_names() -> list[str]:
    from tabletop.core.protocol import GameConfig
    from tabletop.core.registry import make
    from tabletop.native.learned import position_rows
    from tabletop.native.mcts import to_native

    state = make("terranova", engine="native").new_initial_state(GameConfig(num_players=2))
    return position_rows(to_native(state))[0]


if __name__ == "__main__":
    main()
