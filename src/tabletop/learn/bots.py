"""The bots a training run plays what it learned with: ``puct-file:PATH[,sims=N]`` (the
network search of ``tabletop.native.puct`` over the network file at ``PATH``), and
``learned-file:PATH,LEVEL[,settings][@T]`` (a native level's search valued by the
learned evaluation file at ``PATH``, ``tabletop.native.learned``).

Not a built-in kind, as ``policy:PATH`` is not: its spec names a path, and the web app
builds bots from specs it is sent.  Importing this module registers it; ``tabletop
train`` and its workers do (:data:`tabletop.learn.run.WORKER_PLUGINS`), and ``tabletop
sprt`` or ``tabletop arena`` get it with ``--plugin tabletop.learn.bots``.  The settings
after the path are those of ``puct:NAME`` (``,sims=N``, ``,c=C``, ``,batch=B``,
``@0.5cpu``).
"""

from __future__ import annotations

import re
from typing import Final

from tabletop.ai.agent import Agent, register_agent
from tabletop.core.errors import ConfigError
from tabletop.native.learned import learned_search_agent, load_evaluation
from tabletop.native.puct import PuctAgent, parse_spec

KIND: Final = "puct-file"
LEARNED_KIND: Final = "learned-file"

_SETTINGS_START: Final = re.compile(r"[,@]")


def make_network_search_agent(arg: str | None, seed: int | None) -> Agent:
    """The ``puct-file`` agent of a spec.

    Raises:
        ConfigError: without a path, for bad settings, or a file that is not a network.
    """
    if not arg:
        raise ConfigError(f"the network search bot needs a network file: '{KIND}:PATH[,sims=N]'")
    found = _SETTINGS_START.search(arg)
    path, settings = (arg[: found.start()], arg[found.start() :]) if found else (arg, "")
    _, config, _ = parse_spec("network" + settings)
    return PuctAgent(path, config, seed=seed, name=f"{KIND}:{arg}")


def make_learned_file_agent(arg: str | None, seed: int | None) -> Agent:
    """The ``learned-file`` agent of a spec (the file's path, then a native level).

    Raises:
        ConfigError: without a path or a level, for a bad level, or a file that is not
            a learned evaluation.
    """
    path, comma, level = (arg or "").partition(",")
    if not path or not comma or not level:
        raise ConfigError(f"the learned evaluation's search needs a file and a level: '{LEARNED_KIND}:PATH,3@0.1cpu'")
    try:
        evaluation = load_evaluation(path)
    except OSError as exc:
        raise ConfigError(f"cannot read the learned evaluation {path}: {exc.strerror or exc}") from None
    agent: Agent = learned_search_agent(evaluation, level, seed=seed, name=f"{LEARNED_KIND}:{arg}")
    return agent


register_agent(KIND, make_network_search_agent)
register_agent(LEARNED_KIND, make_learned_file_agent)
