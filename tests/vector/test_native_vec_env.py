"""NativeVecEnv: the Drift example, seeding, time limit, autoreset, freezing and attributes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from drift_envs import Drift, DriftVecEnv, FrozenAwareDrift

import sekai
from sekai.error import ResetRequired, VecEnvClosed
from sekai.vector import NativeVecEnv, SyncVecEnv, shared
from sekai.vector.native import split_infos, take_index
from sekai.vector.vec_env import GENERATOR_SEED_ERROR


class ScheduledDrift(DriftVecEnv):
    @shared
    def push_schedule(self) -> Any:
        return np.array([1, 1, 0, 0])

    @property
    @shared
    def weights(self) -> Any:
        return np.ones(self.num_envs)

    @property
    def per_env(self) -> Any:
        return np.arange(self.num_envs) * 10

    def scaled(self, factor: float) -> Any:
        return self.x * factor


class RecordingDrift(FrozenAwareDrift):
    """Records the actions ``_step`` receives."""

    def _step(self, actions: Any) -> Any:
        self.received = np.array(actions)
        return super()._step(actions)


class DictEnv(NativeVecEnv):
    """A Dict observation space: counter and a position, terminating after ``length`` steps."""

    def __init__(self, num_envs: int, *, autoreset: bool = True, length: Any = 2) -> None:
        space = sekai.Dict({"pos": sekai.Box(-1.0, 1.0, shape=(2,)), "count": sekai.Discrete(9)})
        super().__init__(num_envs, space, sekai.Discrete(2), autoreset=autoreset)
        self.count = np.zeros(num_envs, np.int64)
        self.length = np.broadcast_to(np.asarray(length), (num_envs,)).copy()

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.count[indices] = 0

    def _observe(self) -> Any:
        pos = np.stack([self.count / 10, -self.count / 10], axis=1).astype(np.float32)
        return {"pos": pos, "count": self.count.copy()}

    def _step(self, actions: Any) -> Any:
        self.count += np.where(self.frozen, 0, 1)
        n = self.num_envs
        return np.ones(n), self.count >= self.length, np.zeros(n, bool), {}


def test_guide_example() -> None:
    vec = DriftVecEnv(4, max_episode_steps=100)
    result = vec.reset(seed=0)
    assert result.observations.shape == (4, 1)
    assert repr(vec.batch_action_space) == "MultiDiscrete([2, 2, 2, 2])"
    result = vec.step(np.array([1, 1, 0, 0]))
    assert str(result.rewards.round(3)) == "[-0.572 -0.404 -0.271 -0.3  ]"
    assert result.infos[0] == {"elapsed_steps": 1}
    assert vec.get_attr("max_episode_steps") == [100, 100, 100, 100]
    assert [round(float(x), 3) for x in vec.get_attr("x")] == [0.572, 0.404, 0.271, -0.3]
    assert repr(vec) == "DriftVecEnv(num_envs=4)"
    vec.close()
    assert vec.closed


def test_validation() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        DriftVecEnv(0)
    with pytest.raises(ValueError, match="max_episode_steps"):
        DriftVecEnv(2, max_episode_steps=0)
    with pytest.raises(TypeError, match=r"num_envs must be an int, got float 2\.5"):
        DriftVecEnv(2.5)  # type: ignore[arg-type]
    assert DriftVecEnv(2.0).num_envs == 2  # type: ignore[arg-type]


def test_step_before_reset_and_after_close() -> None:
    vec = DriftVecEnv(2)
    with pytest.raises(ResetRequired):
        vec.step(np.array([0, 0]))
    vec.reset(seed=0)
    with vec:
        pass
    with pytest.raises(VecEnvClosed):
        vec.step(np.array([0, 0]))
    with pytest.raises(VecEnvClosed):
        vec.reset()
    vec.close()


def test_int_seed_seeds_the_one_generator() -> None:
    vec = DriftVecEnv(3)
    first = vec.reset(seed=5).observations
    expected = np.random.default_rng(5).normal(size=3).astype(np.float32)[:, None]
    assert np.array_equal(first, expected)
    assert np.array_equal(vec.reset(seed=np.int64(5)).observations, first)
    assert np.array_equal(vec.reset(seed=5.0).observations, first)
    twin = DriftVecEnv(3)
    twin.reset(seed=5)
    assert np.array_equal(vec.reset().observations, twin.reset().observations)


def test_seed_list_is_combined_into_one_seed() -> None:
    vec = DriftVecEnv(3)
    vec.reset(seed=1)
    replay = np.random.default_rng(1)
    replay.normal(size=3)
    draw = int(replay.integers(2**63))
    other = np.random.default_rng(99)
    expected = np.random.default_rng([4, draw, int(np.random.default_rng(99).integers(2**63))])
    result = vec.reset(seed=[4, None, other])
    assert np.array_equal(result.observations[:, 0], expected.normal(size=3).astype(np.float32))


def test_all_none_seed_list_is_like_no_seed() -> None:
    a, b = DriftVecEnv(2), DriftVecEnv(2)
    a.reset(seed=3)
    b.reset(seed=3)
    assert np.array_equal(a.reset(seed=[None, None]).observations, b.reset().observations)


def test_one_env_matches_sync_vec_env_exactly_with_the_same_seed() -> None:
    native = DriftVecEnv(1)
    sync = SyncVecEnv([Drift])
    assert np.array_equal(native.reset(seed=[11]).observations, sync.reset(seed=[11]).observations)
    for action in [1, 1, 0, 1, 0, 0, 1]:
        a, b = native.step(np.array([action])), sync.step(np.array([action]))
        assert np.array_equal(a.observations, b.observations)
        assert np.allclose(a.rewards, b.rewards)


def test_same_distribution_as_sync_vec_env() -> None:
    n = 300
    native = DriftVecEnv(n)
    sync = SyncVecEnv([Drift] * n)
    native.reset(seed=0)
    sync.reset(seed=0)
    actions = np.arange(n) % 2
    for _ in range(12):
        a, b = native.step(actions), sync.step(actions)
        actions = 1 - actions
    x, y = a.observations[:, 0], b.observations[:, 0]
    assert abs(x.mean() - y.mean()) < 0.25
    assert abs(x.std() / y.std() - 1) < 0.15


def test_bad_seeds_and_options() -> None:
    vec = DriftVecEnv(2)
    with pytest.raises(TypeError) as info:
        vec.reset(seed=np.random.default_rng(0))
    assert str(info.value) == GENERATOR_SEED_ERROR
    with pytest.raises(ValueError, match="num_envs=2"):
        vec.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError):
        vec.reset(seed="abc")
    with pytest.raises(ValueError, match="options"):
        vec.reset(seed=np.random.default_rng(0), options=[{}])
    # The entry is judged like a SyncVecEnv sub-env's seed (np_random): exact parity with
    # SyncVecEnv is checked in test_vector_audit.py.
    with pytest.raises((TypeError, ValueError)):
        vec.reset(seed=[1, "abc"])


def test_options_per_env() -> None:
    vec = DriftVecEnv(3)
    result = vec.reset(seed=0, options=[{"x": 1.0}, None, {"x": -2.0}])
    assert result.observations[0, 0] == 1.0 and result.observations[2, 0] == -2.0
    assert vec.reset(options={"x": 0.5}).observations[:, 0].tolist() == [0.5, 0.5, 0.5]


def test_time_limit_and_elapsed_steps() -> None:
    vec = FrozenAwareDrift(2, max_episode_steps=3)
    vec.reset(seed=0, options={"x": 0.0})
    for expected in (1, 2):
        result = vec.step(np.array([0, 1]))
        assert [info["elapsed_steps"] for info in result.infos] == [expected, expected]
        assert not result.truncated.any()
    result = vec.step(np.array([0, 1]))
    assert result.truncated.tolist() == [True, True]
    info = result.infos[1]
    assert sorted(info) == [
        "elapsed_steps",
        "final_info",
        "final_observation",
        "pair",
        "reset_info",
        "x",
    ]
    assert info["final_info"]["elapsed_steps"] == 3
    assert list(info["reset_info"]) == ["start"]
    assert vec.elapsed_steps.tolist() == [0, 0]
    vec.step(np.array([0, 1]))
    assert vec.elapsed_steps.tolist() == [1, 1]
    vec.max_episode_steps = None
    assert "elapsed_steps" not in vec.step(np.array([0, 1])).infos[0]
    assert vec.elapsed_steps.tolist() == [2, 2]


def test_autoreset_reports_terminal_observation_copies() -> None:
    vec = FrozenAwareDrift(3)
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}, {"x": -4.99}])
    result = vec.step(np.array([1, 1, 0]))
    assert result.terminated.tolist() == [True, False, True]
    assert [sorted(i) for i in result.infos][1] == ["pair", "x"]
    for i in (0, 2):
        info = result.infos[i]
        assert abs(info["final_observation"][0]) > 5
        assert info["final_info"] == {"x": info["x"], "pair": info["pair"]}
        assert list(info["reset_info"]) == ["start"]
        assert info["reset_info"]["start"] == pytest.approx(result.observations[i, 0])
        assert abs(result.observations[i, 0]) < 5
    final = result.infos[0]["final_observation"]
    final[0] = 123.0
    assert result.observations[0, 0] != 123.0
    assert isinstance(result.infos[1]["x"], float)
    assert result.infos[1]["pair"].shape == (2,)


def test_autoreset_with_dict_space() -> None:
    vec = DictEnv(2, length=[1, 3])
    vec.reset(seed=0)
    result = vec.step(np.array([0, 0]))
    final = result.infos[0]["final_observation"]
    assert set(final) == {"pos", "count"}
    assert final["count"] == 1 and final["pos"].tolist() == pytest.approx([0.1, -0.1])
    assert result.observations["count"].tolist() == [0, 1]


def test_autoreset_off_freezes_with_dict_space() -> None:
    vec = DictEnv(2, autoreset=False, length=[1, 3])
    vec.reset(seed=0)
    first = vec.step(np.array([0, 0]))
    later = vec.step(np.array([0, 0]))
    assert later.observations["count"].tolist() == [1, 2]
    assert later.rewards.tolist() == [0.0, 1.0]
    assert later.terminated.tolist() == [True, False]
    assert later.infos == [{}, {}]
    assert first.observations["count"].tolist() == [1, 1]


def test_autoreset_off_freezing() -> None:
    vec = RecordingDrift(3, autoreset=False)
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}, {"x": 0.0}])
    first = vec.step(np.array([1, 1, 0]))
    assert first.dones.tolist() == [True, False, False]
    assert vec.frozen.tolist() == [True, False, False]
    x_frozen = vec.x[0]
    later = vec.step(np.array([0, 0, 1]))
    assert vec.received.tolist() == [1, 0, 1]
    assert vec.x[0] == x_frozen
    assert later.dones.tolist() == [True, False, False]
    assert later.rewards[0] == 0.0 and later.rewards[1] != 0.0
    assert later.infos[0] == {} and sorted(later.infos[1]) == ["pair", "x"]
    assert np.array_equal(later.observations[0], first.observations[0])
    assert vec.elapsed_steps.tolist() == [1, 2, 2]
    frozen = vec.frozen
    frozen[:] = False
    assert vec.frozen[0]
    vec.reset(seed=0)
    assert vec.frozen.tolist() == [False, False, False]


def test_get_attr_call_and_shared() -> None:
    vec = ScheduledDrift(4)
    vec.reset(seed=0)
    assert vec.call("push_schedule")[0].tolist() == [1, 1, 0, 0]
    assert [w.tolist() for w in vec.get_attr("weights")] == [[1, 1, 1, 1]] * 4
    assert vec.get_attr("per_env") == [0, 10, 20, 30]
    scaled = vec.call("scaled", 2.0)
    assert [float(s) for s in scaled] == pytest.approx((vec.x * 2).tolist())
    rows = vec.get_attr("x")
    rows[0] = 99.0
    assert vec.x[0] != 99.0
    assert vec.call("num_envs") == [4, 4, 4, 4]
    with pytest.raises(AttributeError):
        vec.get_attr("missing")


def test_set_attr() -> None:
    vec = DriftVecEnv(2, max_episode_steps=5)
    vec.set_attr("x", [1.0, 2.0])
    assert isinstance(vec.x, np.ndarray) and vec.x.tolist() == [1.0, 2.0]
    vec.set_attr("max_episode_steps", 7)
    assert vec.max_episode_steps == 7
    with pytest.raises(AttributeError, match="'sigma'"):
        vec.set_attr("sigma", 0.0)
    assert not hasattr(vec, "sigma")
    with pytest.raises(ValueError, match="num_envs=2"):
        vec.set_attr("x", [1.0])


def test_shared_marks_the_member() -> None:
    def f() -> None:
        """Doc."""

    assert shared(f) is f and f.__sekai_shared__ is True  # type: ignore[attr-defined]


def test_split_infos() -> None:
    stamps = np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]")
    infos = split_infos(
        {"a": np.array([1, 2]), "b": np.array([[1.0, 2.0], [3.0, 4.0]]), "t": stamps}, 2
    )
    assert infos[0]["a"] == 1 and type(infos[0]["a"]) is int
    assert isinstance(infos[1]["t"], np.datetime64)
    row = infos[0]["b"]
    row[0] = 9.0
    assert infos[1]["b"].tolist() == [3.0, 4.0]
    assert split_infos({}, 3) == [{}, {}, {}]
    with pytest.raises(ValueError, match="leading axis"):
        split_infos({"a": np.zeros(3)}, 2)
    with pytest.raises(ValueError, match="leading axis"):
        split_infos({"a": np.float64(1.0)}, 2)


def test_take_index() -> None:
    space = sekai.Tuple([sekai.Dict({"v": sekai.Box(0.0, 1.0, shape=(2,))}), sekai.Discrete(3)])
    batch = ({"v": np.arange(6.0).reshape(3, 2)}, np.array([0, 1, 2]))
    row = take_index(space, batch, 1)
    assert row[0]["v"].tolist() == [2.0, 3.0] and row[1] == 1
    row[0]["v"][0] = -1.0
    assert batch[0]["v"][1, 0] == 2.0


def test_bad_step_shapes_are_reported() -> None:
    class Broken(DriftVecEnv):
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, _ = super()._step(actions)
            return rewards[:1], terminated, truncated, {"bad": np.zeros(5)}

    vec = Broken(2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.array([0, 0]))
