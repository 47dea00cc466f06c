"""Domain errors: services raise them, the API and consumers turn them into 4xx / error frames."""

from __future__ import annotations


class DomainError(Exception):
    """A refused request. ``code`` is the machine code of API.md, ``status`` its HTTP status."""

    code = "invalid_request"
    status = 400

    def __init__(self, detail: str, *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Conflict(DomainError):
    code = "conflict"
    status = 409
