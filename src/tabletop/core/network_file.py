"""Network files read once per process: the reader the bots that play a network share
(``policy:PATH`` here, ``puct:NAME`` in ``tabletop.native.puct``, the self-play workers).

Apart from ``tabletop.core.network`` so that NumPy is imported only when a network is
read, and apart from ``tabletop.ai.policy_agent``, whose import registers a bot kind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tabletop.core.errors import ConfigError

if TYPE_CHECKING:
    from tabletop.core.network import PolicyValueNetwork

_LOADED: dict[tuple[str, int, int, int], PolicyValueNetwork] = {}


def load_network(path: str | os.PathLike[str]) -> PolicyValueNetwork:
    """The network in ``path``, read once per process and version of the file.

    Raises:
        ConfigError: if NumPy is missing, or the file is not a valid network.
    """
    try:
        from tabletop.core.network import NetworkFileError, PolicyValueNetwork
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
