"""Pydantic wire models of the HTTP API (documented in docs/api.md)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

OptionJson = bool | int | str | None


class SeatSpec(BaseModel):
    """One seat of a new match."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    agent: str = Field(default="human", min_length=1, max_length=40, description="'human' or a bot spec")


class CreateMatch(BaseModel):
    """Body of ``POST /api/matches``; the number of seats is the number of players."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(min_length=1, max_length=32)
    seats: list[SeatSpec] = Field(min_length=1, max_length=8)
    ruleset: str = "default"
    variants: dict[str, OptionJson] = Field(default_factory=dict)
    map: str | dict[str, Any] | None = None
    seed: int | None = None
    start_player: int | None = None
    hotseat: bool = False


class SeatCreated(BaseModel):
    """A seat of a created match, with its secret token and play link for people."""

    seat: int
    name: str
    agent: str
    token: str | None
    link: str | None


class MatchCreated(BaseModel):
    """Answer to ``POST /api/matches``."""

    id: str
    version: int
    seats: list[SeatCreated]
    spectator_link: str
    hotseat_link: str | None


class ActionBody(BaseModel):
    """Body of ``POST /api/matches/{id}/actions``."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)
    version: int = Field(ge=0)
    action: str = Field(min_length=1, max_length=200)


class UndoBody(BaseModel):
    """Body of ``POST /api/matches/{id}/undo``."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)
    version: int = Field(ge=0)


class WhoAmIBody(BaseModel):
    """Body of ``POST /api/matches/{id}/seat``."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)
