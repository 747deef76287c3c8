"""The JSON view of the ai layer's result records (hints, reviews, ladder levels).

Those records are frozen dataclasses whose JSON is their fields, in order, with tuples
as lists, mappings as plain dicts and some values rounded for display; one function
writes that view so the records list only what differs (the rounding, extra keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any


def fields_json(record: Any, *, digits: Mapping[str, int] | None = None) -> dict[str, Any]:
    """``record``'s fields as a JSON-ready dict.

    Args:
        record: a dataclass instance.
        digits: decimal places for the fields to round (by field name).
    """
    rounding = digits or {}
    view: dict[str, Any] = {}
    for item in fields(record):
        value = getattr(record, item.name)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        if item.name in rounding:
            value = round(value, rounding[item.name])
        view[item.name] = value
    return view
