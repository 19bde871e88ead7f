"""The actor side of ``RayVecEnv``: one worker's sub-envs, a group or a native slice (private).

``RayVecEnv`` makes ``RayWorker`` a Ray actor class with ``ray.remote``; this module does not
import Ray. Each command is one call, ``run(command, payload)``: ``payload`` is pickled by the
parent (so a payload that cannot be pickled fails there, before any worker runs it) and the
reply is ``(True, result)`` or ``(False, (rank, exc_type, message, traceback))``.
A result goes back pickled by the worker, as one ``bytes`` (one object for Ray to carry, and a
value that cannot be pickled is reported as the failure of its sub-env), except an observation
batch of numeric arrays of ``ARRAY_BYTES`` or more: that goes back as the arrays themselves,
which Ray hands over from its object store without a copy.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from sekai.spaces.utils import concatenate
from sekai.vector.vec_env import VecEnv
from sekai.vector.workers.pickling import dumps, picklable
from sekai.vector.workers.sub_envs import Failure, SubEnvGroup, failure

__all__ = ["ARRAY_BYTES", "Reply", "RayWorker", "plain_arrays"]

Reply = tuple[bool, Any]
"""``(True, result)``, or ``(False, Failure)`` when a sub-env raised."""

ARRAY_BYTES = 1 << 16
"""Size from which an observation batch of numeric arrays travels as arrays, not pickled (Ray
keeps objects of up to 100 KiB out of its object store anyway)."""

_NUMERIC = frozenset("biufcmM")


def plain_arrays(batch: Any) -> int | None:
    """The size in bytes of ``batch`` if it is a numeric array, or a dict / tuple of them (at
    any depth); else None."""
    if isinstance(batch, np.ndarray):
        return batch.nbytes if batch.dtype.kind in _NUMERIC else None
    if isinstance(batch, (dict, tuple)) and batch:
        sizes = [plain_arrays(v) for v in (batch.values() if isinstance(batch, dict) else batch)]
        return None if None in sizes else sum(s for s in sizes if s is not None)
    return None


class RayWorker:
    """Sub-envs ``first`` to ``first + count - 1`` of a ``RayVecEnv``, in one Ray actor.

    With ``native`` the payload is ``make_slice``, called as ``make_slice(num_envs=count,
    autoreset=autoreset)`` to build one native vector env of them all; otherwise it is the
    list of the sub-envs' factories, run as a ``SubEnvGroup``. A failure to build is kept and
    reported by the first command, ``describe``.
    """

    def __init__(
        self, payload: bytes, first: int, count: int, autoreset: bool, native: bool
    ) -> None:
        self.first = first
        self.group: SubEnvGroup | None = None
        self.vec: VecEnv[Any, Any] | None = None
        self.broken: Failure | None = None
        try:
            if native:
                self.vec = _build_slice(pickle.loads(payload), count, autoreset)
            else:
                self.group = SubEnvGroup(first, autoreset)
                self.group.build(payload)
        except Exception as exc:
            self.broken = self._failure(exc)

    def run(self, command: str, payload: bytes | None) -> Reply:
        """Run ``command`` with the unpickled ``payload``: the one entry point of the actor."""
        if self.broken is not None:
            return False, self.broken
        if self.group is not None:
            self.group.current = 0
            self.group.places = None
        try:
            data = None if payload is None else pickle.loads(payload)
            return True, getattr(self, f"_{command}")(data)
        except Exception as exc:
            return False, self._failure(exc)

    def _failure(self, exc: Exception) -> Failure:
        if self.group is not None:
            return self.group.failure(exc)
        return failure(self.first, exc)

    def _local(self) -> Any:
        """The env whose spaces are the vector env's: the slice, or the group's first sub-env."""
        if self.vec is not None:
            return self.vec
        assert self.group is not None
        return self.group.envs[0]

    def _pack(self, rows: list[Any], value: Any = None) -> bytes:
        """``value`` (by default ``rows``) pickled; when that fails, ``current`` names the
        first of ``rows`` that cannot be pickled."""
        try:
            return dumps(rows if value is None else value)
        except Exception:
            if self.group is not None:
                bad = (j for j, row in enumerate(rows) if not picklable(row))
                self.group.blame(next(bad, 0))
            raise

    def _batch(self, observations: list[Any]) -> Any:
        """The group's observations as one batch."""
        space = self._local().observation_space
        try:
            return concatenate(space, observations)
        except Exception:  # blame the first sub-env whose observation is not in the space
            assert self.group is not None
            self.group.blame(
                next((j for j, obs in enumerate(observations) if not space.contains(obs)), 0)
            )
            raise

    def _reply(self, rows: list[Any], batch: Any, *rest: Any) -> tuple[Any, bytes]:
        """``(batch, pickle of rest)`` for a large batch of numeric arrays, else ``(None,
        pickle of (batch, *rest))``; ``rows`` are the sub-envs' rows to blame."""
        size = plain_arrays(batch)
        if size is not None and size >= ARRAY_BYTES:
            return batch, self._pack(rows, (None, *rest))
        return None, self._pack(rows, (batch, *rest))

    # -- commands ---------------------------------------------------------------------------

    def _describe(self, data: None) -> tuple[Any, Any, str, int]:
        """``(observation_space, action_space, node id, process id)``."""
        import ray

        local = self._local()
        node = ray.get_runtime_context().get_node_id()
        return local.observation_space, local.action_space, node, os.getpid()

    def _step(self, data: tuple[list[int] | None, Any]) -> tuple[Any, bytes]:
        """``_reply`` of ``(observations, rewards, terminated, truncated, infos)`` of the
        sub-envs at ``positions`` (all when None; a slice always steps as a whole), from
        ``(positions, actions)``."""
        positions, actions = data
        if self.vec is not None:
            result = self.vec.step(actions)
            return self._reply(
                [],
                result.observations,
                np.asarray(result.rewards, dtype=np.float64),
                np.asarray(result.terminated, dtype=bool),
                np.asarray(result.truncated, dtype=bool),
                list(result.infos),
            )
        assert self.group is not None
        rows = self.group.step((positions, actions))
        return self._reply(
            rows,
            self._batch([row[0] for row in rows]),
            np.array([row[1] for row in rows], dtype=np.float64),
            np.array([row[2] for row in rows], dtype=bool),
            np.array([row[3] for row in rows], dtype=bool),
            [row[4] for row in rows],
        )

    def _reset(self, data: Any) -> tuple[Any, bytes]:
        """``_reply`` of ``(observations, infos)`` of every sub-env; ``data`` is ``(seed,
        options)`` for a slice, one ``(seed, options)`` (or None: left as it is) per sub-env
        for a group."""
        if self.vec is not None:
            seed, options = data
            result = self.vec.reset(seed=seed, options=options)
            return self._reply([], result.observations, list(result.infos))
        assert self.group is not None
        rows = self.group.reset(data)
        return self._reply(rows, self._batch([row[0] for row in rows]), [row[1] for row in rows])

    def _get_attr(self, name: str) -> bytes:
        if self.vec is not None:
            return dumps(self.vec.get_attr(name))
        assert self.group is not None
        return self._pack(self.group.get_attr(name))

    def _set_attr(self, data: tuple[str, list[Any]]) -> None:
        if self.vec is not None:
            self.vec.set_attr(*data)
        else:
            assert self.group is not None
            self.group.set_attr(data)

    def _call(self, data: tuple[str, tuple[Any, ...], dict[str, Any]]) -> bytes:
        if self.vec is not None:
            name, args, kwargs = data
            return dumps(self.vec.call(name, *args, **kwargs))
        assert self.group is not None
        return self._pack(self.group.call(data))

    def _close(self, data: None) -> None:
        if self.vec is not None:
            self.vec.close()
        else:
            assert self.group is not None
            self.group.close()


def _build_slice(make_slice: Callable[..., Any], count: int, autoreset: bool) -> VecEnv[Any, Any]:
    """``make_slice(num_envs=count, autoreset=autoreset)``, checked to be such a VecEnv."""
    vec = make_slice(num_envs=count, autoreset=autoreset)
    if not isinstance(vec, VecEnv) or vec.num_envs != count:
        raise TypeError(
            f"make_slice(num_envs={count}, autoreset={autoreset}) must return a VecEnv of "
            f"{count} sub-envs, got {vec!r}."
        )
    return vec
