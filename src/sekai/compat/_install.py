"""The ``ImportError`` message for a missing optional dependency of a bridge."""

from __future__ import annotations

__all__ = ["install_hint"]


def install_hint(package: str) -> str:
    """The ``ImportError`` message for a missing optional ``package``."""
    return (
        f"sekai.compat needs {package}, which is not installed; "
        f'install it with: pip install "sekai[{package}]"'
    )
