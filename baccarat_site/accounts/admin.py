"""Django's user admin, with one change: a user who is the actor of audit entries cannot be deleted.

The audit trail is append-only (``baccarat_site/audit.py``); deleting such a user would null the entries'
actor, which the database refuses. The delete page lists those entries as protected and says to deactivate
the account instead (untick *Active*), as it does for any protected object.
"""

from __future__ import annotations

from typing import Any

from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

User = get_user_model()


class AuditedUserAdmin(UserAdmin):
    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, ...]:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        ids = [obj.pk for obj in objs] if not isinstance(objs, QuerySet) else list(objs.values_list("pk", flat=True))
        entries = LogEntry.objects.filter(actor_id__in=ids).select_related("actor").order_by("-timestamp")
        count = entries.count()
        if count:
            names = sorted({entry.actor.get_username() for entry in entries[:1000] if entry.actor is not None})
            protected = [
                *protected,
                f"{count} audit entr{'y' if count == 1 else 'ies'} made by {', '.join(names)}: the trail is kept "
                "unchanged, so deactivate the account (untick Active) instead of deleting it",
            ]
        return deleted, counts, perms_needed, protected


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, AuditedUserAdmin)
