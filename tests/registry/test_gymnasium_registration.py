"""Sekai ids in gymnasium's registry: ``gymnasium.make`` / ``make_vec`` build sekai envs."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import sekai  # noqa: E402
from sekai.compat import register_gymnasium  # noqa: E402
from sekai.registry.gymnasium_registration import gymnasium_id  # noqa: E402

SEKAI_IDS = [spec.id for spec in sekai.all_specs() if spec.namespace is None]


def _python(code: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_gymnasium_make_imports_sekai_by_the_module_before_the_colon() -> None:
    out = _python(
        "import sys, gymnasium\n"
        "env = gymnasium.make('sekai:sekai/CartPole-v1')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(env.spec.id, env.spec.max_episode_steps, type(env.unwrapped).__name__)\n"
        "vec = gymnasium.make_vec('sekai:sekai/Trading-v0', 8)\n"
        "obs, infos = vec.reset(seed=0)\n"
        "print(vec.num_envs, vec.spec.id, type(vec.unwrapped).__name__, obs.shape[0])\n"
    )
    assert out.splitlines() == [
        "sekai/CartPole-v1 500 SekaiToGymnasium",
        "8 sekai/Trading-v0 SekaiToGymnasiumVector 8",
    ]


def test_import_sekai_alone_does_not_import_gymnasium() -> None:
    out = _python("import sys, sekai\nprint('gymnasium' in sys.modules)")
    assert out.strip() == "False"


def test_gymnasium_imported_after_sekai_still_finds_the_ids() -> None:
    out = _python(
        "import sekai, gymnasium\n"
        "env = gymnasium.make('sekai/Pendulum-v1')\n"
        "print(env.spec.id, env.spec.max_episode_steps)\n"
        "from importlib.resources import files\n"
        "print(files('gymnasium').is_dir())\n"
    )
    assert out.splitlines() == ["sekai/Pendulum-v1 200", "True"]


@pytest.mark.parametrize("sekai_id", SEKAI_IDS)
def test_every_id_passes_gymnasiums_checker(sekai_id: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(f"sekai:{gymnasium_id(sekai_id)}", render_mode="rgb_array")
    try:
        assert env.spec is not None and env.spec.id == f"sekai/{sekai_id}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # advisory warnings about infinite Box bounds
            check_env(env.unwrapped)
        env.reset(seed=0)
        frame = env.render()
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    finally:
        env.close()


@pytest.mark.parametrize("sekai_id", ["CartPole-v1", "Trading-v0", "LimitOrderBook-v0"])
def test_gymnasium_env_steps_exactly_like_the_sekai_env(sekai_id: str) -> None:
    gym_env = gymnasium.make(gymnasium_id(sekai_id))
    env = sekai.make(sekai_id)
    try:
        gym_obs, _ = gym_env.reset(seed=11)
        obs = env.reset(seed=11).observation
        env.action_space.seed(5)
        for _ in range(50):
            np.testing.assert_equal(gym_obs, obs)
            action = env.action_space.sample()
            gym_obs, reward, terminated, truncated, _ = gym_env.step(action)
            result = env.step(action)
            obs = result.observation
            assert (reward, terminated, truncated) == (
                result.reward,
                result.terminated,
                result.truncated,
            )
            if result.done:
                break
    finally:
        gym_env.close()
        env.close()


def test_the_time_limit_is_gymnasiums_and_can_be_overridden() -> None:
    spec = gymnasium.spec("sekai/CartPole-v1")
    assert spec.max_episode_steps == sekai.spec("CartPole-v1").max_episode_steps == 500
    env = gymnasium.make("sekai/CartPole-v1", max_episode_steps=7)
    env.reset(seed=0)
    steps, truncated = 0, False
    while not truncated:
        _, _, terminated, truncated, _ = env.step(steps % 2)
        assert not terminated
        steps += 1
    assert steps == 7
    env.close()


def test_keyword_arguments_reach_the_sekai_env() -> None:
    env = gymnasium.make("sekai/CartPole-v1", sutton_barto_reward=True)
    sekai_env = env.unwrapped.sekai_env
    assert sekai_env.unwrapped.sutton_barto_reward is True
    env.close()


def test_register_gymnasium_adds_only_new_ids_and_keeps_namespaces() -> None:
    assert register_gymnasium() == []
    sekai.register("acme/Pole-v3", entry_point="sekai.envs.classic_control.cartpole:CartPoleEnv")
    sekai.register("Pole-v3", entry_point="sekai.envs.classic_control.cartpole:CartPoleEnv")
    try:
        assert sorted(register_gymnasium()) == ["acme/Pole-v3", "sekai/Pole-v3"]
        env = gymnasium.make("acme/Pole-v3")
        assert env.reset(seed=0)[0].shape == (4,)
        env.close()
    finally:
        sekai.deregister("acme/Pole-v3")
        sekai.deregister("Pole-v3")
        del gymnasium.registry["acme/Pole-v3"]
        del gymnasium.registry["sekai/Pole-v3"]


def test_make_vec_uses_the_sekai_vector_env() -> None:
    vec = gymnasium.make_vec("sekai/Portfolio-v0", 4)
    direct = sekai.make_vec("Portfolio-v0", 4)
    try:
        assert type(vec.unwrapped.sekai_vec) is type(direct)
        obs, _ = vec.reset(seed=3)
        np.testing.assert_equal(obs, direct.reset(seed=[3, 4, 5, 6]).observations)  # seed + i
        assert vec.spec.id == "sekai/Portfolio-v0" and vec.spec.kwargs["num_envs"] == 4
    finally:
        vec.close()
        direct.close()


def test_make_vec_sync_mode_builds_gymnasium_sub_envs() -> None:
    vec = gymnasium.make_vec("sekai/CartPole-v1", 3, vectorization_mode="sync")
    try:
        assert isinstance(vec, gymnasium.vector.SyncVectorEnv)
        obs, _ = vec.reset(seed=0)
        assert obs.shape == (3, 4)
    finally:
        vec.close()


def test_make_vec_refuses_a_render_mode() -> None:
    with pytest.raises(ValueError, match=r"render_mode='rgb_array'.*renderer_for"):
        gymnasium.make_vec("sekai/Trading-v0", 2, render_mode="rgb_array")
