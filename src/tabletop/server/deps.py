"""Request dependencies, named as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from tabletop.server.guard import SlidingWindow, client_of
from tabletop.server.rooms import RoomError, RoomManager


def get_rooms(request: Request) -> RoomManager:
    """The app's room manager."""
    rooms: RoomManager = request.app.state.rooms
    return rooms


RoomsDep = Annotated[RoomManager, Depends(get_rooms)]


def get_client(request: Request) -> str:
    """The key the caller's per-address limits are counted under (IPv4, or an IPv6 /64).

    Behind the operator's proxies (setting ``trusted_proxies``) it is the address they
    name in ``X-Forwarded-For``; nobody else can choose it.
    """
    return client_of(request.scope, request.app.state.settings.trusted_networks)


ClientDep = Annotated[str, Depends(get_client)]
"""The caller's address, as the limits count it."""


REPLAY_ACTIONS_PER_REQUEST = 20
"""An answer that replays a match counts as one more request per this many actions: a
long Terra Nova match (several hundred actions) takes tens of milliseconds of CPU to
replay, against well under one for an ordinary request (docs/security.md)."""


def replay_cost(actions: int) -> int:
    """The requests an uncached replay of ``actions`` actions counts as, beyond its own."""
    return actions // REPLAY_ACTIONS_PER_REQUEST


def charge(request: Request, client: str, extra: int) -> None:
    """Counts ``extra`` more requests against ``client``'s budget (``requests_per_minute``).

    The guard counted the request itself already; an expensive answer costs more.

    Raises:
        RoomError: 429 ``too_many_requests`` if the budget has no room left.
    """
    if extra <= 0:
        return
    window: SlidingWindow = request.app.state.requests
    wait = window.retry_after(client)
    if wait is not None:
        raise RoomError(429, "too_many_requests", "too many requests from this address", retry_after=wait)
    window.hit(client, extra)
