"""One module per schema revision, numbered 0001, 0002, ... (Alembic skips this file)."""
