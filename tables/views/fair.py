"""Provable fairness (/fair/): how the commitment works, every finished shoe with its revealed seed and cards,
and a Verify button that recomputes the shoe in the browser (static/casino/fair.js). Open to anyone."""

from __future__ import annotations

import re

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from baccarat_site.errors import NotFound
from tables.selectors.fair import fair_shoes, fair_tables

_WHOLE = re.compile(r"^[0-9]{1,9}$")


def fair(request: HttpRequest) -> HttpResponse:
    table_param = request.GET.get("table", "").strip()
    page_param = request.GET.get("page", "1").strip() or "1"
    errors = []
    if table_param and not _WHOLE.match(table_param):
        errors.append(_("The table filter must be a table's number."))
    if not _WHOLE.match(page_param) or int(page_param) < 1:
        errors.append(_("The page must be a whole number from 1."))
    if errors:
        return render(request, "tables/fair.html", {"errors": errors, "tables": fair_tables()}, status=400)
    try:
        data = fair_shoes(table_id=int(table_param) if table_param else None, page=int(page_param))
    except NotFound as exc:
        raise Http404(exc.detail) from None
    context = {
        "page": data.page,
        "shoes": data.shoes,
        "live": data.live,
        "table": data.table,
        "tables": data.tables,
        # A live dealer's shoe has no seed: it is shown with its scan times, never offered to the Verify script.
        "verification": [shoe.verification_data() for shoe in data.shoes if shoe.verifiable],
        "query_table": f"table={data.table.pk}&" if data.table else "",
    }
    return render(request, "tables/fair.html", context)
