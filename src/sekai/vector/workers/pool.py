"""``WorkerPoolVecEnv``: split stepping over workers, shared by ``ProcVecEnv`` and
``RayVecEnv`` (private).

``send`` posts one step message to each worker concerned and returns; ``recv`` reads replies as
they come, at least ``batch_size`` rows' worth, and returns them in sub-env order. A worker runs
its messages in the order they were sent, so each worker has a queue of messages awaiting a
reply, and only the head of a queue can be answered next. The head's clock starts when it
becomes the head: past ``step_timeout`` the worker is killed. A failed worker is either kept
dead (``"raise"``) or rebuilt (``"restart"``, see ``restarts``). The workers, their transport
and every other exchange with them are ``WorkerExchange``'s.
"""

from __future__ import annotations

import abc
import dataclasses
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.error import VecEnvWorkerError
from sekai.spaces import Dict, Space, Tuple
from sekai.spaces.utils import iterate
from sekai.vector._partial import check_env_ids, join_results
from sekai.vector.result import VecStepResult, all_ids
from sekai.vector.vec_env import in_flight_error
from sekai.vector.workers.exchange import WorkerExchange
from sekai.vector.workers.options import WorkerOptions
from sekai.vector.workers.pickling import pickled

__all__ = ["ROW_ITERATORS", "Sent", "WorkerPoolVecEnv"]

ROW_ITERATORS = frozenset(iterate.dispatch(cls) for cls in (Space, Dict, Tuple))
"""``iterate`` implementations that split an ndarray batch along its first axis."""


@dataclass(slots=True)
class Sent:
    """A step message awaiting its reply: sub-envs ``ids`` (ascending) and the transport's
    ``handle`` of the message. An ``orphan`` was sent by a ``step()`` that was interrupted:
    its reply is read and dropped."""

    ids: NDArray[np.intp]
    handle: Any
    orphan: bool = False
    deadline: float | None = None


class WorkerPoolVecEnv(WorkerExchange):
    """A vector env whose sub-envs run in workers, stepped in part with ``send`` / ``recv``."""

    def _init_workers(self, options: WorkerOptions, num_workers: int) -> None:
        """Split the sub-envs among ``num_workers`` workers; set up the step bookkeeping."""
        super()._init_workers(options, num_workers)
        n = self.num_envs
        self._worker_of = np.repeat(np.arange(num_workers), [len(g) for g in self._groups])
        self._batch_size = n if options.batch_size is None else options.batch_size
        self._queues: list[deque[Sent]] = [deque() for _ in range(num_workers)]
        self._flying = np.zeros(n, dtype=bool)  # sent and not yet returned by recv()
        self._pending = 0  # rows of those still awaiting their reply
        self._done: list[VecStepResult[Any]] = []
        self._done_rows = 0
        self._errors: list[VecEnvWorkerError] = []

    @property
    def batch_size(self) -> int:
        """The fewest rows ``recv()`` returns, while that many are in flight."""
        return self._batch_size

    @property
    def in_flight(self) -> NDArray[np.intp]:
        """The sub-envs sent a step whose result ``recv()`` has not returned yet, ascending."""
        return np.flatnonzero(self._flying)

    @property
    def restarts(self) -> NDArray[np.int64]:
        """How many times each worker has been rebuilt (``on_worker_failure="restart"``)."""
        if self._restarter is None:
            return np.zeros(self.num_workers, dtype=np.int64)
        return self._restarter.counts.copy()

    # -- what the backends add ----------------------------------------------------------------

    @abc.abstractmethod
    def _step_result(self, sent: Sent, result: Any) -> VecStepResult[Any]:
        """The rows of a worker's reply ``result`` to step message ``sent``; their observations
        may be None (see ``_finish``)."""

    @abc.abstractmethod
    def _rebuild(self, w: int, seeds: list[int]) -> list[tuple[Any, dict[str, Any]]]:
        """Replace worker ``w`` by a new one built from the same factories and reset its
        sub-envs with ``seeds``: each one's ``(observation, info)``. A failure raises
        ``VecEnvWorkerError``."""

    def _finish(self, parts: list[VecStepResult[Any]]) -> VecStepResult[Any]:
        """``parts`` as one result in sub-env order (a backend may fill in observations)."""
        return join_results(self.observation_space, parts)

    # -- sending ------------------------------------------------------------------------------

    def _cut_actions(
        self, actions: Any, spans: list[tuple[int, int]], count: int, whole: bool
    ) -> list[Any]:
        """``actions`` (one row per sent sub-env, in order) cut into ``spans``, one per worker;
        ``whole``: every sub-env is sent. Plain rows here; a backend may keep batches."""
        if (
            isinstance(actions, np.ndarray)
            and actions.ndim
            and len(actions) == count
            and iterate.dispatch(type(self.action_space)) in ROW_ITERATORS
        ):
            return [actions[lo:hi] for lo, hi in spans]
        items = self._items(actions, count, whole)
        return [items[lo:hi] for lo, hi in spans]

    def _items(self, actions: Any, count: int, whole: bool) -> list[Any]:
        """One action per sent sub-env (``whole``: all of them, checked against num_envs)."""
        return self._split_actions(actions, None if whole else count)

    def _reorder(self, actions: Any, order: NDArray[np.intp], count: int) -> Any:
        """The rows of ``actions`` in ``order``: an array, or a list of actions."""
        if isinstance(actions, np.ndarray) and actions.ndim and len(actions) == count:
            return actions[order]
        items = self._items(actions, count, False)
        return [items[k] for k in order.tolist()]

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Post a step of sub-envs ``env_ids`` (all when None), row ``k`` of ``actions`` for
        ``env_ids[k]``, to their workers and return; ``recv()`` collects the results.

        ``RuntimeError`` for a sub-env whose step is in flight; nothing is sent when an
        argument is wrong or a worker is gone.
        """
        self._check_open()
        ids = check_env_ids(env_ids, self.num_envs)
        busy = ids[self._flying[ids]]
        if busy.size:
            raise RuntimeError(
                f"{type(self).__name__}.send(): sub-envs {busy.tolist()} already have a step in "
                "flight; recv() its result first."
            )
        count = len(ids)
        if count > 1 and (ids[1:] < ids[:-1]).any():
            order = np.argsort(ids)
            ids = ids[order]
            actions = self._reorder(actions, order, count)
        workers = self._worker_of[ids]
        cuts = (np.flatnonzero(workers[1:] != workers[:-1]) + 1).tolist()
        spans = list(zip([0, *cuts], [*cuts, count], strict=True))
        targets = [int(workers[lo]) for lo, _ in spans]
        for w in targets:
            if w in self._dead:
                raise self._dead[w]
        if self._restarter is not None and self._restarter.owes(ids):
            return self._send_owing(actions, ids)
        chunks = self._cut_actions(actions, spans, count, env_ids is None)
        messages = []
        for w, (lo, hi), chunk in zip(targets, spans, chunks, strict=True):
            first, end = self._bounds[w]
            whole = hi - lo == end - first
            messages.append((w, None if whole else (ids[lo:hi] - first).tolist(), chunk))
        handles = self._post_steps(messages)
        start = time.monotonic()
        for w, (lo, hi), handle in zip(targets, spans, handles, strict=True):
            queue = self._queues[w]
            queue.append(Sent(ids[lo:hi], handle))
            if len(queue) == 1:
                self._start_clock(queue[0], start)
        self._flying[ids] = True
        self._pending += count

    def _post_steps(self, messages: list[tuple[int, list[int] | None, Any]]) -> list[Any]:
        """Send each ``(worker, positions, actions)`` step message (``positions`` in the
        worker's group, None for all of it), all pickled before any is sent; their handles."""
        bodies = pickled(
            [(positions, chunk) for _, positions, chunk in messages], "the step payload"
        )
        return [
            self._post(w, "step", body) for (w, _, _), body in zip(messages, bodies, strict=True)
        ]

    def _send_owing(self, actions: Any, ids: NDArray[np.intp]) -> None:
        """``send`` to sub-envs ``ids`` (ascending) when some are owed the truncation of a
        restart: those get it as their result at once, without a step; the rest are sent."""
        assert self._restarter is not None
        owed = self._restarter.owed_mask(ids)
        rest = np.flatnonzero(~owed)
        if rest.size:
            self.send(self._reorder(actions, rest, len(ids)), ids[rest])
        part = self._restarter.pay(ids[owed], self._batch_observations)
        self._done.append(part)
        self._done_rows += len(part.env_ids)
        self._flying[part.env_ids] = True

    def _start_clock(self, sent: Sent, now: float) -> None:
        """``sent`` heads its worker's queue from ``now``: its reply is due ``step_timeout``
        later."""
        if self.step_timeout is not None:
            sent.deadline = now + self.step_timeout

    # -- receiving ----------------------------------------------------------------------------

    def recv(self) -> VecStepResult[Any]:
        """The results of at least ``batch_size`` sub-envs (all of those in flight if fewer),
        as soon as their workers answer, in sub-env order; ``env_ids`` names them.

        Every reply already in is returned too. A sub-env that raised, or a worker that is
        gone, raises ``VecEnvWorkerError`` (the lowest sub-env's); the rows already in are
        kept for the next ``recv()``. ``RuntimeError`` when no step is in flight.
        """
        self._check_open()
        flying = int(np.count_nonzero(self._flying))
        if not flying:
            raise RuntimeError(
                f"{type(self).__name__}.recv(): no step in flight; send() actions first."
            )
        self._collect(min(self._batch_size, flying))
        self._raise_errors()
        return self._deliver()

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env: ``send`` to all, then wait for every reply. A failure raises
        the lowest sub-env's ``VecEnvWorkerError`` once all replies are in; the step's
        results are then dropped."""
        self._check_idle("step")
        self.send(actions)
        return self._gather_step()

    def _gather_step(self) -> VecStepResult[Any]:
        """The rest of ``step()`` once its messages are sent: every reply, in order."""
        try:
            self._collect(None)
        except BaseException:
            self._abandon()
            raise
        if self._errors:
            self._done.clear()
            self._done_rows = 0
            self._flying[:] = False
            self._raise_errors()
        return self._deliver()

    def _collect(self, want: int | None) -> None:
        """Read replies until ``want`` rows are ready or a failure is found (None: until no
        row awaits its reply); kill the workers whose head message is overdue."""
        timeout: float | None = 0.0
        while True:
            busy = [w for w, queue in enumerate(self._queues) if queue]
            if busy:
                heads = {w: self._queues[w][0].handle for w in busy}
                for w in self._ready(heads, self._until_due(busy, timeout)):
                    self._consume(w)
                if self.step_timeout is not None:
                    self._expire()
            if self._pending == 0 or (
                want is not None and (self._errors or self._done_rows >= want)
            ):
                return
            timeout = None

    def _until_due(self, busy: list[int], timeout: float | None) -> float | None:
        """``timeout``, shortened to the time left before the first head message is due."""
        due = [q[0].deadline for q in (self._queues[w] for w in busy) if q[0].deadline]
        if not due:
            return timeout
        left = max(0.0, min(due) - time.monotonic())
        return left if timeout is None else min(left, timeout)

    def _expire(self) -> None:
        """Kill every worker whose head message is overdue with no reply in sight."""
        now = time.monotonic()
        for w, queue in enumerate(self._queues):
            if not queue or queue[0].deadline is None or queue[0].deadline > now:
                continue
            if self._ready({w: queue[0].handle}, 0.0):  # the reply came in just now
                self._consume(w)
                continue
            sent = queue[0]
            held = _sub_envs_text(sent.ids.tolist())
            text = (
                f"no reply from the worker stepping {held} within step_timeout="
                f"{self.step_timeout:g} s: the worker was killed"
            )
            error = VecEnvWorkerError(int(sent.ids[0]), "TimeoutError", text, "")
            error.__cause__ = TimeoutError(text)
            self._kill(w)
            self._worker_failed(w, error)

    def _consume(self, w: int) -> None:
        """Take worker ``w``'s reply to the head of its queue, if it is in."""
        queue = self._queues[w]
        sent = queue[0]
        kind, value = self._take(w, sent.handle)
        if kind == "stale":
            return
        if kind == "dead" or (kind == "error" and self._restarter is not None):
            if kind == "error":
                self._kill(w)
            self._worker_failed(w, value)
            return
        queue.popleft()
        if queue:
            self._start_clock(queue[0], time.monotonic())
        if sent.orphan:
            return
        self._pending -= len(sent.ids)
        if kind == "ok":
            self._done.append(self._step_result(sent, value))
            self._done_rows += len(sent.ids)
        else:
            self._flying[sent.ids] = False
            self._errors.append(value)

    def _worker_failed(self, w: int, error: VecEnvWorkerError) -> None:
        """Worker ``w`` died, was killed, or (restarting) a sub-env of it raised."""
        if self._restarter is None:
            self._lose_worker(w, error)
        else:
            self._restart(w, error)

    def _restart(self, w: int, error: VecEnvWorkerError) -> None:
        """Rebuild worker ``w``: every step it owes comes back as a truncation, and its other
        sub-envs are owed one; past ``max_restarts`` the worker is lost with the error."""
        assert self._restarter is not None
        group = self._groups[w]
        while True:
            if self._restarter.counts[w] >= self.max_restarts:
                self._lose_worker(w, _gave_up(error, w, group, self.max_restarts))
                return
            self._restarter.counts[w] += 1
            try:
                starts = self._rebuild(w, self._restarter.next_seeds(group))
            except VecEnvWorkerError as again:
                self._kill(w)
                error = again
                continue
            break
        self._dead.pop(w, None)
        queue = self._queues[w]
        lost = [sent for sent in queue if not sent.orphan]
        queue.clear()
        stepping = np.concatenate([sent.ids for sent in lost]) if lost else np.zeros(0, np.intp)
        self._restarter.owe(group, starts, error)
        if stepping.size:
            part = self._restarter.pay(stepping, self._batch_observations)
            self._pending -= len(stepping)
            self._done.append(part)
            self._done_rows += len(stepping)

    def _lose_worker(self, w: int, error: VecEnvWorkerError) -> None:
        """Worker ``w`` is gone: every message it holds fails with ``error``."""
        self._dead[w] = error
        queue = self._queues[w]
        lost = [sent for sent in queue if not sent.orphan]
        queue.clear()
        for sent in lost:
            self._pending -= len(sent.ids)
            self._flying[sent.ids] = False
        if lost:
            self._errors.append(error)

    def _raise_errors(self) -> None:
        """Raise the error of the lowest sub-env found to fail, forgetting the others."""
        if self._errors:
            error = min(self._errors, key=lambda e: e.rank)
            self._errors.clear()
            raise error

    def _deliver(self) -> VecStepResult[Any]:
        """Every ready row, as one result in sub-env order; those sub-envs leave the flight."""
        parts = self._done
        self._done = []
        self._done_rows = 0
        result = self._finish(parts)
        self._flying[result.env_ids] = False
        if self._restarter is not None:
            self._restarter.observed(self.observation_space, result)
        if len(result.env_ids) == self.num_envs:  # every sub-env, in order
            result = dataclasses.replace(result, env_ids=all_ids(self.num_envs))
        return result

    def _abandon(self) -> None:
        """After an interrupted ``step()``: its messages become orphans, nothing is in flight."""
        for queue in self._queues:
            for sent in queue:
                sent.orphan = True
        self._flying[:] = False
        self._pending = 0
        self._done.clear()
        self._done_rows = 0
        self._errors.clear()

    def _check_idle(self, call: str) -> None:
        """``RuntimeError`` while steps are in flight; else forget the orphans, whose replies
        the next command reads and drops."""
        if self._flying.any():
            count = int(np.count_nonzero(self._flying))
            raise in_flight_error(type(self).__name__, call, count)
        for queue in self._queues:
            queue.clear()


def _sub_envs_text(ids: list[int]) -> str:
    """``ids`` in words."""
    return f"sub-env {ids[0]}" if len(ids) == 1 else f"sub-envs {ids}"


def _gave_up(
    error: VecEnvWorkerError, w: int, group: list[int], max_restarts: int
) -> VecEnvWorkerError:
    """The error that ends a crash loop: ``error``, after ``max_restarts`` rebuilds."""
    message = str(error).partition(": ")[2].split("\n\nWorker traceback:")[0]
    text = (
        f"worker {w} ({_sub_envs_text(group)}) failed again after max_restarts={max_restarts} "
        f"restarts; last failure: {message}"
    )
    gave_up = VecEnvWorkerError(error.rank, error.exc_type, text, error.remote_traceback)
    gave_up.__cause__ = error
    return gave_up
