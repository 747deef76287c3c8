"""Variant flags whose effect the §8 scenarios do not cover (A2, A7, presets)."""

from __future__ import annotations

from tests.builders import medina_position, medina_with_turn

EMPTY = {"gray": 0, "black": 0, "brown": 0, "orange": 0, "dome": 0, "stable": 0, "merchant": 0, "wall": 0}


def _merchant_squares(state: object) -> set[str]:
    return {str(m).split("@")[1] for m in state.legal_moves_of_kind("merchant")}  # type: ignore[attr-defined]


def test_a2_new_chain_next_to_one_merchant() -> None:
    # The active chain B2 is boxed in by the black palace; the old chain H8-H10 is dead.
    layout = ["black:B3 C3 C2", "M:H8 H9 H10", "M:B2"]
    default = medina_position(*layout)
    squares = _merchant_squares(default)
    assert "K5" in squares and "G9" not in squares and "H7" not in squares
    a2 = medina_position(*layout, variants={"new_chain_may_touch_one": True})
    squares = _merchant_squares(a2)
    assert {"G9", "H7", "K5"} <= squares and "B4" in squares
    after = medina_with_turn(a2.apply(a2.parse_move("merchant@G9")), 0)
    # The merged group is the active chain, grown only from the new merchant.
    assert _merchant_squares(after) == {"F9"}
    assert after.to_json()["merchant_chain"]["squares"] == ["H8", "G9", "H9", "H10"]


def test_a7_obligation_by_supply() -> None:
    red = {**EMPTY, "dome": 1, "merchant": 3}
    blue = {**EMPTY, "dome": 1}  # Blue owns gray: its dome has no target, so Blue is unable
    yellow = {**EMPTY, "merchant": 1}
    layout = ["gray:E5", "gray:K8", "M:M11"]
    for by_supply, expected in ((False, True), (True, False)):
        state = medina_position(
            *layout,
            domes={"E5": 1},
            supplies=[red, blue, EMPTY, yellow],
            current_player=3,
            variants={"last_player_by_supply": by_supply},
        )
        turn = state.apply(state.parse_move("merchant@M12"))
        assert turn.current_player == 0
        assert turn.obligation is expected
