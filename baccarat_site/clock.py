"""Times as the API and the frames carry them: ISO 8601 in UTC with milliseconds (docs/api.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone


def iso(value: datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds, e.g. ``2026-01-02T03:04:05.678Z`` (None stays None)."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def server_time() -> str:
    """Now, as :func:`iso` writes it: what a browser sets its countdown clock by."""
    return iso(timezone.now()) or ""
