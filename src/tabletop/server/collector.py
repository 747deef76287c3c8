"""The garbage collector of a server process, kept to short pauses.

CPython's collector stops the whole process (the event loop and the database thread: it
holds the GIL) while it walks every tracked object of the generations it collects.  A
server process at 1,000 games holds 100,000-200,000 long-lived ones (each socket's
coroutines and buffers, each room's recent positions, views and moves), so a full pass
took 60-250 ms on the development machine (measured with ``gc.callbacks``,
``docs/benchmarks.md``, "Where the 0.1 s stalls came from"), every few seconds under
load, and every action that waited on it was late by as much.

:class:`Collector` freezes what survives each full pass (``gc.freeze``: those objects are
never walked again, and still freed when their last reference goes), so a full pass walks
only what came since the one before.  A cycle that becomes garbage after it was frozen
waits for the next thaw: every :attr:`Collector.thaw_every_s` one full pass walks, and
cleans, everything.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

OLDEST = len(gc.get_threshold()) - 1
"""The generation a full collection collects."""

THAW_EVERY_S = 600.0
"""How often a full pass walks the frozen objects too (the cycles that died frozen are
freed then): one long pause in that many seconds."""


class Collector:
    """Freezes the survivors of each full collection; every ``thaw_every_s`` the next full
    collection walks them all first.

    ``start`` freezes what exists (the modules, the maps and whatever start-up loaded:
    it lives for the whole run) and hooks into the collector; ``stop`` unhooks it and
    hands every frozen object back.
    """

    def __init__(self, thaw_every_s: float = THAW_EVERY_S, now: Callable[[], float] = time.monotonic) -> None:
        self.thaw_every_s = thaw_every_s
        self.now = now
        self._thawed = now()
        self.thaws = 0
        """Full passes that walked the frozen objects too, since :meth:`start`."""

    def start(self) -> None:
        """Freezes every object that exists now and follows each full collection."""
        gc.freeze()
        self._thawed = self.now()
        if self._on_collection not in gc.callbacks:
            gc.callbacks.append(self._on_collection)

    def stop(self) -> None:
        """Stops following the collector and hands it back every frozen object."""
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        gc.unfreeze()

    def _on_collection(self, phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != OLDEST:
            return
        if phase == "start":
            if self.now() - self._thawed >= self.thaw_every_s:
                gc.unfreeze()  # this pass walks everything, frozen cycles that died included
                self._thawed = self.now()
                self.thaws += 1
        else:
            gc.freeze()
