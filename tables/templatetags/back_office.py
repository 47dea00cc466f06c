"""``{% back_office_links as links %}``: the back-office pages the signed-in staff member may use (admin home)."""

from __future__ import annotations

from typing import Any

from django import template

from tables.admin_floor import back_office_links as links

register = template.Library()


@register.simple_tag(takes_context=True)
def back_office_links(context: dict[str, Any]) -> list[tuple[str, str, str]]:
    request = context.get("request")
    return links(request) if request is not None else []
