"""The registered ids an unknown id may have meant ("Did you mean" of ``EnvNotFound``).

Names are compared without their version (``-vN``) and case: first the ids of the same name
in other versions, then the ids of names ``difflib`` finds close (ratio at least ``CUTOFF``),
closest first. Among the ids of one name, the version nearest the one asked for comes
first, the newer of two equally near (the newest when none was asked for).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["CUTOFF", "LIMIT", "close_ids"]

CUTOFF = 0.7
"""The least ``difflib`` ratio of two lowercased names for one to be suggested for the other."""
LIMIT = 3
"""The most ids suggested."""

_VERSIONED = re.compile(r"(?P<name>.*?)(?:-v(?P<version>\d+))?")


def _split(id: str) -> tuple[str, int | None]:
    """``(lowercased [namespace/]name, version or None)``; any text is accepted."""
    match = _VERSIONED.fullmatch(id)
    assert match is not None  # the pattern matches every string
    version = match["version"]
    return match["name"].lower(), None if version is None else int(version)


def close_ids(id: str, registered: Iterable[str]) -> list[str]:
    """Up to ``LIMIT`` ids of ``registered`` that ``id`` may have meant, likeliest first."""
    name, version = _split(id)
    by_name: dict[str, list[tuple[int | None, str]]] = {}
    for other in registered:
        other_name, other_version = _split(other)
        by_name.setdefault(other_name, []).append((other_version, other))

    def ordered(entries: list[tuple[int | None, str]]) -> list[str]:
        def key(entry: tuple[int | None, str]) -> tuple[int, int]:
            number = -1 if entry[0] is None else entry[0]
            distance = 0 if version is None else abs(number - version)
            return distance, -number

        return [other for _, other in sorted(entries, key=key) if other != id]

    found = ordered(by_name.get(name, []))
    others = [other for other in by_name if other != name]
    for close in difflib.get_close_matches(name, others, n=LIMIT, cutoff=CUTOFF):
        found += ordered(by_name[close])
    return found[:LIMIT]
