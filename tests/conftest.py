"""Shared fixtures. Tests run against real PostgreSQL and Redis: the embedded
servers under var/ by default, or DATABASE_URL / REDIS_URL when set.

The test set-up starts the embedded servers (importing the settings never does): first thing, before Django
reads its settings, so their URLs are in the environment for the settings and for every process a test starts.
That is why pyproject.toml names no DJANGO_SETTINGS_MODULE for pytest-django (it would read the settings
before this file runs): this file names them and sets Django up; pytest-django finds it done.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import django
import pytest
from channels.layers import channel_layers
from django.conf import settings
from django.core.management.base import CommandError
from django.core.management.commands import flush
from django.utils import translation

from baccarat_site import events
from baccarat_site.embedded import ensure_services
from tests.clock import FakeClock

# The tests are development (baccarat_site.env.development_mode reads BACCARAT_DEV only, and guesses nothing),
# also when pytest is run without make; every process a test starts inherits it (tests.processes.process_env).
os.environ.setdefault("BACCARAT_DEV", "1")
ensure_services()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
django.setup()


@pytest.fixture
async def _background_work_finished() -> AsyncIterator[None]:
    """A coroutine test ends right after its sockets disconnect. Let the background work that follows (a hub leaving
    its group, channel-layer reads being cancelled) finish on the test's own event loop before pytest-asyncio closes
    it, and end what is left by cancelling it until it ends: the loop's own shutdown cancels each task once and then
    waits for all of them, and Python 3.11's ``wait_for`` inside redis-py can lose a cancellation (a lobby hub's
    refresh then held a test's loop open until the 300 s timeout)."""
    yield
    current = asyncio.current_task()
    for attempt in range(40):  # 20 s at most
        others = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
        if not others:
            return
        _done, pending = await asyncio.wait(others, timeout=0.5)
        for task in pending:  # first what a cancellation was lost in, after 2 s everything left
            if task.cancelling() or attempt >= 4:
                task.cancel()


@pytest.fixture(autouse=True)
def _coroutine_tests_finish_their_background_work(request: pytest.FixtureRequest) -> None:
    """Every coroutine test gets :func:`_background_work_finished` (a synchronous test gets no event loop)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("_background_work_finished")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """One test database per pytest run, so concurrent runs on one server never collide."""
    settings.DATABASES["default"]["TEST"]["NAME"] = f"test_baccarat_{os.getpid()}"


DEADLOCK = "40P01"


def _is_deadlock(error: BaseException) -> bool:
    while error is not None:
        if getattr(error, "sqlstate", None) == DEADLOCK:
            return True
        error = error.__cause__
    return False


@pytest.fixture(scope="session", autouse=True)
def _flush_outlasts_a_deadlock() -> Iterator[None]:
    """pytest-django empties the database after a transactional test with one TRUNCATE of every table, which
    takes their locks one by one. A process the test started (a browser test's casino) may still be writing
    when the test ends: a dealer's console closing with the test's page marks its table, then reads its rounds,
    in one transaction, and PostgreSQL picked the TRUNCATE as the deadlock's victim (CI, stop 28). The flush runs
    in a transaction, so a deadlocked one changed nothing: try it again, a few times, before failing the test."""
    original = flush.Command.handle
    flush.Command.handle = retrying_a_deadlock(original)
    yield
    flush.Command.handle = original


def retrying_a_deadlock(handle: Callable[..., object], tries: int = 5) -> Callable[..., object]:
    """``handle`` (a management command's), tried again after a deadlock, up to ``tries`` times in all."""

    def retried(self: object, **options: object) -> object:
        for attempt in range(1, tries + 1):
            try:
                return handle(self, **options)
            except CommandError as error:
                if attempt == tries or not _is_deadlock(error):
                    raise
                time.sleep(0.2 * attempt)
        raise AssertionError("unreachable")

    return retried


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The fake clock (tests/clock.py): ``clock.move(hours=…)`` makes every ``timezone.now()`` from then on that
    much later; ``with clock.frozen_at(moment):`` holds it at one moment."""
    return FakeClock(monkeypatch)


@pytest.fixture
def embedded_home() -> Iterator[Path]:
    """A folder for a test's own embedded servers (its ``BACCARAT_VAR_DIR`` is ``embedded_home / "var"``),
    outside pytest's temporary root. As root, pgserver runs PostgreSQL as its own user and opens the path to
    it; but every pytest session that starts on the machine closes ``/tmp/pytest-of-<user>`` to its owner
    again (pytest resets it to 0700), and a test in another run once left pg_ctl unable to stop its server."""
    home = Path(tempfile.mkdtemp(prefix="baccarat-test-"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings, request):
    """Creating players must not spend a tenth of a second each on Argon2. Browser tests sign in through a
    server in another process, which knows only the project's hashers, so they keep them; a test of the
    hashing itself sets ``settings.PASSWORD_HASHERS`` back (tests/foundation/test_login_throttle.py)."""
    if request.node.get_closest_marker("browser") is None:
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Every test starts in the default language and leaves it so. Django's LocaleMiddleware activates the
    request's language on the test's own thread and never deactivates it, so a test whose client asked for
    Russian left Russian active for the next test on its worker (a fresh-clone CI run, stop 32:
    'Player' == 'Игрок')."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _own_cache_prefix(settings):
    """Counters kept in the cache's Redis (sign-ups per address, throttles) start at zero in every test, and
    never carry over from another test or an earlier run on the same Redis."""
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex[:16]}"
    settings.CACHES = caches


@pytest.fixture(autouse=True)
def _isolated_channel_layer(settings, request):
    """Give each test its own channel-layer prefix so groups never leak across tests."""
    layers = settings.CHANNEL_LAYERS
    layers["default"]["CONFIG"]["prefix"] = f"test-{abs(hash(request.node.nodeid)) % 10**8}"
    settings.CHANNEL_LAYERS = layers

    channel_layers.backends.clear()
    yield
    for layer in channel_layers.backends.values():
        _close_sender_connections(layer)
    channel_layers.backends.clear()


def _close_sender_connections(layer: object) -> None:
    """Close the Redis connections a discarded layer opened on the process's sender loop
    (baccarat_site.events.run_async), so a suite of hundreds of layers does not keep them all open."""
    sender = events._sender
    if sender is None or sender[0] != os.getpid():
        return
    loop_layer = getattr(layer, "_layers", {}).pop(sender[1], None)
    if loop_layer is not None:
        events.run_async(loop_layer.flush())
