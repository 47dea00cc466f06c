"""Wallets and the ledger in the admin: read-only, since money moves only through wallets.services."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from baccarat_site.adminkit import ReadOnlyAdmin
from wallets.models import LedgerEntry, LedgerTransaction, Wallet


class LedgerEntryInline(admin.TabularInline):
    model = LedgerEntry
    extra = 0
    can_delete = False
    readonly_fields = ("wallet", "amount", "balance_after", "created_at")

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "kind", "balance", "currency", "created_at")
    list_filter = ("kind",)
    search_fields = ("user__username",)


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "reference", "reason", "actor", "created_at")
    list_filter = ("kind",)
    search_fields = ("reference", "reason")
    inlines = (LedgerEntryInline,)
