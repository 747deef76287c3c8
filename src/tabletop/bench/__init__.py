"""Benchmarks, one module per ``tabletop bench`` subcommand.

* :mod:`~tabletop.bench.engine`: complete kind-first random games through the protocol
  (``tabletop bench engine GAME``);
* :mod:`~tabletop.bench.search`: MCTS simulations per second from a fixed position
  (``tabletop bench search GAME``);
* :mod:`~tabletop.bench.env`: steps per second through the research environments
  against the raw engine (``tabletop bench env GAME``);
* :mod:`~tabletop.bench.server`: simulated players against a real server process
  (``tabletop bench server``).

Results and the commands that produced them are recorded in ``docs/benchmarks.md``.
"""
