"""The lobby's tables: lobby_games (games gathering players), match_tables (clock, seat
status, end and rematch of a match started from the lobby) and chat_messages.

Only new tables: no existing row is touched, so a database from before upgrades in place.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25 15:41:07.772826
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lobby_games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("setup", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("created", sa.String(length=40), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lobby_games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lobby_games_status"), ["status"], unique=False)

    op.create_table(
        "chat_messages",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id", "n"),
    )
    op.create_table(
        "match_tables",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=True),
        sa.Column("seat_status", sa.JSON(), nullable=False),
        sa.Column("ended", sa.JSON(), nullable=True),
        sa.Column("rematch", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id"),
    )


def downgrade() -> None:
    op.drop_table("match_tables")
    op.drop_table("chat_messages")
    with op.batch_alter_table("lobby_games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lobby_games_status"))

    op.drop_table("lobby_games")
