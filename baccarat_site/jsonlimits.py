"""JSON from clients, bounded: a body or frame nested deeper than ``MAX_DEPTH`` is refused like malformed
JSON. Python's parser raises ``RecursionError`` (not ``ValueError``) at about a thousand levels, which
used to reach the top of the request as a 500, or close a socket with a traceback."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists/objects more than ``limit`` levels deep (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def loads(text: str | bytes) -> Any:
    """``json.loads`` that raises ``ValueError`` for anything it refuses, too deep included."""
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep") from error
    if depth_exceeds(value):
        raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep")
    return value


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing bodies nested deeper than ``MAX_DEPTH`` with 400 ``malformed_json``."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            value = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError(f"JSON parse error - nested more than {MAX_DEPTH} levels deep") from error
        if depth_exceeds(value):
            raise ParseError(f"JSON parse error - nested more than {MAX_DEPTH} levels deep")
        return value
