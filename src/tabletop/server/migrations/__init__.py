"""Alembic's migration environment for the server's database (``env.py``, ``versions/``).

Run through :mod:`tabletop.server.migrate`, never imported by the server itself.
"""
