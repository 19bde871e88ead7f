"""``ProcVecEnv``: sub-envs stepped in parallel in worker processes."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import multiprocessing
import os
import pickle
import select
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from multiprocessing import forkserver, resource_tracker
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np

from sekai._types import SeedType
from sekai.core.options import check_options_type
from sekai.error import ResetRequired, VecEnvWorkerError
from sekai.spaces.utils import iterate
from sekai.vector._proc_worker import PROTOCOL, dumps, frame, worker_main
from sekai.vector._shared_memory import SharedObservations, supports_shared_memory
from sekai.vector._worker_pool import (
    Outcome,
    Sent,
    WorkerPoolVecEnv,
    check_num_workers,
    check_seconds,
    pickle_factories,
)
from sekai.vector.partial_reset import PARTIAL_RESET_FIRST, split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import per_env_values, resolve_options, resolve_seeds

__all__ = ["ProcVecEnv"]

_DIED = "worker process exited unexpectedly"
_GRACE = 1.0
"""Seconds ``close()`` gives terminated workers, all together, before killing them."""
_DEAD_PIPE = (EOFError, BrokenPipeError, ConnectionResetError)
"""What reading or writing a worker's pipe raises once the worker has died: nothing else
(a ``TimeoutError`` from a signal handler, say) means that the worker is dead."""
_BOOTSTRAP_EXIT = 87
"""Exit code of a worker that was asked to start a ``ProcVecEnv`` while it was bootstrapping."""
_BOOTSTRAP_ERROR = (
    "the worker processes re-ran the main script while starting up and it tried to build "
    "another ProcVecEnv there. With the {context!r} start method every worker imports the main "
    'module again: put the code that builds the ProcVecEnv under `if __name__ == "__main__":` '
    "(or use context='fork' where the platform has it)."
)
_PARENT_ENDS: set[int] = set()
"""File descriptors of the parent's end of every open worker pipe in this process: a forked
worker closes its copies, so that the death of this process ends every worker's pipe."""


class ProcVecEnv(WorkerPoolVecEnv):
    """Runs the sub-envs in worker processes, several per worker with ``num_workers``.

    Each call is one message to every worker and one reply back; observations of
    fixed-size spaces come back through a shared-memory block. ``send`` / ``recv`` step some
    sub-envs and return the first ``batch_size`` to finish (see ``WorkerPoolVecEnv``).
    ``step_timeout`` (seconds, None: no limit) kills a worker that does not answer a step in
    time; ``on_worker_failure="restart"`` rebuilds a worker that dies, times out or raises in
    a step (at most ``max_restarts`` times each), its failed steps returned as truncations.
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
        batch_size: int | None = None,
        step_timeout: float | None = None,
        on_worker_failure: str = "raise",
        max_restarts: int = 100,
    ) -> None:
        self._processes: list[BaseProcess] = []
        self._conns: list[Connection] = []
        self._shm: SharedObservations | None = None
        if getattr(multiprocessing.current_process(), "_inheriting", False):
            _exit_bootstrapping(context)
        fns = list(env_fns)
        if not fns:
            raise ValueError("ProcVecEnv needs at least one env factory in env_fns.")
        workers = check_num_workers(num_workers)
        self.num_envs = len(fns)
        self.autoreset = bool(autoreset)
        self.close_timeout = check_seconds(close_timeout, "close_timeout")
        self._init_pool(
            self.num_envs if workers is None else min(workers, self.num_envs),
            batch_size,
            step_timeout,
            on_worker_failure,
            max_restarts,
        )
        self._seq = 0  # of the last command; a worker's construction reply is seq 0
        self._started = False  # whether a full reset has run
        self._observed: list[Any] = [None] * self.num_envs  # when they come back pickled
        if context is None:
            context = _default_context()
        elif not isinstance(context, str):
            raise TypeError(
                f"context must be a start method name or None, got {context!r} "
                f"({type(context).__name__})."
            )
        ctx = multiprocessing.get_context(context)  # ValueError for an unknown method
        self._context = context
        if context == "forkserver":
            _preload_in_forkserver()
        self._payloads: list[bytes] = []
        if os.name == "posix":
            resource_tracker.ensure_running()
        try:
            for k, group in enumerate(self._groups):
                self._payloads.append(pickle_factories([fns[i] for i in group]))
                self._start_worker(ctx, k, self._payloads[k])
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
        _PARENT_ENDS.add(parent_conn.fileno())
        inherited = tuple(_PARENT_ENDS) if ctx.get_start_method() == "fork" else ()
        process = ctx.Process(
            target=worker_main,
            args=(child_conn, payload, self._groups[k][0], self.autoreset, inherited),
            name=f"sekai-ProcVecEnv-worker-{k}",
            daemon=True,
        )
        try:
            process.start()
        except BaseException:
            _close_parent_end(parent_conn)
            raise
        finally:
            child_conn.close()
        if k < len(self._processes):  # a rebuilt worker
            self._processes[k], self._conns[k] = process, parent_conn
        else:
            self._processes.append(process)
            self._conns.append(parent_conn)

    @property
    def shared_memory(self) -> bool:
        """Whether observations come back through shared memory."""
        return self._shm is not None

    # -- protocol ---------------------------------------------------------------------------

    def _mark_dead(self, w: int) -> None:
        """Worker ``w`` has died: keep the error its every later use raises."""
        if w not in self._dead:
            self._dead[w] = self._death_error(w)

    def _death_error(self, w: int) -> VecEnvWorkerError:
        """The error reporting that worker ``w`` has died."""
        group = self._groups[w]
        process = self._processes[w]
        process.join(_GRACE)  # its pipe closes as it exits: the exit code follows at once
        if process.exitcode == _BOOTSTRAP_EXIT:
            message = _BOOTSTRAP_ERROR.format(context=self._context)
            return VecEnvWorkerError(group[0], "RuntimeError", message, "")
        error = VecEnvWorkerError(group[0], "EOFError", _DIED, "")
        if len(group) > 1:
            error.args = (f"Worker {w} (sub-envs {group[0]}-{group[-1]}) raised EOFError: {_DIED}",)
        return error

    def _read(self, w: int, timeout: float | None = None) -> tuple[int, bool | None, Any] | None:
        """The next reply of worker ``w``; None after ``timeout`` or if it died (see _dead).

        Only the end of the pipe means a dead worker: anything else raised while waiting (an
        interrupt, an error from a signal handler) propagates and leaves the worker usable.
        """
        conn = self._conns[w]
        try:
            if timeout is not None and not conn.poll(timeout):
                return None
            message = conn.recv_bytes()
        except _DEAD_PIPE:
            self._mark_dead(w)
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
    ) -> tuple[int, bool | None, Any] | None:
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
                error = error or self._dead[w]
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
        self._check_idle(command)
        if self._dead:
            raise self._dead[min(self._dead)]
        self._seq += 1
        seq = self._seq
        try:
            if len(payloads) == 1:
                messages = [frame(seq, dumps((command, payloads[0])))] * self.num_workers
            else:
                messages = [frame(seq, dumps((command, payload))) for payload in payloads]
        except TypeError:
            raise
        except Exception as exc:  # PicklingError, or whatever a __reduce__ raised
            raise TypeError(f"Cannot pickle the {command} payload for the workers: {exc}") from exc
        for w, message in enumerate(messages):
            try:
                self._conns[w].send_bytes(message)
            except _DEAD_PIPE:
                self._mark_dead(w)
        return self._gather(seq)

    def _rows(self, command: str, payloads: list[Any]) -> list[Any]:
        """``_command`` for per-sub-env results: every worker's list joined in sub-env order."""
        return [row for rows in self._command(command, payloads) for row in rows]

    # -- VecEnv API -------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset every sub-env and unfreeze them all (only the selected ones with a
        ``reset_mask`` in ``options``)."""
        self._check_open()
        mask, options = split_reset_mask(options, self.num_envs)
        seeds = resolve_seeds(seed, self.num_envs)
        requests: list[tuple[Any, Any] | None]
        if mask is None:
            requests = list(zip(seeds, resolve_options(options, self.num_envs), strict=True))
        elif not self._started:
            raise ResetRequired(PARTIAL_RESET_FIRST)
        else:
            check_options_type(options)
            selected = mask.tolist()
            requests = [(s, options) if m else None for s, m in zip(seeds, selected, strict=True)]
        rows = self._rows("reset", [requests[lo:hi] for lo, hi in self._bounds])
        self._started = True
        infos = [{} if row is None else row[-1] for row in rows]
        if self._shm is not None:
            batch = self._shm.read()
        else:
            if mask is None:
                observed = [row[0] for row in rows]
            else:
                observed = [
                    held if row is None else row[0]
                    for held, row in zip(self._observed, rows, strict=True)
                ]
            self._observed = observed
            batch = self._batch_observations(observed)
        self._reset_seen(seeds, mask, batch)
        return VecResetResult(batch, infos)

    # -- split stepping ---------------------------------------------------------------------

    def _post(self, messages: list[tuple[int, list[int] | None, Any]]) -> list[Any]:
        """Send each step message; its handle is its sequence number."""
        try:
            bodies = [dumps(("step", (positions, chunk))) for _, positions, chunk in messages]
        except TypeError:
            raise
        except Exception as exc:  # PicklingError, or whatever a __reduce__ raised
            raise TypeError(f"Cannot pickle the step payload for the workers: {exc}") from exc
        handles = []
        for (w, _, _), body in zip(messages, bodies, strict=True):
            self._seq += 1
            handles.append(self._seq)
            with contextlib.suppress(*_DEAD_PIPE):  # a dead worker: reading its pipe says so
                self._conns[w].send_bytes(frame(self._seq, body))
        return handles

    def _wait(self, workers: list[int], timeout: float | None) -> list[int]:
        """The ``workers`` whose pipe has a reply, or has ended."""
        conns = {self._conns[w]: w for w in workers if w not in self._dead}
        if len(conns) < len(workers):  # known dead: taken at once
            return [w for w in workers if w in self._dead]
        return [conns[conn] for conn in _readable(list(conns), timeout)]

    def _take(self, w: int, sent: Sent) -> Outcome:
        """Worker ``w``'s reply to ``sent``: rows whose observations are in shared memory (None)
        or in the rows."""
        if w in self._dead:
            return "dead", self._dead[w]
        reply = self._read(w)
        if reply is None:
            return "dead", self._dead[w]
        seq, ok, data = reply
        if seq < sent.handle:  # left by an interrupted command
            return "wait", None
        if not ok:
            return "error", VecEnvWorkerError(*data)
        rows = data
        observations = None
        if self._shm is None:
            observed = [row[0] for row in rows]
            for i, obs in zip(sent.ids.tolist(), observed, strict=True):
                self._observed[i] = obs
            observations = self._batch_observations(observed)
        result = VecStepResult(
            observations,
            np.array([row[-4] for row in rows], dtype=np.float64),
            np.array([row[-3] for row in rows], dtype=bool),
            np.array([row[-2] for row in rows], dtype=bool),
            [row[-1] for row in rows],
            sent.ids,
        )
        return "ok", result

    def _kill(self, w: int) -> None:
        """Kill worker ``w``'s process, reap it and close its pipe."""
        process = self._processes[w]
        if process.is_alive():
            process.kill()
        process.join()
        _close_parent_end(self._conns[w])
        self._dead.setdefault(w, VecEnvWorkerError(self._groups[w][0], "EOFError", _DIED, ""))

    def _rebuild(self, w: int, seeds: list[int]) -> list[tuple[Any, dict[str, Any]]]:
        """Start a new process for worker ``w`` and reset its sub-envs with ``seeds``."""
        self._kill(w)
        shm = self._shm
        if shm is not None:  # rows still to be read from the block are read before it changes
            self._ready = [
                part
                if part.observations is not None
                else dataclasses.replace(part, observations=shm.read(part.env_ids))
                for part in self._ready
            ]
        self._start_worker(multiprocessing.get_context(self._context), w, self._payloads[w])
        self._dead.pop(w, None)
        self._ask(w, None, None, None)  # the construction reply, as long as it takes
        if shm is not None:
            self._ask(w, "attach", (shm.name, self.observation_space, self.num_envs), None)
        rows = self._ask(w, "reset", [(seed, None) for seed in seeds], self.step_timeout)
        if shm is None:
            for i, row in zip(self._groups[w], rows, strict=True):
                self._observed[i] = row[0]
            return [(row[0], row[1]) for row in rows]
        group = np.array(self._groups[w], dtype=np.intp)
        observations = iterate(self.observation_space, shm.read(group))
        return list(zip(observations, [row[0] for row in rows], strict=True))

    def _ask(self, w: int, command: str | None, payload: Any, limit: float | None) -> Any:
        """Worker ``w``'s result of ``command`` (None: its construction reply), within
        ``limit`` seconds (None: no limit); ``VecEnvWorkerError`` when it fails, dies or is
        late."""
        seq = 0
        if command is not None:
            self._seq += 1
            seq = self._seq
            with contextlib.suppress(*_DEAD_PIPE):
                self._conns[w].send_bytes(frame(seq, dumps((command, payload))))
        reply = self._await(w, seq, None if limit is None else time.monotonic() + limit)
        if reply is None:
            if w in self._dead:
                raise self._dead[w]
            text = f"the rebuilt worker did not answer within step_timeout={limit:g} s"
            raise VecEnvWorkerError(self._groups[w][0], "TimeoutError", text, "")
        if not reply[1]:
            raise VecEnvWorkerError(*reply[2])
        return reply[2]

    def _finish(self, parts: list[VecStepResult[Any]]) -> VecStepResult[Any]:
        """``parts`` joined, their observations read from shared memory where they were left
        out (all at once when none holds any)."""
        shm = self._shm
        if shm is None or all(part.observations is None for part in parts):
            result = super()._finish(parts)
            if shm is None:
                return result
            ids = result.env_ids
            batch = shm.read(None if len(ids) == self.num_envs else ids)
            return dataclasses.replace(result, observations=batch)
        filled = [
            part
            if part.observations is not None
            else dataclasses.replace(part, observations=shm.read(part.env_ids))
            for part in parts
        ]
        return super()._finish(filled)

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
        """Ask every worker to close, stop the survivors, free everything; return 1st failure.

        A worker that has not finished closing its sub-envs by ``close_timeout`` is
        terminated, with a ``RuntimeWarning`` naming the sub-env it was closing.
        """
        limit = self.close_timeout
        deadline = None if math.isinf(limit) else time.monotonic() + limit
        self._seq += 1
        seq = self._seq
        message = frame(seq, pickle.dumps(("close", None), PROTOCOL))
        known_dead = set(self._dead)
        asked = []
        for w, conn in enumerate(self._conns):
            if w not in known_dead:
                try:
                    conn.send_bytes(message)
                except _DEAD_PIPE:
                    self._mark_dead(w)
                else:
                    asked.append(w)
        first: VecEnvWorkerError | None = None
        for w in range(len(self._conns)):
            if w in known_dead:
                continue
            closing = None  # the sub-env the worker said it was closing
            reply = self._await(w, seq, deadline) if w in asked else None
            while reply is not None and reply[1] is None:
                closing = reply[2]
                reply = self._await(w, seq, deadline)
            if reply is not None:
                if not reply[1]:
                    first = first or VecEnvWorkerError(*reply[2])
            elif w in self._dead:
                if self._restarter is None:  # restarting, a death is healed, not reported
                    first = first or self._dead[w]
            else:
                self._warn_unclosed(w, closing)
        for process in self._processes:
            process.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        _stop(self._processes)
        self._release()
        return first

    def _warn_unclosed(self, w: int, closing: int | None) -> None:
        """Warn that worker ``w`` did not finish closing in time (``closing``: its sub-env)."""
        limit = f"close_timeout={self.close_timeout:g} s"
        if closing is not None:
            text = f"Sub-env {closing} did not finish close() within {limit}"
        else:
            group = self._groups[w]
            names = f"sub-env {group[0]}" if len(group) == 1 else f"sub-envs {group[0]}-{group[-1]}"
            text = (
                f"Worker {w} ({names}) was still busy with an earlier call and did not close "
                f"its sub-envs within {limit}"
            )
        warnings.warn(f"{text}: its worker was terminated.", RuntimeWarning, stacklevel=4)

    def _release(self) -> None:
        """Close the pipes and free the shared-memory block."""
        for conn in self._conns:
            _close_parent_end(conn)
        if self._shm is not None:
            self._shm.close()

    def __del__(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):  # e.g. at interpreter shutdown
            for conn in self._conns:  # a worker exits by itself at the end of its pipe
                _close_parent_end(conn)
            _stop(self._processes, _GRACE)
            self._release()


def _stop(processes: list[BaseProcess], wait: float = 0.0) -> None:
    """Join ``processes`` for ``wait`` seconds, then terminate, and finally kill, the rest."""
    deadline = time.monotonic() + wait
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    survivors = [process for process in processes if process.is_alive()]
    for process in survivors:
        process.terminate()
    grace = time.monotonic() + _GRACE
    for process in survivors:
        process.join(max(0.0, grace - time.monotonic()))
    for process in survivors:
        if process.is_alive():
            process.kill()
            process.join()


def _readable(conns: list[Connection], timeout: float | None) -> list[Connection]:
    """The ``conns`` with a message to read or at their end, waiting up to ``timeout``
    seconds (None: for ever) for one. Whatever a signal handler raises meanwhile propagates
    (``multiprocessing.connection.wait`` swallows ``InterruptedError``)."""
    if not hasattr(select, "poll"):
        return wait(conns, timeout)  # type: ignore[return-value]
    poller = select.poll()
    by_fd = {}
    for conn in conns:
        by_fd[conn.fileno()] = conn
        poller.register(conn.fileno(), select.POLLIN)
    ms = None if timeout is None else math.ceil(max(0.0, timeout) * 1000)
    return [by_fd[fd] for fd, _ in poller.poll(ms)]


def _close_parent_end(conn: Connection) -> None:
    """Close the parent's end of a worker pipe and forget its descriptor."""
    if not conn.closed:
        _PARENT_ENDS.discard(conn.fileno())
        conn.close()


def _preload_in_forkserver() -> None:
    """Have the fork server import the worker's module (NumPy and sekai with it) when it
    starts, so that each worker forked from it starts in milliseconds instead of importing
    them again. The modules asked for already (the main module by default) are kept; a fork
    server that is running already is not changed."""
    wanted = list(getattr(forkserver._forkserver, "_preload_modules", ["__main__"]))
    if worker_main.__module__ not in wanted:
        forkserver.set_forkserver_preload([*wanted, worker_main.__module__])


def _default_context() -> str:
    """The default start method: ``forkserver`` on POSIX, ``spawn`` on Windows."""
    return "spawn" if sys.platform == "win32" else "forkserver"


def _exit_bootstrapping(context: str | None) -> None:
    """End a worker that is building a ``ProcVecEnv`` while it imports the main module.

    The parent sees the exit code and raises the explanation; it is printed here too.
    """
    method = context or _default_context()
    sys.stderr.write(f"sekai.ProcVecEnv: {_BOOTSTRAP_ERROR.format(context=method)}\n")
    sys.stderr.flush()
    os._exit(_BOOTSTRAP_EXIT)
