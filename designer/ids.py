"""Ids from URLs and forms: ASCII digits that fit the database, or nothing.

``str.isdigit()`` accepts '²' and other Unicode digits that ``int()`` then rejects, and a
20-digit id overflows a 64-bit column; both were server errors. Everything goes through here.
"""

from __future__ import annotations

import re

_ID = re.compile(r"^[0-9]{1,18}$")


def parse_id(value: object) -> int | None:
    """A positive database id, or None when ``value`` is not one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 < value < 10**18 else None
    if isinstance(value, str) and _ID.match(value):
        n = int(value)
        return n if n > 0 else None
    return None
