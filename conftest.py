"""Collection rules for the whole test run (pytest reads this before anything else).

``--doctest-modules`` imports every module under ``src/tabletop``; the adapters of
``tabletop.envs`` import the rl extra's libraries at the top, so without that extra
(``pip install 'tabletop[rl]'``) their modules are left out of collection, and
``tests/envs`` skips its checker tests with the reason.  So are the network
(``tabletop.core.network``, NumPy) and the training package (``tabletop.learn``: NumPy, and
JAX for its model, the ``train`` extra), whose tests skip likewise.
"""

from __future__ import annotations

import importlib.util

_RL = ("numpy", "gymnasium", "pettingzoo", "pyspiel")

collect_ignore_glob: list[str] = []
if any(importlib.util.find_spec(name) is None for name in _RL):
    collect_ignore_glob += ["src/tabletop/envs/aec.py", "src/tabletop/envs/single.py"]
    collect_ignore_glob += ["src/tabletop/envs/common.py", "src/tabletop/envs/openspiel_game.py"]
if importlib.util.find_spec("numpy") is None:
    collect_ignore_glob += ["src/tabletop/core/network.py", "src/tabletop/learn/*.py"]
elif importlib.util.find_spec("jax") is None:
    collect_ignore_glob += ["src/tabletop/learn/model.py"]
