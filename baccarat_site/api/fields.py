"""Serializer fields shared by the apps' APIs."""

from __future__ import annotations

from datetime import datetime

from rest_framework import serializers

from baccarat_site.clock import iso


class IsoMillisField(serializers.DateTimeField):
    """ISO 8601 UTC with milliseconds, as every time in docs/api.md."""

    def to_representation(self, value: datetime | None) -> str | None:  # type: ignore[override]
        return iso(value)
