"""The web server: an authoritative room per match, persisted with SQLAlchemy.

``create_app(settings)`` in :mod:`tabletop.server.app` is the composition root.  The
server reaches games only through the registry, the protocol and records, and bots only
through :func:`tabletop.ai.agent.make_agent`.
"""
