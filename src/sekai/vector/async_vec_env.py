"""``AsyncVecEnv``: sub-envs stepped concurrently with ``asyncio.gather`` in this process."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.result import StepResult, merge_autoreset
from sekai.vector.partial_reset import split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import (
    InProcessVecEnv,
    close_envs,
    frozen_step,
    needs_autoreset,
    resolve_options,
    resolve_seeds,
)

__all__ = ["AsyncVecEnv"]

_T = TypeVar("_T")

_RUNNING_LOOP_ERROR = (
    "AsyncVecEnv.{method}() cannot run inside a running event loop; "
    "use 'await vec.async_{method}(...)' instead."
)


async def _gather(calls: Iterable[Awaitable[_T]]) -> list[_T]:
    """Await every call; once all are done, raise the first exception in sub-env order."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return cast("list[_T]", results)


def _cancel_pending(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks an interrupted run left on ``loop`` and let them finish."""
    pending = asyncio.all_tasks(loop)
    if not pending:
        return
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


class AsyncVecEnv(InProcessVecEnv):
    """Runs the sub-envs' ``async_step`` / ``async_reset`` concurrently.

    ``step()`` and ``reset()`` run them on a private event loop; inside a running loop, await
    ``async_step()`` / ``async_reset()`` instead.
    """

    def __init__(self, env_fns: Iterable[Callable[[], Any]], *, autoreset: bool = True) -> None:
        self._build(env_fns, autoreset)
        self._loop: asyncio.AbstractEventLoop | None = None

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Reset every sub-env concurrently and unfreeze them all (only the selected ones
        with a ``reset_mask`` in ``options``)."""
        self._check_open()
        self._check_idle("reset")
        mask, options = split_reset_mask(options, self.num_envs)
        if mask is not None:
            indices, seeds = self._partial_requests(mask, seed, options)
            partial = await _gather(
                self.envs[i].async_reset(seed=s, options=options)
                for i, s in zip(indices, seeds, strict=True)
            )
            return self._partial_result(indices, partial)
        seeds = resolve_seeds(seed, self.num_envs)
        opts = resolve_options(options, self.num_envs)
        results = await _gather(
            env.async_reset(seed=s, options=o)
            for env, s, o in zip(self.envs, seeds, opts, strict=True)
        )
        self._frozen = [None] * self.num_envs
        observed = self._observed = [r.observation for r in results]
        return VecResetResult(self._batch_observations(observed), [r.info for r in results])

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env concurrently, resetting (or freezing) finished ones."""
        self._check_open()
        self._check_idle("step")
        acts = self._split_actions(actions)
        results = await _gather(
            self._step_one(i, env, action)
            for i, (env, action) in enumerate(zip(self.envs, acts, strict=True))
        )
        self._observed = [r.observation for r in results]
        return self._batch_steps(results)

    def _step_subset(self, ids: NDArray[np.intp], actions: Any) -> VecStepResult[Any]:
        """Step sub-envs ``ids`` concurrently, on the private event loop."""
        self._check_no_running_loop("send")
        acts = self._split_actions(actions, len(ids))
        indices = ids.tolist()
        calls = (self._step_one(i, self.envs[i], a) for i, a in zip(indices, acts, strict=True))
        results = self._run(_gather(calls))
        self._keep_observed(ids, [r.observation for r in results])
        return self._batch_steps(results, ids)

    async def _step_one(self, index: int, env: Any, action: Any) -> StepResult[Any]:
        final = self._frozen[index]
        if final is not None:
            return frozen_step(final)
        result: StepResult[Any] = await env.async_step(action)
        if needs_autoreset(result):
            if self.autoreset:
                return merge_autoreset(result, await env.async_reset())
            self._frozen[index] = result
        return result

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[Any]:
        """Run ``async_reset`` on the private event loop."""
        self._check_open()
        self._check_no_running_loop("reset")
        return self._run(self.async_reset(seed=seed, options=options))

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Run ``async_step`` on the private event loop."""
        self._check_open()
        self._check_no_running_loop("step")
        return self._run(self.async_step(actions))

    @staticmethod
    def _check_no_running_loop(method: str) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        raise RuntimeError(_RUNNING_LOOP_ERROR.format(method=method))

    def _run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        try:
            return self._loop.run_until_complete(coro)
        except BaseException:
            _cancel_pending(self._loop)
            raise

    def close(self) -> None:
        """Close every sub-env, then the private event loop; idempotent."""
        if self.closed:
            return
        self.closed = True
        try:
            close_envs(self.envs)
        finally:
            loop, self._loop = self._loop, None
            if loop is not None:
                _cancel_pending(loop)
                loop.close()
