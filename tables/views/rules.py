"""The rules of the game, with the exact odds of every bet: the house's (``/rules/``) or one table's."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from tables.selectors.rules import rules_for_table, rules_general


def rules(request: HttpRequest, table_id: int | None = None) -> HttpResponse:
    page = rules_general() if table_id is None else rules_for_table(table_id)
    if page is None:
        raise Http404("No such table.")
    return render(request, "tables/rules.html", {"page": page})
