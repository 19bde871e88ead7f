"""Partial resets: ``reset(options={"reset_mask": mask})`` on every backend and wrapper."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest
from drift_envs import FrozenAwareDrift

from sekai.error import ResetRequired
from sekai.testing import assert_trees_equal
from sekai.vector import (
    AsyncVecEnv,
    ProcVecEnv,
    SyncVecEnv,
    VecEnv,
    VecNormalizeObservation,
    VecNormalizeReward,
    VecRecordEpisodeStatistics,
)

deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])

LENGTHS = (2, 4, 9)  # sub-env i's episodes last LENGTHS[i] steps; reward = step count
ZEROS = np.zeros(3, dtype=np.int64)


def toy_fns() -> list[Callable[[], Any]]:
    return [functools.partial(toys.ToyEnv, length=k) for k in LENGTHS]


BACKENDS: dict[str, Callable[..., VecEnv[Any, Any]]] = {
    "sync": SyncVecEnv,
    "async": AsyncVecEnv,
    "proc": functools.partial(ProcVecEnv, num_workers=2),
    "proc-pickled": functools.partial(ProcVecEnv, shared_memory=False),
}


def mask(*entries: bool) -> np.ndarray:
    return np.array(entries, dtype=bool)


def script(vec: VecEnv[Any, Any]) -> list[Any]:
    """Steps, a partial reset with a seed and options, more steps; every result in order."""
    results: list[Any] = [vec.reset(seed=0)]
    results += [vec.step(ZEROS) for _ in range(3)]  # sub-env 0 finished at step 2: frozen
    results.append(vec.reset(seed=5, options={"reset_mask": mask(True, True, False), "tag": 1}))
    results += [vec.step(ZEROS) for _ in range(2)]
    results.append(vec.reset(options={"reset_mask": mask(False, False, False)}))
    results.append(vec.step(ZEROS))
    return results


@pytest.mark.parametrize("backend", BACKENDS)
def test_only_the_selected_sub_envs_restart(backend: str) -> None:
    with BACKENDS[backend](toy_fns(), autoreset=False) as vec, SyncVecEnv(toy_fns()) as ref:
        results = script(vec)
        last, partial = results[3], results[4]
        assert last.dones.tolist() == [True, False, False]
        # the selected rows are those a full reset with the same seed gives them
        fresh = ref.reset(seed=5, options={"tag": 1})
        np.testing.assert_array_equal(partial.observations[:2], fresh.observations[:2])
        np.testing.assert_array_equal(partial.observations[2], last.observations[2])
        # the other options reach the reset sub-envs, without the mask
        assert partial.infos == [{"options": {"tag": 1}}] * 2 + [{}]
        # sub-envs 0 and 1 count their new episode; sub-env 2 goes on with its own
        after = results[5]
        assert [info["count"] for info in after.infos] == [1, 1, 4]
        assert after.rewards.tolist() == [1.0, 1.0, 4.0]
        assert results[6].dones.tolist() == [True, False, False]
        # an all-False mask resets nothing: current rows, {} infos, sub-env 0 still frozen
        nothing = results[7]
        np.testing.assert_array_equal(nothing.observations, results[6].observations)
        assert nothing.infos == [{}] * 3
        frozen = results[8]
        assert frozen.rewards[0] == 0.0 and frozen.infos[0] == {}
        np.testing.assert_array_equal(frozen.observations[0], results[6].observations[0])
        if backend != "sync":
            with SyncVecEnv(toy_fns(), autoreset=False) as sync:
                for ours, theirs in zip(results, script(sync), strict=True):
                    assert_trees_equal(ours.observations, theirs.observations)
                    assert_trees_equal(ours.infos, theirs.infos)
    if backend.startswith("proc"):
        toys.assert_released(vec)


@pytest.mark.parametrize("backend", BACKENDS)
def test_seeds_of_unselected_sub_envs_are_ignored(backend: str) -> None:
    check_unselected_seeds_ignored(BACKENDS[backend])


def check_unselected_seeds_ignored(build: Callable[..., VecEnv[Any, Any]]) -> None:
    """A partial reset draws nothing from the seeds of the sub-envs it leaves alone."""
    with build(toy_fns()) as vec, build(toy_fns()) as twin:
        vec.reset(seed=0)
        twin.reset(seed=1)
        selected = mask(False, True, False)
        a = vec.reset(seed=[1, 2, 3], options={"reset_mask": selected})
        b = twin.reset(seed=[7, 2, None], options={"reset_mask": selected})
        np.testing.assert_array_equal(a.observations[1], b.observations[1])
        assert not np.array_equal(a.observations[0], b.observations[0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_masks_and_a_mask_before_the_first_reset(backend: str) -> None:
    with BACKENDS[backend](toy_fns()) as vec:
        with pytest.raises(ResetRequired, match="call reset\\(\\) without a mask first"):
            vec.reset(options={"reset_mask": mask(True, False, False)})
        # a mask selecting every sub-env is a full reset
        full = vec.reset(seed=3, options={"reset_mask": mask(True, True, True)})
        np.testing.assert_array_equal(full.observations, vec.reset(seed=3).observations)
        check_bad_masks(vec)


def check_bad_masks(vec: VecEnv[Any, Any]) -> None:
    with pytest.raises(ValueError, match=r"shape \(3,\).*got shape \(2,\)"):
        vec.reset(options={"reset_mask": mask(True, False)})
    with pytest.raises(TypeError, match=r"bool array.*got dtype int64"):
        vec.reset(options={"reset_mask": np.array([1, 0, 0])})
    with pytest.raises(TypeError, match="bool array"):
        vec.reset(options={"reset_mask": None})
    with pytest.raises(ValueError, match="not in a list of per-sub-env options"):
        vec.reset(options=[{"reset_mask": mask(True, False, False)}, None, None])
    with pytest.raises(ValueError, match="num_envs=3 seeds"):
        vec.reset(seed=[1, 2], options={"reset_mask": mask(False, False, False)})
    # a plain list of bools is a bool array too
    vec.reset(options={"reset_mask": [True, False, False]})


# -- NativeVecEnv -------------------------------------------------------------------------------


def drift(**kwargs: Any) -> FrozenAwareDrift:
    return FrozenAwareDrift(6, **kwargs)


def step_until_some_finish(vec: FrozenAwareDrift) -> Any:
    for _ in range(500):
        result = vec.step(np.ones(vec.num_envs, dtype=np.int64))
        if 0 < result.dones.sum() < vec.num_envs:
            return result
    pytest.fail("no step finished some sub-envs but not all")


def test_native_partial_reset_rows_frozen_and_elapsed() -> None:
    vec = drift(autoreset=False)
    vec.reset(seed=0)
    last = step_until_some_finish(vec)
    done = last.dones
    elapsed = vec.elapsed_steps
    selected = done.copy()
    selected[np.flatnonzero(~done)[0]] = True  # one sub-env that still runs restarts too
    result = vec.reset(options={"reset_mask": selected})
    kept = ~selected
    np.testing.assert_array_equal(result.observations[kept], last.observations[kept])
    assert not np.array_equal(result.observations[selected], last.observations[selected])
    np.testing.assert_array_equal(vec.frozen, np.zeros(6, dtype=bool))
    assert vec.active is None
    np.testing.assert_array_equal(vec.elapsed_steps, np.where(selected, 0, elapsed))
    for i in range(6):
        if selected[i]:
            assert result.infos[i] == {"start": pytest.approx(float(vec.x[i]))}
        else:
            assert result.infos[i] == {}
    # the restarted sub-envs move again, with the others
    moved = vec.step(np.ones(6, dtype=np.int64))
    assert np.all(moved.rewards != 0.0)
    np.testing.assert_array_equal(vec.elapsed_steps, np.where(selected, 1, elapsed + 1))


def test_native_frozen_sub_envs_left_out_stay_frozen() -> None:
    vec = drift(autoreset=False)
    vec.reset(seed=1)
    last = step_until_some_finish(vec)
    done = last.dones
    first = np.flatnonzero(done)[0]
    selected = np.zeros(6, dtype=bool)
    selected[first] = True
    result = vec.reset(options={"reset_mask": selected})
    still = done & ~selected
    np.testing.assert_array_equal(vec.frozen, still)
    np.testing.assert_array_equal(result.observations[~selected], last.observations[~selected])
    step = vec.step(np.ones(6, dtype=np.int64))
    np.testing.assert_array_equal(step.observations[still], last.observations[still])
    assert np.all(step.rewards[still] == 0.0) and np.all(step.dones[still])
    assert step.rewards[first] != 0.0


def test_native_seeding_follows_the_full_reset() -> None:
    a, b = drift(), drift()
    a.reset(seed=0)
    b.reset(seed=9)
    for _ in range(3):
        a.step(np.zeros(6, dtype=np.int64))
    everyone = np.ones(6, dtype=bool)
    # all True: the very reset(seed=s), and the same stream afterwards
    np.testing.assert_array_equal(
        a.reset(seed=4, options={"reset_mask": everyone}).observations,
        b.reset(seed=4).observations,
    )
    actions = np.ones(6, dtype=np.int64)
    np.testing.assert_array_equal(a.step(actions).observations, b.step(actions).observations)
    # an int seed reseeds rng: the selected rows are the same whatever came before
    some = np.array([True, False, True, False, False, True])
    b.step(actions)
    ra = a.reset(seed=11, options={"reset_mask": some})
    rb = b.reset(seed=11, options={"reset_mask": some})
    np.testing.assert_array_equal(ra.observations[some], rb.observations[some])
    # a list counts the entries of the selected sub-envs only
    ra = a.reset(seed=[1, 2, 3, 4, 5, 6], options={"reset_mask": some})
    rb = b.reset(seed=[1, 0, 3, None, 0, 6], options={"reset_mask": some})
    np.testing.assert_array_equal(ra.observations[some], rb.observations[some])
    # nothing selected: nothing reset, rng untouched
    state = a.rng.bit_generator.state
    a.reset(seed=3, options={"reset_mask": np.zeros(6, dtype=bool)})
    assert a.rng.bit_generator.state == state


def test_native_partial_reset_restarts_the_time_limit_of_the_selected_only() -> None:
    vec = drift(max_episode_steps=5)
    vec.reset(seed=0)
    for _ in range(3):
        vec.step(np.zeros(6, dtype=np.int64))
    selected = np.array([True, True, False, False, False, False])
    vec.reset(options={"reset_mask": selected})
    for _ in range(2):
        result = vec.step(np.zeros(6, dtype=np.int64))
    assert result.truncated.tolist() == [False, False, True, True, True, True]
    assert [info["elapsed_steps"] for info in result.infos[:3]] == [2, 2, 5]


def test_native_bad_masks_and_a_mask_before_the_first_reset() -> None:
    vec = FrozenAwareDrift(3)
    with pytest.raises(ResetRequired, match="without a mask first"):
        vec.reset(options={"reset_mask": mask(False, True, False)})
    vec.reset(options={"reset_mask": mask(True, True, True)})
    check_bad_masks(vec)
    with pytest.raises(ValueError, match="non-negative"):
        vec.reset(seed=-1, options={"reset_mask": mask(False, False, False)})


# -- wrappers -----------------------------------------------------------------------------------


def test_episode_statistics_restart_only_the_reset_sub_envs() -> None:
    vec = VecRecordEpisodeStatistics(SyncVecEnv(toy_fns(), autoreset=False))
    vec.reset(seed=0)
    lengths: list[tuple[int, int]] = []

    def step(times: int) -> None:
        for _ in range(times):
            infos = vec.step(ZEROS).infos
            lengths.extend(
                (i, info["episode"].episode_length)
                for i, info in enumerate(infos)
                if "episode" in info
            )

    step(3)  # sub-env 0 finished (2 steps) and froze
    vec.reset(options={"reset_mask": mask(True, False, False)})
    step(2)  # sub-env 1 finishes its first episode (4 steps); sub-env 0 its second
    assert lengths == [(0, 2), (1, 4), (0, 2)]
    assert len(vec.tracker.episodes) == 3


def test_normalize_reward_restarts_the_returns_of_the_reset_sub_envs() -> None:
    vec = VecNormalizeReward(SyncVecEnv(toy_fns()), gamma=1.0)
    vec.reset(seed=0)
    vec.step(ZEROS)
    vec.reset(options={"reset_mask": mask(False, True, False)})
    np.testing.assert_array_equal(vec._returns, [1.0, 0.0, 1.0])
    vec.reset()
    np.testing.assert_array_equal(vec._returns, [0.0, 0.0, 0.0])


def test_normalize_observation_updates_with_the_reset_rows_only() -> None:
    vec = VecNormalizeObservation(SyncVecEnv(toy_fns()))
    raw = SyncVecEnv(toy_fns())
    for env in (vec, raw):
        env.reset(seed=0)
        env.step(ZEROS)
    count = vec.obs_rms.count
    selected = mask(True, False, True)
    result = vec.reset(options={"reset_mask": selected})
    assert vec.obs_rms.count == pytest.approx(count + 2)
    expected = vec.normalizer(
        raw.reset(options={"reset_mask": selected}).observations, update=False
    )
    np.testing.assert_allclose(result.observations, expected)
    vec.close()
    raw.close()
