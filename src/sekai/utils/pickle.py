"""Pickling helpers for shipping callables to worker processes."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import cloudpickle

__all__ = ["CloudpickleWrapper"]


class CloudpickleWrapper:
    """Hold a callable and pickle it with cloudpickle, so lambdas and closures survive."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn

    def __call__(self) -> Any:
        return self.fn()

    def __getstate__(self) -> bytes:
        return cloudpickle.dumps(self.fn)

    def __setstate__(self, state: bytes) -> None:
        self.fn = pickle.loads(state)
