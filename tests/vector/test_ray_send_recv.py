"""Split stepping, ``send`` / ``recv``, on RayVecEnv: groups and native slices."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

ray = pytest.importorskip("ray")

import ray_helpers as helpers  # noqa: E402
import split_steps  # noqa: E402

import sekai  # noqa: E402
from sekai.error import VecEnvWorkerError  # noqa: E402
from sekai.testing import assert_trees_equal  # noqa: E402
from sekai.vector import RayVecEnv, SyncVecEnv  # noqa: E402

ToyEnv = toys.ToyEnv
deadline = toys.deadline  # autouse
pytestmark = pytest.mark.usefixtures("local_ray")
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def toy(**kwargs: Any) -> Any:
    return lambda: ToyEnv(length=4, **kwargs)


def close_and_check(vec: RayVecEnv) -> None:
    pids = [w.pid for w in vec.workers]
    vec.close()
    assert helpers.all_gone(pids)


@pytest.mark.parametrize(("workers", "batch_size"), [(4, 1), (2, 3)])
def test_trajectories_do_not_depend_on_the_batches(workers: int, batch_size: int) -> None:
    plan = np.random.default_rng(6).integers(0, 2, size=(4, 8))
    fns = [lambda: sekai.TimeLimit(ToyEnv(length=3, slow_on=1, delay=0.002), 6)] * 4
    reference = split_steps.rollout_with_step(SyncVecEnv(fns), plan, seed=2)
    vec = RayVecEnv(fns, num_workers=workers, batch_size=batch_size)
    assert vec.batch_size == batch_size
    rows, sizes = split_steps.rollout_with_recv(vec, plan, seed=2)
    split_steps.assert_same_trajectories(rows, reference)
    assert sum(sizes) == plan.size
    close_and_check(vec)


def test_send_all_then_recv_is_step_and_rows_keep_their_actions() -> None:
    a = RayVecEnv([toy()] * 5, num_workers=2)
    b = SyncVecEnv([toy()] * 5)
    a.reset(seed=4), b.reset(seed=4)
    a.send(np.array([1, 0, 1, 1, 0]))
    x, y = a.recv(), b.step(np.array([1, 0, 1, 1, 0]))
    assert_trees_equal(
        (x.observations, x.rewards, x.terminated, list(x.infos)),
        (y.observations, y.rewards, y.terminated, list(y.infos)),
    )
    assert x.observations.flags.writeable and not x.env_ids.flags.writeable
    a.send([1, 0], env_ids=[4, 1])
    a.send([0], env_ids=[3])
    part = a.recv()
    assert part.env_ids.tolist() == [1, 3, 4]
    assert [i["action"] for i in part.infos] == [0, 0, 1]
    assert [i["count"] for i in part.infos] == [2, 2, 2]
    close_and_check(a)


def test_batches_follow_the_slow_sub_env(tmp_path: Path) -> None:
    gated = toy(slow_on=1, gate=str(tmp_path / "gate"))
    vec = RayVecEnv([gated] * 4, num_workers=4, batch_size=2)
    split_steps.check_recv_skips_the_gated(vec, tmp_path / "gate", gated=1)
    close_and_check(vec)


def test_misuse() -> None:
    vec = RayVecEnv([toy()] * 3, num_workers=3)
    vec.reset(seed=0)
    with pytest.raises(RuntimeError, match="no step in flight"):
        vec.recv()
    vec.send([0], env_ids=[2])
    with pytest.raises(RuntimeError, match=r"sub-envs \[2\] already have a step in flight"):
        vec.send([0], env_ids=[2])
    for call in (lambda: vec.step([0, 0, 0]), vec.reset, lambda: vec.get_attr("count")):
        with pytest.raises(RuntimeError, match="have a step in flight"):
            call()
    assert vec.recv().env_ids.tolist() == [2]
    with pytest.raises(ValueError, match=r"batch_size must be in \[1, 2\], got 3"):
        RayVecEnv([toy()] * 2, batch_size=3)
    vec.send([0, 0, 0])
    close_and_check(vec)  # with a step in flight


def test_sub_env_error_keeps_the_other_rows() -> None:
    vec = RayVecEnv([toy(fail_on=1)] * 4, num_workers=2)
    vec.reset(seed=0)
    vec.send(np.array([0, 0, 0, 1]))
    with pytest.raises(VecEnvWorkerError) as info:
        vec.recv()
    assert (info.value.rank, info.value.exc_type) == (3, "ValueError")
    kept = vec.recv()
    assert kept.env_ids.tolist() == [0, 1]
    close_and_check(vec)


def test_a_killed_worker_fails_its_sub_envs_only() -> None:
    vec = RayVecEnv([toy()] * 4, num_workers=2, batch_size=1)
    vec.reset(seed=0)
    ray.kill(vec._actors[0])
    assert helpers.all_gone([vec.workers[0].pid])  # a kill is asynchronous
    vec.send(np.zeros(4, int))
    ids: list[int] = []
    with pytest.raises(VecEnvWorkerError, match="the Ray worker holding sub-envs 0-1 died"):
        while True:
            ids += vec.recv().env_ids.tolist()
    while len(ids) < 2:
        ids += vec.recv().env_ids.tolist()
    assert ids == [2, 3]
    vec.send([0], env_ids=[3])
    assert vec.recv().env_ids.tolist() == [3]
    with pytest.raises(VecEnvWorkerError, match="holding sub-envs 0-1 died"):
        vec.send([0], env_ids=[1])
    close_and_check(vec)


def test_native_slices_step_whole() -> None:
    vec = sekai.make_vec(
        "Trading-v0",
        5,
        vectorization_mode="ray",
        vector_kwargs={"num_workers": 2, "batch_size": 2},
    )
    twin = sekai.make_vec("Trading-v0", 5, vectorization_mode="ray")
    with vec, twin:
        assert vec.native_slices and twin.native_slices
        vec.reset(seed=3), twin.reset(seed=3)
        actions = np.array([0, 1, 2, 1, 0])
        vec.send(actions[[3, 4, 0, 1, 2]], env_ids=[3, 4, 0, 1, 2])
        got = [vec.recv()]
        if len(got[0].env_ids) < 5:
            got.append(vec.recv())
        ids = np.concatenate([g.env_ids for g in got])
        assert sorted(ids.tolist()) == [0, 1, 2, 3, 4]
        assert all(g.env_ids.tolist() in ([0, 1, 2], [3, 4], [0, 1, 2, 3, 4]) for g in got)
        want = twin.step(actions)
        rewards = np.concatenate([g.rewards for g in got])[np.argsort(ids)]
        assert_trees_equal(rewards, want.rewards)
        with pytest.raises(ValueError, match="takes whole slices"):
            vec.send(actions[:2], env_ids=[0, 1])
        vec.send(actions[3:], env_ids=[3, 4])
        assert vec.recv().env_ids.tolist() == [3, 4]
