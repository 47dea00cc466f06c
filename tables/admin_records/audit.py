"""The audit trail: auditlog's ``LogEntry`` admin, replaced by a subclass that can never delete an entry and
shows who from the name the entry stores."""

from __future__ import annotations

from auditlog.admin import LogEntryAdmin as AuditlogLogEntryAdmin
from auditlog.models import LogEntry
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from baccarat_site.adminkit import ReadOnlyMixin
from baccarat_site.audit import who


class ReadOnlyLogEntryAdmin(ReadOnlyMixin, AuditlogLogEntryAdmin):
    """auditlog's own admin allows deleting entries when another admin page cascades to them; never here.

    "User" is who the entry itself names (``baccarat_site.audit.who``: the username stored when it was made,
    a command's OS user, or the system), linked to the account while it exists; searchable by that name."""

    search_fields = [*AuditlogLogEntryAdmin.search_fields, "additional_data__actor_name", "additional_data__os_user"]

    @admin.display(description="User")
    def user_url(self, obj: LogEntry) -> SafeString | str:
        name = who(obj)
        if obj.actor_id is None:
            return name
        url = reverse(f"admin:{obj.actor._meta.app_label}_{obj.actor._meta.model_name}_change", args=[obj.actor_id])
        return format_html('<a href="{}">{}</a>', url, name)


if admin.site.is_registered(LogEntry):
    admin.site.unregister(LogEntry)
admin.site.register(LogEntry, ReadOnlyLogEntryAdmin)
