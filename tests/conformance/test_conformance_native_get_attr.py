"""A native vector env's ``get_attr`` answers every attribute its single env shows.

For every registered id with a vector entry point, and for the classic-control native twins,
each public (no leading underscore) non-callable attribute in ``dir()`` of the single env
(built the same way, unwrapped) is answered by ``get_attr`` of the native vector env as a list
of ``num_envs`` values: before the first reset for the attributes the single env can read
then, and after a reset for all of them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

import sekai
from sekai.envs.classic_control import (
    AcrobotEnv,
    AcrobotVecEnv,
    CartPoleEnv,
    CartPoleVecEnv,
    ContinuousMountainCarEnv,
    ContinuousMountainCarVecEnv,
    MountainCarEnv,
    MountainCarVecEnv,
    PendulumEnv,
    PendulumVecEnv,
)
from sekai.error import ResetRequired
from sekai.vector import NativeVecEnv

N = 3
Builders = tuple[Callable[[], sekai.Env[Any, Any]], Callable[[], NativeVecEnv[Any, Any]]]


def _registered(env_id: str) -> Builders:
    def vec() -> NativeVecEnv[Any, Any]:
        built = sekai.make_vec(env_id, N, vectorization_mode="native")
        assert isinstance(built, NativeVecEnv)
        return built

    return (lambda: sekai.make(env_id).unwrapped), vec


CLASSIC: list[tuple[type[sekai.Env[Any, Any]], Callable[[int], NativeVecEnv[Any, Any]]]] = [
    (AcrobotEnv, AcrobotVecEnv),
    (CartPoleEnv, CartPoleVecEnv),
    (ContinuousMountainCarEnv, ContinuousMountainCarVecEnv),
    (MountainCarEnv, MountainCarVecEnv),
    (PendulumEnv, PendulumVecEnv),
]
NATIVE_IDS = sorted(spec.id for spec in sekai.all_specs() if spec.vector_entry_point is not None)
CASES: dict[str, Builders] = {env_id: _registered(env_id) for env_id in NATIVE_IDS}
CASES.update({single.__name__: (single, functools.partial(vec, N)) for single, vec in CLASSIC})


def test_every_finance_native_env_is_covered() -> None:
    assert NATIVE_IDS == [
        "Market-v0",
        "MarketDiscrete-v0",
        "MarketMaking-v0",
        "MarketMaking-v1",
        "OptimalExecution-v0",
        "OptimalExecution-v1",
        "Portfolio-v0",
        "Portfolio-v1",
        "Trading-v0",
        "Trading-v1",
    ]


def _readable(env: sekai.Env[Any, Any]) -> list[str]:
    """The public non-callable attributes of ``env`` that it can read now."""
    names = []
    for name in dir(env):
        if name.startswith("_"):
            continue
        try:
            value = getattr(env, name)
        except ResetRequired:
            continue  # an attribute of the current episode, and there is none yet
        if not callable(value):
            names.append(name)
    return names


@pytest.mark.parametrize("started", [False, True], ids=["fresh", "reset"])
@pytest.mark.parametrize("case", list(CASES))
def test_get_attr_answers_every_attribute_of_the_single_env(case: str, started: bool) -> None:
    build_single, build_vec = CASES[case]
    single, vec = build_single(), build_vec()
    if started:
        single.reset(seed=0)
        vec.reset(seed=0)
    names = _readable(single)
    assert "observation_space" in names and "np_random" not in names
    unanswered = {}
    for name in names:
        try:
            values = vec.get_attr(name)
        except Exception as error:  # every failure is reported, by name
            unanswered[name] = f"{type(error).__name__}: {error}"
            continue
        if not (isinstance(values, list) and len(values) == N):
            unanswered[name] = f"answered {values!r}"
    vec.close()
    assert unanswered == {}
