"""The trained networks shipped with the package (``.npz``, ``tabletop.core.network``).

``puct:NAME`` finds ``NAME.npz`` here after the directories of ``TABLETOP_NETWORKS``
(``tabletop.native.puct.find_network``).  A file is written by ``tabletop train GAME
--out RUN --export FILE`` (half precision) and its ``meta`` says the command, seed and
training hours that made it (``made_by``).  Shipped: ``medina-3p.npz``, Medina's first
edition for three, the Grandmaster level's network there (it passed its SPRT over
Master at equal CPU time: ``docs/bots.md``, "Grandmaster").
"""
