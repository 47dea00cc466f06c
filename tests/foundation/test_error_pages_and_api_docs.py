"""Error pages look like the casino, speak the player's language and lead back to the lobby; the 500 page needs
no request, context or database. /api/docs/ loads nothing from another host: Swagger UI comes from
drf-spectacular-sidecar's static files, served by WhiteNoise."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory, override_settings
from django.urls import include, path
from django.utils import translation

from baccarat_site.urls import server_error


def _forbidden(request):
    raise PermissionDenied


def _broken(request):
    raise RuntimeError("a bug in a view")


# This module is also the URLconf of the tests below that need a view which fails on purpose.
urlpatterns = [
    path("test-forbidden/", _forbidden),
    path("test-broken/", _broken),
    path("", include("baccarat_site.urls")),
]
handler500 = server_error
errors_urls = override_settings(ROOT_URLCONF=__name__, DEBUG=False)


@pytest.fixture(autouse=True)
def _english_after():
    yield
    translation.activate("en")


def get(client: Client, url: str, lang: str | None = None):
    if lang:
        client.cookies["django_language"] = lang
    return client.get(url)


# ── 404 / 403 ────────────────────────────────────────────────────────────────


@override_settings(DEBUG=False)
def test_an_unknown_address_is_a_styled_404_in_english(client, db):
    response = get(client, "/no-such-page/")
    assert response.status_code == 404
    content = response.content.decode()
    assert '<html lang="en">' in content
    assert "casino/casino.css" in content  # the site's look: it extends base.html
    assert "casino/errors.css" in content
    assert "Page not found" in content
    assert 'class="button" href="/">Back to the lobby</a>' in content
    assert 'class="brand" href="/"' in content  # the site's header and menu too


@override_settings(DEBUG=False)
def test_an_unknown_address_is_a_styled_404_in_persian(client, db):
    response = get(client, "/no-such-page/", "fa")
    assert response.status_code == 404
    content = response.content.decode()
    assert '<html lang="fa" dir="rtl">' in content
    assert "casino/casino.css" in content
    for english in ("Page not found", "Back to the lobby", "There is no page at this address"):
        assert english not in content
    assert "صفحه" in content  # "page"
    assert 'class="button" href="/">' in content


@pytest.mark.parametrize("lang", ["hi", "vi", "ru", "pt"])
@override_settings(DEBUG=False)
def test_the_404_page_is_translated_in_every_language(client, db, lang):
    content = get(client, "/no-such-page/", lang).content.decode()
    assert f'<html lang="{lang}"' in content
    assert "Page not found" not in content
    assert "Back to the lobby" not in content


@errors_urls
@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_forbidden_page_is_a_styled_403(client, db, lang):
    response = get(client, "/test-forbidden/", lang)
    assert response.status_code == 403
    content = response.content.decode()
    assert "casino/casino.css" in content
    assert 'href="/">' in content
    assert ("Not allowed" in content) == (lang == "en")


@override_settings(DEBUG=False)
def test_a_form_sent_without_its_csrf_token_gets_the_styled_403(db):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    content = response.content.decode()
    assert "The form has expired" in content
    assert "casino/casino.css" in content
    assert "Back to the lobby" in content


# ── 500 ──────────────────────────────────────────────────────────────────────


def test_handler500_renders_the_standalone_page_without_a_request_context_or_the_database(
    django_assert_num_queries, db
):
    with django_assert_num_queries(0):
        response = server_error(RequestFactory().get("/somewhere/"))
    assert response.status_code == 500
    content = response.content.decode()
    assert "Something went wrong" in content
    assert '<a class="button" href="/">Back to the lobby</a>' in content
    assert "<style>" in content
    assert "{%" not in content
    assert "{{" not in content


def test_the_500_page_renders_with_no_database_at_all():
    """No ``db`` fixture: pytest-django refuses any query, so a template that touched the database would fail."""
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert b"Back to the lobby" in response.content


@errors_urls
@pytest.mark.parametrize(("lang", "title"), [("en", "Something went wrong"), ("fa", None)])
def test_a_view_that_fails_answers_with_the_500_page_in_the_players_language(db, lang, title):
    client = Client(raise_request_exception=False)
    response = get(client, "/test-broken/", lang)
    assert response.status_code == 500
    content = response.content.decode()
    assert f'<html lang="{lang}"' in content
    if title:
        assert title in content
    else:
        assert 'dir="rtl"' in content
        assert "Something went wrong" not in content
    assert 'href="/"' in content


# ── /api/docs/ offline ───────────────────────────────────────────────────────


def test_the_api_docs_load_nothing_from_another_host(client, db):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    content = response.content.decode()
    hosts = re.findall(r"""(?:https?:)?//[\w.-]+""", content)
    assert hosts == [], f"/api/docs/ names other hosts: {hosts}"
    urls = re.findall(r"""<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)\"""", content)
    assert any(u.endswith("swagger-ui-bundle.js") for u in urls), urls
    assert any(u.endswith("swagger-ui.css") for u in urls), urls
    for url in urls:
        assert url.startswith("/static/drf_spectacular_sidecar/"), url
        answer = client.get(url)
        assert answer.status_code == 200, url
        body = b"".join(answer.streaming_content) if answer.streaming else answer.content
        assert len(body) > 100, url


def test_the_api_schema_the_docs_read_is_served_here(client, db):
    content = client.get("/api/docs/").content.decode()
    assert "/api/schema/" in content
    assert client.get("/api/schema/").status_code == 200
