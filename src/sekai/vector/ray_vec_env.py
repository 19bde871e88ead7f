"""``RayVecEnv``: sub-envs stepped in parallel by Ray actors, on this machine or a cluster."""

from __future__ import annotations

import asyncio
import contextlib
import math
import pickle
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.error import InvalidAction, VecEnvWorkerError
from sekai.spaces.utils import iterate
from sekai.utils.seeding import make_seed_sequence
from sekai.utils.validation import check_int
from sekai.vector._partial import cut_batch, join_batches, take_rows
from sekai.vector.partial_reset import RESET_MASK
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv, check_vector_seed, resolve_options
from sekai.vector.workers.exchange import Outcome
from sekai.vector.workers.options import WorkerOptions, check_seconds
from sekai.vector.workers.pickling import dumps_code, pickled
from sekai.vector.workers.pool import Sent, WorkerPoolVecEnv
from sekai.vector.workers.ray_session import check_worker_options, import_ray, join, leave
from sekai.vector.workers.ray_worker import RayWorker

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
    ``ProcVecEnv``: split stepping, step timeouts, and actors rebuilt after a failure; so does
    a ``reset_mask`` in the options of ``reset``.
    """

    native_slices: bool = False
    """Whether each worker runs a native vector env of its slice (``from_native``)."""
    _owns_ray: bool = False
    _stopped = "its actor was killed"

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
        options = WorkerOptions(
            num_workers, batch_size, step_timeout, on_worker_failure, max_restarts, close_timeout
        )

        def payloads(groups: list[list[int]]) -> list[bytes]:
            factories = [[fns[i] for i in group] for group in groups]
            return pickled(factories, "the env factories", dumps_code)

        self._open(len(fns), payloads, autoreset, options, address, worker_options, start_timeout)

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
        its part. A ``reset_mask`` gives each slice its part. ``get_attr`` / ``set_attr`` /
        ``call`` follow each slice's native rules; an error names the first sub-env of the
        slice that raised it. A slice steps as a whole: ``send`` takes whole slices.
        """
        if not callable(make_slice):
            raise TypeError(f"make_slice must be callable, got {make_slice!r}.")
        n = check_int(num_envs, "RayVecEnv.from_native: num_envs", low=1)
        payload = pickled([make_slice], "make_slice", dumps_code)[0]
        options = WorkerOptions(
            num_workers, batch_size, step_timeout, on_worker_failure, max_restarts, close_timeout
        )
        vec = cls.__new__(cls)
        vec.native_slices = True
        vec._open(
            n,
            lambda groups: [payload] * len(groups),
            autoreset,
            options,
            address,
            worker_options,
            start_timeout,
        )
        return vec

    def _open(
        self,
        num_envs: int,
        payloads: Callable[[list[list[int]]], list[bytes]],
        autoreset: bool,
        options: WorkerOptions,
        address: str | None,
        worker_options: Mapping[str, Any] | None,
        start_timeout: float,
    ) -> None:
        """Join Ray and start the actors, each on its part of ``payloads(groups)``; take the
        spaces."""
        self._actors: list[Any] = []
        self.num_envs = num_envs
        self.autoreset = bool(autoreset)
        actor_options = check_worker_options(worker_options)
        self.start_timeout = check_seconds(start_timeout, "start_timeout")
        if address is not None and not isinstance(address, str):
            raise TypeError(f"address must be a str or None, got {type(address).__name__}.")
        options.check_for(num_envs, self.autoreset)
        self._ray = ray = import_ray()
        self._owns_ray = join(ray, address)
        try:
            workers = options.num_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        except BaseException:
            self._release(None)
            raise
        self._init_workers(options, min(workers, num_envs))
        try:
            self._actor_class = ray.remote(RayWorker).options(**actor_options)
            self._payloads = payloads(self._groups)
            starts = self._describe_workers()
        except BaseException:
            self.closed = True
            self._shutdown()
            raise
        self.observation_space, self.action_space = starts[0][0], starts[0][1]
        self._workers = [
            RayWorkerInfo(node, pid, range(group[0], group[-1] + 1))
            for (_, _, node, pid), group in zip(starts, self._groups, strict=True)
        ]

    def _describe_workers(self) -> list[Any]:
        """Every worker's description (its first reply), waiting ``start_timeout`` for them all."""
        outcomes, late = self._start_all(self._start_limit())
        if late:
            raise TimeoutError(
                f"RayVecEnv: workers {late} did not start within start_timeout="
                f"{self.start_timeout:g} s. Either Ray cannot place them (free resources: "
                f"{self._ray.available_resources()}; each worker asks for what worker_options "
                "say) or building their sub-envs takes longer (raise start_timeout)."
            )
        return self._results(outcomes)

    def _start_limit(self) -> float | None:
        """``start_timeout``, None for no limit."""
        return None if math.isinf(self.start_timeout) else self.start_timeout

    @property
    def workers(self) -> list[RayWorkerInfo]:
        """Each worker's node id, process id and sub-envs, in order."""
        return list(self._workers)

    # -- transport ----------------------------------------------------------------------------

    def _start(self, w: int) -> Any:
        """A new actor for worker ``w``, building its sub-envs; the handle of its ``describe``."""
        group = self._groups[w]
        args = (self._payloads[w], group[0], len(group), self.autoreset, self.native_slices)
        actor = self._actor_class.remote(*args)
        if w < len(self._actors):  # a rebuilt worker
            self._actors[w] = actor
        else:
            self._actors.append(actor)
        return actor.run.remote("describe", None)

    def _post(self, w: int, command: str, body: bytes | None) -> Any:
        """Call worker ``w``'s actor; the handle is the call's object ref."""
        return self._actors[w].run.remote(command, body)

    def _ready(self, heads: dict[int, Any], timeout: float | None) -> list[int]:
        """The workers of ``heads`` whose call has finished."""
        ray = self._ray
        workers = {ref: w for w, ref in heads.items()}
        refs = list(workers)
        done, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if done and len(refs) > 1:
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        return [workers[ref] for ref in done]

    def _take(self, w: int, handle: Any) -> Outcome:
        """Worker ``w``'s reply to the call ``handle``, a pickled result unpickled."""
        try:
            ok, data = self._ray.get(handle)
        except self._ray.exceptions.RayError as exc:
            error = self._ray_error(w, exc)
            return ("dead" if w in self._dead else "error"), error
        if not ok:
            return "error", VecEnvWorkerError(*data)
        return "ok", pickle.loads(data) if isinstance(data, bytes) else data

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

    def _kill(self, w: int) -> None:
        """Kill worker ``w``'s actor."""
        with contextlib.suppress(Exception):
            self._ray.kill(self._actors[w], no_restart=True)
        text = f"the Ray worker holding {self._held(w)} was killed"
        self._dead.setdefault(w, VecEnvWorkerError(self._groups[w][0], "RayActorError", text, ""))

    def _close_workers(self, deadline: float | None) -> VecEnvWorkerError | None:
        """Close the workers' sub-envs, unless Ray has been shut down meanwhile."""
        if not self._ray.is_initialized():
            return None
        return super()._close_workers(deadline)

    def _release(self, deadline: float | None) -> None:
        """Kill every actor at once and leave Ray."""
        for actor in self._actors:
            with contextlib.suppress(Exception):
                self._ray.kill(actor, no_restart=True)
        if self._owns_ray:
            self._owns_ray = False
            leave(self._ray)

    async def _settled(self, handles: Iterable[Any]) -> None:
        """Return once every call of ``handles`` has finished, without blocking the running
        event loop."""
        futures = [asyncio.wrap_future(ref.future()) for ref in handles]
        await asyncio.gather(*futures, return_exceptions=True)

    # -- resets -------------------------------------------------------------------------------

    def _reset_payloads(
        self, seed: Any, seeds: list[Any], mask: NDArray[np.bool_] | None, options: Any
    ) -> list[Any]:
        """A group's payload as ``WorkerExchange`` makes it; a slice's ``(seed, options)``,
        with its part of the mask."""
        if not self.native_slices:
            return super()._reset_payloads(seed, seeds, mask, options)
        if seed is None:
            parts: list[Any] = [None] * self.num_workers
        elif isinstance(seed, list):
            parts = [seeds[lo:hi] for lo, hi in self._bounds]
        else:
            parts = make_seed_sequence(check_vector_seed(seed), self.num_workers)
        if mask is None:
            opts = resolve_options(options, self.num_envs)
            each: list[Any] = [opts[lo:hi] for lo, hi in self._bounds]
        else:
            each = [{**(options or {}), RESET_MASK: mask[lo:hi]} for lo, hi in self._bounds]
        return list(zip(parts, each, strict=True))

    def _reset_batch(self, results: list[Any]) -> tuple[Any, list[dict[str, Any]]]:
        """The joined batch and the infos of the workers' replies."""
        batch, parts = self._unpack(results)
        return batch, [info for part in parts for info in part[1]]

    async def async_reset(self, *, seed: Any = None, options: Any = None) -> VecResetResult[Any]:
        """``reset``, awaiting the workers without blocking the event loop."""
        handles, seeds, mask = self._reset_post(seed, options)
        await self._settled(handles.values())
        return self._reset_finish(handles, seeds, mask)

    # -- split stepping -----------------------------------------------------------------------

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

    def _post_steps(self, messages: list[tuple[int, list[int] | None, Any]]) -> list[Any]:
        """Post the step messages; a native slice steps whole."""
        if self.native_slices and any(positions is not None for _, positions, _ in messages):
            raise ValueError(
                "RayVecEnv.from_native: each worker steps its slice as a whole, so send() "
                f"takes whole slices of sub-envs, {[range(*b) for b in self._bounds]}."
            )
        return super()._post_steps(messages)

    def _step_result(self, sent: Sent, result: Any) -> VecStepResult[Any]:
        """The step rows, their observations in arrays of this process."""
        batch, packed = result
        part = pickle.loads(packed)
        # arrays in Ray's object store are copied out
        batch = part[0] if batch is None else join_batches(self.observation_space, [batch])
        return VecStepResult(batch, part[1], part[2], part[3], part[4], sent.ids)

    def _rebuild(self, w: int, seeds: list[int]) -> list[tuple[Any, dict[str, Any]]]:
        """Start a new actor for worker ``w`` and reset its sub-envs with ``seeds`` (a native
        slice with the first)."""
        self._kill(w)
        handle = self._start(w)
        self._dead.pop(w, None)
        _, _, node, pid = self._answer(w, handle, "start", self._start_limit())
        self._workers[w] = RayWorkerInfo(node, pid, self._workers[w].ranks)
        payload: Any = [(seed, None) for seed in seeds]
        if self.native_slices:
            payload = (seeds[0], None)
        batches, parts = self._unpack([self._ask(w, "reset", payload, self.step_timeout)])
        return list(zip(iterate(self.observation_space, batches), parts[0][1], strict=True))

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """``step``, awaiting the workers without blocking the event loop."""
        self._check_idle("step")
        self.send(actions)
        handles = [sent.handle for queue in self._queues for sent in queue]
        try:  # past step_timeout, the rest (killing the late workers) is step()'s
            await asyncio.wait_for(self._settled(handles), self.step_timeout)
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

    def _attr_payloads(self, name: str, values: Any) -> list[Any]:
        """A native slice is given the one value itself, or its part of the list."""
        if self.native_slices and not isinstance(values, list):
            return [(name, values)]
        return super()._attr_payloads(name, values)

    def __del__(self) -> None:
        if self.closed or not getattr(self, "_actors", None):
            return
        self.closed = True
        with contextlib.suppress(Exception):  # e.g. at interpreter shutdown
            self._release(None)
