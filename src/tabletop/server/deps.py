"""Request dependencies, named as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from tabletop.server.rooms import RoomManager


def get_rooms(request: Request) -> RoomManager:
    """The app's room manager."""
    rooms: RoomManager = request.app.state.rooms
    return rooms


RoomsDep = Annotated[RoomManager, Depends(get_rooms)]
