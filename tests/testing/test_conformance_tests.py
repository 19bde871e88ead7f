"""``conformance_tests``: the conformance suite as a pytest test function for any envs."""

from __future__ import annotations

import sys
from typing import Any

import cloudpickle
import numpy as np
import pytest

import sekai
from sekai.testing import CONFORMANCE_CHECKS, conformance_tests

# The Ray workers may belong to a Ray that another test module started without this folder on
# their path: this module's envs travel to them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class Walk(sekai.Env):
    """A random walk that ends when it strays more than 3 from the origin."""

    def __init__(self) -> None:
        self.observation_space = sekai.Box(-100.0, 100.0, shape=(1,))
        self.action_space = sekai.Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self._set_rng(seed)
        self.x = 0.0
        return sekai.ResetResult(np.array([self.x], np.float32), {"x": self.x})

    def step(self, action: Any) -> Any:
        self.x += float(self.rng.normal()) + int(action) - 0.5
        obs = np.array([self.x], np.float32)
        return sekai.StepResult(obs, self.x, abs(self.x) > 3, False, {"x": self.x})


class InPlaceWalk(Walk):
    """Breaks the contract: it returns the same observation array every step."""

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        result = super().reset(seed=seed, options=options)
        self.obs = result.observation
        return sekai.ResetResult(self.obs, result.info)

    def step(self, action: Any) -> Any:
        result = super().step(action)
        self.obs[:] = result.observation
        return sekai.StepResult(self.obs, result.reward, result.terminated, False, result.info)


# The suite on an env factory, as a user's test module runs it.
test_walk = conformance_tests([Walk])


def _params(test: Any) -> list[Any]:
    (mark,) = test.pytestmark
    return list(mark.args[1])


def test_cases_cover_every_check_of_ids_and_the_env_checks_of_factories() -> None:
    ids = [param.id for param in _params(conformance_tests(["Trading-v0", Walk]))]
    assert ids[:4] == [f"Trading-v0-{check}" for check in CONFORMANCE_CHECKS[:4]]
    backends = [i for i in ids if i.startswith("Trading-v0-vector_backends-")]
    assert len(backends) == 12 and "Trading-v0-vector_backends-native-no_autoreset" in backends
    walk = [i for i in ids if i.startswith("Walk-")]
    assert walk[:2] == ["Walk-check_env", "Walk-async"] and len(walk) == 2 + 10
    assert "Walk-vector_backends-native-autoreset" not in walk


def test_a_failing_check_raises_with_its_problems() -> None:
    test = conformance_tests([InPlaceWalk], checks=("check_env",))
    (param,) = _params(test)
    with pytest.raises(AssertionError, match="mutated a previously returned observation"):
        test(*param.values, request=None)  # pytest's request is only used by ray cases


def test_checks_and_envs_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown checks"):
        conformance_tests([Walk], checks=("check_env", "speed"))
    with pytest.raises(TypeError, match="ids or env factories"):
        conformance_tests([42])  # type: ignore[list-item]
