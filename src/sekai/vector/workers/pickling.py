"""How the workers' messages are pickled (private): ``dumps`` for every payload and reply, and
``pickled``, the one place where a payload that cannot be pickled becomes a ``TypeError``."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import cloudpickle

__all__ = ["PROTOCOL", "dumps", "dumps_code", "picklable", "pickled"]

PROTOCOL = pickle.HIGHEST_PROTOCOL


def dumps(obj: Any) -> bytes:
    """Pickle ``obj``, falling back on cloudpickle for lambdas and local classes."""
    try:
        return pickle.dumps(obj, PROTOCOL)
    except Exception:
        return cloudpickle.dumps(obj, PROTOCOL)


def dumps_code(obj: Any) -> bytes:
    """Pickle ``obj`` with cloudpickle, which also carries the functions and classes of the main
    script by value: how env factories travel."""
    return cloudpickle.dumps(obj, PROTOCOL)


def picklable(obj: Any) -> bool:
    """Whether ``dumps`` can pickle ``obj``."""
    try:
        dumps(obj)
    except Exception:
        return False
    return True


def pickled(values: list[Any], what: str, dump: Callable[[Any], bytes] = dumps) -> list[bytes]:
    """Each of ``values`` pickled with ``dump``, all before any is sent: a failure is a
    ``TypeError`` saying that ``what`` cannot be pickled for the workers."""
    try:
        return [dump(value) for value in values]
    except Exception as exc:  # PicklingError, or whatever a __reduce__ raised
        raise TypeError(f"Cannot pickle {what} for the workers: {exc}") from exc
