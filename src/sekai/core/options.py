"""Checking the ``options`` that ``reset()`` receives.

Built-in environments call ``check_reset_options`` at the start of ``reset``: ``options`` must
be a mapping or None (``TypeError`` otherwise), and each key the environment does not
understand is reported by one ``UserWarning`` per (environment class, key) per process.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping, Sequence
from typing import Any

__all__ = ["check_options_type", "check_reset_options", "check_reset_options_each"]

# (environment class, option key) pairs already warned about in this process.
_warned: set[tuple[type, Any]] = set()


def check_options_type(options: object) -> Mapping[str, Any] | None:
    """Return ``options``; ``TypeError`` unless it is a mapping (such as a dict) or None."""
    if options is None or isinstance(options, Mapping):
        return options
    raise TypeError(
        f"reset() options must be a mapping (such as a dict) or None, "
        f"got {type(options).__name__} {options!r}."
    )


def _unknown_message(cls: type, key: Any, known: Collection[str]) -> str:
    understood = f"only {', '.join(repr(k) for k in known)}" if known else "no options"
    return (
        f"{cls.__name__}.reset() ignores the unknown option {key!r}; it understands {understood}."
    )


def check_reset_options(
    env: object, options: object, known: Collection[str] = ()
) -> Mapping[str, Any] | None:
    """Check the ``options`` given to ``env.reset()``; ``known`` are the keys ``env`` reads.

    Returns ``options``. None returns at once; a non-mapping raises ``TypeError``; each key
    not in ``known`` warns (``UserWarning``) the first time it reaches this class of ``env``.
    """
    checked = check_options_type(options)
    if checked is None:
        return None
    cls = type(env)
    for key in checked:
        if key not in known and (cls, key) not in _warned:
            warnings.warn(_unknown_message(cls, key, known), UserWarning, stacklevel=3)
            _warned.add((cls, key))
    return checked


def check_reset_options_each(
    env: object, options: Sequence[object], known: Collection[str] = ()
) -> None:
    """``check_reset_options`` for each sub-env's entry; nothing to do when all are None."""
    if options.count(None) == len(options):
        return
    for entry in options:
        check_reset_options(env, entry, known)
