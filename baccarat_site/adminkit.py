"""Shared admin pieces."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyMixin:
    """For rows that record what happened: they change only through the services, never in the admin."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class ReadOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """A ModelAdmin for recorded rows: view only."""
