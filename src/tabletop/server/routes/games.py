"""``GET /api/games`` and ``GET /api/agents``: what can be created."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Body, Request

from tabletop.ai.agent import agent_kinds, make_agent
from tabletop.ai.ladder import LADDER, SCALES, Scale, installed_ladder
from tabletop.core.errors import ConfigError, UnknownGameError
from tabletop.core.protocol import Game, GameConfig
from tabletop.core.registry import available_games, make, player_counts
from tabletop.server.ratings import pool_of
from tabletop.server.rooms import RoomError
from tabletop.server.schemas import errors

router = APIRouter(prefix="/api", tags=["games"])
log = logging.getLogger("tabletop.server")


def builtin_maps(game: Game) -> list[dict[str, str]]:
    """The game's built-in maps (its optional ``map_names`` hook: id to name), for the create form."""
    maps: dict[str, str] = getattr(game, "map_names", {})
    return [{"id": map_id, "name": name} for map_id, name in sorted(maps.items())]


def describe_game(game: Game) -> dict[str, Any]:
    """The metadata a create-game form needs."""
    return {
        "id": game.id,
        "name": game.name,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "options": [
            {
                "name": o.name,
                "default": o.default,
                "choices": list(o.choices) if o.choices is not None else None,
                "help": o.help,
            }
            for o in game.options
        ],
        "rulesets": {name: dict(flags) for name, flags in game.rulesets.items()},
        "ruleset_players": {name: player_counts(game, name) for name in game.rulesets},
        "maps": builtin_maps(game),
        "seat_colors": {str(n): list(game.seat_colors(n)) for n in range(game.min_players, game.max_players + 1)},
    }


@router.get("/games")
def list_games(request: Request) -> list[dict[str, Any]]:
    """Every game with its players, variants, rulesets and built-in maps.

    Each game also lists the bot ladder (``ladder``: level key, name, engine spec,
    description, Elo and seconds per move, measured per scale), the scales of this game
    (``ladder_scales``: key, seat counts and the ruleset presets each one stands for, so
    the lobby shows the Elo of the setting chosen) and ``default_bot``, the level the
    lobby seats by default (the server setting ``default_bot``).

    A game package that fails to import is left out (and logged) rather than taking the
    whole list down with it.
    """
    out = []
    default_bot = request.app.state.settings.default_bot
    for game_id in available_games():
        try:
            described = describe_game(make(game_id))
            described["ladder"] = [level.to_json() for level in installed_ladder()]
            described["ladder_scales"] = [
                {**s.to_json(), "rulesets": _scale_rulesets(game_id, s)} for s in SCALES if s.game == game_id
            ]
            described["default_bot"] = default_bot
            out.append(described)
        except Exception:
            log.exception("game %r is unavailable", game_id)
    return out


def _scale_rulesets(game_id: str, scale: Scale) -> list[str]:
    """The game's ruleset presets rated in the same pool as the one ``scale`` was measured in."""
    measured = pool_of(game_id, GameConfig(num_players=scale.num_players, ruleset=scale.ruleset))

    def same_pool(ruleset: str) -> bool:
        try:
            return pool_of(game_id, GameConfig(num_players=scale.num_players, ruleset=ruleset)) == measured
        except ConfigError:  # a preset that has no game for this many seats
            return False

    return [ruleset for ruleset in make(game_id).rulesets if same_pool(ruleset)]


def bot_specs() -> list[str]:
    """Every bot kind, with numbered levels spelled out (``mcts:1``, ``mcts:2``, ...).

    Levels are found by asking :func:`make_agent` which ``kind:N`` it accepts, so the
    server needs no knowledge of any bot's settings.
    """
    # The ladder's named levels first, weakest to strongest: the names people understand.
    specs: list[str] = [level.key for level in LADDER if _accepts(level.key)]
    for kind in agent_kinds():
        if kind in specs:
            continue
        if _accepts(f"{kind}:999"):
            specs.append(kind)  # it ignores its argument: no levels
            continue
        levels = []
        for n in range(1, 10):
            if not _accepts(f"{kind}:{n}"):
                break
            levels.append(f"{kind}:{n}")
        # The kind alone plays with its own default (alphabeta: on a clock), so it is listed
        # too; a kind that accepts neither (``puct`` needs a network's name) is not offered.
        specs += ([kind] if _accepts(kind) else []) + levels
    return specs


def _accepts(spec: str) -> bool:
    try:
        make_agent(spec, seed=0)
    except (ConfigError, ValueError):
        return False
    return True


@router.get("/agents")
def list_agents() -> dict[str, Any]:
    """The bot specs a seat can be given (plus ``human``)."""
    return {"agents": ["human", *bot_specs()]}


@router.post("/games/{game_id}/maps/check", responses=errors(404))
def check_map(game_id: str, body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008 - FastAPI's idiom
    """Whether a map file (its JSON object) can be played, checked by the same loader as
    the command line's and the create form's, so the words match: ``{"ok", "detail"}``.

    The lobby calls it as soon as a map file is chosen, not only on Create.
    """
    try:
        game = make(game_id)
    except UnknownGameError as exc:
        raise RoomError(404, "unknown_game", str(exc)) from None
    try:
        game.new_initial_state(GameConfig(game.min_players, map=body))
    except ConfigError as exc:
        return {"ok": False, "detail": str(exc)}
    return {"ok": True, "detail": None}
