"""The worker side of ``ProcVecEnv``: the loop that serves a worker's sub-envs (private)."""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import signal
import traceback
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from typing import Any

import cloudpickle

from sekai.core.result import StepResult, merge_autoreset
from sekai.spaces import Space
from sekai.vector._shared_memory import SharedObservations
from sekai.vector.vec_env import (
    build_envs,
    env_call,
    env_get_attr,
    env_set_attr,
    frozen_step,
    needs_autoreset,
)

__all__ = ["PROTOCOL", "dumps", "frame", "worker_main"]

PROTOCOL = pickle.HIGHEST_PROTOCOL

# Every message is an 8-byte sequence number followed by a pickle. To a worker the pickle is
# ``(command, payload)``; the worker answers every message, in order, with the same number and
# ``(ok, data)``: ``data`` is the command's result when ``ok``, else ``(rank, exc_type,
# message, traceback)`` of the sub-env that failed. A worker first sends, unasked, the reply to
# its construction (number 0): the spaces of sub-env 0 from worker 0, None from the others.
# The parent numbers its commands in sequence and matches replies by number
# (see ``ProcVecEnv._await``).


def frame(seq: int, body: bytes) -> bytes:
    """A message: ``seq`` in 8 bytes, then ``body``."""
    return seq.to_bytes(8, "little") + body


def dumps(obj: Any) -> bytes:
    """Pickle ``obj``, falling back on cloudpickle for lambdas and local classes."""
    try:
        return pickle.dumps(obj, PROTOCOL)
    except Exception:
        return cloudpickle.dumps(obj, PROTOCOL)


class _Worker:
    """The sub-envs of one worker process and the commands it serves."""

    def __init__(self, conn: Connection, first: int, autoreset: bool) -> None:
        self.conn = conn
        self.first = first
        self.autoreset = autoreset
        self.envs: list[Any] = []
        self.frozen: list[StepResult[Any] | None] = []
        self.shm: SharedObservations | None = None
        self.current = 0  # position in the group of the sub-env being handled

    def serve(self, payload: bytes) -> None:
        """Build the sub-envs, report, then answer commands until ``close`` or EOF."""
        try:
            fns = pickle.loads(payload)
            builders = [functools.partial(self._build, fn) for fn in fns]
            self.current = -1
            self.envs = build_envs(builders, self.first)
        except Exception as exc:
            self._fail(0, exc)
        else:
            env = self.envs[0]
            self._reply(0, (env.observation_space, env.action_space) if self.first == 0 else None)
        self.frozen = [None] * len(self.envs)
        while True:
            try:
                message = self.conn.recv_bytes()
            except (EOFError, OSError):
                break
            seq = int.from_bytes(message[:8], "little")
            self.current = 0
            command = None
            try:
                command, data = pickle.loads(memoryview(message)[8:])
                result = getattr(self, command)(seq, data)
            except Exception as exc:
                self._fail(seq, exc)
            else:
                self._reply(seq, result)
            if command == "close":
                break
        if self.shm is not None:
            self.shm.close()

    def _build(self, fn: Callable[[], Any]) -> Any:
        self.current += 1
        return fn()

    def _each(self, fn: Callable[..., Any], *columns: Iterable[Any]) -> list[Any]:
        """``fn(env, *items)`` for every sub-env, even after one raised; then raise the first
        error (``current`` names its sub-env)."""
        results = []
        failure: tuple[int, Exception] | None = None
        for j, items in enumerate(zip(self.envs, *columns, strict=True)):
            self.current = j
            try:
                results.append(fn(j, *items))
            except Exception as exc:
                if failure is None:
                    failure = (j, exc)
        if failure is not None:
            self.current = failure[0]
            raise failure[1]
        return results

    def _reply(self, seq: int, data: Any) -> None:
        try:
            message = frame(seq, dumps((True, data)))
        except Exception as exc:  # blame the first sub-env whose part cannot be pickled
            rows = data if isinstance(data, list) else [data]
            self.current = next((j for j, row in enumerate(rows) if not _picklable(row)), 0)
            self._fail(seq, exc)
        else:
            self.conn.send_bytes(message)

    def _fail(self, seq: int, exc: Exception) -> None:
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        error = (self.first + self.current, type(exc).__name__, _describe(exc), trace)
        self.conn.send_bytes(frame(seq, pickle.dumps((False, error), PROTOCOL)))

    def _row(self, j: int, obs: Any, *rest: Any) -> tuple[Any, ...]:
        """One sub-env's reply row; the observation goes to shared memory when in use."""
        if self.shm is None:
            return (obs, *rest)
        self.shm.write(self.first + j, obs)
        return rest

    def attach(self, seq: int, data: tuple[str, Space[Any], int]) -> None:
        """Attach to the parent's shared-memory block: ``(name, space, num_envs)``."""
        name, space, num_envs = data
        self.shm = SharedObservations(space, num_envs, name)

    def step(self, seq: int, actions: Iterable[Any]) -> list[tuple[Any, ...]]:
        """Step each sub-env, resetting or freezing it when its episode ends."""
        return self._each(self._step_one, actions)

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
        return self._row(
            j, result.observation, result.reward, result.terminated, result.truncated, result.info
        )

    def reset(
        self, seq: int, requests: list[tuple[Any, Any] | None]
    ) -> list[tuple[Any, ...] | None]:
        """Reset and unfreeze each sub-env with its ``(seed, options)``; None leaves it as it is
        (its row is None)."""
        return self._each(self._reset_one, requests)

    def _reset_one(
        self, j: int, env: Any, request: tuple[Any, Any] | None
    ) -> tuple[Any, ...] | None:
        if request is None:
            return None
        self.frozen[j] = None
        result = env.reset(seed=request[0], options=request[1])
        return self._row(j, result.observation, result.info)

    def get_attr(self, seq: int, name: str) -> list[Any]:
        """Attribute ``name`` of each sub-env."""
        return self._each(lambda j, env: env_get_attr(env, name))

    def set_attr(self, seq: int, data: tuple[str, list[Any]]) -> None:
        """Set attribute ``name`` of each sub-env to its value: ``(name, values)``."""
        name, values = data
        self._each(lambda j, env, value: env_set_attr(env, name, value), values)

    def call(self, seq: int, data: tuple[str, tuple[Any, ...], dict[str, Any]]) -> list[Any]:
        """Call method ``name`` of each sub-env: ``(name, args, kwargs)``."""
        name, args, kwargs = data
        return self._each(lambda j, env: env_call(env, name, args, kwargs))

    def close(self, seq: int, data: None) -> None:
        """Close every sub-env, announcing each first (so that the parent can name one that
        hangs); then raise the first error (``current`` names its sub-env)."""

        def close_one(j: int, env: Any) -> None:
            self.conn.send_bytes(frame(seq, pickle.dumps((None, self.first + j), PROTOCOL)))
            env.close()

        self._each(close_one)


def _describe(exc: BaseException) -> str:
    """``str(exc)``, or a note saying that it raised."""
    try:
        return str(exc)
    except Exception as inner:
        return f"<str() of the {type(exc).__name__} raised {type(inner).__name__}>"


def _picklable(obj: Any) -> bool:
    """Whether ``_dumps`` can pickle ``obj``."""
    try:
        dumps(obj)
    except Exception:
        return False
    return True


def worker_main(
    conn: Connection, payload: bytes, first: int, autoreset: bool, inherited: tuple[int, ...]
) -> None:
    """Entry point of a worker process: ``payload`` pickles the factories of its sub-envs;
    ``inherited`` lists the parent's pipe ends that a forked worker holds copies of."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    _Worker(conn, first, autoreset).serve(payload)
