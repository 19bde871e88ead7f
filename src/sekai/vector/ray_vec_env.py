"""``RayVecEnv``: sub-envs stepped in parallel by Ray actors, on this machine or a cluster."""

from __future__ import annotations

import asyncio
import contextlib
import math
import pickle
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import cloudpickle
import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.error import InvalidAction, VecEnvWorkerError
from sekai.spaces.utils import iterate
from sekai.utils.seeding import make_seed_sequence
from sekai.utils.validation import check_int
from sekai.vector._partial import cut_batch, join_batches, take_rows
from sekai.vector._ray_session import check_worker_options, import_ray, join, leave
from sekai.vector._ray_worker import RayWorker
from sekai.vector._sub_envs import PROTOCOL, dumps
from sekai.vector._worker_pool import (
    Outcome,
    Sent,
    WorkerPoolVecEnv,
    check_num_workers,
    check_seconds,
    pickle_factories,
)
from sekai.vector.partial_reset import RESET_MASK, split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import (
    VecEnv,
    check_vector_seed,
    per_env_values,
    resolve_options,
    resolve_seeds,
)

__all__ = ["RayVecEnv", "RayWorkerInfo"]


class RayWorkerInfo(NamedTuple):
    """Where a worker of a ``RayVecEnv`` runs: its Ray node, its process and its sub-envs."""

    node_id: str
    pid: int
    ranks: range


# -- the vector env ---------------------------------------------------------------------------


class RayVecEnv(WorkerPoolVecEnv):
    """Runs the sub-envs in ``num_workers`` Ray actors, each stepping its group of them.

    The sub-envs are split into ``num_workers`` contiguous groups (None: as many as Ray has
    CPUs, at most ``num_envs``); each group lives in one actor, which runs every call on its
    sub-envs one after another, as ``SyncVecEnv`` does, so results and seeding are
    ``SyncVecEnv``'s. One call is one round of actor calls; large observation batches of
    numeric arrays come back through Ray's object store without a copy, and the batches are
    joined in sub-env order.
    ``RayVecEnv.from_native`` gives each actor a native vector env of its slice instead.

    ``address``: None uses the Ray this process is connected to, else calls ``ray.init()``,
    which connects to ``RAY_ADDRESS`` or a cluster started with ``ray start`` on this machine,
    or starts a local Ray (whose workers get this process's ``sys.path``); any other value is
    passed to ``ray.init``. ``close()`` shuts down a Ray that a ``RayVecEnv`` connected to once
    the last one using it closes.
    ``worker_options`` go to each actor's ``.options()`` (``num_cpus``, ``num_gpus``,
    ``resources``, ``scheduling_strategy``, ``runtime_env``...); by default an actor holds no
    CPU while it runs (Ray's default for actors), so any number of workers start on one
    machine. ``start_timeout``: seconds to wait for the actors to be placed and build their
    sub-envs; ``close_timeout``: for them to close their sub-envs before they are killed.
    ``batch_size``, ``step_timeout``, ``on_worker_failure`` and ``max_restarts`` work as in
    ``ProcVecEnv``: split stepping, step timeouts, and actors rebuilt after a failure.
    """

    num_workers: int
    native_slices: bool = False
    """Whether each worker runs a native vector env of its slice (``from_native``)."""
    _owns_ray: bool = False

    def __init__(
        self,
        env_fns: Iterable[Callable[[], Any]],
        *,
        num_workers: int | None = None,
        autoreset: bool = True,
        address: str | None = None,
        worker_options: Mapping[str, Any] | None = None,
        start_timeout: float = 120.0,
        close_timeout: float = 5.0,
        batch_size: int | None = None,
        step_timeout: float | None = None,
        on_worker_failure: str = "raise",
        max_restarts: int = 100,
    ) -> None:
        fns = list(env_fns)
        if not fns:
            raise ValueError("RayVecEnv needs at least one env factory in env_fns.")
        self._open(
            len(fns),
            lambda group: pickle_factories([fns[i] for i in group]),
            num_workers=num_workers,
            autoreset=autoreset,
            address=address,
            worker_options=worker_options,
            start_timeout=start_timeout,
            close_timeout=close_timeout,
            batch_size=batch_size,
            step_timeout=step_timeout,
            on_worker_failure=on_worker_failure,
            max_restarts=max_restarts,
        )

    @classmethod
    def from_native(
        cls,
        make_slice: Callable[..., VecEnv[Any, Any]],
        num_envs: int,
        *,
        num_workers: int | None = None,
        autoreset: bool = True,
        address: str | None = None,
        worker_options: Mapping[str, Any] | None = None,
        start_timeout: float = 120.0,
        close_timeout: float = 5.0,
        batch_size: int | None = None,
        step_timeout: float | None = None,
        on_worker_failure: str = "raise",
        max_restarts: int = 100,
    ) -> RayVecEnv:
        """A ``RayVecEnv`` whose workers each run ``make_slice(num_envs=k, autoreset=...)``,
        a native vector env of its ``k`` sub-envs, such as a ``NativeVecEnv`` class.

        Slices are seeded apart: ``reset(seed=s)`` seeds slice ``k`` with child ``k`` of
        ``s`` (``make_seed_sequence(s, num_workers)[k]``); a list of seeds gives each slice
        its part. ``get_attr`` / ``set_attr`` / ``call`` follow each slice's native rules; an
        error names the first sub-env of the slice that raised it. A slice steps as a whole:
        ``send`` takes whole slices.
        """
        if not callable(make_slice):
            raise TypeError(f"make_slice must be callable, got {make_slice!r}.")
        n = check_int(num_envs, "RayVecEnv.from_native: num_envs", low=1)
        try:
            payload = cloudpickle.dumps(make_slice, PROTOCOL)
        except Exception as exc:
            raise TypeError(f"Cannot pickle make_slice for the workers: {exc}") from exc
        vec = cls.__new__(cls)
        vec.native_slices = True
        vec._open(
            n,
            lambda group: payload,
            num_workers=num_workers,
            autoreset=autoreset,
            address=address,
            worker_options=worker_options,
            start_timeout=start_timeout,
            close_timeout=close_timeout,
            batch_size=batch_size,
            step_timeout=step_timeout,
            on_worker_failure=on_worker_failure,
            max_restarts=max_restarts,
        )
        return vec

    def _open(
        self,
        num_envs: int,
        payload: Callable[[list[int]], bytes],
        *,
        num_workers: int | None,
        autoreset: bool,
        address: str | None,
        worker_options: Mapping[str, Any] | None,
        start_timeout: float,
        close_timeout: float,
        batch_size: int | None,
        step_timeout: float | None,
        on_worker_failure: str,
        max_restarts: int,
    ) -> None:
        """Start the actors, each on ``payload(its group)``, and take the spaces."""
        self._actors: list[Any] = []
        self.num_envs = num_envs
        self.autoreset = bool(autoreset)
        workers = check_num_workers(num_workers)
        options = check_worker_options(worker_options)
        self.start_timeout = check_seconds(start_timeout, "start_timeout")
        self.close_timeout = check_seconds(close_timeout, "close_timeout")
        if address is not None and not isinstance(address, str):
            raise TypeError(f"address must be a str or None, got {type(address).__name__}.")
        if batch_size is not None:
            check_int(batch_size, "batch_size", low=1, high=num_envs)
        self._dead = {}
        self._ray = ray = import_ray()
        self._owns_ray = join(ray, address)
        ready: list[int] = []  # workers that built their sub-envs, to close on failure
        try:
            if workers is None:
                workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
            self._init_pool(
                min(workers, num_envs), batch_size, step_timeout, on_worker_failure, max_restarts
            )
            self._actor_class = ray.remote(RayWorker).options(**options)
            self._payloads = [payload(group) for group in self._groups]
            for w in range(self.num_workers):
                self._actors.append(self._new_actor(w))
            outcomes = self._start()
            ready = [w for w, out in enumerate(outcomes) if isinstance(out, tuple) and out[0]]
            starts = self._results(outcomes)
        except BaseException:
            self.closed = True
            self._shutdown(ready)
            raise
        self.observation_space, self.action_space = starts[0][0], starts[0][1]
        self._workers = [
            RayWorkerInfo(node, pid, range(group[0], group[-1] + 1))
            for (_, _, node, pid), group in zip(starts, self._groups, strict=True)
        ]

    def _new_actor(self, w: int) -> Any:
        """A new actor for worker ``w``, building its sub-envs."""
        group = self._groups[w]
        args = (self._payloads[w], group[0], len(group), self.autoreset, self.native_slices)
        return self._actor_class.remote(*args)

    def _start(self) -> list[Any]:
        """Every worker's ``start`` outcome (as ``_get``), waiting ``start_timeout`` for them."""
        ray = self._ray
        refs = [actor.run.remote("start", None) for actor in self._actors]
        limit = None if math.isinf(self.start_timeout) else self.start_timeout
        _, pending = ray.wait(refs, num_returns=len(refs), timeout=limit)
        if pending:
            late = [w for w, ref in enumerate(refs) if ref in pending]
            raise TimeoutError(
                f"RayVecEnv: workers {late} did not start within start_timeout="
                f"{self.start_timeout:g} s. Either Ray cannot place them (free resources: "
                f"{ray.available_resources()}; each worker asks for what worker_options "
                "say) or building their sub-envs takes longer (raise start_timeout)."
            )
        return self._get(refs)

    @property
    def workers(self) -> list[RayWorkerInfo]:
        """Each worker's node id, process id and sub-envs, in order."""
        return list(self._workers)

    # -- one round of actor calls -----------------------------------------------------------

    def _submit(self, command: str, payloads: list[Any]) -> list[Any]:
        """Send ``command`` to every worker with its payload (one for all if a single one)."""
        self._check_open()
        self._check_idle(command)
        if self._dead:
            raise self._dead[min(self._dead)]
        try:
            bodies = [dumps(payload) for payload in payloads]
        except Exception as exc:
            raise TypeError(f"Cannot pickle the {command} payload for the workers: {exc}") from exc
        if len(bodies) == 1:
            bodies *= self.num_workers
        pairs = zip(self._actors, bodies, strict=True)
        return [actor.run.remote(command, body) for actor, body in pairs]

    def _get(self, refs: list[Any]) -> list[Any]:
        """Each worker's reply, or the Ray error that stands for it."""
        ray = self._ray
        try:
            return list(ray.get(refs))
        except ray.exceptions.RayError:
            pass
        outcomes: list[Any] = []
        for ref in refs:
            try:
                outcomes.append(ray.get(ref))
            except ray.exceptions.RayError as exc:
                outcomes.append(exc)
        return outcomes

    async def _await(self, refs: list[Any]) -> list[Any]:
        """``_get`` without blocking the running event loop."""
        futures = [asyncio.wrap_future(ref.future()) for ref in refs]
        return list(await asyncio.gather(*futures, return_exceptions=True))

    def _results(self, outcomes: list[Any]) -> list[Any]:
        """Every worker's result; then raise the lowest failed worker's error."""
        results = []
        error: VecEnvWorkerError | None = None
        for w, outcome in enumerate(outcomes):
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, self._ray.exceptions.RayError):
                    raise outcome
                found = self._ray_error(w, outcome)
            elif outcome[0]:
                results.append(outcome[1])
                continue
            else:
                found = VecEnvWorkerError(*outcome[1])
            error = error or found
        if error is not None:
            raise error
        return results

    def _ray_error(self, w: int, exc: BaseException) -> VecEnvWorkerError:
        """The error for worker ``w`` whose call raised ``exc`` in Ray; a lost actor, node or
        reply marks the worker dead."""
        errors = self._ray.exceptions
        lost = (
            errors.RayActorError,
            errors.ObjectLostError,
            errors.ActorUnschedulableError,
            errors.NodeDiedError,
        )
        if isinstance(exc, lost):
            if w not in self._dead:
                message = f"the Ray worker holding {self._held(w)} died"
                self._dead[w] = VecEnvWorkerError(
                    self._groups[w][0], type(exc).__name__, message, str(exc)
                )
            return self._dead[w]
        cause = getattr(exc, "cause", None)
        kind = type(cause if isinstance(cause, BaseException) else exc).__name__
        return VecEnvWorkerError(self._groups[w][0], kind, str(exc), "")

    def _held(self, w: int) -> str:
        """The sub-envs of worker ``w``, in words."""
        group = self._groups[w]
        return f"sub-env {group[0]}" if len(group) == 1 else f"sub-envs {group[0]}-{group[-1]}"

    # -- VecEnv API -------------------------------------------------------------------------

    def _reset_payloads(self, seed: Any, options: Any) -> list[Any]:
        opts = resolve_options(options, self.num_envs)
        if not self.native_slices:
            requests = list(zip(resolve_seeds(seed, self.num_envs), opts, strict=True))
            return [requests[lo:hi] for lo, hi in self._bounds]
        seeds: list[Any]
        if seed is None:
            seeds = [None] * self.num_workers
        elif isinstance(seed, list):
            each = resolve_seeds(seed, self.num_envs)
            seeds = [each[lo:hi] for lo, hi in self._bounds]
        else:
            seeds = make_seed_sequence(check_vector_seed(seed), self.num_workers)
        return [(s, opts[lo:hi]) for s, (lo, hi) in zip(seeds, self._bounds, strict=True)]

    def _reset_result(self, seed: Any, outcomes: list[Any]) -> VecResetResult[Any]:
        batches, parts = self._unpack(self._results(outcomes))
        self._reset_seen(resolve_seeds(seed, self.num_envs), None, batches)
        return VecResetResult(batches, [info for part in parts for info in part[1]])

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset every sub-env and unfreeze them all."""
        self._check_open()
        refs = self._submit("reset", self._reset_payloads(seed, self._whole(options)))
        return self._reset_result(seed, self._get(refs))

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """``reset``, awaiting the workers without blocking the event loop."""
        self._check_open()
        refs = self._submit("reset", self._reset_payloads(seed, self._whole(options)))
        return self._reset_result(seed, await self._await(refs))

    def _whole(self, options: Any) -> Any:
        """``options`` of a reset of every sub-env; a mask selecting only some is refused."""
        mask, rest = split_reset_mask(options, self.num_envs)
        if mask is not None:
            raise ValueError(
                "RayVecEnv resets all its sub-envs: options['reset_mask'] selecting only some "
                "is not supported; reset them all, or use ProcVecEnv for partial resets."
            )
        return rest if isinstance(options, Mapping) and RESET_MASK in options else options

    # -- split stepping ---------------------------------------------------------------------

    def _reorder(self, actions: Any, order: NDArray[np.intp], count: int) -> Any:
        """The rows of ``actions`` in ``order``; a batch stays one for native slices."""
        if self.native_slices:
            return take_rows(self.action_space, actions, order)
        return super()._reorder(actions, order, count)

    def _cut_actions(
        self, actions: Any, spans: list[tuple[int, int]], count: int, whole: bool
    ) -> list[Any]:
        """Each worker's part of ``actions``: a sub-batch for a slice, else a list or rows."""
        if not self.native_slices:
            return super()._cut_actions(actions, spans, count, whole)
        chunks = cut_batch(self.action_space, actions, spans, count)
        if chunks is None:
            raise InvalidAction(actions, self.batch_action_space)
        return list(chunks)

    def _post(self, messages: list[tuple[int, list[int] | None, Any]]) -> list[Any]:
        """Call each worker's ``step``; the handles are the calls' object refs."""
        if self.native_slices and any(positions is not None for _, positions, _ in messages):
            raise ValueError(
                "RayVecEnv.from_native: each worker steps its slice as a whole, so send() "
                f"takes whole slices of sub-envs, {[range(*b) for b in self._bounds]}."
            )
        try:
            bodies = [dumps((positions, chunk)) for _, positions, chunk in messages]
        except Exception as exc:
            raise TypeError(f"Cannot pickle the step payload for the workers: {exc}") from exc
        pairs = zip(messages, bodies, strict=True)
        return [self._actors[w].run.remote("step", body) for (w, _, _), body in pairs]

    def _wait(self, workers: list[int], timeout: float | None) -> list[int]:
        """The ``workers`` whose head call has finished."""
        ray = self._ray
        heads = {self._queues[w][0].handle: w for w in workers}
        refs = list(heads)
        done, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if done and len(refs) > 1:
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        return [heads[ref] for ref in done]

    def _take(self, w: int, sent: Sent) -> Outcome:
        """Worker ``w``'s reply to ``sent``, its observations in arrays of this process."""
        outcome = self._get([sent.handle])[0]
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, self._ray.exceptions.RayError):
                raise outcome
            error = self._ray_error(w, outcome)
            return ("dead" if w in self._dead else "error"), error
        if not outcome[0]:
            return "error", VecEnvWorkerError(*outcome[1])
        batch, packed = outcome[1]
        part = pickle.loads(packed)
        # arrays in Ray's object store are copied out
        batch = part[0] if batch is None else join_batches(self.observation_space, [batch])
        return "ok", VecStepResult(batch, part[1], part[2], part[3], part[4], sent.ids)

    def _kill(self, w: int) -> None:
        """Kill worker ``w``'s actor."""
        with contextlib.suppress(Exception):
            self._ray.kill(self._actors[w], no_restart=True)
        self._dead.setdefault(
            w,
            VecEnvWorkerError(
                self._groups[w][0],
                "RayActorError",
                f"the Ray worker holding {self._held(w)} was killed",
                "",
            ),
        )

    def _rebuild(self, w: int, seeds: list[int]) -> list[tuple[Any, dict[str, Any]]]:
        """Start a new actor for worker ``w`` and reset its sub-envs with ``seeds`` (a native
        slice with the first)."""
        self._kill(w)
        self._actors[w] = self._new_actor(w)
        self._dead.pop(w, None)
        limit = None if math.isinf(self.start_timeout) else self.start_timeout
        _, _, node, pid = self._call(w, "start", None, limit)
        self._workers[w] = RayWorkerInfo(node, pid, self._workers[w].ranks)
        payload: Any = [(seed, None) for seed in seeds]
        if self.native_slices:
            payload = (seeds[0], None)
        batches, parts = self._unpack([self._call(w, "reset", dumps(payload), self.step_timeout)])
        return list(zip(iterate(self.observation_space, batches), parts[0][1], strict=True))

    def _call(self, w: int, command: str, body: bytes | None, limit: float | None) -> Any:
        """Worker ``w``'s result of ``command`` within ``limit`` seconds (None: no limit);
        ``VecEnvWorkerError`` when it fails, dies or is late."""
        ref = self._actors[w].run.remote(command, body)
        done, _ = self._ray.wait([ref], timeout=limit)
        if not done:
            text = f"the rebuilt worker did not answer {command} within {limit:g} s"
            raise VecEnvWorkerError(self._groups[w][0], "TimeoutError", text, "")
        outcome = self._get([ref])[0]
        if isinstance(outcome, BaseException):
            raise self._ray_error(w, outcome)
        if not outcome[0]:
            raise VecEnvWorkerError(*outcome[1])
        return outcome[1]

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """``step``, awaiting the workers without blocking the event loop."""
        self._check_idle("step")
        self.send(actions)
        refs = [sent.handle for queue in self._queues for sent in queue]
        try:  # past step_timeout, the rest (killing the late workers) is step()'s
            await asyncio.wait_for(self._await(refs), self.step_timeout)
        except TimeoutError:
            pass
        except BaseException:
            self._abandon()
            raise
        return self._gather_step()

    def _unpack(self, results: list[tuple[Any, bytes]]) -> tuple[Any, list[Any]]:
        """The joined observation batch and each worker's unpickled reply, from their
        ``(batch or None, pickle of (batch or None, ...))``."""
        parts = [pickle.loads(packed) for _, packed in results]
        pairs = zip(results, parts, strict=True)
        batches = [part[0] if batch is None else batch for (batch, _), part in pairs]
        return join_batches(self.observation_space, batches), parts

    @staticmethod
    def _joined(results: list[bytes]) -> list[Any]:
        """The workers' pickled lists, unpickled and joined."""
        return [item for packed in results for item in pickle.loads(packed)]

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of every sub-env, looked up through its wrapper stack."""
        return self._joined(self._results(self._get(self._submit("get_attr", [name]))))

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name`` on every sub-env: one value for all or a list of ``num_envs`` values.

        A native slice is given the one value itself, or its part of the list.
        """
        if self.native_slices and not isinstance(values, list):
            payloads: list[Any] = [(name, values)]
        else:
            per_env = per_env_values(name, values, self.num_envs)
            payloads = [(name, per_env[lo:hi]) for lo, hi in self._bounds]
        self._results(self._get(self._submit("set_attr", payloads)))

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` on every sub-env (non-callable attributes are returned)."""
        refs = self._submit("call", [(name, args, kwargs)])
        return self._joined(self._results(self._get(refs)))

    # -- shutdown ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close the sub-envs, kill the actors, and leave Ray; then raise the earliest failure.

        Idempotent.
        """
        if self.closed:
            return
        self.closed = True
        error = self._shutdown([w for w in range(self.num_workers) if w not in self._dead])
        if error is not None:
            raise error

    def _shutdown(self, live: list[int]) -> VecEnvWorkerError | None:
        """Ask workers ``live`` to close their sub-envs, kill every actor, leave Ray; return
        the first failure."""
        first = None
        try:
            if live and self._ray.is_initialized():
                first = self._close_workers(live)
        finally:
            for actor in self._actors:
                with contextlib.suppress(Exception):
                    self._ray.kill(actor, no_restart=True)
            if self._owns_ray:
                self._owns_ray = False
                leave(self._ray)
        return first

    def _close_workers(self, live: list[int]) -> VecEnvWorkerError | None:
        """Have workers ``live`` close their sub-envs within ``close_timeout``; 1st failure."""
        ray = self._ray
        refs = [self._actors[w].run.remote("close", None) for w in live]
        limit = None if math.isinf(self.close_timeout) else self.close_timeout
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=limit)
        first: VecEnvWorkerError | None = None
        for w, ref in zip(live, refs, strict=True):
            if ref not in done:
                warnings.warn(
                    f"Worker {w} ({self._held(w)}) did not close its sub-envs within "
                    f"close_timeout={self.close_timeout:g} s: its actor was killed.",
                    RuntimeWarning,
                    stacklevel=4,
                )
                continue
            outcome = self._get([ref])[0]
            if isinstance(outcome, BaseException):
                error = self._ray_error(w, outcome)
                if self._restarter is not None:  # restarting, a death is healed, not reported
                    continue
            elif not outcome[0]:
                error = VecEnvWorkerError(*outcome[1])
            else:
                continue
            first = first or error
        return first

    def __del__(self) -> None:
        if self.closed or not getattr(self, "_actors", None):
            return
        self.closed = True
        with contextlib.suppress(Exception):  # e.g. at interpreter shutdown
            self._shutdown([])
