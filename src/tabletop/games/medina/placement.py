"""Medina's placement rules: where each kind of piece may go, as square bitsets.

One function per piece (spec §2.1, §3.1-3.5), read by legal move generation
(``moves.py``); the stable, merchant and wall squares and the claimable palaces are
memoized per state (``State.known_stable_squares`` etc.), since kind-first play asks on every step:

* starting merchant (§2.1, A10): :func:`start_squares`;
* palace piece (§3.1): :func:`new_palace_squares` for a new palace (street rule);
  an unfinished palace's extension squares are kept in ``State.ext`` by ``rules.py``;
* dome (§3.2, A1): :func:`claimable`, :func:`dome_targets`;
* stable (§3.3): :func:`stable_squares`;
* merchant (§3.4): :func:`merchant_squares`;
* wall (§3.5, the gate rule): :func:`wall_squares`.

The street rule reduces to two sets kept up to date by ``rules.py`` (``State.forbid``:
where a new palace may not start; ``State.contested``: squares touching two palaces).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop.core.state_base import set_memo
from tabletop.games.medina.board import (
    NOBODY,
    WIDTH,
    Geometry,
    Mask,
    ortho_dilate,
    two_or_more_neighbors,
)

if TYPE_CHECKING:
    from tabletop.games.medina.ruleset import RuleSet
    from tabletop.games.medina.state import State


def start_squares(rules: RuleSet, geo: Geometry) -> Mask:
    """Where the starting merchant may go (§2.1, A10; the caller leaves out the well)."""
    return geo.building if rules.start_merchant_anywhere else geo.inner


def new_palace_squares(s: State) -> Mask:
    """Empty building squares touching no palace piece and no stable (§3.1.3; 2e: not red,
    the red squares being in ``State.forbid``)."""
    return s.context.geo.building & ~s.occupied & ~s.forbid


def stable_squares(s: State) -> Mask:
    """Empty squares next to a palace piece that touch no other palace (§3.3)."""
    m = s.known_stable_squares
    if m is None:
        m = ortho_dilate(s.palace_mask) & s.context.geo.building & ~s.occupied & ~s.contested
        set_memo(s, "known_stable_squares", m)
    return m


def merchant_squares(s: State) -> Mask:
    """Where a merchant may go: the active chain's extensions, else new-chain squares (§3.4)."""
    m = s.known_merchant_squares
    if m is None:
        free = s.context.geo.building & ~s.occupied
        crowded = two_or_more_neighbors(s.merchants)
        m = ortho_dilate(s.chain_ends) & free & ~crowded if s.chain_ends else 0
        if not m:
            m = free & ~crowded if s.context.rules.new_chain_may_touch_one else free & ~ortho_dilate(s.merchants)
        set_memo(s, "known_merchant_squares", m)
    return m


def wall_squares(s: State) -> Mask:
    """Empty wall spaces next to exactly one of {tower, wall piece} along the side (§3.5)."""
    m = s.known_wall_squares
    if m is None:
        geo = s.context.geo
        occ = s.walls | geo.tower_mask
        m = (
            (geo.horizontal_walls & ((occ << 1) ^ (occ >> 1)))
            | (geo.vertical_walls & ((occ << WIDTH) ^ (occ >> WIDTH)))
        ) & ~s.walls
        set_memo(s, "known_wall_squares", m)
    return m


def claimable(s: State) -> list[int]:
    """Ids of the palaces a dome may claim (ignoring the one-per-colour rule) (§3.2, A1)."""
    ids = s.known_claimable
    if ids is None:
        if s.context.rules.abandoned_palace_claimable:
            ids = [i for i, p in enumerate(s.palaces) if p.owner == NOBODY]
        else:
            ids = [i for i in s.unfinished if i >= 0]
            ids.sort()
        set_memo(s, "known_claimable", ids)
    return ids


def dome_targets(s: State, player: int) -> Mask:
    """Palace pieces the player may dome: claimable palaces of colours they don't own yet."""
    ids = s.known_claimable
    if ids is None:
        ids = claimable(s)
    if not ids:
        return 0
    base = player * 4
    owned = s.owned
    palaces = s.palaces
    m = 0
    for i in ids:
        p = palaces[i]
        if owned[base + p.color] < 0:
            m |= p.pieces
    return m


def neutral_targets(s: State) -> Mask:
    """Palace pieces a neutral dome may go on (2e §3.2.5, E3): any colour, a palace a dome
    could claim by its status; with ``neutral_dome_any_unowned`` any unowned palace."""
    if s.context.rules.neutral_dome_any_unowned:
        ids = [i for i, p in enumerate(s.palaces) if p.owner == NOBODY]
    else:
        ids = claimable(s)
    m = 0
    for i in ids:
        m |= s.palaces[i].pieces
    return m
