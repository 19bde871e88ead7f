"""Small deterministic envs shared by the wrapper tests."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, MultiDiscrete, Sequence, Space

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


class CountEnv(Env[NDArray[np.float32], Any]):
    """Observation ``[t, -t]`` (float32); reward ``t``; terminates after ``length`` steps.

    Records every action it receives; counts calls made through its genuine async methods.
    """

    def __init__(self, length: int = 5, action_space: Space[Any] | None = None) -> None:
        self.observation_space = Box(-100.0, 100.0, (2,), np.float32)
        self.action_space = Discrete(3) if action_space is None else action_space
        self.length = length
        self.t = 0
        self.actions: list[Any] = []
        self.async_calls = 0

    def _obs(self) -> NDArray[np.float32]:
        return np.array([self.t, -self.t], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self._obs(), {"reset": True})

    def step(self, action: Any) -> Any:
        self.actions.append(action)
        self.t += 1
        return StepResult(self._obs(), float(self.t), self.t >= self.length, False, {"t": self.t})

    async def async_reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self.async_calls += 1
        return self.reset(seed=seed, options=options)

    async def async_step(self, action: Any) -> Any:
        self.async_calls += 1
        return self.step(action)


class DictEnv(Env[dict[str, Any], int]):
    """Dict observation ``{"pos": [t, t/2] float32, "n": t}``; ends after ``length`` steps."""

    def __init__(self, length: int = 6) -> None:
        self.observation_space = Dict(
            {"pos": Box(-10.0, 10.0, (2,), np.float32), "n": Discrete(length + 1)}
        )
        self.action_space = Discrete(2)
        self.length = length
        self.t = 0

    def _obs(self) -> dict[str, Any]:
        return {"pos": np.array([self.t, self.t / 2], dtype=np.float32), "n": self.t}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self._obs(), {})

    def step(self, action: Any) -> Any:
        self.t += 1
        return StepResult(self._obs(), 1.0, self.t >= self.length, False, {})


class SequenceEnv(Env[Any, int]):
    """``{"items": Sequence(Box(0, 10, (2,)), max_length=4), "x": Box}``: ``t % 5`` items."""

    def __init__(self, stack: bool = False) -> None:
        self.observation_space = Dict(
            {
                "items": Sequence(Box(0.0, 10.0, (2,), np.float32), max_length=4, stack=stack),
                "x": Box(-1.0, 1.0, (1,), np.float32),
            }
        )
        self.action_space = Discrete(2)
        self.stack = stack
        self.t = 0

    def _obs(self) -> dict[str, Any]:
        n = self.t % 5
        rows = [np.array([i, self.t % 10], dtype=np.float32) for i in range(n)]
        items: Any = self.observation_space["items"]
        return {"items": items.pack(rows), "x": np.zeros(1, np.float32)}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self._obs(), {})

    def step(self, action: Any) -> Any:
        self.t += 1
        return StepResult(self._obs(), 0.0, self.t >= 12, False, {})


class MaskedDiscreteEnv(CountEnv):
    """Discrete(3) actions; action 1 is allowed only on even steps."""

    def action_mask(self) -> NDArray[np.int8]:
        return np.array([1, 1 - self.t % 2, 1], dtype=np.int8)


class MaskedMultiDiscreteEnv(CountEnv):
    """MultiDiscrete([2, 3]) actions with a tuple mask."""

    def __init__(self) -> None:
        super().__init__(action_space=MultiDiscrete([2, 3]))

    def action_mask(self) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        return (np.array([1, 0], np.int8), np.array([0, 1, 1], np.int8))


class MaskedBoxEnv(CountEnv):
    """Box(1, 3, (3,)) actions (zero() is all ones); component 1 masked; mask settable."""

    def __init__(self) -> None:
        super().__init__(action_space=Box(np.array([1.0, 1.0, -3.0]), 3.0, (3,), np.float32))
        self.mask: Any = np.array([1, 0, 1], dtype=np.int8)

    def action_mask(self) -> Any:
        return self.mask
