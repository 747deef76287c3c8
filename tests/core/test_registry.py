"""The registry finds games by id and explains unknown ids."""

from __future__ import annotations

import pytest

from tabletop.core.errors import UnknownGameError
from tabletop.core.registry import make


@pytest.mark.parametrize("game_id", ["chess", "../etc", "", "Terra Nova"])
def test_unknown_game_is_a_clear_error(game_id: str) -> None:
    with pytest.raises(UnknownGameError, match="unknown game"):
        make(game_id)
