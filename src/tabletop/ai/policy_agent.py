"""The network's policy as a bot without search: ``policy:PATH`` plays the legal move the
network file at ``PATH`` (``tabletop.ai.network``) gives the highest probability.

It is the bot ``tabletop train`` gates and measures its networks with until the search
with the network (PUCT over the native engine, ``docs/bots.md``, "Learned bot") takes
its place.

**Not a built-in kind.**  Its spec names a file, and specs come from the network (the
web app's seats): a built-in ``policy`` kind would let anyone make the server open any
path.  So the agent registry does not load this module; importing it registers
``policy``.  ``tabletop.learn`` imports it (its worker processes with it), and
``tabletop sprt`` or ``tabletop arena`` get it with ``--plugin tabletop.ai.policy_agent``.

Loading needs NumPy (the ``rl`` extra), so ``tabletop.ai.network`` is imported when such
a bot is made.  A file is read once per process (again when it changes): an SPRT match
makes a bot for every game.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tabletop.ai.agent import Agent, register_agent
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State

if TYPE_CHECKING:
    from tabletop.ai.network import PolicyValueNetwork

_LOADED: dict[tuple[str, int, int, int], PolicyValueNetwork] = {}


def load_network(path: str | os.PathLike[str]) -> PolicyValueNetwork:
    """The network in ``path``, read once per process and version of the file.

    Raises:
        ConfigError: if NumPy is missing, or the file is not a valid network.
    """
    try:
        from tabletop.ai.network import NetworkFileError, PolicyValueNetwork
    except ImportError:
        raise ConfigError("network bots need NumPy: pip install 'tabletop[rl]'") from None
    resolved = Path(path).resolve()
    try:
        info = resolved.stat()
    except OSError as exc:
        raise ConfigError(f"cannot read the network {str(path)!r}: {exc.strerror or exc}") from None
    key = (str(resolved), info.st_ino, info.st_mtime_ns, info.st_size)  # a file replaced has a new inode
    network = _LOADED.get(key)
    if network is None:
        try:
            network = PolicyValueNetwork.load(resolved)
        except NetworkFileError as exc:
            raise ConfigError(str(exc)) from None
        if len(_LOADED) >= 4:  # a gate holds two networks, a ladder measurement one
            _LOADED.clear()
        _LOADED[key] = network
    return network


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
