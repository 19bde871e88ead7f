"""``to_gymnasium_vector(vec, autoreset_mode="next_step")`` and gymnasium's vector wrappers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import gymnasium.wrappers.vector as gym_wrappers  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv  # noqa: E402

import sekai  # noqa: E402
from sekai.compat import to_gymnasium, to_gymnasium_vector  # noqa: E402

FROZEN = {"autoreset": False}


def native(n: int = 8, env_id: str = "Trading-v0", **kwargs: Any) -> sekai.VecEnv:
    """A native env whose finished sub-envs freeze (``autoreset`` reaches its constructor)."""
    return sekai.make_vec(env_id, n, autoreset=False, **kwargs)


def sync(env_id: str, n: int = 4) -> sekai.VecEnv:
    return sekai.make_vec(env_id, n, vectorization_mode="sync", vector_kwargs=FROZEN)


# (name, builder of the sekai env): a native env with short episodes, and a sync one.
ENVS: dict[str, Callable[[], sekai.VecEnv]] = {
    "native Trading-v0": lambda: native(episode_length=12),
    "sync CartPole-v1": lambda: sync("CartPole-v1"),
}


def next_step(vec: sekai.VecEnv) -> VectorEnv:
    return to_gymnasium_vector(vec, autoreset_mode="next_step")


def drive(env: VectorEnv, actions: list[Any], seed: int = 0) -> list[tuple[Any, ...]]:
    """Reset with ``seed``, then step with ``actions``, with the ``STAGGER`` partial resets;
    every result, in order."""
    out = [env.reset(seed=seed)]
    for t, action in enumerate(actions):
        if t in STAGGER:
            out.append(env.reset(options={"reset_mask": stagger_mask(t, env.num_envs)}))
        out.append(env.step(action))
    return out


def actions_for(env: VectorEnv, steps: int, seed: int = 0) -> list[Any]:
    space = env.action_space
    space.seed(seed)
    return [space.sample() for _ in range(steps)]


def assert_infos_equal(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """Gymnasium vector infos equal where their masks are set (and the masks equal)."""
    keys = {k for k in {*ours, *theirs} if not k.startswith("_")}
    for key in keys:
        n = len(ours.get(f"_{key}", theirs.get(f"_{key}")))
        mine = ours.get(f"_{key}", np.zeros(n, dtype=bool))
        np.testing.assert_array_equal(mine, theirs.get(f"_{key}", np.zeros(n, dtype=bool)), key)
        if isinstance(ours.get(key), dict):
            assert_infos_equal(ours[key], theirs[key])
        elif mine.any():
            np.testing.assert_array_equal(ours[key][mine], theirs[key][mine], key)


def test_next_step_trajectories_equal_gymnasiums_own() -> None:
    n = 4
    ours = next_step(sync("CartPole-v1", n))
    theirs = SyncVectorEnv(
        [lambda: to_gymnasium(sekai.make("CartPole-v1")) for _ in range(n)],
        autoreset_mode=AutoresetMode.NEXT_STEP,
    )
    try:
        assert ours.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        rng = np.random.default_rng(0)
        actions = [rng.integers(0, 2, n) for _ in range(1500)]
        restarts = 0
        for mine, other in zip(drive(ours, actions, 3), drive(theirs, actions, 3), strict=True):
            for a, b in zip(mine[:-1], other[:-1], strict=True):
                np.testing.assert_array_equal(a, b)
            assert_infos_equal(mine[-1], other[-1])
            if len(mine) == 5:
                assert mine[1].dtype == np.float64 and mine[2].dtype == mine[3].dtype == bool
        # the restart steps that reset some sub-envs but not all are in the comparison
        previous = np.zeros(n, dtype=bool)
        for result in drive(ours, actions, 3):
            if len(result) == 5:
                restarts += int(0 < previous.sum() < n)
                previous = result[2] | result[3]
        assert restarts > 10
    finally:
        ours.close()
        theirs.close()


def select(infos: dict[str, Any], rows: np.ndarray) -> dict[str, Any]:
    """Gymnasium vector ``infos`` with every mask cleared outside ``rows``."""
    return {
        key: (value & rows)
        if key.startswith("_") and key[1:] in infos
        else select(value, rows)
        if isinstance(value, dict)
        else value
        for key, value in infos.items()
    }


@pytest.mark.parametrize("name", ENVS)
def test_next_step_is_disabled_mode_resetting_what_finished_at_the_step_before(name: str) -> None:
    bridge = next_step(ENVS[name]())
    manual = to_gymnasium_vector(ENVS[name](), autoreset_mode="disabled")
    try:
        assert manual.metadata["autoreset_mode"] is AutoresetMode.DISABLED
        n = bridge.num_envs
        previous = np.zeros(n, dtype=bool)
        restarted = partial = 0
        for env in (bridge, manual):
            env.reset(seed=0)
        for t, action in enumerate(actions_for(bridge, 80)):
            if t in STAGGER:
                bridge.reset(options={"reset_mask": stagger_mask(t, n)})
                manual.reset(options={"reset_mask": stagger_mask(t, n)})
                previous &= ~stagger_mask(t, n)
            obs, rewards, terminated, truncated, infos = bridge.step(action)
            want_obs, want_rewards, want_term, want_trunc, want_infos = manual.step(action)
            if previous.any():
                # in disabled mode a finished sub-env stays frozen until it is reset
                assert np.all(want_rewards[previous] == 0.0)
                assert np.all((want_term | want_trunc)[previous])
                want_obs, reset_infos = manual.reset(options={"reset_mask": previous})
                np.testing.assert_array_equal(rewards[previous], 0.0)
                assert not (terminated | truncated)[previous].any()
                assert_infos_equal(select(infos, previous), select(reset_infos, previous))
                if name.startswith("native"):  # Trading's reset info: the first timestamp
                    assert np.all(
                        infos["_timestamp"][previous] & (infos["timestamp"][previous] == 0)
                    )
                restarted += int(previous.sum())
                partial += int(not previous.all())
            np.testing.assert_array_equal(obs, want_obs)
            stepped = ~previous
            np.testing.assert_array_equal(rewards[stepped], want_rewards[stepped])
            np.testing.assert_array_equal(terminated[stepped], want_term[stepped])
            np.testing.assert_array_equal(truncated[stepped], want_trunc[stepped])
            assert_infos_equal(select(infos, stepped), select(want_infos, stepped))
            previous = terminated | truncated
        assert restarted >= n and partial > 0
    finally:
        bridge.close()
        manual.close()


def _normalised(wrapper: Any, raw: np.ndarray) -> np.ndarray:
    rms = wrapper.obs_rms
    return ((raw - rms.mean) / np.sqrt(rms.var + wrapper.epsilon)).astype(np.float32)


# gymnasium's observation wrappers, and what each makes of the bridge's raw batch
OBSERVATION_WRAPPERS: dict[str, tuple[Callable[[VectorEnv], Any], Callable[..., np.ndarray]]] = {
    "NormalizeObservation": (gym_wrappers.NormalizeObservation, _normalised),
    "TransformObservation": (
        lambda env: gym_wrappers.TransformObservation(env, lambda obs: 2.0 * obs - 1.0),
        lambda wrapper, raw: 2.0 * raw - 1.0,
    ),
    "FlattenObservation": (
        gym_wrappers.FlattenObservation,
        lambda wrapper, raw: raw.reshape(len(raw), -1),
    ),
}


STAGGER = (2, 5, 8)
"""Steps before which sub-envs 1, 2 and 3 (modulo 4) restart, so that episodes end apart."""


def stagger_mask(t: int, n: int) -> np.ndarray:
    return np.arange(n) % 4 == STAGGER.index(t) + 1


def stagger(t: int, *envs: VectorEnv) -> None:
    """Restart, at the ``STAGGER`` steps, some sub-envs of the sekai env under each of ``envs``
    (gymnasium's NormalizeObservation refuses partial resets)."""
    if t in STAGGER:
        for env in envs:
            vec = env.unwrapped.sekai_vec
            vec.reset(options={"reset_mask": stagger_mask(t, vec.num_envs)})


@pytest.mark.parametrize("wrapper_name", OBSERVATION_WRAPPERS)
@pytest.mark.parametrize("name", ENVS)
def test_gymnasiums_observation_wrappers_apply(name: str, wrapper_name: str) -> None:
    wrap, expected = OBSERVATION_WRAPPERS[wrapper_name]
    raw = next_step(ENVS[name]())
    wrapped = wrap(next_step(ENVS[name]()))
    try:
        theirs = raw.reset(seed=0)
        np.testing.assert_allclose(wrapped.reset(seed=0)[0], expected(wrapped, theirs[0]), 1e-5)
        for t, action in enumerate(actions_for(raw, 60)):
            stagger(t, raw, wrapped)
            mine, theirs = wrapped.step(action), raw.step(action)
            np.testing.assert_allclose(mine[0], expected(wrapped, theirs[0]), 1e-5, 1e-6)
            for a, b in zip(mine[1:-1], theirs[1:-1], strict=True):
                np.testing.assert_array_equal(a, b)
    finally:
        raw.close()
        wrapped.close()


@pytest.mark.parametrize("name", ENVS)
def test_gymnasiums_episode_statistics_equal_sekais(name: str) -> None:
    inner = sekai.VecRecordEpisodeStatistics(ENVS[name]())
    env = gym_wrappers.RecordEpisodeStatistics(next_step(inner), stats_key="gym_episode")
    try:
        env.reset(seed=0)
        episodes = 0
        for t, action in enumerate(actions_for(env, 150)):
            if t in STAGGER:  # through gymnasium's wrapper, which restarts its count too
                env.reset(options={"reset_mask": stagger_mask(t, env.num_envs)})
            *_, terminated, truncated, infos = env.step(action)
            done = terminated | truncated
            np.testing.assert_array_equal(infos.get("_gym_episode", np.zeros_like(done)), done)
            for i in np.flatnonzero(done):
                theirs = infos["episode"][i]  # sekai's own, through the bridge
                assert infos["gym_episode"]["l"][i] == theirs.episode_length
                assert infos["gym_episode"]["r"][i] == pytest.approx(theirs.episode_return)
                episodes += 1
        assert episodes >= 2 * env.num_envs
    finally:
        env.close()


@pytest.mark.parametrize(
    "build",
    [
        lambda: native(4, "Portfolio-v0", episode_length=7),
        lambda: sekai.make_vec("Pendulum-v1", 3, vector_kwargs=FROZEN, max_episode_steps=7),
    ],
    ids=["native Portfolio-v0", "sync Pendulum-v1"],
)
def test_gymnasiums_clip_action_applies(build: Callable[[], sekai.VecEnv]) -> None:
    clipped = gym_wrappers.ClipAction(next_step(build()))
    plain = next_step(build())
    try:
        clipped.reset(seed=0)
        plain.reset(seed=0)
        space = plain.action_space
        rng = np.random.default_rng(0)
        for _ in range(30):  # four episodes each
            wild = rng.uniform(-3.0, 4.0, space.shape).astype(space.dtype)
            mine, theirs = clipped.step(wild), plain.step(np.clip(wild, space.low, space.high))
            for a, b in zip(mine[:-1], theirs[:-1], strict=True):
                np.testing.assert_equal(a, b)
    finally:
        clipped.close()
        plain.close()


def test_modes_and_what_each_needs() -> None:
    frozen, resetting = sync("CartPole-v1", 2), sekai.make_vec("CartPole-v1", 2)
    for mode in ("next_step", AutoresetMode.NEXT_STEP):
        assert (
            to_gymnasium_vector(frozen, autoreset_mode=mode).autoreset_mode
            is AutoresetMode.NEXT_STEP
        )
    bridge = to_gymnasium_vector(resetting, autoreset_mode=AutoresetMode.SAME_STEP)
    assert bridge.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    for mode in ("next_step", "disabled"):
        with pytest.raises(
            ValueError, match=r"autoreset=False.*vector_kwargs=\{'autoreset': False\}"
        ):
            to_gymnasium_vector(resetting, autoreset_mode=mode)
    with pytest.raises(ValueError, match=r"autoreset=True.*use autoreset_mode='next_step'"):
        to_gymnasium_vector(frozen)
    with pytest.raises(ValueError, match=r"one of \['disabled', 'next_step', 'same_step'\]"):
        to_gymnasium_vector(frozen, autoreset_mode="NEXT")
    with pytest.raises(TypeError, match="autoreset_mode must be one of"):
        to_gymnasium_vector(frozen, autoreset_mode=1)
    frozen.close()
    resetting.close()


def test_disabled_mode_leaves_finished_sub_envs_until_a_masked_reset() -> None:
    env = to_gymnasium_vector(native(4, episode_length=3), autoreset_mode="disabled")
    env.reset(seed=0)
    for _ in range(3):
        obs, _, terminated, truncated, _ = env.step(np.zeros(4, dtype=np.int64))
    assert (terminated | truncated).all()
    again = env.step(np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(again[0], obs)
    assert np.all(again[1] == 0.0) and np.all(again[2] | again[3])
    restarted = np.array([True, False, True, False])
    fresh, infos = env.reset(seed=7, options={"reset_mask": restarted})
    np.testing.assert_array_equal(fresh[~restarted], obs[~restarted])
    np.testing.assert_array_equal(infos["_timestamp"], restarted)
    step = env.step(np.zeros(4, dtype=np.int64))
    assert not (step[2] | step[3])[restarted].any() and (step[2] | step[3])[~restarted].all()
    env.close()


def test_gymnasium_make_vec_takes_the_mode() -> None:
    env = gymnasium.make_vec("sekai:sekai/CartPole-v1", 3, autoreset_mode="next_step")
    try:
        assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        assert env.sekai_vec.autoreset is False
        rebuilt = gymnasium.make_vec(env.spec)
        assert rebuilt.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        rebuilt.close()
    finally:
        env.close()
    native_env = gymnasium.make_vec("sekai/Trading-v0", 2, autoreset_mode="disabled")
    assert native_env.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    assert type(native_env.sekai_vec).__name__ == "TradingVecEnv"
    native_env.close()
    default = gymnasium.make_vec("sekai/Trading-v0", 2)
    assert default.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    default.close()


@pytest.mark.parametrize("masked", [False, True])
def test_a_reset_cancels_the_pending_restarts(masked: bool) -> None:
    env = next_step(sync("CartPole-v1", 4))
    env.reset(seed=0)
    for _ in range(500):
        *_, terminated, truncated, _ = env.step(np.ones(4, dtype=np.int64))
        done = terminated | truncated
        if done.any() and not done.all():
            break
    env.reset(options={"reset_mask": done} if masked else None)
    _, rewards, *_ = env.step(np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(rewards, np.ones(4))  # every sub-env really stepped
    env.close()


class Tagged(sekai.VecWrapper):
    """Adds ``tag`` to the info of every sub-env at every step."""

    def step(self, actions: Any) -> sekai.VecStepResult:
        result = self.venv.step(actions)
        infos = [{**info, "tag": 1} for info in result.infos]
        return sekai.VecStepResult(*result[:4], infos)


def test_a_restarted_sub_env_reports_its_reset_info_only() -> None:
    env = next_step(Tagged(native(4, episode_length=3)))
    env.reset(seed=0)
    env.step(np.zeros(4, dtype=np.int64))
    env.reset(options={"reset_mask": np.array([True, False, False, False])})
    for _ in range(3):
        infos = env.step(np.zeros(4, dtype=np.int64))[-1]
    # sub-envs 1-3 finished at the step before and restart; sub-env 0 steps (and finishes)
    np.testing.assert_array_equal(infos["_tag"], [True, False, False, False])
    np.testing.assert_array_equal(infos["_timestamp"], [True] * 4)
    np.testing.assert_array_equal(infos["timestamp"] == 0, [False, True, True, True])
    env.close()


def test_the_restart_rows_take_every_kind_of_reset_info_entry() -> None:
    from sekai.compat.gymnasium_vector import _keep_rows, _lay_over

    rows = np.array([False, True, False])
    step = {
        "a": np.array([1.0, 2.0, 3.0]),
        "_a": np.array([True, True, True]),
        "pair": np.ones((3, 2)),
        "_pair": np.array([True, True, False]),
        "deep": {"b": np.array([1, 2, 3]), "_b": np.ones(3, dtype=bool)},
        "_deep": np.ones(3, dtype=bool),
        "ragged": np.zeros(3),
        "_ragged": np.ones(3, dtype=bool),
    }
    reset = {
        "a": np.array([0.0, 9.0, 0.0]),
        "_a": rows,
        "pair": np.full((3, 2), 7.0),
        "_pair": rows,
        "deep": {"b": np.array([0, 8, 0]), "_b": rows},
        "_deep": rows,
        "ragged": np.full((3, 2), 5.0),
        "_ragged": rows,
        "new": np.array([None, "x", None], dtype=object),
        "_new": rows,
    }
    out = _lay_over(_keep_rows(step, ~rows), reset)
    np.testing.assert_array_equal(out["a"], [1.0, 9.0, 3.0])
    np.testing.assert_array_equal(out["_a"], [True, True, True])
    np.testing.assert_array_equal(out["pair"], [[1.0, 1.0], [7.0, 7.0], [1.0, 1.0]])
    np.testing.assert_array_equal(out["_pair"], [True, True, False])
    np.testing.assert_array_equal(out["deep"]["b"], [1, 8, 3])
    np.testing.assert_array_equal(out["deep"]["_b"], [True, True, True])
    assert out["ragged"][0] == 0.0 and list(out["ragged"][1]) == [5.0, 5.0]
    assert list(out["new"]) == [None, "x", None] and list(out["_new"]) == [False, True, False]
    np.testing.assert_array_equal(step["_a"], [True, True, True])  # the inputs are unchanged
