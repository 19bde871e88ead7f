"""``check_vector_backends`` on small envs that conform or break the contract on purpose."""

from __future__ import annotations

import os
import sys
from typing import Any

import cloudpickle
import numpy as np
import pytest

import sekai
from sekai.testing import check_vector_backends
from sekai.testing.vector_backends import _resolve_backends
from sekai.vector import NativeVecEnv

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # for the Ray workers
DRIVER = os.getpid()


class Walk(sekai.Env):
    """A random walk; ``bias`` shifts its rewards (to make backends disagree)."""

    bias = 0.0

    def __init__(self) -> None:
        self.observation_space = sekai.Box(-100.0, 100.0, shape=(1,))
        self.action_space = sekai.Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self._set_rng(seed)
        self.x = 0.0
        return sekai.ResetResult(np.array([self.x], np.float32), {"x": self.x})

    def step(self, action: Any) -> Any:
        self.x += float(self.rng.normal()) + int(action)
        obs = np.array([self.x], np.float32)
        return sekai.StepResult(obs, self.x + self.bias, abs(self.x) > 3, False, {"x": self.x})


class Biased(Walk):
    bias = 1.0


class RemoteBiased(Walk):
    """Biased in every process but this one."""

    @property
    def bias(self) -> float:  # type: ignore[override]
        return float(os.getpid() != DRIVER)


class WalkVecEnv(NativeVecEnv):
    """Native Walk; ``broken`` keeps reporting rewards for frozen sub-envs."""

    broken = False

    def __init__(self, num_envs: int, *, autoreset: bool = True) -> None:
        super().__init__(
            num_envs, sekai.Box(-100.0, 100.0, shape=(1,)), sekai.Discrete(2), autoreset=autoreset
        )
        self.x = np.zeros(num_envs)

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.x[indices] = 0.0

    def _reset_infos(self, indices: Any) -> Any:
        return {"x": self.x[indices].copy()}

    def _observe(self) -> Any:
        return self.x[:, None].astype(np.float32)

    def _step(self, actions: Any) -> Any:
        self.x += self.rng.normal(size=self.num_envs) + np.asarray(actions)
        done = np.abs(self.x) > 3
        return self.x.copy(), done, np.zeros(self.num_envs, bool), {"x": self.x.copy()}


class LeakyWalkVecEnv(WalkVecEnv):
    """Breaks the freezing contract: frozen sub-envs keep their info."""

    def step(self, actions: Any) -> Any:
        result = super().step(actions)
        infos = [dict(info) or {"x": 0.0} for info in result.infos]
        return type(result)(
            result.observations, result.rewards, result.terminated, result.truncated, infos
        )


class SteadyVecEnv(WalkVecEnv):
    """Draws nothing from its generator and ignores the actions: its rollouts are the same
    whatever the seed."""

    def _step(self, actions: Any) -> Any:
        self.x += 0.75
        done = np.abs(self.x) > 3
        return self.x.copy(), done, np.zeros(self.num_envs, bool), {"x": self.x.copy()}


class BadInfoVecEnv(WalkVecEnv):
    def _step(self, actions: Any) -> Any:
        rewards, done, truncated, info = super()._step(actions)
        return rewards, done, truncated, {"y": info["x"]}


def test_checker_accepts_a_conforming_factory_and_native_class() -> None:
    assert check_vector_backends(Walk, native=WalkVecEnv, proc_kwargs={"num_workers": 1}) == []


def test_checker_reports_value_differences_between_backends() -> None:
    calls = iter([Walk, Walk, Walk, Walk, Biased, Walk])  # sync's three, then async's

    def factory() -> sekai.Env:
        return next(calls)()

    problems = check_vector_backends(factory, backends=("sync", "async"), autoreset=True)
    assert len(problems) == 1
    assert problems[0].startswith("[sync vs async, autoreset=True] step #1.1: rewards: ")


def test_checker_compares_native_structure_and_contract() -> None:
    problems = check_vector_backends(
        Walk, native=BadInfoVecEnv, backends=("sync", "native"), autoreset=True
    )
    assert len(problems) == 1
    assert problems[0].startswith("[sync vs native (structure), autoreset=True] ")
    assert "keys ['x'] vs ['y']" in problems[0]
    problems = check_vector_backends(
        Walk, native=LeakyWalkVecEnv, backends=("native",), autoreset=False
    )
    assert len(problems) == 1 and "frozen sub-env" in problems[0]


def test_checker_compares_a_native_env_whose_rollouts_ignore_the_seed_value_for_value() -> None:
    # A random native env is compared in structure only: its values differ from sync's.
    assert check_vector_backends(Walk, native=WalkVecEnv, backends=("sync", "native")) == []
    # One whose rollouts do not depend on the seed is compared value for value.
    for autoreset in (True, False):
        problems = check_vector_backends(
            Walk, native=SteadyVecEnv, backends=("sync", "native"), autoreset=autoreset
        )
        assert len(problems) == 1
        assert problems[0].startswith(f"[sync vs native, autoreset={autoreset}] step #1.1: ")


def test_checker_reports_exceptions_and_rejects_bad_arguments() -> None:
    def broken() -> sekai.Env:
        raise RuntimeError("cannot build")

    problems = check_vector_backends(broken, backends=("sync",), autoreset=False)
    assert problems == ["[sync, autoreset=False] raised RuntimeError: cannot build"]
    with pytest.raises(ValueError, match="unknown backends"):
        check_vector_backends(Walk, backends=("gpu",))
    with pytest.raises(ValueError, match="native"):
        check_vector_backends(Walk, backends=("native",))
    with pytest.raises(ValueError, match="native"):
        check_vector_backends("CartPole-v1", backends=("native",))


@pytest.mark.usefixtures("local_ray")
def test_checker_runs_ray_while_connected_and_compares_native_slices_in_structure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ray = pytest.importorskip("ray")
    local = ["sync", "async", "proc", "proc_no_shm"]
    assert _resolve_backends(Walk, None, None) == [*local, "ray"]
    with monkeypatch.context() as patch:
        patch.setattr(ray, "is_initialized", lambda: False)  # imported, not connected
        assert _resolve_backends(Walk, None, None) == local
        patch.delitem(sys.modules, "ray")  # not even imported
        assert _resolve_backends(Walk, None, None) == local
    kwargs: dict[str, Any] = {"backends": ("sync", "ray"), "ray_kwargs": {"num_workers": 2}}
    assert check_vector_backends(Walk, **kwargs) == []
    problems = check_vector_backends(RemoteBiased, autoreset=True, **kwargs)
    assert len(problems) == 1
    assert problems[0].startswith("[sync vs ray, autoreset=True] step #1.1: rewards: ")
    cut = {"max_episode_steps": 5}
    assert check_vector_backends("Portfolio-v0", n_steps=8, env_kwargs=cut, **kwargs) == []
