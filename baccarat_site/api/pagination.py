"""Pagination of every list under /api/: strict ``page`` and ``page_size``, and its schema."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site.numbers import whole_number


def _whole_number(raw: str) -> bool:
    return whole_number(raw) is not None  # ASCII digits only, and few of them (baccarat_site.numbers)


class Pagination(PageNumberPagination):
    """Pages of 50 rows; ``page_size`` from 1 to 200. Unlike DRF's, a ``page_size`` that is not such a number
    is refused (400) rather than quietly replaced by the default: the answer says what was asked."""

    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_number(self, request: Request, paginator: Any) -> Any:
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and raw != "last" and not _whole_number(raw):
            raise exceptions.ValidationError({"page": "A whole number from 1, or leave it out."})
        return super().get_page_number(request, paginator)

    def get_page_size(self, request: Request) -> int | None:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not _whole_number(raw) or not 1 <= int(raw) <= self.max_page_size:
            raise exceptions.ValidationError({"page_size": f"A whole number from 1 to {self.max_page_size}."})
        return int(raw)


PAGE_PARAMETERS = [
    OpenApiParameter("page", int, description="Page number, from 1 (404 past the last page)."),
    OpenApiParameter("page_size", int, description=f"Rows per page, 1-{Pagination.max_page_size} (default 50)."),
]


def page_of(serializer_class: type, name: str) -> Any:
    """The schema of a paginated answer: ``count``, ``next``, ``previous`` and the page's ``results``."""
    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer_class(many=True),
        },
    )


def paginated(*, queryset: QuerySet[Any], serializer_class: type, request: Request, view: APIView) -> Response:
    paginator = Pagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
