"""The two order-book engines: pure-Python ``OrderBook`` and numba-compiled arrays.

``"python"`` runs ``OrderBook`` (``book.py``) and ``ZeroIntelligenceFlow`` (``zi_flow.py``), the
reference;
``"numba"`` runs the same rules on arrays compiled with numba (the ``numba`` extra), with
identical order ids, fills and draws; ``"auto"`` picks numba when it is installed.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Any, Literal

from sekai.utils.extras import missing_extra
from sekai.utils.validation import check_choice

__all__ = ["Engine", "numba_installed", "resolve_engine"]

Engine = Literal["auto", "numba", "python"]


@cache
def numba_installed() -> bool:
    """Whether numba can be imported."""
    return importlib.util.find_spec("numba") is not None


def resolve_engine(engine: Any) -> Literal["numba", "python"]:
    """``"numba"`` or ``"python"`` for ``engine``; ``ImportError`` for numba when missing."""
    check_choice(engine, "engine", ("auto", "numba", "python"))
    if engine == "python" or (engine == "auto" and not numba_installed()):
        return "python"
    if not numba_installed():
        raise ImportError(missing_extra('engine="numba"', "numba", "numba"))
    return "numba"
