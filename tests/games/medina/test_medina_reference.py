"""The engine's legal placements equal a naive square-by-square reading of the spec.

The reference below works on the JSON view with square names and plain loops, sharing no
code with the engine's bitsets, and is compared with ``legal_moves()`` on every state of
random games (every third state; states under the dome obligation are skipped: their filter is tested in
``test_medina_properties.py``).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.ai.agent import random_move
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.games.medina import State

GAME = make("medina", engine="python")
FILES = "ABCDEFGHIJKLMNOPQR"
COLOURS = ("gray", "black", "brown", "orange")
SLOTS = (*COLOURS, "dome", "stable", "merchant", "wall")


def _xy(name: str) -> tuple[int, int]:
    return FILES.index(name[0]), int(name[1:])


def _name(x: int, y: int) -> str:
    return f"{FILES[x]}{y}"


BUILDING = [_name(x, y) for x in range(1, 17) for y in range(2, 13)]


def _orth(name: str) -> list[str]:
    x, y = _xy(name)
    return [
        _name(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= x + dx < 18 and 1 <= y + dy <= 13
    ]


def _touching(a: str, b: str) -> bool:
    (ax, ay), (bx, by) = _xy(a), _xy(b)
    return a != b and max(abs(ax - bx), abs(ay - by)) == 1


def reference_moves(view: dict[str, Any], player: int, rules: dict[str, Any]) -> set[str]:
    """Every legal placement of ``player`` by the spec's §3, from the JSON view."""
    occupied = {p["square"] for p in view["pieces"]}
    empty = [sq for sq in BUILDING if sq not in occupied]
    palaces = view["palaces"]
    comps = [set(p["pieces"]) | set(p["stables"]) for p in palaces]

    def street_ok(sq: str, own: int | None) -> bool:
        return not any(_touching(sq, c) or sq == c for i, cs in enumerate(comps) if i != own for c in cs)

    def extension(i: int) -> list[str]:
        pieces = set(palaces[i]["pieces"])
        return [sq for sq in empty if any(n in pieces for n in _orth(sq)) and street_ok(sq, i)]

    supply = view["supplies"][player]
    owned_colours = {p["color"] for p in palaces if p["owner"] == player}
    out: set[str] = set()
    for colour in COLOURS:
        if not supply[colour]:
            continue
        unfinished = [i for i, p in enumerate(palaces) if p["color"] == colour and p["owner"] is None and extension(i)]
        assert len(unfinished) <= 1
        if unfinished:
            out |= {f"{colour}@{sq}" for sq in extension(unfinished[0])}
        else:
            out |= {f"{colour}@{sq}" for sq in empty if street_ok(sq, None)}
    if supply["dome"]:
        for i, p in enumerate(palaces):
            claimable = p["owner"] is None and (rules["abandoned_palace_claimable"] or extension(i))
            if claimable and p["color"] not in owned_colours:
                out |= {f"dome@{sq}" for sq in p["pieces"]}
    if supply["stable"]:
        for i, p in enumerate(palaces):
            pieces = set(p["pieces"])
            out |= {f"stable@{sq}" for sq in empty if any(n in pieces for n in _orth(sq)) and street_ok(sq, i)}
    if supply["merchant"]:
        merchants = {p["square"] for p in view["pieces"] if p["type"] == "merchant"}
        chain = set(view["merchant_chain"]["squares"])

        def merchant_neighbours(sq: str) -> int:
            return sum(n in merchants for n in _orth(sq))

        ends = set(view["merchant_chain"]["ends"])
        if not rules["new_chain_may_touch_one"]:
            assert ends == {m for m in chain if merchant_neighbours(m) <= 1}
        grow = {sq for sq in empty if merchant_neighbours(sq) == 1 and any(n in ends for n in _orth(sq))}
        if grow:
            out |= {f"merchant@{sq}" for sq in grow}
        else:
            limit = 1 if rules["new_chain_may_touch_one"] else 0
            out |= {f"merchant@{sq}" for sq in empty if merchant_neighbours(sq) <= limit}
    if supply["wall"]:
        walls = {w["square"] for w in view["walls"]}
        towers = {t["square"] for t in view["board"]["towers"]}
        for sq in view["board"]["wall_spaces"]:
            if sq in walls:
                continue
            x, y = _xy(sq)
            along = [(x - 1, y), (x + 1, y)] if y in (1, 13) else [(x, y - 1), (x, y + 1)]
            occupied_neighbours = sum(_name(a, b) in walls or _name(a, b) in towers for a, b in along)
            if occupied_neighbours == 1:
                out.add(f"wall@{sq}")
    return out


def _check_game(num_players: int, seed: int, variants: dict[str, Any]) -> int:
    rng = random.Random(seed)
    state: State = GAME.new_initial_state(GameConfig(num_players=num_players, variants=variants))
    checked = 0
    while not state.is_terminal():
        if state.phase == "play" and not state.obligation and state.ply % 3 == seed % 3:
            view = state.to_json()
            expected = reference_moves(view, state.current_player, view["rules"])
            got = {str(m) for m in state.legal_moves()}
            assert got == (expected or {"pass"}), (state.ply, sorted(got ^ expected))
            checked += 1
        state = state.apply(random_move(state, rng))  # type: ignore[assignment]
    return checked


@settings(max_examples=4, deadline=None)
@given(num_players=st.sampled_from([3, 4]), seed=st.integers(0, 2**32 - 1))
def test_legal_moves_match_the_reference(num_players: int, seed: int) -> None:
    assert _check_game(num_players, seed, {}) > 15


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_moves_match_the_reference_boardspace_flags(seed: int) -> None:
    assert _check_game(4, seed, {"abandoned_palace_claimable": True, "new_chain_may_touch_one": True}) > 15
