"""The ``ImportError`` message for a missing optional dependency of a bridge."""

from __future__ import annotations

from sekai.utils.extras import missing_extra

__all__ = ["install_hint"]


def install_hint(package: str) -> str:
    """The ``ImportError`` message for a missing optional ``package``."""
    return missing_extra("sekai.compat", package, package)
