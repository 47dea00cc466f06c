"""Domain errors: services raise them, the API and consumers turn them into 4xx / error frames."""

from __future__ import annotations


class DomainError(Exception):
    """A refused request. ``code`` is the machine code of docs/api.md, ``status`` its HTTP status."""

    code = "invalid_request"
    status = 400

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        status: int | None = None,
        bet_type: str | None = None,
        limit: object = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.bet_type = bet_type  # the bet a refusal is about, when it is about one (shown next to its spot)
        self.limit = limit  # the amount it was measured against (a minimum, maximum or difference limit)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status

    def as_dict(self) -> dict[str, str]:
        """The error body of the REST API and of WebSocket ``error`` frames."""
        body = {"code": self.code, "detail": self.detail}
        if self.bet_type is not None:
            body["bet_type"] = self.bet_type
        if self.limit is not None:
            body["limit"] = str(self.limit)
        return body


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Conflict(DomainError):
    code = "conflict"
    status = 409
