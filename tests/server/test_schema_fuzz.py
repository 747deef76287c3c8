"""schemathesis against the app's own OpenAPI schema, on a real server on loopback.

Positive and negative cases for every operation, a bounded number of each: no answer may
be a 5xx, use a status the schema does not list, or break the documented body shape.
"""

from __future__ import annotations

import dataclasses

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tabletop.server.app import create_app
from tabletop.server.config import Settings

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # Generous caps, so the fuzzer reaches the handlers instead of the rate limits
    # (which it also meets: 429 is a documented answer everywhere).
    return dataclasses.replace(settings, requests_per_minute=100_000, matches_per_minute=100_000)


# Built from the app itself, at import: the schema a client downloads from /openapi.json
# (checked equal below).  schemathesis's lazy fixture loader does not work with pytest 9.
schema = schemathesis.openapi.from_dict(create_app(Settings()).openapi())


def test_the_schema_is_the_one_served(live: str) -> None:
    import httpx2

    assert httpx2.get(f"{live}/openapi.json").json() == schema.raw_schema


@pytest.mark.slow
@schema.parametrize()
@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_5xx_and_no_undocumented_status(case: schemathesis.Case, live: str) -> None:
    case.call_and_validate(base_url=live, checks=CHECKS)
