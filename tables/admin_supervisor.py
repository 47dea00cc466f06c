"""A live table's supervisor calls in the admin: the read-only list, and the supervisor's two answers.

A call is raised by ``tables.services.dealing`` (the dealer pressed "Call supervisor", no card came in time, or the
console disconnected mid-round) and never edited here. The live floor shows every open call with two buttons,
**Resume** and **Void round (refund)**; each asks for a reason and calls ``supervisor_resume`` or
``supervisor_void`` as the signed-in staff member, which resolve the call and write the audit entries (who and
why). Both need ``tables.supervise_table`` (Table operators, Supervisors: ``baccarat_site/roles.py``); an Auditor
sees the calls, and no button.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError
from tables.models import Round, SupervisorCall
from tables.selectors.supervisor import calls_with_links
from tables.services import dealing

#: answer → (the page's title, the button's label)
ANSWERS: dict[str, tuple[str, str]] = {
    "resume": ("Resume the live table", "Resume"),
    "void": ("Void the round and refund every bet", "Void round (refund)"),
}


class SupervisorReasonForm(forms.Form):
    reason = forms.CharField(
        min_length=3,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="Why: kept with the call and in the audit trail with your name. Players are not shown it.",
    )


def may_answer(request: HttpRequest) -> bool:
    """Whether the signed-in staff member may resume or void (``tables.supervise_table``)."""
    return dealing.may_supervise(request.user)


def voidable(call: SupervisorCall) -> bool:
    """Whether the call's round can still be voided: it is not settled or cancelled (a round that had not started
    dealing was cancelled and refunded when the table paused)."""
    return call.round is not None and call.round.state not in Round.FINAL_STATES


def answer_links(request: HttpRequest, call: SupervisorCall, *, floor: bool = False) -> list[tuple[str, str]]:
    """``[(label, url)]``: the answers to an open call the signed-in staff member may give (none for an auditor)."""
    if not call.is_open or not may_answer(request):
        return []
    wanted = ["resume", "void"] if voidable(call) else ["resume"]
    suffix = "?next=floor" if floor else ""
    return [
        (ANSWERS[answer][1], reverse(f"admin:tables_supervisorcall_{answer}", args=[call.pk]) + suffix)
        for answer in wanted
    ]


def round_text(call: SupervisorCall) -> str:
    """ "shoe 2 · round 14 (Dealing, 3 cards)", or "—"."""
    round_ = call.round
    if round_ is None:
        return "—"
    cards = len(round_.cards or [])
    return (
        f"shoe {round_.shoe.number} · round {round_.number} ({round_.get_state_display()}, "
        f"{cards} card{'s' if cards != 1 else ''})"
    )


class StatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", "Open"), ("resolved", "Resolved")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[SupervisorCall]) -> QuerySet[SupervisorCall]:
        if self.value() == "open":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "resolved":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(SupervisorCall)
class SupervisorCallAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "table",
        "kind",
        "round_display",
        "called_by",
        "reason",
        "status",
        "resolved_at",
        "resolved_by",
        "resolution",
        "note",
    )
    list_display_links = None
    list_filter = (StatusFilter, "kind", "resolution", "table")
    search_fields = ("table__name", "reason", "note", "called_by__username", "resolved_by__username")
    search_help_text = "A table, a username, or words of the reason or the note."
    date_hierarchy = "created_at"
    fields = (
        "table",
        "kind",
        "round_display",
        "called_by",
        "reason",
        "created_at",
        "resolved_at",
        "resolved_by",
        "resolution",
        "note",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[SupervisorCall]:
        return calls_with_links()

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                f"<int:call_id>/{answer}/",
                self.admin_site.admin_view(self.answer_view),
                {"answer": answer},
                name=f"tables_supervisorcall_{answer}",
            )
            for answer in ANSWERS
        ]
        return own + super().get_urls()

    @admin.display(description="round", ordering="round_id")
    def round_display(self, call: SupervisorCall) -> str:
        return round_text(call)

    @admin.display(description="status", ordering="resolved_at")
    def status(self, call: SupervisorCall) -> str:
        return "Open" if call.is_open else "Resolved"

    # ── the supervisor's answers ──

    def answer_view(self, request: HttpRequest, call_id: int, answer: str) -> HttpResponse:
        if not may_answer(request):
            raise PermissionDenied
        call = get_object_or_404(calls_with_links(), pk=call_id)
        back = (
            reverse("admin_floor:floor_live")
            if request.GET.get("next") == "floor"
            else reverse("admin:tables_supervisorcall_changelist") + "?status=open"
        )
        if not call.is_open:
            self.message_user(
                request,
                f"{call.table}: this call was already answered by {call.resolved_by} "
                f"({call.get_resolution_display()}).",
                messages.WARNING,
            )
            return HttpResponseRedirect(back)
        submitted = request.method == "POST" and "apply" in request.POST
        form = SupervisorReasonForm(request.POST if submitted else None)
        if submitted and form.is_valid():
            self._answer(request, call, answer, form.cleaned_data["reason"])
            return HttpResponseRedirect(back)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": ANSWERS[answer][0],
            "button": ANSWERS[answer][1],
            "answer": answer,
            "call": call,
            "round_text": round_text(call),
            "form": form,
        }
        return TemplateResponse(request, "admin/tables/supervisorcall/answer.html", context)

    def _answer(self, request: HttpRequest, call: SupervisorCall, answer: str, reason: str) -> None:
        """One service call, as the signed-in staff member; its outcome (or refusal) as a message."""
        table = call.table
        try:
            if answer == "resume":
                done = dealing.supervisor_resume(table_id=table.pk, actor=request.user, reason=reason)
                if done["resumed"]:
                    self.message_user(request, f"{table}: resumed; the dealer goes on.", messages.SUCCESS)
                else:
                    self.message_user(
                        request,
                        f"{table}: the call is answered, but the table was not paused, so nothing was resumed.",
                        messages.WARNING,
                    )
            else:
                done = dealing.supervisor_void(
                    table_id=table.pk, actor=request.user, reason=reason, round_id=call.round_id
                )
                if done.get("repeat"):
                    self.message_user(
                        request,
                        f"{table}: round {done['number']} was already cancelled and its bets refunded; nothing more "
                        "was done.",
                        messages.WARNING,
                    )
                    return
                self.message_user(
                    request,
                    f"{table}: round voided, {done['refunded']} bet(s) refunded; the table goes on with its next "
                    "round.",
                    messages.SUCCESS,
                )
        except DomainError as error:
            self.message_user(request, f"{table}: {error.detail}", messages.ERROR)
