"""A real casino for the browser: daphne + a Celery worker with beat, on the test database.

One casino serves a whole module, and its processes cache content type ids. pytest-django's flush after each test
empties django_content_type and makes it again under new ids, so an audit entry the casino itself writes (a
sign-up, a player's own time-out) works in a module's first test only: put such a test first, or in a module of
its own (test_signup_persian.py), or have the test use ``content_type_ids_kept``, which puts the ids back."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from channels.layers import channel_layers
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from playwright.sync_api import expect, sync_playwright

from tables.models import Table
from tests import processes
from tests.browser.helpers import in_thread
from tests.conftest import _close_sender_connections

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# An expectation waits up to 15 s, not Playwright's 5: on a machine busy with other work (CI's two workers and a
# benchmark at once) a page took over 5 s to show its answer to a scan (stop 33, the live supervisor's test). A
# check that holds returns as soon as it does, so only a failing one waits longer.
EXPECT_TIMEOUT_MS = 15_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


@pytest.fixture(scope="module", autouse=True)
def _orm_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an asyncio loop running in the test's thread, and Django refuses
    ORM calls from a thread with a running loop. The test's own ORM calls (fixtures, assertions) are
    plain synchronous code, so allow them here, and only here: child processes never inherit it
    (``processes.process_env`` drops it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def casino_url(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[str]:
    """Base URL of a running casino whose ticker runs every 0.2 s."""
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium (the CI script does)")
    logs = tmp_path_factory.mktemp("casino-logs")
    port = processes.free_port()
    with django_db_blocker.unblock():
        # WhiteNoise re-reads static files on each request: a file edited while the casino runs is served whole
        # (with autorefresh off it would go out under the length indexed at start, and the page never loads).
        env = processes.process_env(
            TICK_SECONDS="0.2", CHANNELS_PREFIX=f"browser-{os.getpid()}", WHITENOISE_AUTOREFRESH="true"
        )
    with ExitStack() as stack:
        web = stack.enter_context(processes.running("daphne", processes.daphne_command(port), env, logs))
        stack.enter_context(
            processes.running(
                "worker", processes.celery_worker_command("browser", beat_schedule=logs / "beat-schedule"), env, logs
            )
        )
        url = f"http://127.0.0.1:{port}"
        processes.wait_for_http(url + "/accounts/login/", proc=web)
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


class ConsoleErrors:
    """Every console error and uncaught exception of the test's pages; the test may allow some it provokes
    on purpose (a refused request's 4xx, a socket that fails while the network is off)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        self.allowed.append(re.compile(pattern))

    def watch(self, page: object) -> None:
        def on_console(message: object) -> None:
            if message.type == "error":
                where = message.location.get("url", "") if message.location else ""
                self.seen.append(f"console error: {message.text} ({where}) on {page.url}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.seen.append(f"page error: {error} on {page.url}"))

    def unexpected(self) -> list[str]:
        return [text for text in self.seen if not any(p.search(text) for p in self.allowed)]


@pytest.fixture
def console_errors() -> ConsoleErrors:
    return ConsoleErrors()


@pytest.fixture
def casino_layer(settings) -> Iterator[None]:
    """Events this test's own service calls send go to the running casino's channel layer (its prefix is set
    in ``casino_url``), so its pages see them."""
    layers = settings.CHANNEL_LAYERS
    layers["default"]["CONFIG"]["prefix"] = f"browser-{os.getpid()}"
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    yield
    # Close the layer's Redis connections from a thread without a running loop (see helpers.in_own_thread),
    # before the suite's own fixture (tests/conftest.py) would try it from this one.
    in_thread(lambda: [_close_sender_connections(layer) for layer in channel_layers.backends.values()])
    channel_layers.backends.clear()


@pytest.fixture(scope="module")
def _casino_content_types(django_db_setup, django_db_blocker) -> dict[tuple[str, str], int]:
    """The content type ids as the module's casino will cache them (the flush after each test makes them again
    under new ids, and an audit entry the casino writes then fails)."""
    with django_db_blocker.unblock():
        return {(ct.app_label, ct.model): ct.pk for ct in ContentType.objects.all()}


@pytest.fixture
def content_type_ids_kept(_casino_content_types, transactional_db) -> None:
    """For a test in which the casino itself audits (a dealer's shift, burn or cut card, a supervisor's call,
    resume or void): before it, put the content types back under the ids the module's casino cached, with the
    permissions that point at them. Use it in every test of the module (``pytest.mark.usefixtures``), so the ids
    are recorded before the first flush."""
    current = {(ct.app_label, ct.model): ct.pk for ct in ContentType.objects.all()}
    moves = [
        (new, _casino_content_types[key]) for key, new in current.items() if _casino_content_types.get(key, new) != new
    ]
    if not moves:
        return
    pointers = [
        (model._meta.db_table, field.column)
        for model in apps.get_models()
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is ContentType
    ]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        # The flush's own audit entries (the roles made again) point at the new ids, and the trail refuses an
        # UPDATE: empty it (TRUNCATE is left to the database owner), nothing here reads it.
        cursor.execute("TRUNCATE auditlog_logentry")
        for new, old in moves:
            cursor.execute("UPDATE django_content_type SET id = %s WHERE id = %s", [old, new])
            for table, column in pointers:  # the permissions, in practice
                cursor.execute(f'UPDATE "{table}" SET "{column}" = %s WHERE "{column}" = %s', [old, new])
    ContentType.objects.clear_cache()


def _stop_the_tables() -> None:
    """Pause every table, so the casino's worker leaves the database alone before pytest-django empties it:
    a TRUNCATE of all tables beside a running round's transaction can deadlock. Each step of a round holds
    its table's row lock, so once this UPDATE returns no step is under way, and paused tables get none."""
    Table.objects.update(status=Table.Status.PAUSED, next_action_at=None)


@pytest.fixture(autouse=True)
def _tables_stopped_before_the_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every browser test with a database pauses the tables when it ends, before pytest-django empties the
    database, whether or not it used the ``page`` fixture (a test on phone-sized contexts of its own did not,
    and its flush deadlocked with a round the casino's worker was settling)."""
    if request.node.get_closest_marker("django_db") is None:
        yield
        return
    # Requested here, the test database is set up before this fixture and so emptied after its teardown.
    request.getfixturevalue("transactional_db")
    yield
    _stop_the_tables()


@pytest.fixture
def page(browser, console_errors) -> Iterator[object]:
    """A fresh context and page (1280 × 900, en-US); fails the test at teardown if any page it visited
    logged a console error or threw an uncaught exception."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(20_000)
    console_errors.watch(page)
    yield page
    context.close()
    unexpected = console_errors.unexpected()
    assert not unexpected, "console errors on the pages of this test:\n" + "\n".join(unexpected)
