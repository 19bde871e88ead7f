"""The Drift env and its native vector version from the vector-environments guide."""

from __future__ import annotations

from typing import Any

import numpy as np

import sekai
from sekai.vector import NativeVecEnv


class Drift(sekai.Env):
    """Push a drifting point back towards zero."""

    def __init__(self) -> None:
        self.observation_space = sekai.Box(-10.0, 10.0, shape=(1,))
        self.action_space = sekai.Discrete(2)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.x = self.rng.normal()
        if options and "x" in options:
            self.x = float(options["x"])
        return sekai.ResetResult(np.array([self.x], np.float32), {})

    def step(self, action: Any) -> Any:
        self.x += (0.5 if action == 1 else -0.5) + self.rng.normal(0.0, 0.1)
        obs = np.array([np.clip(self.x, -10, 10)], np.float32)
        return sekai.StepResult(obs, -abs(self.x), abs(self.x) > 5, False, {})


class DriftVecEnv(NativeVecEnv):
    """num_envs copies of Drift, stepped together with array operations."""

    def __init__(
        self, num_envs: int, *, max_episode_steps: int | None = None, autoreset: bool = True
    ) -> None:
        super().__init__(
            num_envs,
            sekai.Box(-10.0, 10.0, shape=(1,)),
            sekai.Discrete(2),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.x = np.zeros(self.num_envs)

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.x[indices] = self.rng.normal(size=len(indices))
        for i, opts in zip(indices, options, strict=True):
            if opts and "x" in opts:
                self.x[i] = float(opts["x"])

    def _observe(self) -> Any:
        return np.clip(self.x, -10, 10)[:, None].astype(np.float32)

    def _step(self, actions: Any) -> Any:
        push = np.where(np.asarray(actions) == 1, 0.5, -0.5)
        self.x += push + self.rng.normal(0.0, 0.1, size=self.num_envs)
        terminated = np.abs(self.x) > 5
        return -np.abs(self.x), terminated, np.zeros(self.num_envs, bool), {}


class FrozenAwareDrift(DriftVecEnv):
    """DriftVecEnv that leaves frozen sub-envs untouched and reports per-env info arrays."""

    def _step(self, actions: Any) -> Any:
        push = np.where(np.asarray(actions) == 1, 0.5, -0.5)
        noise = self.rng.normal(0.0, 0.1, size=self.num_envs)
        self.x += np.where(self.frozen, 0.0, push + noise)
        terminated = np.abs(self.x) > 5
        info = {"x": self.x.copy(), "pair": np.stack([self.x, -self.x], axis=1)}
        return -np.abs(self.x), terminated, np.zeros(self.num_envs, bool), info

    def _reset_infos(self, indices: Any) -> Any:
        return {"start": self.x[indices].copy()}


class Tracked(sekai.Wrapper):
    """Counts the steps, resets and closes of the env it wraps; ``fail_close`` makes close raise."""

    def __init__(self, env: sekai.Env, fail_close: str | None = None) -> None:
        super().__init__(env)
        self.steps = 0
        self.resets = 0
        self.closes = 0
        self.fail_close = fail_close

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self.resets += 1
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        self.steps += 1
        return self.env.step(action)

    def close(self) -> None:
        self.closes += 1
        if self.fail_close:
            raise RuntimeError(self.fail_close)
