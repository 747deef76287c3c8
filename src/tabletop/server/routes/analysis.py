"""Hints and game analysis over HTTP (``docs/analysis.md``).

* ``POST /api/matches/{id}/hint``: the acting seat's token asks a bot for its turn.
* ``POST /api/matches/{id}/analysis``: every turn of a finished match judged (cached).
* ``POST /api/analysis``: the same for an uploaded record (the replay page).

Both are bot searches, so they are CPU: they run in their own worker pool (processes,
or threads where the bots use threads), never on the event loop; each client address
has a budget per minute (``hints_per_minute``, ``analyses_per_minute``); a hint's bot
thinks at most ``hint_time_per_action_s`` per action and an analysis takes about
``analysis_budget_s`` at most; the same analysis asked twice at once is computed once.
What waits for the workers is bounded too: ``analysis_backlog_per_client`` jobs per
address (429) and ``analysis_backlog`` in all (503).
Hints are off in rated matches (``Room.rated``, set by the accounts feature; a room
without that attribute is unrated).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import multiprocessing
import os
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from tabletop.ai.agent import make_agent
from tabletop.ai.analysis import analyse_record, hint
from tabletop.core.errors import ConfigError, RecordError
from tabletop.core.record import GameRecord
from tabletop.server.accounts import OptionalAccountDep
from tabletop.server.bots import die_with_parent, rebuild_state
from tabletop.server.config import Settings
from tabletop.server.deps import ClientDep, RoomsDep
from tabletop.server.guard import SlidingWindow
from tabletop.server.replay import MAX_REPLAY_ACTIONS
from tabletop.server.rooms import HUMAN, Room, RoomError
from tabletop.server.schemas import AnalysisBody, HintAnswer, HintBody, RecordAnalysisBody, errors

router = APIRouter(prefix="/api", tags=["analysis"])

CACHE_SIZE = 256
"""Analyses kept in memory (a few kB each), the least recently asked forgotten first."""

GRACE_S = 30.0
"""How long past its budget an analysis is waited for (a bot that ignores deadlines)."""


def hint_job(
    game: str, config: dict[str, Any], texts: Sequence[str], level: str, seed: int, per_action: float
) -> dict[str, Any]:
    """Worker entry point: the hint for the position after ``texts``, as JSON."""
    state = rebuild_state(game, config, texts, "python")  # the evaluation reads Python states
    return hint(state, level, seed=seed, time_per_action=per_action).to_json()


def analysis_job(record_json: dict[str, Any], level: str, answer_by: float, per_action: float) -> dict[str, Any]:
    """Worker entry point: the analysis of a record, as JSON.

    Args:
        answer_by: a :func:`time.time` instant (a worker process has its own monotonic clock).
    """
    record = GameRecord.from_json(record_json)
    deadline = time.monotonic() + max(0.0, answer_by - time.time())
    return analyse_record(record, level, deadline=deadline, time_per_action=per_action).to_json()


class AnalysisService:
    """The worker pool, the per-client budgets and the cache of analyses."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._executor: concurrent.futures.Executor
        if settings.bot_executor == "process":
            ctx = multiprocessing.get_context("spawn")  # the server process has threads
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=settings.analysis_workers,
                mp_context=ctx,
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        else:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=settings.analysis_workers, thread_name_prefix="analysis"
            )
        self._hints = SlidingWindow(settings.hints_per_minute)
        self._analyses = SlidingWindow(settings.analyses_per_minute)
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._running: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._backlog: dict[str, int] = {}
        """Jobs (hints and analyses) waiting or running, per client address."""

    def shutdown(self) -> None:
        """Stops the workers without waiting for searches in progress."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
        """Runs a job in the pool."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    @contextlib.contextmanager
    def queued(self, client: str) -> Iterator[None]:
        """Holds one place in the workers' backlog for ``client`` while the block runs.

        A budget per minute alone would let one address queue many minutes of searches
        (six analyses of 90 s in one minute); the backlog bounds what waits at any moment.

        Raises:
            RoomError: 429 ``analysis_backlog`` when ``client`` has as many jobs waiting
                or running as ``analysis_backlog_per_client``; 503 ``analysis_busy`` when
                the server has ``analysis_backlog``.
        """
        mine = self._backlog.get(client, 0)
        if mine >= self.settings.analysis_backlog_per_client:
            raise RoomError(
                429,
                "analysis_backlog",
                "this address has as many hints and analyses under way as the server allows; wait for them",
                retry_after=self.settings.hint_time_per_action_s,
            )
        if sum(self._backlog.values()) >= self.settings.analysis_backlog:
            raise RoomError(
                503,
                "analysis_busy",
                "the server is busy with other hints and analyses; try again shortly",
                retry_after=self.settings.hint_time_per_action_s,
            )
        self._backlog[client] = mine + 1
        try:
            yield
        finally:
            left = self._backlog[client] - 1
            if left:
                self._backlog[client] = left
            else:
                del self._backlog[client]

    def charge_hint(self, client: str) -> None:
        """Counts a hint for ``client``, or refuses with 429 past its budget."""
        _charge(self._hints, client, "too_many_hints", "too many hints asked from this address")

    async def analysis(self, key: str, client: str, compute: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """The cached analysis under ``key``, else computed once (callers asking meanwhile share it)."""
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        running = self._running.get(key)
        if running is None:
            place = self.queued(client)
            place.__enter__()  # released when the computation ends, even if the asker left
            try:
                _charge(self._analyses, client, "too_many_analyses", "too many analyses started from this address")
            except RoomError:
                place.__exit__(None, None, None)
                raise
            running = asyncio.ensure_future(self._compute(key, compute, place))
            self._running[key] = running
        return await asyncio.shield(running)

    async def _compute(
        self,
        key: str,
        compute: Callable[[], Awaitable[dict[str, Any]]],
        place: contextlib.AbstractContextManager[None],
    ) -> dict[str, Any]:
        try:
            timeout = self.settings.analysis_budget_s + GRACE_S
            try:
                result = await asyncio.wait_for(compute(), timeout=timeout)
            except TimeoutError:
                raise RoomError(503, "analysis_timeout", "the analysis took too long; try a faster level") from None
            self._cache[key] = result
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
            return result
        finally:
            self._running.pop(key, None)
            place.__exit__(None, None, None)


def _charge(window: SlidingWindow, client: str, code: str, detail: str) -> None:
    wait = window.retry_after(client)
    if wait is not None:
        raise RoomError(429, code, detail, retry_after=wait)
    window.hit(client)


def get_analysis(request: Request) -> AnalysisService:
    """The app's analysis service (made on first use if the app did not make one)."""
    service: AnalysisService | None = getattr(request.app.state, "analysis", None)
    if service is None:
        service = request.app.state.analysis = AnalysisService(request.app.state.settings)
    return service


AnalysisDep = Annotated[AnalysisService, Depends(get_analysis)]


def check_level(level: str) -> str:
    """The bot spec, or 422 ``bad_level``."""
    if level == HUMAN:
        raise RoomError(422, "bad_level", "a hint or an analysis needs a bot, not 'human'")
    try:
        make_agent(level, seed=0)
    except ConfigError as exc:
        raise RoomError(422, "bad_level", str(exc)) from None
    return level


def is_rated(room: Room) -> bool:
    """Whether hints are off in ``room``: a rated match (accounts feature), else never."""
    return bool(getattr(room, "rated", False))


@router.post("/matches/{match_id}/hint", responses=errors(403, 404, 409, 410, 503))
async def post_hint(
    match_id: str,
    body: HintBody,
    rooms: RoomsDep,
    client: ClientDep,
    service: AnalysisDep,
    account: OptionalAccountDep,
) -> HintAnswer:
    """The bot's suggested turn for the seat to act (its token only; a seat bound to an
    account also needs that account's session, as for a move), with its estimated value."""
    room = await rooms.get(match_id)
    seat = rooms.seat_for_token(room, body.token, client, account.id if account else None)
    if is_rated(room):
        raise RoomError(403, "hints_off", "hints are off in rated games")
    state = room.state
    if state.is_terminal():
        raise RoomError(409, "game_over", "the game is over: there is nothing to suggest")
    if state.current_player != seat:
        raise RoomError(403, "not_your_turn", f"seat {seat} cannot act now: it is seat {state.current_player}'s turn")
    if body.version is not None and body.version != room.version:
        raise RoomError(
            409, "stale_version", f"the hint was asked on version {body.version}, the match is at {room.version}"
        )
    level = check_level(body.level)
    with service.queued(client):
        service.charge_hint(client)
        version, texts = room.version, list(room.texts)
        seed = zlib.crc32(f"{room.config_json.get('seed')}:{len(texts)}:hint".encode())
        answer = await service.run(
            hint_job, room.game.id, room.config_json, texts, level, seed, service.settings.hint_time_per_action_s
        )
    return HintAnswer(version=version, **answer)


@router.post("/matches/{match_id}/analysis", responses=errors(404, 409, 410, 503))
async def post_match_analysis(
    match_id: str, body: AnalysisBody, rooms: RoomsDep, client: ClientDep, service: AnalysisDep
) -> dict[str, Any]:
    """Every turn of a finished match judged against the bot's (computed once per level)."""
    room = await rooms.get(match_id)
    if not room.state.is_terminal():
        raise RoomError(409, "not_finished", "only a finished game can be analysed")
    level = check_level(body.level)
    moves = list(room.moves)

    async def compute() -> dict[str, Any]:
        record = await asyncio.to_thread(room.record, moves)
        return await _analyse(service, record.to_json(), level)

    return await service.analysis(f"match:{match_id}:{level}", client, compute)


@router.post("/analysis", responses=errors(503))
async def post_record_analysis(body: RecordAnalysisBody, client: ClientDep, service: AnalysisDep) -> dict[str, Any]:
    """Every turn of an uploaded record judged against the bot's (for the replay page)."""
    level = check_level(body.level)
    try:
        record = GameRecord.from_json(body.record)
    except RecordError as exc:
        raise RoomError(422, "bad_record", str(exc)) from None
    if len(record.actions) > MAX_REPLAY_ACTIONS:
        raise RoomError(422, "bad_record", f"record has {len(record.actions)} actions; at most {MAX_REPLAY_ACTIONS}")
    record_json = record.to_json()
    record_json.pop("date", None)  # the same game uploaded twice is the same analysis
    digest = hashlib.sha256(json.dumps(record_json, sort_keys=True).encode()).hexdigest()
    return await service.analysis(
        f"record:{digest}:{level}", client, lambda: _analyse(service, record.to_json(), level)
    )


async def _analyse(service: AnalysisService, record_json: dict[str, Any], level: str) -> dict[str, Any]:
    settings = service.settings
    answer_by = time.time() + settings.analysis_budget_s
    try:
        return await service.run(analysis_job, record_json, level, answer_by, settings.hint_time_per_action_s)
    except RecordError as exc:  # an uploaded record that does not replay
        raise RoomError(422, "bad_record", str(exc)) from None
