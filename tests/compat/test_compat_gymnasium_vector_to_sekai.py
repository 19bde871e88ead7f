"""``from_gymnasium_vector``: a ``gymnasium.vector.VectorEnv`` as a sekai ``VecEnv``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.error import VecEnvClosed
from sekai.spaces import Discrete
from sekai.vector import SyncVecEnv

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.vector import AutoresetMode  # noqa: E402

from sekai.compat import from_gymnasium, space_to_gymnasium  # noqa: E402
from sekai.compat.gymnasium_vector import (  # noqa: E402
    from_gymnasium_vector,
    vector_infos_to_list,
)


def test_vector_infos_to_list() -> None:
    infos = {
        "a": np.array([1.5, 2.5, 3.5]),
        "_a": np.array([True, False, True]),
        "b": np.array([[1, 2], [3, 4], [5, 6]]),
        "t": np.array(["2024-01-01", "2024-01-02", "2024-01-03"], dtype="datetime64[D]"),
        "episode": {"r": np.array([0.0, 7.0, 0.0]), "_r": np.array([False, True, False])},
        "_episode": np.array([False, True, False]),
        "shared": 7,
    }
    result = vector_infos_to_list(infos, 3)
    assert result[0]["a"] == 1.5 and type(result[0]["a"]) is float
    assert "a" not in result[1] and "episode" not in result[0]
    assert result[1]["episode"] == {"r": 7.0}
    np.testing.assert_array_equal(result[2]["b"], [5, 6])
    assert isinstance(result[0]["t"], np.datetime64)
    assert [r["shared"] for r in result] == [7, 7, 7]
    assert vector_infos_to_list({}, 2) == [{}, {}]


def test_round_trip_on_gymnasium_make_vec() -> None:
    gym_vec = gymnasium.make_vec("CartPole-v1", 4)  # CartPoleVectorEnv: next-step autoreset
    vec = from_gymnasium_vector(gym_vec)
    assert isinstance(vec, sekai.vector.VecEnv)
    assert repr(vec) == "GymnasiumVectorToSekai(num_envs=4)"
    assert vec.num_envs == len(vec) == 4
    assert vec.observation_space == sekai.make("CartPole-v1").observation_space
    assert vec.action_space == Discrete(2)
    assert space_to_gymnasium(vec.observation_space) == gym_vec.single_observation_space
    # it cannot reset single sub-envs, so autoreset falls back to freezing them
    assert vec.autoreset is False and vec.autoreset_mode is AutoresetMode.NEXT_STEP
    with pytest.raises(ValueError, match="cannot reset single sub-envs"):
        from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 2), autoreset=True)
    first = vec.reset(seed=0)
    assert first.observations.shape == (4, 4) and first.infos == [{}] * 4
    np.testing.assert_array_equal(first.observations, gym_vec.reset(seed=0)[0])
    vec.reset(seed=0)
    actions = np.array([0, 1, 0, 1])
    returns = np.zeros(4)
    finals: dict[int, np.ndarray] = {}
    for _ in range(40):
        result = vec.step(actions)
        returns += result.rewards
        assert result.rewards.dtype == np.float64
        for i in np.flatnonzero(result.dones):
            finals.setdefault(int(i), result.observations[i].copy())
            np.testing.assert_array_equal(result.observations[i], finals[int(i)])
    assert set(finals) == {0, 1, 2, 3}
    assert (returns < 40).all()  # frozen sub-envs score 0
    assert result.infos == [{}] * 4
    vec.close()
    vec.close()
    with pytest.raises(VecEnvClosed):
        vec.step(actions)


def _gym_sync(mode: AutoresetMode, n: int = 4) -> Any:
    return gymnasium.make_vec(
        "CartPole-v1", n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


@pytest.mark.parametrize("mode", list(AutoresetMode))
@pytest.mark.parametrize("autoreset", [True, False])
def test_matches_a_sekai_sync_vec_env(mode: AutoresetMode, autoreset: bool) -> None:
    n = 4
    vec = from_gymnasium_vector(_gym_sync(mode, n), autoreset=autoreset)
    assert vec.autoreset is autoreset
    twin = SyncVecEnv(
        [lambda: from_gymnasium(gymnasium.make("CartPole-v1")) for _ in range(n)],
        autoreset=autoreset,
    )
    seeds = [10, 20, 30, 40]
    a, b = vec.reset(seed=seeds), twin.reset(seed=seeds)
    np.testing.assert_array_equal(a.observations, b.observations)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(150):
        actions = rng.integers(0, 2, n)
        a, b = vec.step(actions), twin.step(actions)
        np.testing.assert_array_equal(a.observations, b.observations)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        np.testing.assert_array_equal(a.terminated, b.terminated)
        np.testing.assert_array_equal(a.truncated, b.truncated)
        for x, y in zip(a.infos, b.infos, strict=True):
            assert x.keys() == y.keys()
            if "final_observation" in x:
                finished += 1
                np.testing.assert_array_equal(x["final_observation"], y["final_observation"])
                assert x["final_info"] == y["final_info"]
                assert x["reset_info"] == y["reset_info"]
    assert finished > 0 if autoreset else finished == 0
    if not autoreset:
        assert a.dones.all()  # every sub-env froze
    vec.close()


def test_sekai_seed_and_options_rules() -> None:
    vec = from_gymnasium_vector(_gym_sync(AutoresetMode.SAME_STEP, 2))
    with pytest.raises(ValueError, match="list of 3"):
        vec.reset(seed=[1, 2, 3])
    with pytest.raises(TypeError, match="Generator"):
        vec.reset(seed=np.random.default_rng(0))
    with pytest.raises(ValueError, match="one options dict"):
        vec.reset(options=[{}, {}])
    # an int seed is gymnasium's: sub-env i gets seed + i
    gym_twin = _gym_sync(AutoresetMode.SAME_STEP, 2)
    np.testing.assert_array_equal(
        vec.reset(seed=np.int64(3)).observations, gym_twin.reset(seed=3)[0]
    )
    # an all-None list keeps the streams going, like seed=None
    assert vec.reset(seed=[None, None]).observations.shape == (2, 4)


def test_call_get_attr_set_attr() -> None:
    vec = from_gymnasium_vector(_gym_sync(AutoresetMode.NEXT_STEP, 3))
    vec.reset(seed=0)
    assert vec.get_attr("gravity") == [9.8, 9.8, 9.8]
    vec.set_attr("gravity", 5.0)
    assert vec.get_attr("gravity") == [5.0, 5.0, 5.0]
    vec.set_attr("gravity", [1.0, 2.0, 3.0])
    assert vec.call("gravity") == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="num_envs=3"):
        vec.set_attr("gravity", [1.0, 2.0])
    assert vec.call("get_wrapper_attr", "gravity") == [1.0, 2.0, 3.0]

    native = from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 2))
    with pytest.raises(NotImplementedError, match="CartPoleVectorEnv has no call"):
        native.call("get_wrapper_attr", "gravity")


def test_rejects_non_vector_envs() -> None:
    with pytest.raises(TypeError, match=r"gymnasium\.vector\.VectorEnv"):
        from_gymnasium_vector(gymnasium.make("CartPole-v1"))


def test_async_gymnasium_vector_env_resets_single_sub_envs() -> None:
    gym_vec = gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="async")
    vec = from_gymnasium_vector(gym_vec)
    twin = from_gymnasium_vector(_gym_sync(AutoresetMode.NEXT_STEP, 2))
    try:
        assert vec.autoreset is True
        np.testing.assert_array_equal(
            vec.reset(seed=[1, 2]).observations, twin.reset(seed=[1, 2]).observations
        )
        for _ in range(40):
            a, b = vec.step(np.array([0, 1])), twin.step(np.array([0, 1]))
            np.testing.assert_array_equal(a.observations, b.observations)
            assert [("final_observation" in x) for x in a.infos] == [
                ("final_observation" in y) for y in b.infos
            ]
    finally:
        vec.close()
        twin.close()
