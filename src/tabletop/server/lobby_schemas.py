"""Pydantic wire models of the lobby, table, rematch and chat endpoints (docs/api.md, "Lobby")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tabletop.server.guard import MAX_INT
from tabletop.server.schemas import GameSetup

Token = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=80)]
Agent = Annotated[str, StringConstraints(min_length=1, max_length=40)]


class LobbySeatSpec(BaseModel):
    """One seat of a new lobby game: the creator's (``me``), ``open`` or a ``bot``."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["me", "open", "bot"]
    name: str = Field(default="", max_length=80)
    agent: Agent = Field(default="greedy", description="the bot of a 'bot' seat")


class ClockSpec(BaseModel):
    """A clock: ``turn`` (time per turn, hours or days) or ``realtime`` (time per game plus increment)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["turn", "realtime"]
    per_move_s: int = Field(default=0, ge=0, le=MAX_INT, description="turn: the longest a turn may last")
    base_s: int = Field(default=0, ge=0, le=MAX_INT, description="realtime: each seat's time for the game")
    increment_s: int = Field(default=0, ge=0, le=MAX_INT, description="realtime: added at the end of each turn")


class CreateLobbyGame(GameSetup):
    """Body of ``POST /api/lobby``."""

    game: str = Field(min_length=1, max_length=32)
    seats: list[LobbySeatSpec] = Field(min_length=1, max_length=8)
    public: bool = Field(default=True, description="listed in the lobby; otherwise joined by link only")
    clock: ClockSpec | None = None
    takeover: Agent = Field(default="greedy", description="the bot that takes over a dropped or timed-out seat")
    grace_s: int = Field(default=60, ge=0, le=MAX_INT, description="how long a dropped seat waits for its person")
    rated: bool = Field(default=False, description="asked for; the accounts decide whether it counts")


class JoinLobbyGame(BaseModel):
    """Body of ``POST /api/lobby/{id}/join``."""

    model_config = ConfigDict(extra="forbid")
    name: Name
    seat: int | None = Field(default=None, ge=0, le=7, description="a free seat; the first free one if left out")


class CreatorBody(BaseModel):
    """Body of ``POST /api/lobby/{id}/start`` and ``.../cancel``."""

    model_config = ConfigDict(extra="forbid")
    token: Token
    agent: Agent | None = Field(default=None, description="start: the bot for the empty seats")


class TokenBody(BaseModel):
    """Body of resign, abort, reclaim and rematch: the seat's token."""

    model_config = ConfigDict(extra="forbid")
    token: Token


class ChatBody(BaseModel):
    """Body of ``POST /api/matches/{id}/chat``; the length limit is ``chat_max_chars``."""

    model_config = ConfigDict(extra="forbid")
    token: Token
    text: str = Field(min_length=1, max_length=2000)


class SeatToken(BaseModel):
    """A seat taken in a lobby game, with its secret token and links."""

    id: str
    seat: int
    token: str
    lobby_link: str
    play_link: str
    game: dict[str, Any]
