"""Monte Carlo tree search for 2 to 4 players (max-n UCT).

Each simulation runs four named steps (OpenSpiel's ``MCTSBot`` shape):

1. :meth:`MCTS.select` walks down the tree, at each node taking the child best for the
   seat *to act there* (UCT on that seat's mean value);
2. :meth:`MCTS.expand` adds one untried move's child (kind-first: a random legal kind,
   then a random move of that kind, so kinds with many moves do not crowd out the rest);
3. :meth:`MCTS.evaluate` asks the :class:`~tabletop.ai.evaluators.Evaluator` for one
   value per seat (a rollout, a truncated rollout plus the game's heuristic, ...);
4. :meth:`MCTS.backup` adds that value vector to every node on the path.

Values are kept per seat, never negated: with three or four players there is no
opponent whose loss is our gain, and a turn may hold several actions by the same
player, so "whose move" is read from each node's state, never from tree depth.

The search is deterministic for a given seed and simulation budget; a time budget or
a deadline makes it depend on the machine's speed.  Between moves the subtree of the
position actually reached is kept (found by ply and state equality), so the visits
spent on the expected reply are not thrown away.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tabletop.ai.clock import MoveBudget
from tabletop.ai.evaluators import Evaluator, SearchEvaluator, TruncatedRollout
from tabletop.core.protocol import Move, State


@dataclass(frozen=True)
class MCTSConfig:
    """Settings of one search.

    Attributes:
        simulations: simulations per move, or ``None`` to use only the time budget.
        time_limit: seconds per move, or ``None`` to use only the simulation budget.
        uct_c: the exploration constant (values are in [0, 1]).
        evaluator: values leaf positions.
        widening: progressive widening: a node with ``n`` visits has at most
            ``ceil(widening * n ** widening_exponent)`` children; ``None`` expands every
            move before revisiting any (plain UCT).
        widening_exponent: see ``widening``.
        reuse_tree: keep the subtree of the reached position between moves.
        prior: ranks moves for expansion: ``prior(state_after, seat)`` says how good the
            position after a move is for the seat that made it.  ``None`` keeps the
            kind-first random order everywhere.
        rank_after: a node's remaining moves are ranked by ``prior`` (best expanded
            first) once it has this many visits; the root is ranked at once.  Ranking
            costs one ``apply`` and one ``prior`` per move, so only busy nodes pay it.
        rank_only_with_heuristic_leaf: rank only in searches whose leaves are valued by
            the game's heuristic (an ``AdaptiveRollout`` that chose no rollouts): the
            evaluation orders moves where the search already trusts it, not where random
            rollouts to the end value the leaves (measured: it helped in Terra Nova's long
            middle game and hurt in Medina, which is rolled out from the first move).
    """

    simulations: int | None = 1000
    time_limit: float | None = None
    uct_c: float = 0.7
    evaluator: Evaluator = field(default_factory=TruncatedRollout)
    widening: float | None = None
    widening_exponent: float = 0.5
    reuse_tree: bool = True
    prior: Callable[[State, int], float] | None = None
    rank_after: int = 16
    rank_only_with_heuristic_leaf: bool = False

    def __post_init__(self) -> None:
        if self.simulations is None and self.time_limit is None:
            raise ValueError("an MCTS search needs a simulation budget, a time limit or both")
        if self.simulations is not None and self.simulations < 1:
            raise ValueError(f"an MCTS search needs at least one simulation, got {self.simulations}")


class SearchNode:
    """A position in the search tree.

    Attributes:
        move: the move that led here from the parent (``None`` at the root).
        state: the position.
        player: the seat to act here (``TERMINAL`` once the game is over).
        terminal: whether the game is over here.
        children: the expanded children.
        untried: legal moves not yet expanded, grouped by kind (``None`` until the
            node is first expanded).
        ranked: once ranked, the moves not yet expanded with their positions, worst
            first (expansion pops the best from the end); ``None`` before.
        visits: simulations through this node.
        value_sums: per seat, the sum of the values backed up through this node.
    """

    __slots__ = ("children", "move", "player", "ranked", "state", "terminal", "untried", "value_sums", "visits")

    def __init__(self, move: Move | None, state: State) -> None:
        self.move = move
        self.state = state
        self.player = state.current_player
        self.terminal = state.is_terminal()
        self.children: list[SearchNode] = []
        self.untried: list[list[Move]] | None = None
        self.ranked: list[tuple[Move, State]] | None = None
        self.visits = 0
        self.value_sums = [0.0] * state.num_players

    def mean(self, seat: int) -> float:
        """The mean value for ``seat`` (0.5 before any visit)."""
        return self.value_sums[seat] / self.visits if self.visits else 0.5

    def has_untried(self) -> bool:
        """Whether some legal move has no child yet (computes the moves on first call)."""
        if self.terminal:
            return False
        if self.ranked is not None:
            return bool(self.ranked)
        if self.untried is None:
            state = self.state
            self.untried = [list(state.legal_moves_of_kind(k)) for k in state.legal_kinds()]
        return bool(self.untried)

    def rank(self, prior: Callable[[State, int], float], rng: random.Random) -> None:
        """Orders the moves not yet expanded by ``prior`` (best expanded first, ties at random)."""
        if self.ranked is not None or not self.has_untried():
            return
        assert self.untried is not None
        seat = self.player
        scored: list[tuple[float, float, Move, State]] = []
        for moves in self.untried:
            for move in moves:
                after = self.state.apply(move)
                scored.append((prior(after, seat), rng.random(), move, after))
        scored.sort(key=lambda t: (t[0], t[1]))
        self.ranked = [(move, after) for _, _, move, after in scored]
        self.untried = []

    def __repr__(self) -> str:
        return f"SearchNode(move={self.move!s}, player={self.player}, visits={self.visits})"


@dataclass(frozen=True, slots=True)
class SearchStats:
    """What the last search did: new simulations, seconds, and the root's size."""

    simulations: int
    seconds: float
    root_visits: int
    reused_visits: int


class MCTS:
    """The search itself: builds a tree from a position and picks the most visited move."""

    def __init__(self, config: MCTSConfig, *, seed: int | None = None) -> None:
        self.config = config
        self.rng = random.Random(seed)
        self.root: SearchNode | None = None
        self.last_stats: SearchStats | None = None
        self._evaluator: Evaluator = config.evaluator
        self._ranking = False
        self._stopped = False

    def stop(self) -> None:
        """Makes a running :meth:`search` finish after the current simulation."""
        self._stopped = True

    def search(self, state: State, *, deadline: float | None = None) -> SearchNode:
        """Runs simulations from ``state`` until a budget or ``deadline`` is reached.

        Args:
            state: the position to search (not terminal).
            deadline: a :func:`time.monotonic` instant at which to stop at the latest.

        Returns:
            The root node, with its children's statistics.
        """
        start = time.monotonic()
        config = self.config
        limit = MoveBudget(config.time_limit, deadline)
        root = self._reusable_root(state) if config.reuse_tree else None
        if root is None:
            root = SearchNode(None, state)
        reused = root.visits
        self.root = root
        evaluator = config.evaluator
        self._evaluator = evaluator.for_search(state, self.rng) if isinstance(evaluator, SearchEvaluator) else evaluator
        self._ranking = config.prior is not None and (
            not config.rank_only_with_heuristic_leaf
            or (isinstance(self._evaluator, TruncatedRollout) and self._evaluator.depth == 0)
        )
        if self._ranking and config.prior is not None:
            root.rank(config.prior, self.rng)
        budget = config.simulations
        done = 0
        try:
            while budget is None or done < budget:
                # Always finish at least one simulation so there is a move to return.
                if done > 0 and (self._stopped or limit.expired()):
                    break
                path = self.select(root)
                leaf = self.expand(path[-1])
                if leaf is not path[-1]:
                    path.append(leaf)
                self.backup(path, self.evaluate(leaf))
                done += 1
        finally:
            # Cleared at the end, not the start, so a stop() that arrives just before
            # the search begins still stops it.
            self._stopped = False
        self.last_stats = SearchStats(done, time.monotonic() - start, root.visits, reused)
        return root

    def select(self, root: SearchNode) -> list[SearchNode]:
        """Walks from ``root`` to the node to expand, choosing by UCT for the seat to act.

        Stops at a terminal node or at a node that may still grow a child (progressive
        widening decides when a visited node may grow another).
        """
        path = [root]
        node = root
        c = self.config.uct_c
        widening = self.config.widening
        exponent = self.config.widening_exponent
        while not node.terminal:
            if node.has_untried() and (
                widening is None or len(node.children) < math.ceil(widening * max(node.visits, 1) ** exponent)
            ):
                return path
            if not node.children:  # pragma: no cover - a non-terminal state has moves
                return path
            seat = node.player
            log_n = math.log(node.visits)
            best = node.children[0]
            best_score = -math.inf
            for child in node.children:
                n = child.visits
                score = child.value_sums[seat] / n + c * math.sqrt(log_n / n)
                if score > best_score:
                    best, best_score = child, score
            node = best
            path.append(node)
        return path

    def expand(self, node: SearchNode) -> SearchNode:
        """Adds the child of one untried move (kind-first random) and returns it.

        Returns ``node`` itself when it is terminal or has nothing left to expand.
        """
        if not node.has_untried():
            return node
        prior = self.config.prior
        if self._ranking and prior is not None and node.ranked is None and node.visits >= self.config.rank_after:
            node.rank(prior, self.rng)
        if node.ranked:
            move, after = node.ranked.pop()
            child = SearchNode(move, after)
            node.children.append(child)
            return child
        untried = node.untried
        assert untried is not None
        rng = self.rng
        k = rng.randrange(len(untried)) if len(untried) > 1 else 0
        moves = untried[k]
        i = rng.randrange(len(moves)) if len(moves) > 1 else 0
        move = moves[i]
        moves[i] = moves[-1]
        moves.pop()
        if not moves:
            untried[k] = untried[-1]
            untried.pop()
        child = SearchNode(move, node.state.apply(move))
        node.children.append(child)
        return child

    def evaluate(self, node: SearchNode) -> tuple[float, ...]:
        """The evaluator's value vector for the leaf ``node``."""
        return self._evaluator.evaluate(node.state, self.rng)

    def backup(self, path: list[SearchNode], values: tuple[float, ...]) -> None:
        """Adds one visit and the per-seat ``values`` to every node on ``path``."""
        for node in path:
            node.visits += 1
            sums = node.value_sums
            for seat, v in enumerate(values):
                sums[seat] += v

    def best_child(self, root: SearchNode) -> SearchNode:
        """The most visited child; ties go to the higher mean for the seat to act."""
        seat = root.player
        return max(root.children, key=lambda ch: (ch.visits, ch.mean(seat)))

    def _reusable_root(self, state: State) -> SearchNode | None:
        """The node of the old tree holding ``state``, if the tree reached that far."""
        old = self.root
        if old is None:
            return None
        depth = state.ply - old.state.ply
        if depth < 0 or depth > 16:
            return None
        level = [old]
        for _ in range(depth):
            level = [child for node in level for child in node.children]
            if not level:
                return None
        for node in level:
            if node.state == state:
                return node
        return None


class MCTSAgent:
    """An agent that plays the most visited move of an MCTS search.

    Args:
        config: the search settings.
        seed: seeds every random choice (expansion order and rollouts).
        name: the spec shown in records, e.g. ``"mcts:3"``.
    """

    def __init__(self, config: MCTSConfig, *, seed: int | None = None, name: str = "mcts") -> None:
        self.name = name
        self.search = MCTS(config, seed=seed)

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """Searches ``state`` and returns the most visited move (the only one if forced)."""
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        root = self.search.search(state, deadline=deadline)
        best = self.search.best_child(root)
        assert best.move is not None
        return best.move

    def stop(self) -> None:
        """Makes a running :meth:`choose_move` return its best move now."""
        self.search.stop()
