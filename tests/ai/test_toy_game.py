"""The Coins toy game used by the bot and arena tests follows the protocol."""

from __future__ import annotations

from toy_game import GAME, LEFT

from tabletop.testing.conformance import check_game


def test_coins_passes_the_conformance_check() -> None:
    check_game(GAME, n_games=3, player_counts=[1, 2, 3, 4])


def test_two_actions_a_turn_keep_the_player_and_the_turn() -> None:
    state = GAME.position((1, 2, 3, 4), actions=2)
    after = state.apply(LEFT)
    assert (after.current_player, after.turn) == (0, 0)
    after = after.apply(LEFT)
    assert (after.current_player, after.turn) == (1, 1)
