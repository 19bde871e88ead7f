"""Joining Ray for ``RayVecEnv``: the connection it makes, shared and closed by the last user,
and the actor options it accepts (private)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

from sekai.utils.extras import missing_extra

__all__ = ["check_worker_options", "import_ray", "join", "leave"]

_LOCK = threading.Lock()
_OWN: dict[str, Any] = {"users": 0, "address": None, "job": None}
"""The Ray connection this module made with ``ray.init``: how many open ``RayVecEnv`` use it,
the address it was given and its job id. The last of them to close shuts it down."""


def import_ray() -> Any:
    """The ``ray`` module; ``ImportError`` with the install hint when it is missing."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(missing_extra("RayVecEnv", "ray", "ray"), name="ray") from exc
    return ray


def join(ray: Any, address: str | None) -> bool:
    """Use the Ray this process is connected to, else ``ray.init(address=address)``.

    True when the connection is this module's, so that the caller must ``leave`` it.
    """
    with _LOCK:
        if ray.is_initialized():
            ours = _OWN["users"] > 0 and _OWN["job"] == ray.get_runtime_context().get_job_id()
            if address is not None and not (ours and address == _OWN["address"]):
                raise ValueError(
                    f"RayVecEnv(address={address!r}): this process is already connected to "
                    "Ray; pass address=None to use that connection, or call ray.shutdown() "
                    "first."
                )
            if not ours:
                return False
        else:
            _init(ray, address)
            _OWN.update(users=0, address=address, job=ray.get_runtime_context().get_job_id())
        _OWN["users"] += 1
        return True


def _init(ray: Any, address: str | None) -> None:
    """``ray.init(address=address)``; a Ray started here runs its workers with this process's
    ``sys.path``, so that they import what it can import (as ``ProcVecEnv``'s workers do)."""
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p or os.curdir) for p in sys.path)
    try:
        ray.init(address=address)
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous


def leave(ray: Any) -> None:
    """One user fewer of this module's Ray connection; the last one shuts it down."""
    with _LOCK:
        _OWN["users"] -= 1
        last = _OWN["users"] == 0 and ray.is_initialized()
        if last and ray.get_runtime_context().get_job_id() == _OWN["job"]:
            ray.shutdown()


def check_worker_options(options: Any) -> dict[str, Any]:
    """``worker_options`` checked: a mapping of actor options, one call at a time."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            f"worker_options must be a mapping of Ray actor options, got {options!r} "
            f"({type(options).__name__})."
        )
    if options.get("max_concurrency", 1) != 1:
        raise ValueError(
            "worker_options: a RayVecEnv worker runs one call at a time, in order; "
            f"max_concurrency must be 1, got {options['max_concurrency']!r}."
        )
    return dict(options)
