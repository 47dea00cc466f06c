"""Whole numbers typed by people (a query parameter, a form field, a search term, a setting).

``str.isdigit()`` is the wrong test before ``int()``: it accepts "²" and "①", which ``int()`` then refuses (a
500), ``int()`` reads "٣" as 3, and a number of thousands of digits is past ``int()``'s own limit for strings.
A whole number here is ASCII digits only, and few of them.
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]+")


def whole_number(raw: object, *, max_digits: int = 18) -> int | None:
    """``raw`` as a whole number if it is a string of 1 to ``max_digits`` ASCII digits (or an int, not a bool, of
    at most that many digits), else None. Never raises."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if 0 <= raw < 10**max_digits else None
    if not isinstance(raw, str) or len(raw) > max_digits or _DIGITS.fullmatch(raw) is None:
        return None
    return int(raw)
