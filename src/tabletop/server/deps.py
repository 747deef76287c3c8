"""Request dependencies, named as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from tabletop.server.guard import client_key
from tabletop.server.rooms import RoomManager


def get_rooms(request: Request) -> RoomManager:
    """The app's room manager."""
    rooms: RoomManager = request.app.state.rooms
    return rooms


RoomsDep = Annotated[RoomManager, Depends(get_rooms)]


def get_client(request: Request) -> str:
    """The key the caller's per-address limits are counted under (IPv4, or an IPv6 /64)."""
    return client_key(request.client.host if request.client else None)


ClientDep = Annotated[str, Depends(get_client)]
"""The caller's address, as the limits count it."""
