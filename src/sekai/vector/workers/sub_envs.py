"""``SubEnvGroup``: the sub-envs a worker of ``ProcVecEnv`` or ``RayVecEnv`` holds (private).

A worker holds sub-envs ``first``, ``first + 1``, ... of the vector env and runs each command
on every one of them in turn, as ``SyncVecEnv`` does: autoreset (or freezing) included. The
workers add the transport: a pipe for ``ProcVecEnv``, a Ray actor for ``RayVecEnv``.
"""

from __future__ import annotations

import functools
import pickle
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from sekai.core.result import StepResult, merge_autoreset
from sekai.vector.vec_env import (
    build_envs,
    env_call,
    env_get_attr,
    env_set_attr,
    frozen_step,
    needs_autoreset,
)

__all__ = ["Failure", "SubEnvGroup", "describe", "failure"]

Failure = tuple[int, str, str, str]
"""What a worker reports of an exception: ``(rank, exc_type, message, traceback)``, the
arguments of ``VecEnvWorkerError``."""


def describe(exc: BaseException) -> str:
    """``str(exc)``, or a note saying that it raised."""
    try:
        return str(exc)
    except Exception as inner:
        return f"<str() of the {type(exc).__name__} raised {type(inner).__name__}>"


def failure(rank: int, exc: BaseException) -> Failure:
    """The report of ``exc``, raised by sub-env ``rank``."""
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return (rank, type(exc).__name__, describe(exc), trace)


class SubEnvGroup:
    """Sub-envs ``first``, ``first + 1``, ... and the commands a worker runs on them.

    Every command runs on each sub-env even after one raised, then raises the first error;
    ``current`` is then the position in the group of the sub-env that raised it.
    """

    def __init__(self, first: int, autoreset: bool) -> None:
        self.first = first
        self.autoreset = autoreset
        self.envs: list[Any] = []
        self.frozen: list[StepResult[Any] | None] = []
        self.observed: list[Any] = []  # each sub-env's last observation, as it returned it
        self.current = 0  # position in the group of the sub-env being handled
        self.places: list[int] | None = None  # positions of the rows of a step's reply

    def build(self, payload: bytes) -> None:
        """Build the sub-envs from ``payload``, the pickled list of their factories."""
        fns = pickle.loads(payload)
        builders = [functools.partial(self._build_one, fn) for fn in fns]
        self.current = -1
        self.envs = build_envs(builders, self.first)
        self.frozen = [None] * len(self.envs)
        self.observed = [None] * len(self.envs)

    def _build_one(self, fn: Callable[[], Any]) -> Any:
        self.current += 1
        return fn()

    def blame(self, row: int) -> None:
        """Make the sub-env of reply row ``row`` the ``current`` one."""
        self.current = row if self.places is None else self.places[row]

    def failure(self, exc: BaseException) -> Failure:
        """The report of ``exc``, raised by the sub-env at ``current``."""
        return failure(self.first + self.current, exc)

    def _each(
        self,
        fn: Callable[..., Any],
        *columns: Iterable[Any],
        positions: list[int] | None = None,
    ) -> list[Any]:
        """``fn(j, env, *items)`` for every sub-env (those at ``positions`` when given), even
        after one raised; then raise the first error (``current`` names its sub-env)."""
        results = []
        first_error: tuple[int, Exception] | None = None
        envs = self.envs if positions is None else [self.envs[j] for j in positions]
        places = range(len(self.envs)) if positions is None else positions
        for j, items in zip(places, zip(envs, *columns, strict=True), strict=True):
            self.current = j
            try:
                results.append(fn(j, *items))
            except Exception as exc:
                if first_error is None:
                    first_error = (j, exc)
        if first_error is not None:
            self.current = first_error[0]
            raise first_error[1]
        return results

    def row(self, j: int, obs: Any, *rest: Any) -> tuple[Any, ...]:
        """Sub-env ``j``'s reply row: its observation, then ``rest``."""
        return (obs, *rest)

    def closing(self, j: int) -> None:
        """Called before sub-env ``j`` is closed (nothing here)."""

    def step(self, data: tuple[list[int] | None, Iterable[Any]]) -> list[tuple[Any, ...]]:
        """Step the sub-envs at ``positions`` (all when None) with their ``actions``, given as
        ``(positions, actions)``, resetting or freezing each whose episode ends: one row each,
        ``(obs, reward, terminated, truncated, info)``."""
        positions, actions = data
        self.places = positions
        return self._each(self._step_one, actions, positions=positions)

    def _step_one(self, j: int, env: Any, action: Any) -> tuple[Any, ...]:
        final = self.frozen[j]
        if final is not None:
            result = frozen_step(final)
        else:
            result = env.step(action)
            if needs_autoreset(result):
                if self.autoreset:
                    result = merge_autoreset(result, env.reset())
                else:
                    self.frozen[j] = result
        self.observed[j] = result.observation
        return self.row(
            j, result.observation, result.reward, result.terminated, result.truncated, result.info
        )

    def reset(self, requests: list[tuple[Any, Any] | None]) -> list[tuple[Any, ...]]:
        """Reset and unfreeze each sub-env with its ``(seed, options)``; None leaves it as it is.
        One row each, ``(obs, info)``: a sub-env left as it is gives its last observation and
        ``{}``."""
        return self._each(self._reset_one, requests)

    def _reset_one(self, j: int, env: Any, request: tuple[Any, Any] | None) -> tuple[Any, ...]:
        if request is None:
            return self.row(j, self.observed[j], {})
        self.frozen[j] = None
        result = env.reset(seed=request[0], options=request[1])
        self.observed[j] = result.observation
        return self.row(j, result.observation, result.info)

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of each sub-env."""
        return self._each(lambda j, env: env_get_attr(env, name))

    def set_attr(self, data: tuple[str, list[Any]]) -> None:
        """Set attribute ``name`` of each sub-env to its value: ``(name, values)``."""
        name, values = data
        self._each(lambda j, env, value: env_set_attr(env, name, value), values)

    def call(self, data: tuple[str, tuple[Any, ...], dict[str, Any]]) -> list[Any]:
        """Call method ``name`` of each sub-env: ``(name, args, kwargs)``."""
        name, args, kwargs = data
        return self._each(lambda j, env: env_call(env, name, args, kwargs))

    def close(self, data: None = None) -> None:
        """Close every sub-env, calling ``closing(j)`` before each; then raise the first
        error (``current`` names its sub-env)."""

        def close_one(j: int, env: Any) -> None:
            self.closing(j)
            env.close()

        self._each(close_one)
