"""``WorkerOptions``: the settings of a worker pool, checked once (private)."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

from sekai.utils.validation import check_choice, check_int

__all__ = ["WorkerOptions", "check_seconds"]


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    """How a pool runs its workers; every field is checked when the object is made.

    ``num_workers``: how many workers (None: the backend's default; at most ``num_envs``).
    ``batch_size``: the fewest rows ``recv()`` returns (None: every sub-env).
    ``step_timeout``: seconds a worker has to answer a step (None or ``inf``: no limit, kept
    as None). ``on_worker_failure``: ``"raise"`` keeps a failed worker dead, ``"restart"``
    rebuilds it, at most ``max_restarts`` times. ``close_timeout``: seconds the workers have
    to close their sub-envs (``inf``: no limit).
    """

    num_workers: int | None = None
    batch_size: int | None = None
    step_timeout: float | None = None
    on_worker_failure: str = "raise"
    max_restarts: int = 100
    close_timeout: float = 5.0

    def __post_init__(self) -> None:
        if self.num_workers is not None:
            self._set("num_workers", check_int(self.num_workers, "num_workers", low=1))
        if self.batch_size is not None:
            self._set("batch_size", check_int(self.batch_size, "batch_size", low=1))
        if self.step_timeout is not None:
            step = check_seconds(self.step_timeout, "step_timeout")
            self._set("step_timeout", None if math.isinf(step) else step)
        check_choice(self.on_worker_failure, "on_worker_failure", ("raise", "restart"))
        self._set("max_restarts", check_int(self.max_restarts, "max_restarts", low=0))
        self._set("close_timeout", check_seconds(self.close_timeout, "close_timeout"))

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def check_for(self, num_envs: int, autoreset: bool) -> None:
        """Check the options against a pool of ``num_envs`` sub-envs with ``autoreset``."""
        if self.batch_size is not None:
            check_int(self.batch_size, "batch_size", low=1, high=num_envs)
        if self.on_worker_failure == "restart" and not autoreset:
            raise ValueError(
                "on_worker_failure='restart' needs autoreset=True: a rebuilt sub-env starts a "
                "new episode at once."
            )


def check_seconds(value: Any, name: str) -> float:
    """``value`` of argument ``name`` checked: a positive number of seconds (``inf``: no
    limit)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a positive number of seconds, got {value!r} ({type(value).__name__})."
        )
    seconds = float(value)
    if math.isnan(seconds) or seconds <= 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {seconds}.")
    return seconds
