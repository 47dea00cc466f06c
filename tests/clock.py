"""The tests' one fake clock: what ``timezone.now()`` answers everywhere (services, selectors, the ledger), moved
forward or held at a moment by the test. The ``clock`` fixture (tests/conftest.py) hands one out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

import pytest
from django.utils import timezone


class FakeClock:
    """``timezone.now()`` as the real now plus an offset (``move``), or a fixed moment (``frozen_at``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._real_now: Callable[[], datetime] = timezone.now
        self._offset = timedelta()
        self._fixed: datetime | None = None
        monkeypatch.setattr(timezone, "now", self.now)

    def now(self) -> datetime:
        return self._fixed if self._fixed is not None else self._real_now() + self._offset

    def move(self, **delta: float) -> None:
        """Every ``timezone.now()`` from here on is that much later (``timedelta`` keywords; moves add up)."""
        self._offset += timedelta(**delta)

    @contextmanager
    def frozen_at(self, when: datetime) -> Iterator[None]:
        """Inside the block ``timezone.now()`` is ``when``; after it, the moving clock again."""
        self._fixed = when
        try:
            yield
        finally:
            self._fixed = None
