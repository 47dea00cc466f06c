"""Operators' admin for variants, tables, shoes, rounds and bets.

Rows that record what happened (shoes, rounds, bets) are read-only here:
they change only through the services.
"""

from __future__ import annotations

from django.contrib import admin

from baccarat_site.adminkit import ReadOnlyAdmin
from tables.models import Bet, Round, Shoe, Table, Variant


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ("name", "decks", "pb_difference_limit", "cut_min", "cut_max")
    search_fields = ("name",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("name", "variant", "status", "betting_seconds", "deal_interval_ms", "next_action_at")
    list_filter = ("status", "variant")
    search_fields = ("name",)
    readonly_fields = ("next_action_at", "created_at")


@admin.register(Shoe)
class ShoeAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "commitment", "burn_count", "created_at", "finished_at")
    list_filter = ("table",)
    exclude = ("server_seed", "state")
    readonly_fields = ("revealed_seed",)


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "shoe", "number", "state", "winner", "player_total", "banker_total", "opens_at")
    list_filter = ("state", "table")
    date_hierarchy = "opens_at"


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "round", "type", "amount", "mode", "status", "payout", "placed_at")
    list_filter = ("status", "type", "mode")
    search_fields = ("user__username",)
    list_select_related = ("user", "round__table", "round__shoe")
