"""A learned evaluation in the native search: ``learned:NAME,LEVEL[,settings][@T]``.

The native levels of Terra Nova value a leaf by the game's evaluation (each seat's
estimated final score, ``terranova/eval.rs``): points already scored plus hand-set terms
of the territory each seat's pioneers hold in the live zones.  A *learned evaluation*
keeps the features the evaluation reads (``FEATURE_NAMES`` there: the territory counted
several ways, each scaled by the chance that the game goes on) and replaces the
hand-set weights by weights fitted to the final scores of self-play games
(:func:`fit_weights`: each seat's estimate is its points plus the weighted features,
fitted so the estimated lead of one seat over the other is the final one).  The search
is the native level's own (the same simulations, rollouts and horizon): only the values
of its leaves and the ranking of its root change.

A learned evaluation is a small JSON file (:class:`LearnedEvaluation`): the game, the
seat count and ruleset it was fitted on, the features' names (checked against the
engine's at every search), the weights, and ``made_by``.  Specs name it, never a path,
as ``puct`` specs name networks: ``learned:NAME,...`` reads ``NAME.evaluation.json`` from
the directories of ``TABLETOP_NETWORKS``, then the package's
(``tabletop/native/networks``).  For a game, seat count or ruleset other than the file's,
the search plays the level's own evaluation.

This module imports only ``core`` and the native adapter; fitting needs NumPy.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tabletop.core.errors import ConfigError
from tabletop.native.puct import find_network

if TYPE_CHECKING:
    from tabletop.core.record import GameRecord

KIND: Final = "learned"

SUFFIX: Final = ".evaluation.json"
"""A learned evaluation ``NAME`` is the file ``NAME.evaluation.json``."""

FORMAT: Final = "tabletop-learned-evaluation"

MAX_FILE_BYTES: Final = 64 * 1024
"""A learned evaluation is a few hundred bytes; a larger file is not one."""


@dataclass(frozen=True, slots=True)
class LearnedEvaluation:
    """Weights on a game's evaluation features, fitted for one setting.

    Attributes:
        game: the game id (``terranova``).
        num_players: the seat count it was fitted on.
        ruleset: the ruleset preset it was fitted on.
        features: the names of the features, in the engine's order.
        weights: one per feature.
        made_by: how it was made (command, games, seed, CPU seconds).
    """

    game: str
    num_players: int
    ruleset: str
    features: tuple[str, ...]
    weights: tuple[float, ...]
    made_by: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.features) != len(self.weights) or not self.weights:
            raise ConfigError("a learned evaluation needs one weight per feature")
        if not all(isinstance(w, float) and math.isfinite(w) for w in self.weights):
            raise ConfigError("a learned evaluation's weights must be finite numbers")

    def applies_to(self, game_id: str, num_players: int, ruleset: str) -> bool:
        """Whether it was fitted for this game, seat count and ruleset."""
        return (self.game, self.num_players, self.ruleset) == (game_id, num_players, ruleset)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "num_players": self.num_players,
            "ruleset": self.ruleset,
            "features": list(self.features),
            "weights": list(self.weights),
            "made_by": dict(self.made_by),
        }

    @classmethod
    def from_json(cls, data: object) -> LearnedEvaluation:
        """Raises: ConfigError saying what is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ConfigError(f'not a learned evaluation (no "format": "{FORMAT}")')
        try:
            features = data["features"]
            weights = data["weights"]
            if not (isinstance(features, list) and all(isinstance(f, str) for f in features)):
                raise ConfigError("a learned evaluation's features are a list of names")
            if not (isinstance(weights, list) and all(isinstance(w, int | float) for w in weights)):
                raise ConfigError("a learned evaluation's weights are a list of numbers")
            made_by = data.get("made_by", {})
            game, num_players, ruleset = data["game"], data["num_players"], data["ruleset"]
            if not (isinstance(game, str) and isinstance(num_players, int) and isinstance(ruleset, str)):
                raise ConfigError("a learned evaluation names its game, seat count and ruleset")
            return cls(
                game=game,
                num_players=num_players,
                ruleset=ruleset,
                features=tuple(features),
                weights=tuple(float(w) for w in weights),
                made_by=made_by if isinstance(made_by, dict) else {},
            )
        except KeyError as exc:
            raise ConfigError(f"a learned evaluation needs {exc.args[0]!r}") from None


def save_evaluation(evaluation: LearnedEvaluation, path: str | os.PathLike[str]) -> None:
    """Writes ``evaluation`` to ``path`` (JSON; atomically, so a reader never sees half)."""
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(json.dumps(evaluation.to_json(), indent=1) + "\n")
    temporary.replace(target)


_LOADED: dict[tuple[str, int, int], LearnedEvaluation] = {}
_LOADED_LOCK = threading.Lock()


def load_evaluation(path: str | os.PathLike[str]) -> LearnedEvaluation:
    """The learned evaluation of the file ``path``, read once per file and modification.

    Raises:
        ConfigError: for a file that is not one (too large, not JSON, wrong fields).
    """
    resolved = Path(path).resolve()
    stat = resolved.stat()
    key = (str(resolved), stat.st_mtime_ns, stat.st_size)
    with _LOADED_LOCK:
        if key in _LOADED:
            return _LOADED[key]
    if stat.st_size > MAX_FILE_BYTES:
        raise ConfigError(f"{resolved.name}: larger than a learned evaluation ({stat.st_size} bytes)")
    try:
        data = json.loads(resolved.read_text(), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{resolved.name}: not JSON ({exc})") from None
    evaluation = LearnedEvaluation.from_json(data)
    with _LOADED_LOCK:
        _LOADED[key] = evaluation
    return evaluation


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number here")


def find_evaluation(name: str) -> Path:
    """The file of the learned evaluation ``name`` (``NAME.evaluation.json``), looked up
    where networks are (``tabletop.native.puct.find_network``).

    Raises:
        ConfigError: for a name that is not a plain file name, or one no directory has.
    """
    return find_network(f"{name}{SUFFIX}")


def search_weights(evaluation: LearnedEvaluation, native: Any) -> list[float] | None:
    """The weights to search the native position ``native`` with (its ``evaluation``
    search option), or ``None`` where the evaluation is for another setting.

    Raises:
        ConfigError: where the engine's features are not the file's (another version).
    """
    config = native.config
    if not evaluation.applies_to(native.game.id, config.num_players, config.ruleset):
        return None
    names, _ = native.native.evaluation_features()
    if tuple(names) != evaluation.features:
        raise ConfigError(
            f"the learned evaluation's features {list(evaluation.features)} are not the engine's {list(names)}"
        )
    return list(evaluation.weights)


def fit_weights(features: Any, leads: Any, *, l2: float = 1.0) -> list[float]:
    """Weights ``w`` (one per feature) minimising ``sum((f @ w - lead)^2) + l2 * |w|^2``
    over positions: ``features[i]`` is the difference between the features of the two
    seats of position ``i`` (the seat to act minus the other), ``leads[i]`` the final
    lead still to come there (final score difference minus the points difference now).

    Fitting leads rather than each seat's score is what the search needs: a leaf's
    value is the logistic of the seat's estimated lead (``game::leaf_values``), and a
    feature equal for both seats (``going``) says nothing about it.
    """
    import numpy as np

    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(leads, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],) or x.shape[0] == 0:
        raise ValueError("features: positions x features; leads: one per position")
    gram = x.T @ x + l2 * np.eye(x.shape[1])
    weights = np.linalg.solve(gram, x.T @ y)
    return [float(w) for w in weights]


def position_rows(native: Any) -> tuple[list[str], list[list[float]]]:
    """The learned evaluation's features of each seat at a native position (``(names,
    rows)``)."""
    names, rows = native.native.evaluation_features()
    return list(names), [list(row) for row in rows]


def record_leads(records: Iterable[GameRecord], *, every: int = 1) -> tuple[list[list[float]], list[float], list[int]]:
    """The fitting data of two-seat records (``tabletop selfplay -o``): for every
    ``every``-th position of each finished game, the features of seat 0 minus those of
    seat 1 (:func:`position_rows`), the lead still to come there (seat 0's final lead
    minus its lead on points now), and the record's index (to hold games out).

    Raises:
        ConfigError: for a record of more than two seats, or one without a native engine.
    """
    from tabletop.core.record import iter_replay
    from tabletop.native.mcts import to_native

    differences: list[list[float]] = []
    leads: list[float] = []
    games: list[int] = []
    for index, record in enumerate(records):
        if record.config.num_players != 2:
            raise ConfigError("a learned evaluation is fitted on two-seat games")
        states = list(iter_replay(record, engine="native"))
        final = states[-1]
        if not final.is_terminal():
            continue
        final_lead = final.scores()[0] - final.scores()[1]
        for ply, state in enumerate(states[:-1]):
            if ply % every:
                continue
            _, rows = position_rows(to_native(state))
            points = state.scores()
            differences.append([a - b for a, b in zip(rows[0], rows[1], strict=True)])
            leads.append(float(final_lead - (points[0] - points[1])))
            games.append(index)
    return differences, leads, games


def learned_search_agent(evaluation: LearnedEvaluation, level: str, *, seed: int | None, name: str) -> Any:
    """The native level ``level`` (a ``native`` spec's part after ``native:``, e.g.
    ``5,horizon=160@0.5cpu``) valued by ``evaluation`` where it applies.

    Raises:
        ConfigError: for a bad level.
    """
    from tabletop.native.mcts import GAME_LEVELS, NativeMctsAgent, level_config

    config, _ = level_config(level)
    per_game = {game_id: level_config(level, game_id)[0] for game_id in GAME_LEVELS}
    return NativeMctsAgent(
        config,
        seed=seed,
        name=name,
        game_configs=per_game,
        evaluation=lambda native: search_weights(evaluation, native),
    )


def make_learned_agent(arg: str | None, seed: int | None) -> Any:
    """The ``learned`` agent of a spec: a native level's search valued by a learned
    evaluation (``learned:NAME,LEVEL[,settings][@T]``, e.g.
    ``learned:terranova-2p,5,horizon=160@0.5cpu``).

    Raises:
        ConfigError: without a name or a level, or for a bad setting or file.
    """
    from tabletop.native.mcts import level_config

    name, comma, level = (arg or "").partition(",")
    if not name or not comma or not level:
        raise ConfigError(f"the learned evaluation's search needs a name and a level: '{KIND}:NAME,5@0.5cpu'")
    evaluation = load_evaluation(find_evaluation(name))
    _, shown = level_config(level)
    return learned_search_agent(evaluation, level, seed=seed, name=f"{KIND}:{name},{shown.removeprefix('native:')}")


def agent_factories() -> Mapping[str, Callable[[str | None, int | None], Any]]:
    """``learned`` where the extension has learned evaluations, nothing otherwise."""
    from tabletop.native import native_module

    module = native_module()
    state_class = getattr(module, "TerraNovaState", None) if module is not None else None
    if state_class is None or not hasattr(state_class, "evaluation_features"):
        return {}
    return {KIND: make_learned_agent}


__all__: Sequence[str] = (
    "KIND",
    "LearnedEvaluation",
    "agent_factories",
    "find_evaluation",
    "fit_weights",
    "learned_search_agent",
    "load_evaluation",
    "make_learned_agent",
    "position_rows",
    "record_leads",
    "save_evaluation",
    "search_weights",
)
