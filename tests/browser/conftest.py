"""A real casino for the browser: daphne + a Celery worker with beat, on the test database."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from tests import processes

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
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
        env = processes.process_env(TICK_SECONDS="0.2", CHANNELS_PREFIX=f"browser-{os.getpid()}")
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
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()
