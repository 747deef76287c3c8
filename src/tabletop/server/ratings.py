"""Ratings of people and bots on one scale, per game and player-count family (OpenSkill).

**Model.** OpenSkill's Plackett-Luce model (Weng & Lin 2011), with the library's defaults
(``mu`` 25, ``sigma`` 25/3, ``beta`` 25/6, ``tau`` 25/300).  A 3-4 player game ends in a
finishing order, and Plackett-Luce is the model of exactly that: the winner is drawn
first among all seats, then the runner-up among the rest, and so on.  Its update costs
time linear in the number of seats, and every place in the order counts once; the
Bradley-Terry and Thurstone-Mosteller "full" models instead treat each of the n(n-1)/2
pairs as a separate game (overcounting a single result), their "part" variants only
neighbouring places.  It is also the library's default and the one its authors
recommend for free-for-all games.  A person's displayed rating is the library's
``ordinal()``: ``mu - 3 sigma``, a value they are very likely above.

**Families.** Ratings are kept per game and per player-count family: ``2p`` (two seats)
and ``multi`` (three or more).  A duel and a four-player game of the same game reward
different skills, and 3 and 4 players are close enough to share a pool.  A game whose
rulesets are different games for rating purposes names a pool per configuration (its
optional hook ``rating_pool(config)``: Medina's second edition is ``2e``), and the family
carries it: ``2p-2e``, ``multi-2e``.  Each family with a measured ladder scale
(:data:`tabletop.ai.ladder.SCALES`) rates matches with bots; the others (Terra Nova for 3-4)
rate people alone.

**Bots.** Bots have fixed ratings, converted from the arena's Elo ladder
(``docs/bots.md``): they are passed to the library's ``rate()`` with the others and their
own update is thrown away.  Elo to OpenSkill: both give the chance that one player
finishes ahead of another as a logistic function of the difference, Elo as
``1 / (1 + 10^(-d/400))`` and Plackett-Luce for two settled players as
``1 / (1 + exp(-(mu_a - mu_b) / c))`` with ``c = sqrt(sigma_a² + sigma_b² + 2 beta²)``,
about ``beta sqrt(2)`` once both sigmas are small.  So one Elo point is
``ln(10) / 400 * sqrt(2) * beta`` = 0.0339 mu, and 400 Elo is 13.6 mu.  The ladder
(``tabletop.ai.ladder``, ``random`` = 0) is shifted so that its default level, Casual, is
at Elo 1500 = mu 25, the library's starting mu: a new person is assumed as strong as the
bot a newcomer meets first until games say otherwise (their large starting sigma covers
the whole ladder).

**Rated.** A match is rated when it ends with ``matches.rated`` still set (the creator
asked for it, and no seat was bound after the first action), every human seat bound to
a distinct account and every bot seat's spec in :data:`BOT_ELO`.  Otherwise the flag is
cleared when it ends and no rating changes.  Each rated match updates the ratings once
(the ``rating_events`` rows, unique per match and account, are the proof), in the same
transaction as the new ratings.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Engine, and_, func, insert, select, update

from tabletop.ai.ladder import DEFAULT_LEVEL, SCALES, Scale, installed_ladder, ladder_level
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.server.rooms import Room, RoomHooks
from tabletop.server.store import accounts, matches, now, rating_events, ratings, seats

log = logging.getLogger("tabletop.server")

MODEL = PlackettLuce()
"""The rating model, with the library's default parameters."""

ELO_ANCHOR = 1500.0
"""The Elo placed at the model's starting mu: the ladder's default level, Casual."""

MU_PER_ELO = math.log(10) / 400 * math.sqrt(2) * MODEL.beta
"""mu per Elo point (module docstring): 0.0339."""

BOT_SIGMA = 1.0
"""A bot's fixed sigma: its ladder Elo is known to about ±30 (the ladder's intervals)."""

FAMILIES = ("2p", "multi", "2p-2e", "multi-2e")

HUMAN = "human"

_ANCHOR_LEVEL = DEFAULT_LEVEL
"""The ladder level placed at the library's starting mu (Elo 1500)."""


def scale_family(s: Scale) -> tuple[str, str]:
    """The (game, family) a ladder scale's Elo rates bots in: Terra Nova duels (``2p``),
    Medina's first edition for three (``multi``, which covers four), its second edition
    for two (``2p-2e``) and for three (``multi-2e``).  Terra Nova's 3-4 player family has
    no scale: no bot was measured there, and a duel's Elo says little about a four-way
    race (the paranoid search, the kingmaking), so a Terra Nova game for 3-4 with a bot is
    unrated (people alone are still rated)."""
    config = GameConfig(num_players=s.num_players, ruleset=s.ruleset)
    return s.game, family(s.num_players, pool_of(s.game, config))


def _ladder_elo() -> dict[tuple[str, str], dict[str, float]]:
    table: dict[tuple[str, str], dict[str, float]] = {}
    for s in SCALES:
        anchor = ladder_level(_ANCHOR_LEVEL).elo.get(s.key)
        if anchor is None:
            continue
        row = table.setdefault(scale_family(s), {})
        for level in installed_ladder():
            played = level.scale_specs.get(s.key)
            if played is not None and s.players != (s.num_players,):
                # Its Elo is its network's on the scale's own seat count; with other seat
                # counts of the family it plays another engine: no one rating fits both.
                continue
            if s.key in level.elo:
                row[level.key] = float(level.elo[s.key] - anchor)
                spec = played or level.spec(s.game)
                if "@" not in spec:  # a spec on a clock is another bot on another machine
                    row[spec] = row[level.key]
    return table


SPEC_ALIASES = {"mcts": "mcts:3", "greedy:4": "greedy"}
"""Specs that are the same bot as another: ``mcts`` is level 3, greedy's default breadth is 4."""


def family(num_players: int, pool: str = "") -> str:
    """The player-count family a match of ``num_players`` seats is rated in (``pool``: the
    game's rating pool of the match's config, :func:`pool_of`)."""
    base = "2p" if num_players <= 2 else "multi"
    return f"{base}-{pool}" if pool else base


def pool_of(game: str, config: GameConfig | Mapping[str, Any] | None) -> str:
    """The rating pool of a match's config: the game's optional ``rating_pool`` hook
    (``""``, the game's main pool, without the hook or a config)."""
    if config is None:
        return ""
    hook = getattr(make(game, engine="python"), "rating_pool", None)
    if hook is None:
        return ""
    return str(hook(config if isinstance(config, GameConfig) else GameConfig.from_json(config)))


BOT_ELO: dict[tuple[str, str], dict[str, float]] = _ladder_elo()
"""Fixed Elo (relative to the lobby's default level, Casual) per (game, family) and bot
spec, read from the measured ladder (``tabletop.ai.ladder.LADDER``, ``docs/bots.md``): each
measured level appears under its key (``club``) and its engine spec (``mcts:2``; not a spec
on a clock, ``native:3,horizon=160@0.1cpu``, whose strength depends on the machine); a level
whose step no SPRT decided has no entry.  A spec missing here, or a (game, family) with no
row, makes a match with that bot unrated, from its creation on (:func:`bots_rateable`)."""


def elo_to_mu(elo: float) -> float:
    """An Elo relative to Casual (:data:`BOT_ELO`) on the OpenSkill scale."""
    return MODEL.mu + elo * MU_PER_ELO


def mu_to_elo(mu: float) -> float:
    """Inverse of :func:`elo_to_mu` (shown next to ratings, for comparison with the ladder)."""
    return (mu - MODEL.mu) / MU_PER_ELO


def ordinal(mu: float, sigma: float) -> float:
    """The displayed rating: ``mu - 3 sigma``, as the library's ``ordinal()``."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def bot_spec_key(spec: str) -> str:
    """A bot spec as :data:`BOT_ELO` knows it: a time budget (``@Ts``) dropped, aliases resolved."""
    base = spec.partition("@")[0].strip().lower()
    return SPEC_ALIASES.get(base, base)


def bot_rating(game: str, num_players: int, spec: str, pool: str = "") -> tuple[float, float] | None:
    """A bot's fixed ``(mu, sigma)`` in this game and family, or ``None`` if it has none."""
    elo = BOT_ELO.get((game, family(num_players, pool)), {}).get(bot_spec_key(spec))
    return None if elo is None else (elo_to_mu(elo), BOT_SIGMA)


def bots_rateable(game: str, agents: Sequence[str], config: GameConfig | None = None) -> bool:
    """Whether every bot among a match's seats (``agents``, ``"human"`` for people) has a
    fixed rating in this game and the family of ``len(agents)`` seats (and of ``config``'s pool)."""
    pool = pool_of(game, config)
    return all(agent == HUMAN or bot_rating(game, len(agents), agent, pool) is not None for agent in agents)


def bot_ladder(game: str, fam: str) -> list[dict[str, Any]]:
    """Every bot's fixed rating in one game and family, strongest first."""
    rows = [
        {
            "bot": spec,
            "mu": elo_to_mu(elo),
            "sigma": BOT_SIGMA,
            "rating": ordinal(elo_to_mu(elo), BOT_SIGMA),
            "elo": ELO_ANCHOR + elo,
        }
        for spec, elo in BOT_ELO.get((game, fam), {}).items()
    ]
    return sorted(rows, key=lambda r: (-r["rating"], r["bot"]))


def ranks_of(result: dict[str, Any] | None, forfeited: Collection[int] = (), num_seats: int | None = None) -> list[int]:
    """Finishing places (1 = first; equal places tie, "1224" style) from a stored outcome.

    Seats in ``forfeited`` (resigned, or lost to a bot's takeover: the lobby says which)
    come last, tied among themselves.  Then winners, whatever their score (a game's
    tie-break can pick winners among equal scores), then the others by score.  Without a
    result (a game ended by resignation), every seat not forfeited shares first place.
    """
    if result is not None:
        scores = [int(s) for s in result["scores"]]
        winners = {int(w) for w in result["winners"]}
    else:
        scores = [0] * (num_seats or 0)
        winners = set(range(len(scores)))
    keys = [
        (1, 0, 0) if seat in forfeited else (0, 0 if seat in winners else 1, -score)
        for seat, score in enumerate(scores)
    ]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def rate(players: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """One free-for-all game through the library: each seat's ``(mu, sigma)`` after it."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in players]
    rated = MODEL.rate(teams, ranks=list(ranks))
    return [(float(team[0].mu), float(team[0].sigma)) for team in rated]


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One person's rating change from one match."""

    account_id: int
    seat: int
    rank: int
    before: tuple[float, float]
    after: tuple[float, float]


class RatingStore:
    """The ratings (``ratings``, ``rating_events``): a finished match applied once, the
    leaderboards, the profiles; a store in the stores' one style (:mod:`tabletop.server.store`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def update_ratings(self, match_id: str, forfeited: Collection[int] = ()) -> list[RatingChange] | None:
        """Applies a finished match to the ratings, once; ``None`` if it is not rated.

        One transaction: it reads the match, decides whether it is rated (module docstring),
        and either clears ``matches.rated`` or writes the new ratings and their events.
        ``forfeited``: seats ranked last (see :func:`ranks_of`).
        """
        with self.engine.begin() as conn:
            # The match's row stays locked to the end: two processes rating it at once (the
            # one that ended it and the leader's sweep) take turns, and the second finds the
            # events of the first.
            match = conn.execute(select(matches).where(matches.c.id == match_id).with_for_update()).first()
            if match is None or not match.rated or not match.finished or (match.result is None and not forfeited):
                return None
            done = conn.execute(select(rating_events.c.id).where(rating_events.c.match_id == match_id).limit(1)).first()
            if done is not None:
                return None  # already rated: exactly once
            seat_rows = conn.execute(select(seats).where(seats.c.match_id == match_id).order_by(seats.c.seat)).all()
            pool = pool_of(match.game, match.config if isinstance(match.config, dict) else json.loads(match.config))
            fam = family(len(seat_rows), pool)
            players: list[tuple[float, float] | None] = []
            account_ids: list[int | None] = []
            for row in seat_rows:
                # A seat bound to an account is rated as that person, whoever moved for it
                # last (a bot standing in for a dropped player included).
                if row.account_id is not None:
                    account_ids.append(row.account_id)
                    players.append(None)
                elif row.agent != HUMAN:
                    account_ids.append(None)
                    players.append(bot_rating(match.game, len(seat_rows), row.agent, pool))
                else:
                    account_ids.append(None)
                    players.append(None)
            people = [a for a in account_ids if a is not None]
            unrated = (
                len(seat_rows) < 2
                or len(set(people)) != len(people)
                or not people
                or any(a is None and p is None for a, p in zip(account_ids, players, strict=True))
            )
            if unrated:
                conn.execute(update(matches).where(matches.c.id == match_id).values(rated=False))
                return None
            # The people's accounts stay locked too (in id order, so two matches never wait on
            # each other): two of their matches ending at once on two processes would both
            # read the same ratings, and the second would write over the first, or both
            # insert a first rating.
            conn.execute(
                select(accounts.c.id).where(accounts.c.id.in_(sorted(people))).order_by(accounts.c.id).with_for_update()
            )
            current = {
                r.account_id: (r.mu, r.sigma)
                for r in conn.execute(
                    select(ratings).where(
                        ratings.c.account_id.in_(people), ratings.c.game == match.game, ratings.c.family == fam
                    )
                )
            }
            before: list[tuple[float, float]] = []
            for account_id, fixed in zip(account_ids, players, strict=True):
                if account_id is not None:
                    before.append(current.get(account_id, (MODEL.mu, MODEL.sigma)))
                else:
                    assert fixed is not None  # checked above
                    before.append(fixed)
            result = match.result if isinstance(match.result, dict | None) else json.loads(match.result)
            ranks = ranks_of(result, forfeited, len(seat_rows))
            after = rate(before, ranks)
            at = now()
            changes = []
            for seat, account_id in enumerate(account_ids):
                if account_id is None:
                    continue
                old, new = before[seat], after[seat]
                changes.append(RatingChange(account_id, seat, ranks[seat], old, new))
                conn.execute(
                    insert(rating_events).values(
                        match_id=match_id,
                        account_id=account_id,
                        game=match.game,
                        family=fam,
                        seat=seat,
                        rank=ranks[seat],
                        mu_before=old[0],
                        sigma_before=old[1],
                        mu=new[0],
                        sigma=new[1],
                        at=at,
                    )
                )
                key = and_(ratings.c.account_id == account_id, ratings.c.game == match.game, ratings.c.family == fam)
                bumped = conn.execute(
                    update(ratings).where(key).values(mu=new[0], sigma=new[1], games=ratings.c.games + 1, updated=at)
                )
                if bumped.rowcount == 0:
                    conn.execute(
                        insert(ratings).values(
                            account_id=account_id,
                            game=match.game,
                            family=fam,
                            mu=new[0],
                            sigma=new[1],
                            games=1,
                            updated=at,
                        )
                    )
            return changes

    def list_unrated_finished(self) -> list[str]:
        """Rated matches that ended but were never applied (the server stopped in between)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(matches.c.id).where(
                    matches.c.rated.is_(True),
                    matches.c.finished.is_(True),
                    ~select(rating_events.c.id).where(rating_events.c.match_id == matches.c.id).exists(),
                )
            ).all()
        return [r.id for r in rows]

    def list_leaderboard(self, game: str, fam: str, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """People's ratings in one game and family, best displayed rating first: a page and how many there are."""
        where = and_(ratings.c.game == game, ratings.c.family == fam)
        shown = ratings.c.mu - 3 * ratings.c.sigma
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(ratings).where(where)).scalar_one()
            rows = conn.execute(
                select(accounts.c.name, ratings.c.mu, ratings.c.sigma, ratings.c.games)
                .join(accounts, accounts.c.id == ratings.c.account_id)
                .where(where)
                .order_by(shown.desc(), accounts.c.name_key)
                .offset(offset)
                .limit(limit)
            ).all()
        page = [
            {
                "rank": offset + i + 1,
                "name": r.name,
                "mu": r.mu,
                "sigma": r.sigma,
                "rating": ordinal(r.mu, r.sigma),
                "elo": ELO_ANCHOR + mu_to_elo(r.mu),
                "games": r.games,
            }
            for i, r in enumerate(rows)
        ]
        return page, int(total)

    def get_profile(self, name_key: str, history_max: int) -> dict[str, Any] | None:
        """A person's public profile: ratings per game and family with their history."""
        with self.engine.connect() as conn:
            account = conn.execute(select(accounts).where(accounts.c.name_key == name_key)).first()
            if account is None:
                return None
            current = conn.execute(
                select(ratings).where(ratings.c.account_id == account.id).order_by(ratings.c.game, ratings.c.family)
            ).all()
            events = conn.execute(
                select(rating_events)
                .where(rating_events.c.account_id == account.id)
                .order_by(rating_events.c.id.desc())
                .limit(history_max)
            ).all()
            played = conn.execute(
                select(func.count()).select_from(seats).where(seats.c.account_id == account.id)
            ).scalar_one()
        history: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for e in reversed(events):
            history.setdefault((e.game, e.family), []).append(
                {
                    "match": e.match_id,
                    "at": e.at,
                    "rank": e.rank,
                    "mu": e.mu,
                    "sigma": e.sigma,
                    "rating": ordinal(e.mu, e.sigma),
                    "rating_before": ordinal(e.mu_before, e.sigma_before),
                }
            )
        return {
            "name": account.name,
            "created": account.created,
            "matches": int(played),
            "ratings": [
                {
                    "game": r.game,
                    "family": r.family,
                    "mu": r.mu,
                    "sigma": r.sigma,
                    "rating": ordinal(r.mu, r.sigma),
                    "elo": ELO_ANCHOR + mu_to_elo(r.mu),
                    "games": r.games,
                    "history": history.get((r.game, r.family), []),
                }
                for r in current
            ],
        }


Forfeits = Callable[[str], Collection[int] | Awaitable[Collection[int]]]
"""Which seats of a match forfeited (the lobby's ``forfeited_seats``), sync or async."""


async def _forfeited(forfeits: Forfeits | None, match_id: str) -> Collection[int]:
    if forfeits is None:
        return ()
    found = forfeits(match_id)
    return await found if inspect.isawaitable(found) else found


class Rater(RoomHooks):
    """The rooms' listener that rates a rated match as it ends (off the event loop), and
    the leader's catching up with the ones nobody rated (:meth:`rate_pending`).

    ``forfeits`` names the seats that forfeited a match (resigned, or timed out and taken
    over by a bot): they rank last.  ``create_app`` builds it and hands it to the rooms.
    """

    def __init__(self, store: RatingStore, forfeits: Forfeits | None = None) -> None:
        self.store = store
        self.forfeits = forfeits

    async def finished(self, room: Room) -> None:
        if not room.rated:
            return
        forfeited = await _forfeited(self.forfeits, room.id)
        changes = await asyncio.to_thread(self.store.update_ratings, room.id, forfeited)
        if changes is None:
            room.rated = False
        else:
            log.info("rated match %s: %d people", room.id, len(changes))

    async def rate_pending(self) -> int:
        """Rates every rated match that ended but was not applied (its process stopped in
        between); the leader's sweep (``server/duties.py``).  Returns how many it rated."""
        rated = 0
        for match_id in await asyncio.to_thread(self.store.list_unrated_finished):
            forfeited = await _forfeited(self.forfeits, match_id)
            if await asyncio.to_thread(self.store.update_ratings, match_id, forfeited) is not None:
                rated += 1
        return rated
