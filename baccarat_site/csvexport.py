"""The one CSV writer of every export: the floor's reports, the admin's bets, the player's bet record.

Every export builds its rows as plain values and hands them here; nothing else in the project writes CSV.

**Formula injection** (CSV injection, OWASP): a spreadsheet opening a CSV runs a cell that starts with ``=``,
``+``, ``-`` or ``@`` as a formula (``=cmd|' /C calc'!A0``, ``@SUM(…)``, ``-2+3``), and a leading tab or
carriage return can hide such a start. Usernames and table names are typed by people (sign-up allows
``@A1+1`` and ``-2+3``), so every *text* cell starting with one of :data:`FORMULA_TRIGGERS` gets a leading
``'`` (OWASP's advice), which spreadsheets show as text and never evaluate. The ``csv`` module then quotes
any cell holding a delimiter, a quote or a line break, so a cell never spills into another.

**Numbers** are told apart by their *type*, not by how the text looks: an ``int`` or a ``Decimal`` (amounts,
percentages, counts, ids) is computed by us and written plainly (``Decimal`` in fixed point, never with an
exponent), so ``-25.00`` stays a number a spreadsheet sums. Such a cell is only digits, one point and a sign:
there is nothing in it to run. A *string* is always treated as text, even one that looks numeric: a player
named ``-2`` or ``+1`` is written ``'-2`` and ``'+1``. OWASP notes that escaping numbers too is the safest;
we do not, because the reports exist to be summed, and no user-typed value ever reaches this writer as a
number. Callers must therefore pass amounts as ``Decimal``, not as preformatted strings (a ``"-25.00"``
string would be escaped, visibly, rather than silently trusted).

Other values: ``None`` → empty; ``bool`` → ``true``/``false``; ``date``/``datetime`` → ISO 8601 (a datetime
in UTC); anything else → ``str(value)`` as text (escaped as above).
"""

from __future__ import annotations

import csv
from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import UTC, date, datetime
from decimal import Decimal

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, StreamingHttpResponse

#: A text cell starting with one of these is prefixed with ``'``.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
#: Rows joined into one chunk of a streamed response.
ROWS_PER_CHUNK = 500


def cell(value: object) -> str:
    """One value as the text of its cell (module docstring): numbers plain, text safe from formulas."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat() if value.tzinfo else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return text(str(value))


def text(value: str) -> str:
    """A text cell a spreadsheet will not run: ``'`` before a leading ``= + - @``, tab or carriage return."""
    return "'" + value if value.startswith(FORMULA_TRIGGERS) else value


class _Echo:
    """A file whose write returns the line, so ``csv.writer`` formats a row without buffering it."""

    def write(self, value: str) -> str:
        return value


def lines(header: Iterable[object], rows: Iterable[Iterable[object]], *, chunk: int = ROWS_PER_CHUNK) -> Iterator[str]:
    """The header line, then the rows in chunks of ``chunk`` lines, each row read only when its chunk is made."""
    writer = csv.writer(_Echo())
    yield writer.writerow([cell(value) for value in header])
    pending: list[str] = []
    for row in rows:
        pending.append(writer.writerow([cell(value) for value in row]))
        if len(pending) >= chunk:
            yield "".join(pending)
            pending = []
    if pending:
        yield "".join(pending)


def _next_chunk(chunks: Iterator[str]) -> str | None:
    return next(chunks, None)


async def _in_thread(chunks: Iterator[str]) -> AsyncIterator[str]:
    """The same chunks for an ASGI server, each read in the request's sync thread (streamed, not buffered)."""
    step = sync_to_async(_next_chunk, thread_sensitive=True)
    while (chunk := await step(chunks)) is not None:
        yield chunk


def response(
    request: HttpRequest,
    *,
    filename: str,
    header: Iterable[object],
    rows: Iterable[Iterable[object]],
) -> StreamingHttpResponse:
    """A streamed ``text/csv`` download of ``header`` and ``rows`` (rows may be a lazy query's iterator).

    Under ASGI the rows are read in the request's sync thread, one chunk at a time, so the database is
    queried as the file is sent and the whole file never sits in memory.
    """
    chunks = lines(header, rows)
    content: Iterator[str] | AsyncIterator[str] = _in_thread(chunks) if isinstance(request, ASGIRequest) else chunks
    out = StreamingHttpResponse(content, content_type="text/csv; charset=utf-8")
    out["Content-Disposition"] = f'attachment; filename="{filename}"'
    out["Cache-Control"] = "no-store"
    return out
