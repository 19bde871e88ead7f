"""Old module paths of names that now live in a higher layer.

A module of ``sekai.utils`` may not import from above it, so such a path resolves the names
on first access with a module ``__getattr__`` built here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["moved_names"]


def moved_names(module: str, home: str, names: Iterable[str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``module`` that loads ``names`` from module ``home``."""
    moved = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[module], name, value)
        return value

    return __getattr__
