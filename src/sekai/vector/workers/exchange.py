"""``WorkerExchange``: sub-envs run by workers, and the messages exchanged with them (private).

The sub-envs are split into contiguous groups, one per worker. A backend provides the
transport, five primitives: ``_start`` a worker, ``_post`` it a command, see which replies are
``_ready``, ``_take`` a reply and ``_kill`` a worker. On them this class builds the protocol:
every worker started, a command to every worker whose lowest failed sub-env's error is raised
once all have answered (``_broadcast``), one worker's call within a time limit (``_ask``),
resets (partial ones included), the commands on the sub-envs' attributes and ``close``.
Split stepping is ``WorkerPoolVecEnv``'s.
"""

from __future__ import annotations

import abc
import math
import time
import warnings
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.options import check_options_type
from sekai.error import ResetRequired, VecEnvWorkerError
from sekai.vector.partial_reset import PARTIAL_RESET_FIRST, split_reset_mask
from sekai.vector.result import VecResetResult
from sekai.vector.vec_env import VecEnv, per_env_values, resolve_options, resolve_seeds
from sekai.vector.workers.options import WorkerOptions
from sekai.vector.workers.pickling import pickled
from sekai.vector.workers.restarts import Restarts

__all__ = ["Outcome", "WorkerExchange"]

Outcome = tuple[str, Any]
"""What ``_take`` read: ``("ok", result)``, ``("error", err)`` (a sub-env raised; the worker
is alive), ``("dead", err)`` (the worker is gone), ``("stale", None)`` (a reply to an older
message, dropped) or ``("closing", rank)`` (the worker is closing sub-env ``rank``)."""


class WorkerExchange(VecEnv[Any, Any]):
    """A vector env whose sub-envs run in ``num_workers`` workers, in contiguous groups."""

    num_workers: int
    step_timeout: float | None
    on_worker_failure: str
    max_restarts: int
    close_timeout: float
    _groups: list[list[int]]
    _bounds: list[tuple[int, int]]
    _dead: dict[int, VecEnvWorkerError]
    """Workers that are gone, and the error every later use of them raises."""
    _restarter: Restarts | None
    _announces_closing: ClassVar[bool] = False
    """Whether a worker names each sub-env it closes (``("closing", rank)``)."""
    _stopped: ClassVar[str]
    """How a warning says that a worker late to close was stopped."""

    def _init_workers(self, options: WorkerOptions, num_workers: int) -> None:
        """Take ``options`` (checked against the sub-envs) and split the sub-envs among
        ``num_workers`` workers."""
        n = self.num_envs
        self.step_timeout = options.step_timeout
        self.on_worker_failure = options.on_worker_failure
        self.max_restarts = options.max_restarts
        self.close_timeout = options.close_timeout
        self.num_workers = num_workers
        self._groups = [group.tolist() for group in np.array_split(np.arange(n), num_workers)]
        self._bounds = [(group[0], group[-1] + 1) for group in self._groups]
        self._dead = {}
        self._launched = 0  # workers started so far, from worker 0 on
        restart = options.on_worker_failure == "restart"
        self._restarter = Restarts(n, num_workers) if restart else None
        self._started = False  # whether a full reset has run

    # -- transport ----------------------------------------------------------------------------

    @abc.abstractmethod
    def _start(self, w: int) -> Any:
        """Start worker ``w`` (anew when it was killed) on its sub-envs: the handle of its
        first reply, which describes it."""

    @abc.abstractmethod
    def _post(self, w: int, command: str, body: bytes | None) -> Any:
        """Send ``command`` with its pickled payload to worker ``w``: the reply's handle. A dead
        worker raises nothing here: taking the reply says that it is dead."""

    @abc.abstractmethod
    def _ready(self, heads: dict[int, Any], timeout: float | None) -> list[int]:
        """The workers of ``heads`` (worker: handle awaited) whose reply can be taken, waiting
        up to ``timeout`` seconds (None: for ever) for at least one."""

    @abc.abstractmethod
    def _take(self, w: int, handle: Any) -> Outcome:
        """Read worker ``w``'s reply to ``handle``, waiting for it."""

    @abc.abstractmethod
    def _kill(self, w: int) -> None:
        """Stop worker ``w`` at once, whatever it is doing; it is dead from then on."""

    @abc.abstractmethod
    def _release(self, deadline: float | None) -> None:
        """Stop every worker, those still running once ``deadline`` passes (None: at once),
        and free what the transport holds."""

    # -- the exchange -------------------------------------------------------------------------

    def _held(self, w: int) -> str:
        """The sub-envs of worker ``w``, in words."""
        group = self._groups[w]
        return f"sub-env {group[0]}" if len(group) == 1 else f"sub-envs {group[0]}-{group[-1]}"

    def _receive(self, w: int, handle: Any, deadline: float | None = None) -> Outcome | None:
        """Worker ``w``'s reply to ``handle``, older ones dropped; None once ``deadline``
        (a ``time.monotonic()`` time; None: none) has passed without it."""
        while True:
            if deadline is not None:
                left = max(0.0, deadline - time.monotonic())
                if not self._ready({w: handle}, left):
                    return None
            outcome = self._take(w, handle)
            if outcome[0] != "stale":
                return outcome

    def _outcomes(self, handles: dict[int, Any]) -> list[Outcome]:
        """Each worker's reply to its handle, in worker order, all waited for."""
        outcomes = []
        for w, handle in handles.items():
            outcome = self._receive(w, handle)
            assert outcome is not None  # no deadline
            outcomes.append(outcome)
        return outcomes

    @staticmethod
    def _results(outcomes: Iterable[Outcome]) -> list[Any]:
        """Every worker's result; then raise the error of the lowest worker that failed."""
        results = []
        error: VecEnvWorkerError | None = None
        for kind, value in outcomes:
            if kind == "ok":
                results.append(value)
            else:
                error = error or value
        if error is not None:
            raise error
        return results

    def _start_all(self, limit: float | None) -> tuple[list[Outcome], list[int]]:
        """Start every worker: the first reply of each one that gave it within ``limit``
        seconds (None: no limit), in order, and the workers that did not. A worker that has not
        answered when this ends, normally or not, is killed."""
        handles: dict[int, Any] = {}
        answered: dict[int, Outcome] = {}
        try:
            for w in range(self.num_workers):
                handles[w] = self._start(w)
                self._launched = w + 1
            deadline = None if limit is None else time.monotonic() + limit
            for w, handle in handles.items():
                outcome = self._receive(w, handle, deadline)
                if outcome is not None:
                    answered[w] = outcome
        finally:
            for w in handles:
                if w not in answered:
                    self._kill(w)
        late = [w for w in handles if w not in answered]
        return list(answered.values()), late

    def _post_all(self, command: str, payloads: list[Any]) -> dict[int, Any]:
        """Send ``command`` to every worker with its payload (one for all if a single one),
        every payload pickled first: the handles."""
        self._check_open()
        self._check_idle(command)
        if self._dead:
            raise self._dead[min(self._dead)]
        bodies = pickled(payloads, f"the {command} payload")
        if len(bodies) == 1:
            bodies *= self.num_workers
        return {w: self._post(w, command, body) for w, body in enumerate(bodies)}

    def _broadcast(self, command: str, payloads: list[Any]) -> list[Any]:
        """``command`` run by every worker (see ``_post_all``): their results, in order, once
        all are in; the error of the lowest worker that failed is raised."""
        return self._results(self._outcomes(self._post_all(command, payloads)))

    def _rows(self, command: str, payloads: list[Any]) -> list[Any]:
        """``_broadcast`` for per-sub-env results: every worker's list joined in order."""
        return [row for rows in self._broadcast(command, payloads) for row in rows]

    def _ask(self, w: int, command: str, payload: Any, limit: float | None) -> Any:
        """Worker ``w``'s result of ``command`` within ``limit`` seconds (see ``_answer``)."""
        body = pickled([payload], f"the {command} payload")[0]
        return self._answer(w, self._post(w, command, body), command, limit)

    def _answer(self, w: int, handle: Any, command: str, limit: float | None) -> Any:
        """Worker ``w``'s result of ``command`` (reply ``handle``) within ``limit`` seconds
        (None: no limit); ``VecEnvWorkerError`` when it fails, dies or is late."""
        deadline = None if limit is None else time.monotonic() + limit
        outcome = self._receive(w, handle, deadline)
        if outcome is None:
            text = f"the rebuilt worker did not answer {command} within {limit:g} s"
            raise VecEnvWorkerError(self._groups[w][0], "TimeoutError", text, "")
        kind, value = outcome
        if kind != "ok":
            raise value
        return value

    # -- VecEnv API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset every sub-env and unfreeze them all (only the selected ones with a
        ``reset_mask`` in ``options``)."""
        return self._reset_finish(*self._reset_post(seed, options))

    def _reset_post(
        self, seed: Any, options: Any
    ) -> tuple[dict[int, Any], list[Any], NDArray[np.bool_] | None]:
        """Send a reset to every worker: the handles, each sub-env's seed and the reset mask
        (None: every sub-env)."""
        self._check_open()
        mask, options = split_reset_mask(options, self.num_envs)
        seeds = resolve_seeds(seed, self.num_envs)
        if mask is not None:
            if not self._started:
                raise ResetRequired(PARTIAL_RESET_FIRST)
            check_options_type(options)
        payloads = self._reset_payloads(seed, seeds, mask, options)
        return self._post_all("reset", payloads), seeds, mask

    def _reset_finish(
        self, handles: dict[int, Any], seeds: list[Any], mask: NDArray[np.bool_] | None
    ) -> VecResetResult[Any]:
        """The result of the reset sent as ``_reset_post`` says."""
        batch, infos = self._reset_batch(self._results(self._outcomes(handles)))
        self._started = True
        if self._restarter is not None:
            selected = range(self.num_envs) if mask is None else np.flatnonzero(mask).tolist()
            self._restarter.reset(seeds, list(selected), self.observation_space, batch)
        return VecResetResult(batch, infos)

    def _reset_payloads(
        self, seed: Any, seeds: list[Any], mask: NDArray[np.bool_] | None, options: Any
    ) -> list[Any]:
        """Each worker's reset payload: ``(seed, options)`` for each of its sub-envs, None for
        one that ``mask`` leaves as it is."""
        if mask is None:
            requests: list[Any] = list(
                zip(seeds, resolve_options(options, self.num_envs), strict=True)
            )
        else:
            selected = mask.tolist()
            requests = [(s, options) if m else None for s, m in zip(seeds, selected, strict=True)]
        return [requests[lo:hi] for lo, hi in self._bounds]

    @abc.abstractmethod
    def _reset_batch(self, results: list[Any]) -> tuple[Any, list[dict[str, Any]]]:
        """The observation batch and the infos of every sub-env, from the workers' replies."""

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of every sub-env, looked up through its wrapper stack."""
        return self._rows("get_attr", [name])

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name`` on every sub-env: one value for all or a list of ``num_envs`` values."""
        self._broadcast("set_attr", self._attr_payloads(name, values))

    def _attr_payloads(self, name: str, values: Any) -> list[Any]:
        """Each worker's ``set_attr`` payload: ``(name, its sub-envs' values)``."""
        per_env = per_env_values(name, values, self.num_envs)
        return [(name, per_env[lo:hi]) for lo, hi in self._bounds]

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` on every sub-env (non-callable attributes are returned)."""
        return self._rows("call", [(name, args, kwargs)])

    # -- shutdown -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the sub-envs and stop the workers; then raise the earliest failure. Idempotent."""
        if self.closed:
            return
        self.closed = True
        error = self._shutdown()
        if error is not None:
            raise error

    def _shutdown(self) -> VecEnvWorkerError | None:
        """Ask every live worker to close its sub-envs within ``close_timeout``, then stop the
        workers and free the transport; the first failure.

        A worker that has not finished closing by then is stopped, with a ``RuntimeWarning``
        naming it (and the sub-env it was closing, when it says). A worker found dead is a
        failure, unless workers are restarted: then a death is healed, not reported.
        """
        limit = self.close_timeout
        deadline = None if math.isinf(limit) else time.monotonic() + limit
        try:
            return self._close_workers(deadline)
        finally:
            self._release(deadline)

    def _close_workers(self, deadline: float | None) -> VecEnvWorkerError | None:
        """The exchange of ``_shutdown``: close every live worker's sub-envs by ``deadline``."""
        live = [w for w in range(self._launched) if w not in self._dead]
        handles = {w: self._post(w, "close", None) for w in live}
        first: VecEnvWorkerError | None = None
        for w, handle in handles.items():
            closing = None  # the sub-env the worker said it was closing
            outcome = self._receive(w, handle, deadline)
            while outcome is not None and outcome[0] == "closing":
                closing = outcome[1]
                outcome = self._receive(w, handle, deadline)
            if outcome is None:
                self._warn_unclosed(w, closing)
            elif outcome[0] == "error" or (outcome[0] == "dead" and self._restarter is None):
                first = first or outcome[1]
        return first

    def _warn_unclosed(self, w: int, closing: int | None) -> None:
        """Warn that worker ``w`` did not finish closing in time (``closing``: its sub-env)."""
        limit = f"close_timeout={self.close_timeout:g} s"
        if closing is not None:
            text = f"Sub-env {closing} did not finish close() within {limit}"
        elif self._announces_closing:
            text = (
                f"Worker {w} ({self._held(w)}) was still busy with an earlier call and did not "
                f"close its sub-envs within {limit}"
            )
        else:
            text = f"Worker {w} ({self._held(w)}) did not close its sub-envs within {limit}"
        warnings.warn(f"{text}: {self._stopped}.", RuntimeWarning, stacklevel=5)
