"""``from sekai.sekai import *``: the whole public API in one namespace."""

from __future__ import annotations

from typing import Any

import sekai as _sekai
from sekai import *  # noqa: F403
from sekai import __all__ as __all__
from sekai import __version__ as __version__


def __getattr__(name: str) -> Any:
    return getattr(_sekai, name) if name == "BackendMismatch" else _missing(name)


def _missing(name: str) -> Any:
    raise AttributeError(f"module 'sekai.sekai' has no attribute {name!r}")
