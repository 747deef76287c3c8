"""Pydantic wire models of the HTTP API (documented in docs/api.md)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tabletop.core.protocol import GameConfig
from tabletop.server.guard import MAX_INT

OptionJson = (
    bool | Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)] | Annotated[str, StringConstraints(max_length=80)] | None
)
"""A variant flag's value."""

VariantName = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class ErrorBody(BaseModel):
    """Every refused request, whatever the status: a code to branch on and a sentence to show."""

    error: str = Field(description="machine-readable code, e.g. 'bad_token', 'stale_version'")
    detail: str = Field(description="what went wrong, in English, quoting at most a short prefix of the input")
    message: dict[str, Any] | None = Field(
        default=None,
        description="for a refused move: the engine's reason as {code, params, text}, for translation",
    )


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` entry documenting ``statuses`` as :class:`ErrorBody` answers.

    Every route can also answer 400 (a body that is not plain JSON), 413 (a body over
    the limit), 422 (a body of the wrong shape) and 429 (too many requests).
    """
    described = {
        400: "the body is not plain JSON (NaN, nested too deep, not UTF-8, ...)",
        401: "no session (log in first), or a wrong name or password",
        403: "the token is not a seat's, or it is not that seat's turn",
        404: "no such game or match",
        409: "stale version, finished game or nothing to undo",
        410: "the match can no longer be replayed by this server",
        413: "the body is over the size limit",
        422: "the body or a value in it is not valid",
        429: "too many requests from this address; see Retry-After",
        503: "the work took longer than the server allows (an analysis)",
    }
    wanted = sorted({400, 413, 422, 429, *statuses})
    return {status: {"model": ErrorBody, "description": described[status]} for status in wanted}


class SeatSpec(BaseModel):
    """One seat of a new match."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    agent: str = Field(default="human", min_length=1, max_length=40, description="'human' or a bot spec")
    me: bool = Field(default=False, strict=True, description="bind this seat to the caller's account")


class GameSetup(BaseModel):
    """The game's configuration in a body that creates a match or a lobby game."""

    model_config = ConfigDict(extra="forbid")
    ruleset: str = Field(default="default", min_length=1, max_length=40)
    variants: dict[VariantName, OptionJson] = Field(default_factory=dict, max_length=64)
    map: Annotated[str, StringConstraints(min_length=1, max_length=64)] | dict[str, Any] | None = Field(
        default=None, description="a built-in map id (see GET /api/games) or an inline map object; never a path"
    )
    seed: int | None = Field(default=None, ge=0, le=MAX_INT)
    start_player: int | None = Field(default=None, ge=0, le=7)

    def game_config(self, num_players: int) -> GameConfig:
        """The engine's configuration for ``num_players`` seats (one per seat of the body)."""
        return GameConfig(
            num_players=num_players,
            ruleset=self.ruleset,
            variants=self.variants,
            map=self.map,
            seed=self.seed,
            start_player=self.start_player,
        )


class CreateMatch(GameSetup):
    """Body of ``POST /api/matches``; the number of seats is the number of players."""

    game: str = Field(min_length=1, max_length=32)
    seats: list[SeatSpec] = Field(min_length=1, max_length=8)
    hotseat: bool = False
    rated: bool = Field(default=False, strict=True, description="rate the match if every person's seat is an account's")


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
    version: int = Field(ge=0, le=MAX_INT)
    action: str = Field(min_length=1, max_length=200)


class UndoBody(BaseModel):
    """Body of ``POST /api/matches/{id}/undo``."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)
    version: int = Field(ge=0, le=MAX_INT)


class WhoAmIBody(BaseModel):
    """Body of ``POST /api/matches/{id}/seat``."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)


class SeatOfToken(BaseModel):
    """Answer to ``POST /api/matches/{id}/seat``."""

    seat: int


LevelSpec = Annotated[str, StringConstraints(min_length=1, max_length=40)]
"""A bot spec naming the hint's or the analysis's bot, e.g. ``greedy`` or ``mcts:2``."""


class HintBody(BaseModel):
    """Body of ``POST /api/matches/{id}/hint`` (``docs/analysis.md``)."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200, description="the acting seat's token")
    version: int | None = Field(default=None, ge=0, le=MAX_INT, description="the version the hint is for, if given")
    level: LevelSpec = Field(default="greedy", description="the bot that suggests, any bot spec")


class HintAnswer(BaseModel):
    """A bot's suggested turn for the acting seat."""

    version: int = Field(description="the match version the hint was computed for")
    seat: int
    level: str
    move: str = Field(description="the action to play now (the first of ``actions``)")
    actions: list[str] = Field(description="the bot's whole remaining turn, in notation")
    value: float = Field(description="the seat's estimated final-score margin after that turn and the next answer")
    current: float = Field(description="the seat's estimated final-score margin now")


class AnalysisBody(BaseModel):
    """Body of ``POST /api/matches/{id}/analysis``."""

    model_config = ConfigDict(extra="forbid")
    level: LevelSpec = Field(default="greedy", description="the judging bot, any bot spec")


class RecordAnalysisBody(BaseModel):
    """Body of ``POST /api/analysis``: an uploaded record to analyse."""

    model_config = ConfigDict(extra="forbid")
    record: dict[str, Any] = Field(description="a game record (docs/records.md)")
    level: LevelSpec = Field(default="greedy", description="the judging bot, any bot spec")
