"""Sign-ins in the admin, read-only: who signed in when, from which address, browser and device (what a
linked-accounts risk alert rests on)."""

from __future__ import annotations

from django.contrib import admin

from baccarat_site.accounts.models import SignIn
from baccarat_site.adminkit import ReadOnlyAdmin


@admin.register(SignIn)
class SignInAdmin(ReadOnlyAdmin):
    list_display = ("at", "user", "method", "ip_address", "device_id", "user_agent")
    list_filter = ("method",)
    list_select_related = ("user",)
    search_fields = ("user__username", "=ip_address", "=device_id")
    search_help_text = "A username, or an exact address or device id: everyone who signed in from it."
    date_hierarchy = "at"
    show_full_result_count = False
