"""Learning the policy and value network by self-play (``tabletop train``, ``docs/bots.md``,
"Learned bot").

- :mod:`tabletop.learn.selfplay`: games of self-play on the native engine, each move's
  network input, legal actions and the search's visit distribution, and the final win
  shares; the replay buffer of those positions.
- :mod:`tabletop.learn.model`: the network in JAX (the same function as
  ``tabletop.core.network.PolicyValueNetwork.forward``), its loss and the Adam step (needs
  the ``train`` extra: ``pip install 'tabletop[train]'``).
- :mod:`tabletop.learn.run`: the training run: generations of self-play, training,
  gating by SPRT, measurements against the ladder, checkpoints and ``--resume``.
- :mod:`tabletop.learn.curve`: the learning curve as SVG.
"""
