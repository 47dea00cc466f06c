"""The table chat in the admin: every message (deleted ones marked), the mutes, and the operators' two actions.

**Delete** (a link per message, or the list action for several) asks for a reason and calls
``tables.services.chat.chat_delete``: the message leaves every open page and the history, and stays here, marked.
**Mute** (a link per message for its author, or the list action for the authors of the selected messages) asks
for a reason and a duration and calls ``chat_mute``. **Unmute** on the mutes' list calls ``chat_unmute``. All need
``tables.moderate_chat`` (Table operators, Supervisors: ``baccarat_site/roles.py``); Auditors read. The services
write the audit entries (actor, reason, before and after). The live floor links to the same two pages
(``?next=floor`` brings the operator back there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html_join

from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError
from tables.models import ChatMessage, ChatMute
from tables.services import chat

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MODERATE_PERMISSION = "tables.moderate_chat"
MAX_PER_ACTION = 100

#: minutes → label, for the mute form.
MUTE_DURATIONS = [
    (10, "10 minutes"),
    (60, "1 hour"),
    (24 * 60, "24 hours"),
    (7 * 24 * 60, "7 days"),
    (30 * 24 * 60, "30 days"),
]


class ReasonForm(forms.Form):
    reason = forms.CharField(
        min_length=3,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="Why: kept in the audit trail with your name. The player is not shown it.",
    )


class MuteForm(ReasonForm):
    minutes = forms.TypedChoiceField(
        label="For",
        choices=MUTE_DURATIONS,
        coerce=int,
        initial=60,
        help_text="From now; a longer mute already running stays.",
    )


def may_moderate(request: HttpRequest) -> bool:
    return bool(request.user.has_perm(MODERATE_PERMISSION))


def delete_link(request: HttpRequest, message: ChatMessage, *, floor: bool = False) -> str | None:
    if message.deleted_at is not None or not may_moderate(request):
        return None
    return reverse("admin:tables_chatmessage_delete_message", args=[message.pk]) + ("?next=floor" if floor else "")


def mute_link(request: HttpRequest, message: ChatMessage, *, floor: bool = False) -> str | None:
    if not may_moderate(request):
        return None
    return reverse("admin:tables_chatmessage_mute_author", args=[message.pk]) + ("?next=floor" if floor else "")


class DeletedFilter(admin.SimpleListFilter):
    title = "shown"
    parameter_name = "shown"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Shown"), ("deleted", "Deleted")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> QuerySet[ChatMessage]:
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=True)
        if self.value() == "deleted":
            return queryset.filter(deleted_at__isnull=False)
        return queryset


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display_links = None
    list_filter = (DeletedFilter, "table")
    search_fields = ("text", "author__username")
    search_help_text = "Words of a message, or a username."
    date_hierarchy = "created_at"
    actions = ("delete_messages", "mute_authors")
    list_select_related = ("table", "author", "deleted_by")

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return may_moderate(request)

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        own = [
            path(
                "<int:message_id>/delete-message/", wrap(self.delete_view_one), name="tables_chatmessage_delete_message"
            ),
            path("<int:message_id>/mute-author/", wrap(self.mute_view_one), name="tables_chatmessage_mute_author"),
        ]
        return own + super().get_urls()

    def get_list_display(self, request: HttpRequest) -> tuple[Any, ...]:
        @admin.display(description="moderate")
        def moderate(message: ChatMessage) -> str:
            candidates = ((delete_link(request, message), "Delete"), (mute_link(request, message), "Mute author"))
            links = [(url, label) for url, label in candidates if url]
            return format_html_join(" ", '<a class="button" href="{}">{}</a>', links) if links else "—"

        shown: tuple[Any, ...] = ("created_at", "table", "author", "text", "status")
        return (*shown, moderate) if may_moderate(request) else shown

    @admin.display(description="status", ordering="deleted_at")
    def status(self, message: ChatMessage) -> str:
        if message.deleted_at is None:
            return "Shown"
        return f"Deleted by {message.deleted_by} at {message.deleted_at:%Y-%m-%d %H:%M} UTC"

    # ── delete ──

    @admin.action(description="Delete the selected messages…", permissions=["moderate"])
    def delete_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        found = list(queryset.filter(deleted_at__isnull=True).select_related("author", "table")[: MAX_PER_ACTION + 1])
        if not found:
            self.message_user(request, "The selected messages are already deleted.", messages.WARNING)
            return None
        if len(found) > MAX_PER_ACTION:
            self.message_user(request, f"Select at most {MAX_PER_ACTION} messages at once.", messages.ERROR)
            return None
        return self._moderate(request, "delete", found, from_action=True)

    def delete_view_one(self, request: HttpRequest, message_id: int) -> HttpResponse:
        message = get_object_or_404(ChatMessage.objects.select_related("author", "table"), pk=message_id)
        return self._moderate(request, "delete", [message], from_action=False)

    # ── mute ──

    @admin.action(description="Mute the authors of the selected messages…", permissions=["moderate"])
    def mute_authors(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        found = list(queryset.select_related("author", "table")[: MAX_PER_ACTION + 1])
        if len(found) > MAX_PER_ACTION:
            self.message_user(request, f"Select at most {MAX_PER_ACTION} messages at once.", messages.ERROR)
            return None
        return self._moderate(request, "mute", found, from_action=True)

    def mute_view_one(self, request: HttpRequest, message_id: int) -> HttpResponse:
        message = get_object_or_404(ChatMessage.objects.select_related("author", "table"), pk=message_id)
        return self._moderate(request, "mute", [message], from_action=False)

    # ── both ──

    def _moderate(self, request: HttpRequest, op: str, found: list[ChatMessage], *, from_action: bool) -> HttpResponse:
        if not may_moderate(request):
            raise PermissionDenied
        submitted = request.method == "POST" and "apply" in request.POST
        form_class = MuteForm if op == "mute" else ReasonForm
        form = form_class(request.POST if submitted else None)
        if submitted and form.is_valid():
            reason = form.cleaned_data["reason"]
            if op == "delete":
                for message in found:
                    self._report(
                        request,
                        f"Deleted {message.author}'s message at {message.table}.",
                        chat.chat_delete,
                        message_id=message.pk,
                        actor=request.user,
                        reason=reason,
                    )
            else:
                minutes = form.cleaned_data["minutes"]
                for author in {m.author_id: m.author for m in found}.values():
                    self._report(
                        request,
                        f"{author} cannot write in the chat for {dict(MUTE_DURATIONS)[minutes]}.",
                        chat.chat_mute,
                        player=author,
                        minutes=minutes,
                        reason=reason,
                        actor=request.user,
                    )
            if request.GET.get("next") == "floor":
                return HttpResponseRedirect(reverse("admin_floor:floor_live"))
            return HttpResponseRedirect(reverse("admin:tables_chatmessage_changelist"))
        authors = sorted({m.author.get_username() for m in found})
        title = (
            "Delete chat message" + ("s" if len(found) > 1 else "")
            if op == "delete"
            else "Mute in the chat: " + ", ".join(authors)
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "op": op,
            "found": found,
            "form": form,
            "from_action": from_action,
            "action": "delete_messages" if op == "delete" else "mute_authors",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/tables/chatmessage/moderate.html", context)

    def _report(self, request: HttpRequest, done: str, service: Any, **kwargs: Any) -> None:
        try:
            result = service(**kwargs)
        except DomainError as error:
            self.message_user(request, error.detail, messages.ERROR)
            return
        if result is False:
            self.message_user(request, "That message was already deleted.", messages.WARNING)
        else:
            self.message_user(request, done, messages.SUCCESS)


@admin.register(ChatMute)
class ChatMuteAdmin(ReadOnlyAdmin):
    list_display = ("player", "until", "running", "reason", "by", "created_at", "lifted")
    list_filter = ("until",)
    search_fields = ("player__username", "reason")
    list_select_related = ("player", "by", "lifted_by")
    actions = ("unmute_players",)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return may_moderate(request)

    @admin.display(boolean=True, description="running")
    def running(self, mute: ChatMute) -> bool:
        return mute.lifted_at is None and mute.until > timezone.now()

    @admin.display(description="lifted")
    def lifted(self, mute: ChatMute) -> str:
        return f"by {mute.lifted_by} at {mute.lifted_at:%Y-%m-%d %H:%M} UTC" if mute.lifted_at else "—"

    @admin.action(description="Unmute the players of the selected mutes…", permissions=["moderate"])
    def unmute_players(self, request: HttpRequest, queryset: QuerySet[ChatMute]) -> HttpResponse | None:
        if not may_moderate(request):
            raise PermissionDenied
        mutes = list(queryset.select_related("player")[: MAX_PER_ACTION + 1])
        submitted = request.method == "POST" and "apply" in request.POST
        form = ReasonForm(request.POST if submitted else None)
        if submitted and form.is_valid():
            for player in {m.player_id: m.player for m in mutes}.values():
                try:
                    lifted = chat.chat_unmute(
                        player=player, reason=form.cleaned_data["reason"], actor=cast("User", request.user)
                    )
                except DomainError as error:
                    self.message_user(request, error.detail, messages.ERROR)
                    continue
                self.message_user(
                    request, f"{player} may write in the chat again." if lifted else f"{player} was not muted."
                )
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Unmute in the chat",
            "op": "unmute",
            "found": [],
            "mutes": mutes,
            "form": form,
            "from_action": True,
            "action": "unmute_players",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/tables/chatmessage/moderate.html", context)
