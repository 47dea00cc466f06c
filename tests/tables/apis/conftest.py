"""API tests: token-authenticated clients, and a cache (throttle counters) of each test's own."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _own_cache_prefix(settings):
    """Throttle counters live in the shared Redis: keep each test's apart from other tests and runs."""
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.fixture
def client_for(db):
    """``client_for(user)`` → an APIClient sending ``Authorization: Token …``; ``client_for(None)`` → anonymous."""

    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make
