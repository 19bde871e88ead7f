"""Terminal observations of a NativeVecEnv transformed as one batch by observation wrappers.

The batched path must give, bit for bit, what the per-row ``final_observation`` hook gives,
and must step aside wherever a per-row hook is the one to honour.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from drift_envs import DriftVecEnv

from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiBinary, Sequence, Space, Tuple
from sekai.stats import EpisodeStats
from sekai.vector import NativeVecEnv, VecEnv
from sekai.vector.native import LazyInfos
from sekai.vector.result import VecStepResult
from sekai.vector.vec_wrapper import VecObservationWrapper, VecWrapper
from sekai.vector.wrappers import (
    VecNormalizeObservation,
    VecRecordEpisodeStatistics,
    VecTransformObservation,
)

N = 16


class DictVecEnv(NativeVecEnv):
    """Random walks observed through a Dict with Box, Discrete, Tuple, MaskedBox leaves."""

    def __init__(self, num_envs: int, *, max_episode_steps: int | None = 6) -> None:
        space = Dict(
            {
                "pos": Box(-9.0, 9.0, shape=(2,), dtype=np.float32),
                "level": Discrete(4),
                "pair": Tuple([Box(-1.0, 1.0, shape=(), dtype=np.float64), MultiBinary(3)]),
                "items": MaskedBox(-9.0, 9.0, shape=(2,), max_size=3),
            }
        )
        super().__init__(num_envs, space, Discrete(2), max_episode_steps=max_episode_steps)
        self.pos = np.zeros((num_envs, 2))

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.pos[indices] = self.rng.normal(size=(len(indices), 2))

    def _observe(self) -> Any:
        pos = self.pos
        mask = (np.abs(pos[:, :1]) > np.array([0.2, 0.6, 1.0])).astype(np.int8)
        values = np.repeat(pos[:, None, :], 3, axis=1).astype(np.float32)
        values[mask == 0] = 0.0
        return {
            "pos": pos.astype(np.float32),
            "level": (np.abs(pos[:, 0]) * 2).astype(np.int64) % 4,
            "pair": (np.tanh(pos[:, 1]), (pos[:, :1] > np.array([-1.0, 0.0, 1.0])).astype(np.int8)),
            "items": {"values": values, "mask": mask},
        }

    def _step(self, actions: Any) -> Any:
        self.pos += np.where(np.asarray(actions)[:, None] == 1, 0.3, -0.3)
        self.pos += self.rng.normal(0.0, 0.7, size=self.pos.shape)
        terminated = np.abs(self.pos).max(axis=1) > 2.5
        return -np.abs(self.pos).sum(axis=1), terminated, np.zeros(self.num_envs, bool), {}


def _affine(batch: Any) -> Any:
    """Floats times 3 plus 0.5 (dtype kept), integers plus 1, through dicts and tuples."""
    if isinstance(batch, dict):
        return {key: _affine(value) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(_affine(value) for value in batch)
    if batch.dtype.kind == "f":
        return batch * batch.dtype.type(3) + batch.dtype.type(0.5)
    return batch + batch.dtype.type(1)


class Affine(VecObservationWrapper[Any, Any, Any]):
    """A row-wise custom wrapper that opts in to the batched terminal-observation hook."""

    def __init__(self, venv: VecEnv[Any, Any]) -> None:
        super().__init__(venv)
        self.batch_sizes: list[int] = []

    def observation(self, batch: Any) -> Any:
        leaf = batch
        while isinstance(leaf, (dict, tuple)):
            leaf = next(iter(leaf.values())) if isinstance(leaf, dict) else leaf[0]
        self.batch_sizes.append(len(leaf))
        return _affine(batch)

    def _final_observation_batch(self, batch: Any) -> Any:
        return self.observation(batch)


class CrossSectional(VecObservationWrapper[Any, Any, Any]):
    """Not row-wise (demeans across the batch), so it keeps the per-row default."""

    def __init__(self, venv: VecEnv[Any, Any]) -> None:
        super().__init__(venv)
        self.batch_sizes: list[int] = []

    def observation(self, batch: Any) -> Any:
        self.batch_sizes.append(len(batch))
        return batch - batch.mean(axis=0)


class AffinePerRow(Affine):
    """Overrides the per-row hook (same result), which must then be called once per row."""

    rows = 0

    def final_observation(self, obs: Any) -> Any:
        self.rows += 1
        return super().final_observation(obs)


class NormalizePerRow(VecNormalizeObservation[Any, Any]):
    rows = 0

    def final_observation(self, obs: Any) -> Any:
        self.rows += 1
        return super().final_observation(obs)


class ReadInfos(VecWrapper[Any, Any, Any, Any]):
    """Reads ``infos[0]`` every step, which builds a LazyInfos' dicts."""

    def step(self, actions: Any) -> VecStepResult[Any]:
        result = self.venv.step(actions)
        _ = result.infos[0]
        return result


Stack = Callable[[VecEnv[Any, Any]], VecEnv[Any, Any]]


def _normalize(venv: VecEnv[Any, Any]) -> VecEnv[Any, Any]:
    return VecNormalizeObservation(venv, clip=5.0)


def _normalize_per_row(venv: VecEnv[Any, Any]) -> VecEnv[Any, Any]:
    return NormalizePerRow(venv, clip=5.0)


def _normalize_ewm(venv: VecEnv[Any, Any]) -> VecEnv[Any, Any]:
    return VecNormalizeObservation(venv, stats="ewm", halflife=3.0)


def _normalize_ewm_per_row(venv: VecEnv[Any, Any]) -> VecEnv[Any, Any]:
    return NormalizePerRow(venv, stats="ewm", halflife=3.0)


def _transform(venv: VecEnv[Any, Any]) -> VecEnv[Any, Any]:
    return VecTransformObservation(venv, _affine)


def _transform_per_row(venv: VecEnv[Any, Any]) -> VecEnv[Any, Any]:
    class PerRow(VecTransformObservation[Any, Any]):
        def final_observation(self, obs: Any) -> Any:
            return super().final_observation(obs)

    return PerRow(venv, _affine)


# (batched stack, the same stack served per row)
PAIRS: dict[str, tuple[Stack, Stack]] = {
    "normalize": (_normalize, _normalize_per_row),
    "normalize-ewm": (_normalize_ewm, _normalize_ewm_per_row),
    "custom": (Affine, AffinePerRow),
    "transform": (_transform, _transform_per_row),
    "custom-then-normalize": (
        lambda v: _normalize(Affine(v)),
        lambda v: _normalize_per_row(AffinePerRow(v)),
    ),
    "normalize-then-custom": (
        lambda v: Affine(_normalize(v)),
        lambda v: AffinePerRow(_normalize_per_row(v)),
    ),
    "read-between": (
        lambda v: Affine(ReadInfos(_normalize(v))),
        lambda v: AffinePerRow(ReadInfos(_normalize_per_row(v))),
    ),
    "read-under": (
        lambda v: _normalize(ReadInfos(v)),
        lambda v: _normalize_per_row(ReadInfos(v)),
    ),
    "with-episode-stats": (
        lambda v: _normalize(VecRecordEpisodeStatistics(v)),
        lambda v: _normalize_per_row(VecRecordEpisodeStatistics(v)),
    ),
}

ENVS: dict[str, Callable[[], NativeVecEnv]] = {
    "box": lambda: DriftVecEnv(N, max_episode_steps=4),
    "dict": lambda: DictVecEnv(N),
}


def assert_identical(a: Any, b: Any, where: str = "") -> None:
    """Same types, dtypes, shapes and bytes, through dicts, tuples and lists."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            assert_identical(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_identical(x, y, f"{where}[{i}]")
    elif isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype} vs {b.dtype}"
        assert a.tobytes() == b.tobytes(), f"{where}: {a} vs {b}"
    else:
        assert a == b, where


def run(stack: Stack, env: str, steps: int = 25) -> list[VecStepResult[Any]]:
    venv = stack(ENVS[env]())
    venv.reset(seed=3)
    actions = np.random.default_rng(0).integers(0, 2, size=(steps, N))
    results: list[VecStepResult[Any]] = []
    for step_actions in actions:
        result = venv.step(step_actions)
        assert isinstance(result.infos, LazyInfos)
        if len(results) % 2:  # the dicts of the other steps are built after the last step
            _ = result.infos[0]
        results.append(result)
    return results


def _untimed(stats: EpisodeStats) -> EpisodeStats:
    return dataclasses.replace(stats, elapsed_time=0.0, start_time=0.0, end_time=0.0)


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_batched_terminal_observations_equal_per_row(env: str, pair: str) -> None:
    batched, per_row = PAIRS[pair]
    finals = 0
    for got, want in zip(run(batched, env), run(per_row, env), strict=True):
        assert_identical(got.observations, want.observations, "observations")
        assert np.array_equal(got.terminated | got.truncated, want.terminated | want.truncated)
        got_list, want_list = list(got.infos), list(want.infos)
        assert len(got_list) == len(want_list) == N
        for i, (a, b) in enumerate(zip(got_list, want_list, strict=True)):
            if "episode" in a:  # wall-clock times differ between the runs
                a, b = (
                    {**a, "episode": _untimed(a["episode"])},
                    {**b, "episode": _untimed(b["episode"])},
                )
            assert_identical(a, b, f"infos[{i}]")
            finals += "final_observation" in a
    assert finals > 5


def test_the_batch_path_is_taken_and_rows_are_per_row_objects() -> None:
    venv = Affine(VecRecordEpisodeStatistics(DictVecEnv(N)))
    venv.reset(seed=1)
    actions = np.random.default_rng(1).integers(0, 2, size=N)
    for _ in range(20):
        venv.batch_sizes.clear()
        result = venv.step(actions)
        done = np.flatnonzero(result.terminated | result.truncated)
        if len(done) >= 2:
            break
    else:
        pytest.fail("no step with two finished sub-envs")
    assert venv.batch_sizes == [N, len(done)]  # the step's batch, then all terminal rows
    first, second = (result.infos[i]["final_observation"] for i in done[:2])
    assert set(first) == {"pos", "level", "pair", "items"}
    assert not np.shares_memory(first["pos"], second["pos"])
    assert first["pos"].base is None and first["items"]["values"].base is None
    first["pos"][:] = 99.0
    assert not np.any(result.infos[done[1]]["final_observation"]["pos"] == 99.0)
    assert not np.any(venv.step(actions).observations["pos"] == 99.0)


def test_a_per_row_override_is_called_once_per_row() -> None:
    for wrapper in (AffinePerRow(DriftVecEnv(N, max_episode_steps=3)),):
        wrapper.reset(seed=0)
        finals = 0
        for _ in range(7):
            result = wrapper.step(np.ones(N, dtype=np.int64))
            finals += int(np.count_nonzero(result.terminated | result.truncated))
        assert finals >= N
        assert wrapper.rows == finals
        assert set(wrapper.batch_sizes) == {1, N}  # no batch of terminal rows


def test_per_row_override_of_vec_normalize_observation_is_honoured() -> None:
    wrapper = NormalizePerRow(DriftVecEnv(N, max_episode_steps=3))
    wrapper.reset(seed=0)
    finals = 0
    for _ in range(7):
        result = wrapper.step(np.zeros(N, dtype=np.int64))
        finals += int(np.count_nonzero(result.terminated | result.truncated))
    assert finals >= N and wrapper.rows == finals


def test_an_instance_level_per_row_hook_is_honoured() -> None:
    wrapper = VecNormalizeObservation(DriftVecEnv(N, max_episode_steps=2))
    seen: list[Any] = []

    def per_row(obs: Any) -> str:
        seen.append(obs)
        return "row"

    wrapper.final_observation = per_row  # type: ignore[method-assign]
    wrapper.reset(seed=0)
    wrapper.step(np.zeros(N, dtype=np.int64))
    result = wrapper.step(np.zeros(N, dtype=np.int64))
    assert len(seen) == N
    assert all(info["final_observation"] == "row" for info in result.infos)


class BothHooks(Affine):
    """Overrides the per-row hook and supplies its batched form: the batch one is used."""

    rows = 0

    def final_observation(self, obs: Any) -> Any:
        self.rows += 1
        return _affine(_affine(obs))

    def _final_observation_batch(self, batch: Any) -> Any:
        return _affine(_affine(batch))


def test_an_explicit_batched_hook_is_used() -> None:
    wrapper = BothHooks(DriftVecEnv(N, max_episode_steps=2))
    wrapper.reset(seed=0)
    wrapper.step(np.zeros(N, dtype=np.int64))
    before = DriftVecEnv(N, max_episode_steps=2)
    before.reset(seed=0)
    before.step(np.zeros(N, dtype=np.int64))
    raw = before.step(np.zeros(N, dtype=np.int64))
    result = wrapper.step(np.zeros(N, dtype=np.int64))
    assert wrapper.rows == 0
    for i in range(N):
        want = _affine(_affine(raw.infos[i]["final_observation"]))
        assert_identical(result.infos[i]["final_observation"], want, f"infos[{i}]")


# -- LazyInfos._map_final_batch directly ---------------------------------------------------

BOX = Box(-1.0, 1.0, shape=(2,), dtype=np.float32)


def lazy(space: Space[Any] = BOX, batch: Any = None, indices: Any = (0, 2)) -> LazyInfos:
    if batch is None:
        batch = np.arange(8, dtype=np.float32).reshape(4, 2)
    rows = np.asarray(indices, dtype=np.intp)
    return LazyInfos(4, {"x": np.arange(4)}, final=(rows, batch, space, {}))


def test_map_final_batch_takes_the_terminal_rows_once() -> None:
    infos = lazy()
    calls: list[Any] = []

    def double(batch: Any) -> Any:
        calls.append(batch.copy())
        return batch * 2.0

    out_space = Box(-2.0, 2.0, shape=(2,), dtype=np.float64)
    assert infos._map_final_batch(double, out_space)
    assert not infos._filled and len(calls) == 1
    assert_identical(calls[0], np.array([[0, 1], [4, 5]], dtype=np.float32))
    # a second batch map works on the terminal rows only
    assert infos._map_final_batch(lambda b: b + 1.0, out_space)
    assert_identical(infos[0]["final_observation"], np.array([1.0, 3.0], dtype=np.float32))
    assert_identical(infos[2]["final_observation"], np.array([9.0, 11.0], dtype=np.float32))
    assert "final_observation" not in infos[1] and infos[2]["x"] == 2
    # once built, only the per-row path applies
    assert not infos._map_final_batch(double, out_space)
    infos._map_final_observations(lambda obs: obs - 1.0)
    assert_identical(infos[2]["final_observation"], np.array([8.0, 10.0], dtype=np.float32))


def test_map_final_batch_then_per_row_map() -> None:
    infos = lazy()
    assert infos._map_final_batch(lambda b: b * 2.0, BOX)
    infos._map_final_observations(lambda obs: obs + 1.0)
    assert not infos._filled
    assert not infos._map_final_batch(lambda b: b, BOX)  # rows are split now
    assert_identical(infos[2]["final_observation"], np.array([9.0, 11.0], dtype=np.float32))


def test_map_final_batch_without_terminal_rows_calls_nothing() -> None:
    infos = lazy(indices=())
    assert infos._map_final_batch(lambda b: pytest.fail("called"), BOX)
    assert LazyInfos(2, {})._map_final_batch(lambda b: pytest.fail("called"), BOX)


@pytest.mark.parametrize(
    ("case", "make"),
    [
        ("filled", lambda: lazy()),
        ("sequence space", lambda: lazy(Sequence(BOX), tuple(np.zeros((4, 1, 2))))),
        ("list batch", lambda: lazy(batch=[np.zeros(2, np.float32)] * 4)),
        ("dict batch for a Box", lambda: lazy(batch={"a": np.zeros((4, 2))})),
    ],
)
def test_map_final_batch_declines_without_calling(case: str, make: Callable[[], Any]) -> None:
    infos = make()
    if case == "filled":
        list(infos)
    assert not infos._map_final_batch(lambda b: pytest.fail("called"), BOX)


def test_map_final_batch_declines_non_array_output_spaces() -> None:
    infos = lazy()
    assert not infos._map_final_batch(lambda b: pytest.fail("called"), Sequence(BOX))


def test_a_wrapper_without_the_batched_hook_sees_batches_of_one() -> None:
    wrapper = CrossSectional(DriftVecEnv(N, max_episode_steps=2))
    raw = DriftVecEnv(N, max_episode_steps=2)
    for venv in (wrapper, raw):
        venv.reset(seed=3)
        venv.step(np.zeros(N, dtype=np.int64))
    wrapper.batch_sizes.clear()
    got, want = wrapper.step(np.zeros(N, dtype=np.int64)), raw.step(np.zeros(N, dtype=np.int64))
    assert wrapper.batch_sizes == [N] + [1] * N  # each terminal observation as a batch of one
    for i in range(N):
        final = want.infos[i]["final_observation"]
        assert_identical(got.infos[i]["final_observation"], final - final)


def test_map_final_batch_declines_a_result_without_one_row_per_terminal_obs() -> None:
    infos = lazy()
    assert not infos._map_final_batch(lambda b: b[:1], BOX)
    assert not infos._map_final_batch(lambda b: list(b), BOX)
    assert not infos._map_final_batch(lambda b: {"a": b}, Dict({"a": BOX, "b": BOX}))
    assert_identical(infos[0]["final_observation"], np.array([0.0, 1.0], dtype=np.float32))


def test_a_wrapper_falls_back_to_per_row_when_the_batch_result_is_not_rows() -> None:
    class FirstRowOnly(VecObservationWrapper[Any, Any, Any]):
        def observation(self, batch: Any) -> Any:
            return batch[:1] if len(batch) != N else batch

    wrapper = FirstRowOnly(DriftVecEnv(N, max_episode_steps=2))
    raw = DriftVecEnv(N, max_episode_steps=2)
    for venv in (wrapper, raw):
        venv.reset(seed=5)
        venv.step(np.zeros(N, dtype=np.int64))
    got, want = wrapper.step(np.zeros(N, dtype=np.int64)), raw.step(np.zeros(N, dtype=np.int64))
    for i in range(N):
        assert_identical(got.infos[i]["final_observation"], want.infos[i]["final_observation"])


def test_autoreset_off_has_no_terminal_rows() -> None:
    wrapper = Affine(DriftVecEnv(N, max_episode_steps=2, autoreset=False))
    wrapper.reset(seed=0)
    for _ in range(3):
        result = wrapper.step(np.zeros(N, dtype=np.int64))
        assert all("final_observation" not in info for info in result.infos)
    assert set(wrapper.batch_sizes) == {N}
