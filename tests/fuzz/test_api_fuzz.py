"""Schemathesis against the served OpenAPI schema, signed in as a player with money and an open betting round:
generated valid and invalid requests for every operation. No 5xx, and every answer (status, content type,
body) is one the schema documents. Bounded (``MAX_EXAMPLES`` per operation and mode) so it runs in CI.

Each operation is driven through Hypothesis directly (``APIOperation.as_strategy``): Schemathesis' own
pytest parametrisation does not run under pytest 9 yet."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.specs.openapi import checks

from tests.factories import make_round, make_table, make_user
from wallets.services import wallet_deposit

pytestmark = [pytest.mark.slow, pytest.mark.django_db]  # every operation, 25 examples each: seconds
MAX_EXAMPLES = 25


@pytest.fixture
def wsgi_in_this_transaction():
    """Requests run in this thread, inside the test's transaction: keep Django from closing the connection at
    the end of each one (as its own test client does)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def operations() -> list[str]:
    return [
        "GET /api/tables/",
        "GET /api/tables/{table_id}/",
        "GET /api/rounds/{round_id}/",
        "POST /api/rounds/{round_id}/bets/",
        "GET /api/bets/",
        "GET /api/wallet/",
        "GET /api/wallet/ledger/",
        "POST /api/wallet/refill/",
        "POST /api/auth/token/",
        "POST /api/account/time-out/",
        "POST /api/account/self-exclusion/",
        "POST /api/auth/logout/",
    ]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["valid", "invalid"])
def test_the_api_never_answers_5xx_and_always_as_documented(wsgi_in_this_transaction, mode):
    user = make_user("fuzzer", "fuzz-pass-word-1")
    wallet_deposit(user=user, amount=Decimal("100000.00"), reason="fuzzing")
    make_round(make_table("Fuzz table"), closes_in=3600)  # an open window for the bets endpoint
    Token.objects.create(user=user)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    seen = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path.startswith("/api/schema") or operation.path.startswith("/api/docs"):
            continue
        seen.append(f"{operation.method.upper()} {operation.path}")

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,  # the same examples every run: CI stays repeatable (run it with a seed to explore)
        )
        def run(case):
            # POST /api/auth/logout/ revokes the token: every example signs in with the current one, or a new one.
            headers = {"Authorization": f"Token {Token.objects.get_or_create(user=user)[0].key}"}
            if case.path.startswith("/api/account/"):
                # A player's own stop (time-out, self-exclusion) revokes their token by design: each example
                # gets a player of its own, so the operations after it still run signed in.
                headers["Authorization"] = (
                    f"Token {Token.objects.create(user=make_user(f'f-{uuid.uuid4().hex[:12]}')).key}"
                )
            if case.method.upper() == "POST" and case.path.endswith("/bets/"):
                headers["Idempotency-Key"] = str(uuid.uuid4())
            case.call_and_validate(
                headers=headers,
                # Valid-looking data may still be refused by the rules (a closed round, a limit, the balance):
                # a 4xx with a code is the right answer there, not a schema violation.
                # The player's token is sent with every request here, so Schemathesis' own probe of requests
                # without it cannot work (tests/tables/apis cover the 401s).
                excluded_checks=[checks.positive_data_acceptance, checks.ignored_auth],
            )

        try:
            run()
        except Unsatisfiable:  # nothing about this operation can be invalid (no parameters, no body)
            assert mode == GenerationMode.NEGATIVE, operation.path
    assert set(operations()) <= set(seen), seen
