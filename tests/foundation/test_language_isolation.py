"""A language one test's request activates does not carry over to the next test (tests/conftest.py,
``_default_language``). The two tests run in this order: pytest keeps a file's order, and the suite's workers
keep a whole file on one worker."""

from __future__ import annotations

import pytest
from django.utils import translation


@pytest.mark.django_db
def test_a_russian_request_leaves_russian_active_on_the_tests_thread(client) -> None:
    client.get("/", headers={"accept-language": "ru"})
    # Django's LocaleMiddleware leaves the request's language active on this thread after the response.
    assert translation.get_language() == "ru"


def test_the_next_test_starts_in_the_default_language() -> None:
    assert translation.get_language() == "en"
    assert translation.gettext("Player") == "Player"
