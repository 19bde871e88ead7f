"""``ProcVecEnv``: sub-envs stepped in parallel in worker processes."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import multiprocessing
import os
import select
import sys
import time
from collections.abc import Callable, Iterable
from multiprocessing import forkserver, resource_tracker
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

import numpy as np

from sekai.error import VecEnvWorkerError
from sekai.spaces.utils import iterate
from sekai.vector.result import VecStepResult
from sekai.vector.workers.exchange import Outcome
from sekai.vector.workers.options import WorkerOptions
from sekai.vector.workers.pickling import dumps_code, pickled
from sekai.vector.workers.pool import Sent, WorkerPoolVecEnv
from sekai.vector.workers.proc_worker import frame, unframe, worker_main
from sekai.vector.workers.shared_memory import SharedObservations, supports_shared_memory

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

    _announces_closing = True
    _stopped = "its worker was terminated"

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
        options = WorkerOptions(
            num_workers, batch_size, step_timeout, on_worker_failure, max_restarts, close_timeout
        )
        n = self.num_envs = len(fns)
        self.autoreset = bool(autoreset)
        options.check_for(n, self.autoreset)
        self._init_workers(options, min(options.num_workers or n, n))
        self._seq = 0  # of the last command; a worker's construction reply is seq 0
        if context is None:
            context = _default_context()
        elif not isinstance(context, str):
            raise TypeError(
                f"context must be a start method name or None, got {context!r} "
                f"({type(context).__name__})."
            )
        self._ctx: Any = multiprocessing.get_context(context)  # ValueError for an unknown method
        self._context = context
        if context == "forkserver":
            _preload_in_forkserver()
        if os.name == "posix":
            resource_tracker.ensure_running()
        try:
            groups = [[fns[i] for i in group] for group in self._groups]
            self._payloads = pickled(groups, "the env factories", dumps_code)
            self.observation_space, self.action_space = self._results(self._start_all(None)[0])[0]
            usable = supports_shared_memory(self.observation_space)
            if shared_memory and not usable:
                raise TypeError(
                    "shared_memory=True needs an observation space whose parts all have a "
                    "fixed size (Box, Discrete, MultiDiscrete, MultiBinary, in Dict/Tuple/"
                    f"MaskedBox), got {self.observation_space!r}."
                )
            if usable and shared_memory is not False:
                self._shm = SharedObservations(self.observation_space, self.num_envs)
                self._broadcast("attach", [(self._shm.name, self.observation_space, n)])
        except BaseException:
            self.closed = True
            self._shutdown()
            raise

    @property
    def shared_memory(self) -> bool:
        """Whether observations come back through shared memory."""
        return self._shm is not None

    # -- transport ----------------------------------------------------------------------------

    def _start(self, w: int) -> Any:
        """Start worker ``w``'s process on the pickled factories of its group; its first reply
        is its construction's, number 0."""
        ctx = self._ctx
        parent_conn, child_conn = ctx.Pipe()
        _PARENT_ENDS.add(parent_conn.fileno())
        inherited = tuple(_PARENT_ENDS) if ctx.get_start_method() == "fork" else ()
        process = ctx.Process(
            target=worker_main,
            args=(child_conn, self._payloads[w], self._groups[w][0], self.autoreset, inherited),
            name=f"sekai-ProcVecEnv-worker-{w}",
            daemon=True,
        )
        try:
            process.start()
        except BaseException:
            _close_parent_end(parent_conn)
            raise
        finally:
            child_conn.close()
        if w < len(self._processes):  # a rebuilt worker
            self._processes[w], self._conns[w] = process, parent_conn
        else:
            self._processes.append(process)
            self._conns.append(parent_conn)
        return 0

    def _post(self, w: int, command: str, body: bytes | None) -> Any:
        """Write the message to worker ``w``'s pipe; its handle is its sequence number."""
        self._seq += 1
        with contextlib.suppress(*_DEAD_PIPE):  # a dead worker: reading its pipe says so
            self._conns[w].send_bytes(frame(self._seq, body, command))
        return self._seq

    def _ready(self, heads: dict[int, Any], timeout: float | None) -> list[int]:
        """The workers of ``heads`` whose pipe has a reply, or has ended."""
        conns = {self._conns[w]: w for w in heads if w not in self._dead}
        if len(conns) < len(heads):  # known dead: taken at once
            return [w for w in heads if w in self._dead]
        return [conns[conn] for conn in _readable(list(conns), timeout)]

    def _take(self, w: int, handle: Any) -> Outcome:
        """The next reply on worker ``w``'s pipe: ``stale`` when it answers an older message.

        Only the end of the pipe means a dead worker: anything else raised while waiting (an
        interrupt, an error from a signal handler) propagates and leaves the worker usable.
        """
        if w in self._dead:
            return "dead", self._dead[w]
        try:
            message = self._conns[w].recv_bytes()
        except _DEAD_PIPE:
            self._dead[w] = self._death_error(w)
            return "dead", self._dead[w]
        if int.from_bytes(message[:8], "little") < handle:  # left by an interrupted call
            return "stale", None
        try:
            ok, data = unframe(message)[2]
        except Exception as exc:
            text = f"cannot unpickle the worker's reply: {exc}"
            return "error", VecEnvWorkerError(self._groups[w][0], type(exc).__name__, text, "")
        if ok is None:
            return "closing", data
        return ("ok", data) if ok else ("error", VecEnvWorkerError(*data))

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
            error.args = (f"Worker {w} ({self._held(w)}) raised EOFError: {_DIED}",)
        return error

    def _kill(self, w: int) -> None:
        """Kill worker ``w``'s process, reap it and close its pipe."""
        process = self._processes[w]
        if process.is_alive():
            process.kill()
        process.join()
        _close_parent_end(self._conns[w])
        self._dead.setdefault(w, VecEnvWorkerError(self._groups[w][0], "EOFError", _DIED, ""))

    def _release(self, deadline: float | None) -> None:
        """Join the processes until ``deadline``, stop the rest, close the pipes and free the
        shared-memory block."""
        for process in self._processes:
            process.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        _stop(self._processes)
        self._free()

    def _free(self) -> None:
        """Close the pipes and free the shared-memory block."""
        for conn in self._conns:
            _close_parent_end(conn)
        if self._shm is not None:
            self._shm.close()

    # -- what the replies hold ----------------------------------------------------------------

    def _reset_batch(self, results: list[Any]) -> tuple[Any, list[dict[str, Any]]]:
        """The batch from shared memory, or from the rows."""
        rows = [row for part in results for row in part]
        infos = [row[-1] for row in rows]
        if self._shm is not None:
            return self._shm.read(), infos
        return self._batch_observations([row[0] for row in rows]), infos

    def _step_result(self, sent: Sent, result: Any) -> VecStepResult[Any]:
        """The step rows: their observations in shared memory (None) or in the rows."""
        rows = result
        observations = None
        if self._shm is None:
            observations = self._batch_observations([row[0] for row in rows])
        return VecStepResult(
            observations,
            np.array([row[-4] for row in rows], dtype=np.float64),
            np.array([row[-3] for row in rows], dtype=bool),
            np.array([row[-2] for row in rows], dtype=bool),
            [row[-1] for row in rows],
            sent.ids,
        )

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
        return super()._finish(self._filled(parts))

    def _filled(self, parts: list[VecStepResult[Any]]) -> list[VecStepResult[Any]]:
        """``parts``, those without observations given theirs from shared memory."""
        shm = self._shm
        assert shm is not None
        return [
            part
            if part.observations is not None
            else dataclasses.replace(part, observations=shm.read(part.env_ids))
            for part in parts
        ]

    def _rebuild(self, w: int, seeds: list[int]) -> list[tuple[Any, dict[str, Any]]]:
        """Start a new process for worker ``w`` and reset its sub-envs with ``seeds``."""
        self._kill(w)
        shm = self._shm
        if shm is not None:  # rows still to be read from the block are read before it changes
            self._done = self._filled(self._done)
        handle = self._start(w)
        self._dead.pop(w, None)
        self._answer(w, handle, "start", None)  # the construction reply, as long as it takes
        if shm is not None:
            self._ask(w, "attach", (shm.name, self.observation_space, self.num_envs), None)
        rows = self._ask(w, "reset", [(seed, None) for seed in seeds], self.step_timeout)
        if shm is None:
            return [(row[0], row[1]) for row in rows]
        group = np.array(self._groups[w], dtype=np.intp)
        observations = iterate(self.observation_space, shm.read(group))
        return list(zip(observations, [row[0] for row in rows], strict=True))

    def __del__(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):  # e.g. at interpreter shutdown
            for conn in self._conns:  # a worker exits by itself at the end of its pipe
                _close_parent_end(conn)
            _stop(self._processes, _GRACE)
            self._free()


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
