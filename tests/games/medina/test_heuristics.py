"""Medina's evaluation on hand-made positions: claims, domes in hand and room to grow."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.games.medina import State
from tabletop.games.medina.heuristics import CLAIM_SHARE, DOME_OPTION, GROWTH_CAP, TEA_VALUE, YELLOW_OPTION, evaluate
from tests.builders import medina_position


def test_an_unfinished_palace_is_shared_by_those_who_can_dome_it() -> None:
    # A gray palace of 3 pieces (3 points) and its tile (1) are at stake; every seat holds domes.
    state = medina_position("gray:E5 E6 E7", num_players=3, current_player=0)
    bare = medina_position(num_players=3, current_player=0)
    gains = [a - b for a, b in zip(evaluate(state), evaluate(bare), strict=True)]
    assert sum(gains) == pytest.approx(CLAIM_SHARE * (3 + 1))
    # The seat to move can claim it first, the next seat only if it is still there.
    assert gains[0] > gains[1] > gains[2] > 0


def test_a_seat_that_owns_the_colour_cannot_claim_another_palace_of_it() -> None:
    state = medina_position(
        "gray:B2 B3", "gray:H8 H9 H10", num_players=3, domes={"B2": 1}, palace_tiles={"gray": 1}, current_player=0
    )
    without = medina_position("gray:B2 B3", num_players=3, domes={"B2": 1}, palace_tiles={"gray": 1})
    gains = [a - b for a, b in zip(evaluate(state), evaluate(without), strict=True)]
    assert gains[1] == pytest.approx(0.0)  # seat 1 owns gray already
    assert gains[0] > 0 and gains[2] > 0


def test_no_domes_left_means_no_claims_and_no_dome_option() -> None:
    no_domes = [{"dome": 0}, {}, {}]
    state = medina_position("brown:E5 E6", num_players=3, supplies=no_domes, current_player=0)
    bare = medina_position(num_players=3, supplies=no_domes, current_player=0)
    gains = [a - b for a, b in zip(evaluate(state), evaluate(bare), strict=True)]
    assert gains[0] == pytest.approx(0.0)
    # With its domes, seat 0 would hold an option worth DOME_OPTION per dome (it lacks every colour).
    with_domes = evaluate(medina_position(num_players=3))
    assert with_domes[0] - evaluate(bare)[0] >= DOME_OPTION
    assert with_domes[1] == pytest.approx(evaluate(bare)[1])


def test_an_owned_palace_with_free_squares_around_it_will_grow() -> None:
    open_palace = medina_position("orange:H7 H8", num_players=3, domes={"H7": 0}, palace_tiles={"orange": 0})
    scores = open_palace.scores()
    values = evaluate(open_palace)
    # Seat 0 owns a 2-piece palace with room around it: more than its score, by at most the cap
    # plus its remaining dome options.
    assert values[0] > scores[0]
    assert values[0] - scores[0] <= GROWTH_CAP + DOME_OPTION * 4


def test_a_finished_game_is_valued_by_its_scores() -> None:
    state = medina_position("gray:E5 E6", num_players=3, domes={"E5": 2})
    assert all(v >= s for v, s in zip(evaluate(state), state.scores(), strict=True))


def _second(*layout: str, num_players: int = 3, **kwargs: Any) -> State:
    """A second-edition position with the well on H7 (yellow squares H5 H9 F7 J7)."""
    return medina_position(
        *layout, num_players=num_players, ruleset="second_edition", variants={"well": "H7"}, **kwargs
    )


def test_the_second_edition_counts_the_well_bonus_and_a_free_yellow_square() -> None:
    # Red owns orange J7 (a yellow square): the score already holds +4.
    on_yellow = _second("orange:J7 K7", num_players=3, domes={"J7": 0})
    off_yellow = _second("orange:K3 L3", num_players=3, domes={"K3": 0})
    assert evaluate(on_yellow)[0] - evaluate(off_yellow)[0] >= 4
    # A palace next to a free yellow square (F7, beside E7) may still take it with a stable.
    near = _second("gray:E7 E8", num_players=3, domes={"E7": 0})
    far = _second("gray:E3 E4", num_players=3, domes={"E3": 0})
    assert evaluate(near)[0] - evaluate(far)[0] == pytest.approx(YELLOW_OPTION)


def test_tea_tiles_are_worth_a_little_and_a_purple_claim_brings_them() -> None:
    bare = _second(num_players=3)
    with_tea = _second(num_players=3, supplies=[{"tea": 2}])
    assert evaluate(with_tea)[0] - evaluate(bare)[0] == pytest.approx(2 * TEA_VALUE)
    purple = _second("purple:C3 C4", num_players=3)
    gray = _second("gray:C3 C4", num_players=3)
    # The same palace, its tile worth 1 more as purple, and 3 tea tiles for its claimer.
    extra = sum(evaluate(purple)) - sum(evaluate(gray))
    assert extra == pytest.approx(CLAIM_SHARE * (1 + 3 * TEA_VALUE))
