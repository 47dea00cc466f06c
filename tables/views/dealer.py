"""The dealer's console (docs/api.md, "Dealer's console"): ``/dealer/`` lists the live tables, and
``/dealer/tables/<id>/`` is the console a dealer works at a tablet by the table. Staff only
(``tables.services.dealing.may_deal``): a signed-out visitor is sent to log in, anyone else gets the 403 page.
The page draws from the console's selector; static/casino/dealer/ keeps it current and sends the scans."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from baccarat_site.errors import NotFound
from tables.selectors.dealing import console_state, dealer_tables
from tables.services.dealing import may_deal, may_supervise

#: The card picker: a row per suit, ranks ace to king (T is the ten; the button shows 10).
SUITS = (("S", "\u2660"), ("H", "\u2665"), ("D", "\u2666"), ("C", "\u2663"))
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
PICKER = [
    [{"code": rank + suit, "rank": "10" if rank == "T" else rank, "suit": suit, "symbol": symbol} for rank in RANKS]
    for suit, symbol in SUITS
]


def _refused(request: HttpRequest) -> HttpResponse | None:
    """The login page for a signed-out visitor; 403 for a signed-in one who may not deal; None for a dealer."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not may_deal(request.user):
        raise PermissionDenied("Only staff in the Dealers group may open the dealer's console.")
    return None


def dealer_home(request: HttpRequest) -> HttpResponse:
    refused = _refused(request)
    if refused is not None:
        return refused
    return render(request, "tables/dealer/tables.html", {"tables": dealer_tables()})


def dealer_console(request: HttpRequest, table_id: int) -> HttpResponse:
    refused = _refused(request)
    if refused is not None:
        return refused
    try:
        state = console_state(table_id)
    except NotFound as missing:
        raise Http404(missing.detail) from None
    config = {
        "table_id": table_id,
        "user_id": request.user.pk,
        "supervisor": may_supervise(request.user),
        "api": f"/api/dealer/tables/{table_id}/",
        "socket": f"/ws/tables/{table_id}/",
        "presence": f"/ws/dealer/tables/{table_id}/",
    }
    return render(
        request,
        "tables/dealer/console.html",
        {
            "state": state,
            "config": config,
            "supervisor": config["supervisor"],
            "table": state["table"],
            "picker": PICKER,
        },
    )
