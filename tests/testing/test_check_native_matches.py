"""``check_native_matches``: native vector envs step for step with their single envs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.testing import check_native_matches

pytest.importorskip("pandas")


def _history(n: int = 200, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, n)))


TRADING: dict[str, Any] = {
    "prices": _history(),
    "episode_length": 20,
    "lookback": 5,
    "sampler": "sequential",
}


def _single(env_id: str, **kwargs: Any) -> Callable[[], sekai.Env]:
    return lambda: sekai.make(env_id, **kwargs)


def _native(env_id: str, **kwargs: Any) -> Callable[..., sekai.VecEnv]:
    def build(num_envs: int, autoreset: bool) -> sekai.VecEnv:
        vector_kwargs = {"autoreset": autoreset}
        return sekai.make_vec(
            env_id, num_envs, vectorization_mode="native", vector_kwargs=vector_kwargs, **kwargs
        )

    return build


def test_trading_matches_single_envs_on_a_fixed_history() -> None:
    """Four sub-envs from four start points, through several episode ends."""
    rng = np.random.default_rng(1)
    problems = check_native_matches(
        _single("Trading-v0", **TRADING),
        _native("Trading-v0", **TRADING),
        num_envs=4,
        steps=70,
        options=[{"start": 5 + 7 * i} for i in range(4)],
        actions=lambda k: rng.integers(0, 3, 4),
    )
    assert problems == []


def test_market_making_with_one_sub_env_matches_the_single_env() -> None:
    """With one sub-env the batched draws are the single env's draws."""
    problems = check_native_matches(
        _single("MarketMaking-v0", n_steps=60),
        _native("MarketMaking-v0", n_steps=60),
        num_envs=1,
        steps=130,
        seed=7,
    )
    assert problems == []


def test_differences_are_reported_per_autoreset_mode() -> None:
    costly = _single("Trading-v0", transaction_cost=0.01, **TRADING)
    problems = check_native_matches(costly, _native("Trading-v0", **TRADING), num_envs=2, steps=5)
    assert [p.split(" step #1: rewards[0]: ")[0] for p in problems] == [
        "[autoreset=True]",
        "[autoreset=False]",
    ]
    problems = check_native_matches(
        _single("MarketMaking-v0"),
        _native("MarketMaking-v0"),
        num_envs=3,
        steps=5,
        autoreset=True,
    )
    assert len(problems) == 1 and problems[0].startswith("[autoreset=True] step #1: ")


def test_tolerances_loosen_float_comparisons() -> None:
    def drifting(num_envs: int, autoreset: bool) -> sekai.VecEnv:
        return sekai.VecTransformReward(
            _native("Trading-v0", **TRADING)(num_envs, autoreset), lambda r: r * (1 + 1e-14)
        )

    single = _single("Trading-v0", **TRADING)
    args: dict[str, Any] = {"num_envs": 2, "steps": 10, "autoreset": True}
    assert check_native_matches(single, drifting, **args) != []
    assert check_native_matches(single, drifting, rtol=1e-12, atol=1e-15, **args) == []


def test_spaces_and_exceptions_are_reported() -> None:
    wider = _single("Trading-v0", **{**TRADING, "lookback": 6})
    problems = check_native_matches(wider, _native("Trading-v0", **TRADING), num_envs=1, steps=1)
    assert problems[0].startswith("[autoreset=True] spaces: observation_space ")

    def broken(num_envs: int, autoreset: bool) -> sekai.VecEnv:
        raise RuntimeError("cannot build")

    problems = check_native_matches(
        _single("Trading-v0"), broken, num_envs=1, steps=1, autoreset=False
    )
    assert problems == ["[autoreset=False] building the envs: raised RuntimeError: cannot build"]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"num_envs": 0, "steps": 1}, ValueError),
        ({"num_envs": 1, "steps": 1.5}, TypeError),
        ({"num_envs": 1, "steps": 0.0}, ValueError),
        ({"num_envs": True, "steps": 1}, TypeError),
        ({"num_envs": 1, "steps": 1, "rtol": -1.0}, ValueError),
    ],
)
def test_bad_arguments_raise(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        check_native_matches(_single("Trading-v0"), _native("Trading-v0"), **kwargs)
