"""The network's policy as a bot without search: ``policy:PATH`` plays the legal move the
network file at ``PATH`` (``tabletop.core.network``) gives the highest probability.

It is the bot ``tabletop train`` gates and measures its networks with until the search
with the network (PUCT over the native engine, ``docs/bots.md``, "Learned bot") takes
its place.

**Not a built-in kind.**  Its spec names a file, and specs come from the network (the
web app's seats): a built-in ``policy`` kind would let anyone make the server open any
path.  So the agent registry does not load this module; importing it registers
``policy``.  ``tabletop.learn`` imports it (its worker processes with it), and
``tabletop sprt`` or ``tabletop arena`` get it with ``--plugin tabletop.ai.policy_agent``.

Loading needs NumPy (the ``rl`` extra), so ``tabletop.core.network`` is imported when such
a bot is made.  A file is read once per process (again when it changes): an SPRT match
makes a bot for every game.
"""

from __future__ import annotations

from tabletop.ai.agent import Agent, register_agent
from tabletop.core.errors import ConfigError
from tabletop.core.network_file import load_network
from tabletop.core.protocol import Move, State


class PolicyAgent:
    """Plays the legal move of highest network probability (the first action id of equal ones)."""

    def __init__(self, path: str) -> None:
        self._path = path
        self.network = load_network(path)

    @property
    def name(self) -> str:
        return f"policy:{self._path}"

    def choose_move(self, state: State) -> Move:
        """The most probable legal move.

        Raises:
            ValueError: if the game is over or is not the network's game.
        """
        policy = self.network.policy(state)
        action = max(sorted(policy), key=policy.__getitem__)
        encoding = self.network.encoding_for(state)
        return encoding.decode(action)


def _factory(arg: str | None, _seed: int | None) -> Agent:
    if not arg:
        raise ConfigError("the policy bot needs a network file: 'policy:PATH'")
    return PolicyAgent(arg)


register_agent("policy", _factory)
