"""The trained networks shipped with the package (``.npz``, ``tabletop.core.network``).

``puct:NAME`` finds ``NAME.npz`` here after the directories of ``TABLETOP_NETWORKS``
(``tabletop.native.puct.find_network``); the Grandmaster level plays them
(``tabletop.ai.ladder``).  Each file's ``meta`` says the command, seed and training
hours that made it (``made_by``); ``docs/bots.md`` ("Grandmaster") has the runs.
"""
