"""Medina's evaluation for bots: each seat's estimated final score.

``evaluate`` starts from the score each seat would have if the game ended now (owned
palaces with their stables, merchants and walls, plus the tiles held) and adds what is
likely to come:

* **Claims.**  An unfinished palace will be domed by someone who still holds a dome and
  owns no palace of its colour.  Its current value (plus its palace tile while that is
  still in the supply) is shared among those seats, more to the seats that act sooner:
  the seat to move can claim it at once, the others only if it is still there.
* **Domes in hand.**  Each dome that can still claim a colour its holder lacks is worth
  a small option value, so a bot does not spend a dome on a tiny palace for nothing.
* **Room to grow.**  Owned palaces with free squares around them will collect more
  stables, merchants and walls.
* **Second edition.**  The current scores already hold the well bonus (+4 per palace
  component on a yellow square); an owned palace next to a free yellow square may still
  put a stable there, a purple claim brings tea tiles, and tea tiles in hand are a little
  flexibility (a turn with one placement when that is better).

The weights were set by a few self-play matches (``docs/bots.md``); the greedy and MCTS
bots see the game only through this function and the protocol.
"""

from __future__ import annotations

from tabletop.games.medina.board import ortho_dilate
from tabletop.games.medina.moves import DOME, NUM_SLOTS, PURPLE, STABLE
from tabletop.games.medina.scoring import palace_score
from tabletop.games.medina.state import State

CLAIM_SHARE = 0.7
"""Fraction of an unfinished palace's value that the seats able to claim it expect."""

DOME_OPTION = 1.5
"""Value of a dome in hand that can still claim a colour its holder lacks."""

GROWTH_PER_SQUARE = 0.15
GROWTH_CAP = 2.0
"""Value of each free square around an owned palace, and the most one palace gets."""

YELLOW_OPTION = 1.5
"""Value of a free yellow (well bonus) square next to an owned palace: a stable there
scores 4 more, if its owner gets to it first (2e)."""

TEA_VALUE = 0.3
"""Value of a tea tile, held or about to be awarded by a purple claim (2e): it scores
nothing, it only lets a turn end after one placement."""


def evaluate(state: State) -> tuple[float, ...]:
    """Each seat's estimated final score (the final scores once the game is over)."""
    scores = state.scores()
    if state.is_terminal():
        return tuple(float(x) for x in scores)
    n = state.num_players
    estimate = [float(x) for x in scores]
    supply = state.supply
    owned = state.owned
    current = state.current_player
    free = state.geo.building & ~state.occupied
    second = state.rules.edition == 2
    # Claims: share each unfinished palace among the seats that could dome it.
    for colour, pid in enumerate(state.unfinished):
        if pid < 0:
            continue
        eligible = [p for p in range(n) if supply[p * NUM_SLOTS + DOME] > 0 and owned[p * 4 + colour] < 0]
        if not eligible:
            continue
        value = float(palace_score(state, pid).total)
        if state.palace_tiles[colour] < 0:
            value += colour + 1  # the first claim of a colour takes its palace tile
        if second and colour == PURPLE:
            value += TEA_VALUE * ((state.tea_pool + 1) // 2)  # this claim's tea tiles
        # The seat to move gets first pick, then the others in turn order.
        weights = [1.0 / (1 + (p - current) % n) for p in eligible]
        total = sum(weights)
        for p, w in zip(eligible, weights, strict=True):
            estimate[p] += CLAIM_SHARE * value * w / total
    for p in range(n):
        # Domes in hand that can still claim a colour this seat lacks.
        domes = supply[p * NUM_SLOTS + DOME]
        if domes:
            lacking = sum(1 for c in range(4) if owned[p * 4 + c] < 0 and not _dead_colour(state, c))
            estimate[p] += DOME_OPTION * min(domes, lacking)
        # Room to grow around owned palaces.
        for c in range(4):
            pid = owned[p * 4 + c]
            if pid >= 0:
                pal = state.palaces[pid]
                around = ortho_dilate(pal.pieces | pal.stables) & free
                estimate[p] += min(GROWTH_CAP, GROWTH_PER_SQUARE * around.bit_count())
                if second and supply[p * NUM_SLOTS + STABLE]:
                    # A free yellow square a stable of this palace could take (not red,
                    # not touching another palace).
                    estimate[p] += (
                        YELLOW_OPTION * (ortho_dilate(pal.pieces) & free & state.yellow & ~state.contested).bit_count()
                    )
        if second:
            estimate[p] += TEA_VALUE * state.tea[p]
    return tuple(estimate)


def _dead_colour(state: State, colour: int) -> bool:
    """Whether no palace of ``colour`` can be claimed any more (retired, none unfinished)."""
    return state.retired[colour] > 0 and state.unfinished[colour] < 0
