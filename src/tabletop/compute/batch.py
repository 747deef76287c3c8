"""One way to run a batch of games: local worker processes (the default) or Ray (``docs/cluster.md``).

A batch is a task, ``task(index) -> result``, and the indices to run it on (game 0, 1,
...).  Every caller's task is deterministic by index (a game seeds itself from the
master seed and its index alone), so the results do not depend on the backend, the
number of workers, which worker played which game, or how often a game was started.

- :class:`LocalBackend`: ``jobs`` worker processes on this machine
  (``concurrent.futures.ProcessPoolExecutor``), or this process alone for ``jobs=1``.
- :class:`RayBackend`: Ray tasks of one CPU each, on a Ray instance started here
  (``--ray``) or on a running cluster (``--ray ADDRESS``).

**Fault tolerance.**  A worker that dies (killed, out of memory, its machine gone)
loses only the games in flight on it: the backend plays them again (up to
:data:`MAX_ATTEMPTS` times each) and says so through ``on_lost``.  On Ray only the dead
worker's games are replayed; a local pool breaks whole when one of its processes dies,
so there every game in flight is played again in a new pool.  Results come back to
this process only (the driver), which writes the records, so a game replayed is never
recorded twice.  An exception raised by the task itself (a bug, an illegal move) is
raised here as it is, not retried.

**Order.**  :meth:`Backend.run` starts the indices in the order given, keeps one game
per worker in flight (two per CPU on Ray, where a result's round trip is longer) and
yields them as they finish; a caller that stops iterating (an SPRT match decided)
cancels the rest.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import socket
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Generic, TypeVar

from tabletop.core.errors import ConfigError, TabletopError

T = TypeVar("T")

MAX_ATTEMPTS = 3
"""How often a game may be started before a batch gives up on it (a game that kills its
worker every time is a bug, not bad luck)."""

LOCAL = "local"
"""``--ray``'s value when no address is given: start a Ray instance on this machine."""

QUEUED_PER_CORE = 2
"""Games in flight per Ray CPU (a cluster's games are started no further ahead than this)."""

LOCAL_OBJECT_STORE_BYTES = 128 * 1024 * 1024
"""The object store of a Ray instance started here: a game's result is a few kilobytes,
so Ray's default (30 % of the memory) would only take memory from the games."""

RAY_INSTALL_HINT = "--ray needs Ray, which is not installed: pip install 'tabletop[cluster]'"


class BatchError(TabletopError):
    """A backend that cannot start, or a game lost with its worker :data:`MAX_ATTEMPTS` times."""


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Where a batch runs, for the report.

    Attributes:
        backend: ``"local"`` (worker processes) or ``"ray"``.
        nodes: machines (Ray nodes) taking part.
        cores: games in flight at once (worker processes, or the cluster's CPUs).
        address: the Ray cluster joined (``None``: local processes, or a Ray instance
            started by this run).
    """

    backend: str
    nodes: int
    cores: int
    address: str | None = None

    def describe(self) -> str:
        """One line for people, e.g. ``ray (cluster at 10.0.0.5:6379), 3 nodes, 48 cores``."""
        if self.backend == LOCAL:
            where = "local processes" if self.cores > 1 else "local, one process"
        else:
            where = f"ray (cluster at {self.address})" if self.address else "ray (started here)"
        return f"{where}, {self.nodes} node{'s' * (self.nodes != 1)}, {self.cores} core{'s' * (self.cores != 1)}"

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON object (``results.json``'s ``run``)."""
        return {"backend": self.backend, "address": self.address, "nodes": self.nodes, "cores": self.cores}


@dataclass(frozen=True, slots=True)
class Finished(Generic[T]):
    """One finished task.

    Attributes:
        index: the task's index.
        value: what the task returned.
        node: where it ran: the Ray node id, or this machine's host name.
        attempts: how often it was started (more than 1 after a worker died).
    """

    index: int
    value: T
    node: str
    attempts: int


LostCallback = Callable[[int, str], None]
"""Told ``(index, reason)`` when a game is lost with its worker and is about to be played again."""


MAX_PLUGIN_NAME = 200
"""The longest module name ``--plugin`` takes (a longer one is refused before importing)."""


def load_plugins(modules: Iterable[str]) -> None:
    """Imports each module (it registers bots or games, e.g. with ``register_agent``).

    Raises:
        ConfigError: if a name is not a module's (``pkg.module``, at most
            :data:`MAX_PLUGIN_NAME` characters), or the module cannot be imported.
    """
    for name in modules:
        if len(name) > MAX_PLUGIN_NAME or not all(part.isidentifier() for part in name.split(".")):
            shown = name if len(name) <= MAX_PLUGIN_NAME else name[:MAX_PLUGIN_NAME] + "..."
            raise ConfigError(f"--plugin takes a module name such as my_bots or pkg.my_bots, not {shown!r}")
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(f"cannot import the plugin {name!r}: {exc}") from None


_WORKER_TASK: Callable[[int], Any] | None = None
"""A local worker's task, given once when the pool starts (not pickled with every game)."""


def _run_locally(index: int) -> tuple[Any, str]:
    assert _WORKER_TASK is not None, "the pool's initializer sets the task"
    return _WORKER_TASK(index), socket.gethostname()


def _run_on_ray(plugins: tuple[str, ...], task: Callable[[int], T], index: int) -> tuple[T, str]:
    load_plugins(plugins)
    ray: Any = importlib.import_module("ray")
    return task(index), str(ray.get_runtime_context().get_node_id())


def _init_local_worker(plugins: tuple[str, ...], task: Callable[[int], Any]) -> None:
    # Ctrl-C is the driver's: it stops the pool and says what was saved; otherwise every
    # worker would print its own traceback.
    global _WORKER_TASK
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    load_plugins(plugins)
    _WORKER_TASK = task


class Backend(ABC):
    """Runs batches of tasks; use as a context manager (or call :meth:`close`)."""

    def __init__(self, plugins: Iterable[str] = ()) -> None:
        self.plugins = tuple(plugins)
        load_plugins(self.plugins)  # in the driver too: the front end checks specs before the games

    @property
    @abstractmethod
    def settings(self) -> RunSettings:
        """Where the games run."""

    @abstractmethod
    def run(
        self, task: Callable[[int], T], indices: Iterable[int], *, on_lost: LostCallback | None = None
    ) -> Iterator[Finished[T]]:
        """Runs ``task`` on every index and yields each result as it finishes.

        Args:
            task: a picklable callable (a module-level function, or a ``functools.partial``
                of one) that is deterministic by index.
            indices: the indices, started in this order.
            on_lost: told about every game lost with its worker and played again.

        Raises:
            BatchError: if a game is lost :data:`MAX_ATTEMPTS` times.
            Exception: whatever the task raises.
        """

    @abstractmethod
    def close(self) -> None:
        """Releases the workers (a Ray instance started here stops)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _retry(lost: list[tuple[int, int]], reason: str, on_lost: LostCallback | None) -> list[tuple[int, int]]:
    """The lost ``(index, attempts)`` to start again, in index order, after telling ``on_lost``."""
    again = []
    for index, attempts in sorted(lost):
        if attempts >= MAX_ATTEMPTS:
            raise BatchError(f"game {index} was lost with its worker {attempts} times ({reason}); giving up")
        if on_lost is not None:
            on_lost(index, reason)
        again.append((index, attempts + 1))
    return again


class LocalBackend(Backend):
    """Worker processes on this machine (``jobs=1``: this process, in index order).

    Args:
        jobs: worker processes (0: one per core).
        plugins: modules every worker imports first (bots or games of your own).
    """

    def __init__(self, jobs: int = 1, *, plugins: Iterable[str] = ()) -> None:
        super().__init__(plugins)
        if jobs < 0:
            raise ConfigError(f"--jobs must be 0 (one per core) or more, got {jobs}")
        self.jobs = jobs or os.cpu_count() or 1

    @property
    def settings(self) -> RunSettings:
        return RunSettings(LOCAL, 1, self.jobs)

    def run(
        self, task: Callable[[int], T], indices: Iterable[int], *, on_lost: LostCallback | None = None
    ) -> Iterator[Finished[T]]:
        workers = min(self.jobs, len(indices)) if isinstance(indices, Sized) else self.jobs
        if workers <= 1:
            host = socket.gethostname()
            for index in indices:
                yield Finished(index, task(index), host, 1)
            return
        yield from self._run_pool(task, iter(indices), workers, on_lost)

    def close(self) -> None:
        """Nothing to release: each :meth:`run` ends its own pool."""

    def _new_pool(self, workers: int, task: Callable[[int], Any]) -> ProcessPoolExecutor:
        # Spawned, not forked: this process may hold threads (Ray's gRPC client once --ray
        # ran here, a learner's numerical libraries), and a fork copies their held locks
        # and shares their sockets; neither Ray nor gRPC supports a fork after start.
        return ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_local_worker,
            initargs=(self.plugins, task),
        )

    def _run_pool(
        self, task: Callable[[int], T], todo: Iterator[int], workers: int, on_lost: LostCallback | None
    ) -> Iterator[Finished[T]]:
        again: list[tuple[int, int]] = []
        pending: dict[Future[tuple[T, str]], tuple[int, int]] = {}
        pool = self._new_pool(workers, task)
        breaks_in_a_row = 0  # pools broken without a game lost: the workers die on their own
        try:
            while True:
                broken = False
                while len(pending) < workers and not broken:
                    if again:
                        index, attempts = again.pop(0)
                    else:
                        next_index = next(todo, None)
                        if next_index is None:
                            break
                        index, attempts = next_index, 1
                    try:
                        pending[pool.submit(_run_locally, index)] = (index, attempts)
                    except BrokenProcessPool:  # a worker died since the last result: not started
                        again.insert(0, (index, attempts))
                        broken = True
                if not pending and not broken:
                    pool.shutdown()
                    return
                lost: list[tuple[int, int]] = []
                if not broken:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in sorted(done, key=lambda f: pending[f][0]):
                        index, attempts = pending.pop(future)
                        try:
                            value, node = future.result()
                        except BrokenProcessPool:
                            lost.append((index, attempts))
                            continue
                        yield Finished(index, value, node, attempts)
                if broken or lost:
                    # The whole pool went down with the worker: what it finished still
                    # counts, everything else in flight is played again in a new pool.
                    for future, (index, attempts) in sorted(pending.items(), key=lambda item: item[1][0]):
                        try:
                            value, node = future.result()
                        except BrokenProcessPool:
                            lost.append((index, attempts))
                            continue
                        yield Finished(index, value, node, attempts)
                    pending.clear()
                    _stop_pool(pool)
                    breaks_in_a_row = 0 if lost else breaks_in_a_row + 1
                    if breaks_in_a_row >= MAX_ATTEMPTS:
                        raise BatchError(f"the worker processes died {breaks_in_a_row} times before playing a game")
                    again = _retry(lost, "a worker process died", on_lost) + again
                    pool = self._new_pool(workers, task)
        finally:
            _stop_pool(pool)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancels what has not started and ends the workers at once (the games in flight are
    not wanted: the batch was stopped, or the pool broke)."""
    # The standard library offers no public way to end the workers before Python 3.14.
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        if process.is_alive():
            process.terminate()
    for process in workers:
        process.join(timeout=10)


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        BatchError: if Ray is not installed (the message says how to install it).
    """
    try:
        return importlib.import_module("ray")
    except ModuleNotFoundError as exc:
        if exc.name != "ray" and not (exc.name or "").startswith("ray."):
            raise
        raise BatchError(RAY_INSTALL_HINT) from None


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fails at once if nothing listens at a ``HOST:PORT`` address (Ray itself would
    retry for minutes); other forms (``auto``, ``ray://...``) are left to Ray.

    Raises:
        BatchError: if the address does not answer.
    """
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or "/" in host:
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise BatchError(
            f"cannot reach the Ray cluster at {address}: {exc.strerror or exc} "
            "(is `ray start --head` running there, and the port open?)"
        ) from None


class RayBackend(Backend):
    """Ray tasks of one CPU each.

    Args:
        address: ``"local"``: start a Ray instance on this machine (``ray.init``); any other
            value is the address of a running cluster to join (``HOST:PORT`` of its head,
            or ``auto``).  A process that already runs Ray uses that instance.
        num_cpus: worker processes of a Ray instance started here (``None``: one per core);
            with a cluster, at most this many games in flight.
        plugins: modules every worker imports before a game (bots or games of your own; on
            a cluster they must be installed on every node).

    Raises:
        BatchError: if Ray is not installed or the cluster cannot be reached.
    """

    def __init__(self, address: str = LOCAL, *, num_cpus: int | None = None, plugins: Iterable[str] = ()) -> None:
        super().__init__(plugins)
        if num_cpus is not None and num_cpus < 1:
            raise ConfigError(f"a Ray run needs at least one worker, got {num_cpus}")
        self._ray = ray = import_ray()
        self.address = None if address == LOCAL else address
        if self.address is not None:
            check_reachable(self.address)
        self._owner = not ray.is_initialized()
        if self._owner:
            options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
            if self.address is None:
                options.update(
                    address=LOCAL,
                    num_cpus=num_cpus,
                    include_dashboard=False,
                    object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                )
            else:
                options.update(address=self.address)
            try:
                ray.init(**options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"join the Ray cluster at {self.address}" if self.address else "start Ray"
                raise BatchError(f"cannot {where}: {str(exc).strip().splitlines()[0]}") from None
        cores = int(ray.cluster_resources().get("CPU", 0))
        self.cores = max(1, min(cores, num_cpus) if num_cpus and self.address else cores)
        # Two games per core in flight: a worker that finishes one starts the next at
        # once instead of waiting for the driver's round trip.
        self.window = QUEUED_PER_CORE * self.cores
        # SPREAD: Ray's default packs the driver's node first, and a batch of short games
        # can finish there before another node's workers have started.
        self._remote = ray.remote(num_cpus=1, max_retries=0, scheduling_strategy="SPREAD")(_run_on_ray)

    @property
    def settings(self) -> RunSettings:
        nodes = sum(1 for node in self._ray.nodes() if node.get("Alive"))
        return RunSettings("ray", nodes, self.cores, self.address)

    def run(
        self, task: Callable[[int], T], indices: Iterable[int], *, on_lost: LostCallback | None = None
    ) -> Iterator[Finished[T]]:
        ray = self._ray
        exceptions = ray.exceptions
        todo = iter(indices)
        again: list[tuple[int, int]] = []
        pending: dict[Any, tuple[int, int]] = {}
        # The task is the same for every game: stored once, passed by reference.
        shared_task = ray.put(task)
        try:
            while True:
                while len(pending) < self.window:
                    if again:
                        index, attempts = again.pop(0)
                    else:
                        next_index = next(todo, None)
                        if next_index is None:
                            break
                        index, attempts = next_index, 1
                    pending[self._remote.remote(self.plugins, shared_task, index)] = (index, attempts)
                if not pending:
                    return
                ready, _ = ray.wait(list(pending), num_returns=1)
                lost: list[tuple[int, int]] = []
                reasons: list[str] = []
                for ref in ready:
                    index, attempts = pending.pop(ref)
                    try:
                        value, node = ray.get(ref)
                    except exceptions.RayTaskError as exc:
                        cause = getattr(exc, "cause", None)
                        raise (cause if isinstance(cause, BaseException) else exc) from None
                    except exceptions.RayError as exc:  # the worker or its node died
                        lost.append((index, attempts))
                        reasons.append(type(exc).__name__)
                        continue
                    yield Finished(index, value, node, attempts)
                if lost:
                    again += _retry(lost, f"its worker died: {', '.join(sorted(set(reasons)))}", on_lost)
        finally:
            for ref in pending:
                with contextlib.suppress(Exception):  # already finished or gone: nothing to cancel
                    ray.cancel(ref)

    def close(self) -> None:
        if self._owner and self._ray.is_initialized():
            self._ray.shutdown()


def open_backend(ray: str | None = None, *, jobs: int | None = None, plugins: Iterable[str] = ()) -> Backend:
    """The backend a command line asks for.

    Args:
        ray: ``None``: local processes; ``"local"``: a Ray instance started here; else the
            address of a Ray cluster to join.
        jobs: local worker processes (``None``: 1; 0: one per core); with Ray, the workers
            of an instance started here (``None`` or 0: one per core) or at most this many
            games in flight on a cluster.
        plugins: modules every worker imports first.

    Raises:
        BatchError: if Ray is asked for and not installed, or cannot start or be reached.
        ConfigError: for a bad ``jobs`` or a plugin that cannot be imported.
    """
    if ray is None:
        return LocalBackend(1 if jobs is None else jobs, plugins=plugins)
    return RayBackend(ray, num_cpus=jobs or None, plugins=plugins)
