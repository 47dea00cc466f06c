"""``{% load amounts %}`` and ``{{ value|amount }}``: an amount in a template as every page writes it (1,234.00),
through ``baccarat_site.money.display``, the one formatter."""

from __future__ import annotations

from decimal import Decimal

from django import template

from baccarat_site import money

register = template.Library()


@register.filter
def amount(value: Decimal | int | str | None) -> str:
    """``1234.5`` → ``"1,234.50"``; None (no amount) → ``"—"``."""
    return "—" if value is None else money.display(value)
