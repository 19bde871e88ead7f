"""The table of space types that ``space_from_jsonable`` rebuilds.

It sits below every space so that composite spaces can rebuild their sub-spaces;
``sekai.spaces.utils`` enters the built-in types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sekai.spaces.space import Space

__all__ = ["register_space_type", "space_from_jsonable"]

_SPACE_TYPES: dict[str, type[Space[Any]]] = {}


def register_space_type(name: str, cls: type[Space[Any]]) -> None:
    """Make ``space_from_jsonable`` rebuild ``{"type": name, ...}`` with ``cls.from_jsonable``."""
    if not isinstance(name, str):
        raise TypeError(f"register_space_type name must be a str, got {name!r}.")
    if not (isinstance(cls, type) and issubclass(cls, Space)):
        raise TypeError(f"register_space_type cls must be a Space subclass, got {cls!r}.")
    _SPACE_TYPES[name] = cls


def space_from_jsonable(data: Mapping[str, Any]) -> Space[Any]:
    """Rebuild a space from ``to_jsonable()`` output, dispatching on ``data["type"]``."""
    if not isinstance(data, Mapping):
        raise TypeError(f"space_from_jsonable expects a mapping, got {data!r}.")
    kind = data.get("type")
    cls = _SPACE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"Unknown space type {kind!r}; known types: {sorted(_SPACE_TYPES)}.")
    return cls.from_jsonable(dict(data))
