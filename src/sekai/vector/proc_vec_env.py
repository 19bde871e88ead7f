"""``ProcVecEnv``: sub-envs stepped in parallel in worker processes."""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import pickle
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import cloudpickle
import numpy as np

from sekai._types import SeedType
from sekai.core.result import StepResult
from sekai.error import VecEnvWorkerError
from sekai.spaces import Dict, Space, Tuple
from sekai.spaces.utils import iterate
from sekai.vector._shared_memory import SharedObservations, supports_shared_memory
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import (
    VecEnv,
    build_envs,
    env_call,
    env_get_attr,
    env_set_attr,
    frozen_step,
    merge_autoreset,
    needs_autoreset,
    per_env_values,
    resolve_options,
    resolve_seeds,
    split_actions,
)

__all__ = ["ProcVecEnv"]

_PROTOCOL = pickle.HIGHEST_PROTOCOL
_DIED = "worker process exited unexpectedly"
_GRACE = 1.0
"""Seconds ``close()`` gives terminated workers, all together, before killing them."""

_ROW_ITERATORS = frozenset(iterate.dispatch(cls) for cls in (Space, Dict, Tuple))
"""``iterate`` implementations that split an ndarray batch along its first axis."""

# Every message is an 8-byte sequence number followed by a pickle. To a worker the pickle is
# ``(command, payload)``; the worker answers every message, in order, with the same number and
# ``(ok, data)``: ``data`` is the command's result when ``ok``, else ``(rank, exc_type,
# message, traceback)`` of the sub-env that failed. A worker first sends, unasked, the reply to
# its construction (number 0): the spaces of sub-env 0 from worker 0, None from the others.
# The parent numbers its commands in sequence and matches replies by number (see _await).


def _frame(seq: int, body: bytes) -> bytes:
    """A message: ``seq`` in 8 bytes, then ``body``."""
    return seq.to_bytes(8, "little") + body


def _dumps(obj: Any) -> bytes:
    """Pickle ``obj``, falling back on cloudpickle for lambdas and local classes."""
    try:
        return pickle.dumps(obj, _PROTOCOL)
    except Exception:
        return cloudpickle.dumps(obj, _PROTOCOL)


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
            self.envs = build_envs([functools.partial(self._build, fn) for fn in fns])
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
                result = getattr(self, command)(data)
            except Exception as exc:
                self._fail(seq, exc)
            else:
                self._reply(seq, result)
            if command == "close":
                break
        if self.shm is not None:
            self.shm.close()

    def _build(self, fn: Callable[[], Any]) -> Any:
        env = fn()
        self.current += 1
        return env

    def _reply(self, seq: int, data: Any) -> None:
        try:
            message = _frame(seq, _dumps((True, data)))
        except Exception as exc:  # blame the first sub-env whose part cannot be pickled
            rows = data if isinstance(data, list) else [data]
            self.current = next((j for j, row in enumerate(rows) if not _picklable(row)), 0)
            self._fail(seq, exc)
        else:
            self.conn.send_bytes(message)

    def _fail(self, seq: int, exc: Exception) -> None:
        error = (self.first + self.current, type(exc).__name__, str(exc), traceback.format_exc())
        self.conn.send_bytes(_frame(seq, pickle.dumps((False, error), _PROTOCOL)))

    def _row(self, j: int, obs: Any, *rest: Any) -> tuple[Any, ...]:
        """One sub-env's reply row; the observation goes to shared memory when in use."""
        if self.shm is None:
            return (obs, *rest)
        self.shm.write(self.first + j, obs)
        return rest

    def attach(self, data: tuple[str, Space[Any], int]) -> None:
        """Attach to the parent's shared-memory block: ``(name, space, num_envs)``."""
        name, space, num_envs = data
        self.shm = SharedObservations(space, num_envs, name)

    def step(self, actions: Iterable[Any]) -> list[tuple[Any, ...]]:
        """Step each sub-env, resetting or freezing it when its episode ends."""
        rows = []
        frozen = self.frozen
        for j, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            self.current = j
            final = frozen[j]
            if final is not None:
                result = frozen_step(final)
            else:
                result = env.step(action)
                if needs_autoreset(result):
                    if self.autoreset:
                        result = merge_autoreset(result, env.reset())
                    else:
                        frozen[j] = result
            rows.append(
                self._row(
                    j,
                    result.observation,
                    result.reward,
                    result.terminated,
                    result.truncated,
                    result.info,
                )
            )
        return rows

    def reset(self, requests: list[tuple[Any, Any]]) -> list[tuple[Any, ...]]:
        """Reset each sub-env with its ``(seed, options)``; unfreeze them all."""
        self.frozen = [None] * len(self.envs)
        rows = []
        for j, (env, (seed, options)) in enumerate(zip(self.envs, requests, strict=True)):
            self.current = j
            result = env.reset(seed=seed, options=options)
            rows.append(self._row(j, result.observation, result.info))
        return rows

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of each sub-env."""
        values = []
        for j, env in enumerate(self.envs):
            self.current = j
            values.append(env_get_attr(env, name))
        return values

    def set_attr(self, data: tuple[str, list[Any]]) -> None:
        """Set attribute ``name`` of each sub-env to its value: ``(name, values)``."""
        name, values = data
        for j, (env, value) in enumerate(zip(self.envs, values, strict=True)):
            self.current = j
            env_set_attr(env, name, value)

    def call(self, data: tuple[str, tuple[Any, ...], dict[str, Any]]) -> list[Any]:
        """Call method ``name`` of each sub-env: ``(name, args, kwargs)``."""
        name, args, kwargs = data
        values = []
        for j, env in enumerate(self.envs):
            self.current = j
            values.append(env_call(env, name, args, kwargs))
        return values

    def close(self, data: None) -> None:
        """Close every sub-env, then raise the first error (``current`` names its sub-env)."""
        failure: tuple[int, Exception] | None = None
        for j, env in enumerate(self.envs):
            try:
                env.close()
            except Exception as exc:
                if failure is None:
                    failure = (j, exc)
        if failure is not None:
            self.current = failure[0]
            raise failure[1]


def _picklable(obj: Any) -> bool:
    """Whether ``_dumps`` can pickle ``obj``."""
    try:
        _dumps(obj)
    except Exception:
        return False
    return True


def _pickle_factories(fns: list[Callable[[], Any]]) -> bytes:
    """Cloudpickle a worker's env factories; any pickling failure is a ``TypeError``."""
    try:
        return cloudpickle.dumps(fns, _PROTOCOL)
    except TypeError:
        raise
    except Exception as exc:  # PicklingError, or whatever a __reduce__ raised
        raise TypeError(f"Cannot pickle the env factories for the workers: {exc}") from exc


def _worker_main(conn: Connection, payload: bytes, first: int, autoreset: bool) -> None:
    """Entry point of a worker process: ``payload`` pickles the factories of its sub-envs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _Worker(conn, first, autoreset).serve(payload)


class ProcVecEnv(VecEnv[Any, Any]):
    """Runs the sub-envs in worker processes, several per worker with ``num_workers``.

    Each call is one message to every worker and one reply back; observations of
    fixed-size spaces come back through a shared-memory block.
    """

    def __init__(
        self,
        env_fns: Iterable[Callable[[], Any]],
        *,
        autoreset: bool = True,
        context: str | None = None,
        close_timeout: float = 5.0,
        num_workers: int | None = None,
        shared_memory: bool | None = None,
    ) -> None:
        self._processes: list[BaseProcess] = []
        self._conns: list[Connection] = []
        self._shm: SharedObservations | None = None
        fns = list(env_fns)
        if not fns:
            raise ValueError("ProcVecEnv needs at least one env factory in env_fns.")
        if num_workers is not None and num_workers < 1:
            raise ValueError(f"num_workers must be at least 1, got {num_workers}.")
        self.num_envs = len(fns)
        self.num_workers = self.num_envs if num_workers is None else min(num_workers, self.num_envs)
        self.autoreset = bool(autoreset)
        self.close_timeout = float(close_timeout)
        self._groups: list[list[int]] = [
            group.tolist() for group in np.array_split(np.arange(self.num_envs), self.num_workers)
        ]
        self._bounds = [(group[0], group[-1] + 1) for group in self._groups]
        self._seq = 0  # of the last command; a worker's construction reply is seq 0
        self._dead: set[int] = set()
        if context is None:
            context = "spawn" if sys.platform == "win32" else "forkserver"
        ctx = multiprocessing.get_context(context)
        if os.name == "posix":
            resource_tracker.ensure_running()
        try:
            for k, group in enumerate(self._groups):
                self._start_worker(ctx, k, _pickle_factories([fns[i] for i in group]))
            self.observation_space, self.action_space = self._gather(0)[0]
            usable = supports_shared_memory(self.observation_space)
            if shared_memory and not usable:
                raise TypeError(
                    "shared_memory=True needs an observation space whose parts all have a "
                    "fixed size (Box, Discrete, MultiDiscrete, MultiBinary, in Dict/Tuple/"
                    f"MaskedBox), got {self.observation_space!r}."
                )
            if usable and shared_memory is not False:
                self._shm = SharedObservations(self.observation_space, self.num_envs)
                self._command("attach", [(self._shm.name, self.observation_space, self.num_envs)])
        except BaseException:
            self.closed = True
            self._shutdown()
            raise

    def _start_worker(self, ctx: Any, k: int, payload: bytes) -> None:
        """Start worker ``k`` on the pickled factories of its group."""
        parent_conn, child_conn = ctx.Pipe()
        process = ctx.Process(
            target=_worker_main,
            args=(child_conn, payload, self._groups[k][0], self.autoreset),
            name=f"sekai-ProcVecEnv-worker-{k}",
            daemon=True,
        )
        try:
            process.start()
        except BaseException:
            parent_conn.close()
            raise
        finally:
            child_conn.close()
        self._processes.append(process)
        self._conns.append(parent_conn)

    @property
    def shared_memory(self) -> bool:
        """Whether observations come back through shared memory."""
        return self._shm is not None

    # -- protocol ---------------------------------------------------------------------------

    def _death_error(self, w: int) -> VecEnvWorkerError:
        """The error reporting that worker ``w`` has died."""
        group = self._groups[w]
        error = VecEnvWorkerError(group[0], "EOFError", _DIED, "")
        if len(group) > 1:
            error.args = (f"Worker {w} (sub-envs {group[0]}-{group[-1]}) raised EOFError: {_DIED}",)
        return error

    def _read(self, w: int, timeout: float | None = None) -> tuple[int, bool, Any] | None:
        """The next reply of worker ``w``; None after ``timeout`` or if it died (see _dead)."""
        conn = self._conns[w]
        try:
            if timeout is not None and not conn.poll(timeout):
                return None
            message = conn.recv_bytes()
        except (EOFError, OSError):
            self._dead.add(w)
            return None
        seq = int.from_bytes(message[:8], "little")
        try:
            ok, data = pickle.loads(memoryview(message)[8:])
        except Exception as exc:
            text = f"cannot unpickle the worker's reply: {exc}"
            return seq, False, (self._groups[w][0], type(exc).__name__, text, "")
        return seq, ok, data

    def _await(
        self, w: int, seq: int, deadline: float | None = None
    ) -> tuple[int, bool, Any] | None:
        """The reply of worker ``w`` to message ``seq``; None as ``_read``.

        Older replies, left unread by an interrupted call, are read and discarded first, so
        replies never get out of step with commands, whenever the interrupt came.
        """
        while True:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            reply = self._read(w, timeout)
            if reply is None or reply[0] == seq:
                return reply

    def _gather(self, seq: int) -> list[Any]:
        """Every worker's reply to ``seq``; then raise the lowest failed worker's error."""
        results = []
        error: VecEnvWorkerError | None = None
        for w in range(self.num_workers):
            reply = None if w in self._dead else self._await(w, seq)
            if reply is None:
                error = error or self._death_error(w)
            elif reply[1]:
                results.append(reply[2])
            else:
                error = error or VecEnvWorkerError(*reply[2])
        if error is not None:
            raise error
        return results

    def _command(self, command: str, payloads: list[Any]) -> list[Any]:
        """Send ``command`` to every worker with its payload (one for all if a single one)."""
        self._check_open()
        if self._dead:
            raise self._death_error(min(self._dead))
        self._seq += 1
        seq = self._seq
        try:
            if len(payloads) == 1:
                messages = [_frame(seq, _dumps((command, payloads[0])))] * self.num_workers
            else:
                messages = [_frame(seq, _dumps((command, payload))) for payload in payloads]
        except TypeError:
            raise
        except Exception as exc:  # PicklingError, or whatever a __reduce__ raised
            raise TypeError(f"Cannot pickle the {command} payload for the workers: {exc}") from exc
        for w, message in enumerate(messages):
            try:
                self._conns[w].send_bytes(message)
            except OSError:
                self._dead.add(w)
        return self._gather(seq)

    def _rows(self, command: str, payloads: list[Any]) -> list[Any]:
        """``_command`` for per-sub-env results: every worker's list joined in sub-env order."""
        return [row for rows in self._command(command, payloads) for row in rows]

    # -- VecEnv API -------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset every sub-env and unfreeze them all."""
        self._check_open()
        requests = list(
            zip(
                resolve_seeds(seed, self.num_envs),
                resolve_options(options, self.num_envs),
                strict=True,
            )
        )
        rows = self._rows("reset", [requests[lo:hi] for lo, hi in self._bounds])
        if self._shm is not None:
            return VecResetResult(self._shm.read(), [row[0] for row in rows])
        return VecResetResult(
            self._batch_observations([row[0] for row in rows]), [row[1] for row in rows]
        )

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env; each worker resets (or freezes) its finished sub-envs."""
        self._check_open()
        if (
            isinstance(actions, np.ndarray)
            and actions.ndim
            and len(actions) == self.num_envs
            and iterate.dispatch(type(self.action_space)) in _ROW_ITERATORS
        ):
            chunks: list[Any] = [actions[lo:hi] for lo, hi in self._bounds]
        else:
            items = split_actions(self.action_space, actions, self.num_envs)
            chunks = [items[lo:hi] for lo, hi in self._bounds]
        rows = self._rows("step", chunks)
        if self._shm is not None:
            observations = self._shm.read()
        else:
            observations = self._batch_observations([row[0] for row in rows])
        return VecStepResult(
            observations,
            np.array([row[-4] for row in rows], dtype=np.float64),
            np.array([row[-3] for row in rows], dtype=bool),
            np.array([row[-2] for row in rows], dtype=bool),
            [row[-1] for row in rows],
        )

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of every sub-env, looked up through its wrapper stack."""
        return self._rows("get_attr", [name])

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name`` on every sub-env: one value for all or a list of ``num_envs`` values."""
        per_env = per_env_values(name, values, self.num_envs)
        self._command("set_attr", [(name, per_env[lo:hi]) for lo, hi in self._bounds])

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` on every sub-env (non-callable attributes are returned)."""
        return self._rows("call", [(name, args, kwargs)])

    # -- shutdown ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close the sub-envs and stop the workers; then raise the earliest failure. Idempotent."""
        if self.closed:
            return
        self.closed = True
        error = self._shutdown()
        if error is not None:
            raise error

    def _shutdown(self) -> VecEnvWorkerError | None:
        """Ask every worker to close, stop the survivors, free everything; return 1st failure."""
        deadline = time.monotonic() + self.close_timeout
        self._seq += 1
        seq = self._seq
        message = _frame(seq, pickle.dumps(("close", None), _PROTOCOL))
        known_dead = set(self._dead)
        asked = []
        for w, conn in enumerate(self._conns):
            if w not in known_dead:
                try:
                    conn.send_bytes(message)
                except OSError:
                    self._dead.add(w)
                else:
                    asked.append(w)
        first: VecEnvWorkerError | None = None
        for w in range(len(self._conns)):
            if w in known_dead:
                continue
            reply = self._await(w, seq, deadline) if w in asked else None
            if reply is not None and not reply[1]:
                first = first or VecEnvWorkerError(*reply[2])
            elif reply is None and w in self._dead:
                first = first or self._death_error(w)
        for process in self._processes:
            process.join(max(0.0, deadline - time.monotonic()))
        survivors = [process for process in self._processes if process.is_alive()]
        for process in survivors:
            process.terminate()
        grace = time.monotonic() + _GRACE
        for process in survivors:
            process.join(max(0.0, grace - time.monotonic()))
        for process in survivors:
            if process.is_alive():
                process.kill()
                process.join()
        for conn in self._conns:
            conn.close()
        if self._shm is not None:
            self._shm.close()
        return first

    def __del__(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):  # e.g. at interpreter shutdown
            for process in self._processes:
                if process.is_alive():
                    process.terminate()
            for conn in self._conns:
                conn.close()
            if self._shm is not None:
                self._shm.close()
