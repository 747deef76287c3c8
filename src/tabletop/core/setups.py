"""What a game config decides apart from its seed, checked once.

Random games start every game with a new seed (``GameConfig(n, seed=i)``), and
checking a config (the ruleset, each flag, the map) cost more than laying out the
board.  A game keeps its checked setups in a :class:`SetupCache` keyed by
:func:`seedless_key`; the native engine keys its Rust setups the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

from tabletop.core.protocol import GameConfig

SetupT = TypeVar("SetupT")


def seedless_key(config: GameConfig) -> Hashable | None:
    """``config`` without its seed, as a dict key; ``None`` where it has none (a flag
    value or an inline map that is not a key or JSON, or is nested too deep to write:
    such configs are invalid, and are checked, and refused, every time).

    Each value goes with its type: ``True == 1`` and ``2.0 == 2`` in Python, but only
    one of each pair is valid, and a bad config must not find a good one's setup.
    Flags are sorted by name; an inline map is its JSON text.
    """
    n, ruleset, start, board = config.num_players, config.ruleset, config.start_player, config.map
    if isinstance(board, Mapping):
        try:
            board = json.dumps(board, sort_keys=True)
        except (TypeError, ValueError, RecursionError):  # not JSON, or nested too deep for it
            return None
    flags: tuple[tuple[str, type, object], ...] = ()
    if config.variants:
        try:
            flags = tuple(sorted((name, type(value), value) for name, value in config.variants.items()))
            hash(flags)
        except TypeError:
            return None
    # Written out, not a generator: this key is most of a new game's bookkeeping.
    return (type(n), n, type(ruleset), ruleset, type(start), start, type(board), board, flags)


class SetupCache(Generic[SetupT]):
    """``check(config)`` once per :func:`seedless_key` (at most ``size`` kept; a full
    cache starts again).  A config that fails its check raises every time."""

    def __init__(self, check: Callable[[GameConfig], SetupT], size: int = 256) -> None:
        self._check = check
        self._size = size
        self._setups: dict[Hashable, SetupT] = {}

    def get(self, config: GameConfig) -> SetupT:
        """The checked setup of ``config``.

        Raises:
            ConfigError: as ``check`` raises it.
        """
        key = seedless_key(config)
        setup = self._setups.get(key) if key is not None else None
        if setup is None:
            setup = self._check(config)
            if key is not None:
                if len(self._setups) >= self._size:
                    self._setups.clear()
                self._setups[key] = setup
        return setup
