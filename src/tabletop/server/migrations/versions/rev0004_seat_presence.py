"""seat_presence: which server process holds a socket of each seat of a lobby match, so
whichever process leads can drop the seats of a dead one (the previous leader included).

Only a new table: no existing row is touched.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 11:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seat_presence",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("process", sa.Integer(), nullable=False),
        sa.Column("since_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id", "seat", "process"),
    )


def downgrade() -> None:
    op.drop_table("seat_presence")
