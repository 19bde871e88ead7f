"""The ``ImportError`` message for a feature whose optional dependency is missing."""

from __future__ import annotations

__all__ = ["missing_extra"]


def missing_extra(what: str, packages: str, extra: str) -> str:
    """``what`` needs ``packages``: how to install them, alone or as sekai's ``extra``.

    The package index name ``sekai`` belongs to another project, so the extra is installed
    from a checkout of sekai's repository.
    """
    return (
        f"{what} needs {packages}, which is not installed: pip install {packages} "
        f'(or, in a sekai checkout, pip install -e ".[{extra}]")'
    )
