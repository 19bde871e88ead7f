"""Split stepping, ``send`` / ``recv``, on the in-process backends, native envs and
ProcVecEnv: the rows, their ``env_ids``, per-sub-env trajectories, misuse."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest
import split_steps

import sekai
from sekai.error import VecEnvClosed, VecEnvWorkerError
from sekai.testing import assert_trees_equal
from sekai.vector import AsyncVecEnv, ProcVecEnv, SyncVecEnv, VecEnv
from sekai.vector._partial import check_env_ids

ToyEnv = toys.ToyEnv
deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def toy(**kwargs: Any) -> Callable[[], sekai.Env]:
    return lambda: ToyEnv(length=4, **kwargs)


def build(kind: str, fns: list[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
    if kind == "sync":
        return SyncVecEnv(fns, **kwargs)
    if kind == "async":
        return AsyncVecEnv(fns, **kwargs)
    workers = 2 if kind == "proc-groups" else None
    return ProcVecEnv(fns, num_workers=workers, context="fork", **kwargs)


def closed_clean(vec: VecEnv[Any, Any]) -> None:
    vec.close()
    if isinstance(vec, ProcVecEnv):
        toys.assert_released(vec)


KINDS = ["sync", "async", "proc", "proc-groups"]


# -- the rows ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_send_all_then_recv_is_step(kind: str) -> None:
    a, b = build(kind, [toy()] * 4), build(kind, [toy()] * 4)
    a.reset(seed=3), b.reset(seed=3)
    for t in range(6):
        actions = np.array([t % 2, 1, 0, t % 2])
        a.send(actions)
        x, y = a.recv(), b.step(actions)
        assert x.env_ids.tolist() == y.env_ids.tolist() == [0, 1, 2, 3]
        assert_trees_equal(
            (x.observations, x.rewards, x.terminated, x.truncated, list(x.infos)),
            (y.observations, y.rewards, y.terminated, y.truncated, list(y.infos)),
        )
    assert not y.env_ids.flags.writeable  # a full batch's ids are shared
    closed_clean(a)
    closed_clean(b)


@pytest.mark.parametrize("kind", KINDS)
def test_rows_come_back_in_sub_env_order_with_their_actions(kind: str) -> None:
    vec = build(kind, [toy()] * 5)
    vec.reset(seed=0)
    vec.send(np.array([1, 0, 1]), env_ids=np.array([4, 0, 2]))
    vec.send([1], env_ids=[1])
    result = vec.recv()
    assert result.env_ids.tolist() == [0, 1, 2, 4]
    assert [info["action"] for info in result.infos] == [0, 1, 1, 1]
    assert result.observations.shape == (4, 2) and result.rewards.tolist() == [1.0] * 4
    vec.send([0, 0], env_ids=(3, 0))
    result = vec.recv()
    assert result.env_ids.tolist() == [0, 3]
    assert [info["count"] for info in result.infos] == [2, 1]
    closed_clean(vec)


@pytest.mark.parametrize(
    ("kind", "batch_size"),
    [("sync", None), ("async", None), ("proc", 1), ("proc", 3), ("proc-groups", 1)],
)
def test_trajectories_do_not_depend_on_the_batches(kind: str, batch_size: int | None) -> None:
    plan = np.random.default_rng(5).integers(0, 2, size=(4, 9))
    fns = [lambda: sekai.TimeLimit(ToyEnv(length=3, slow_on=1, delay=0.002), 7)] * 4
    reference = split_steps.rollout_with_step(build("sync", fns), plan, seed=11)
    vec = build(kind, fns, **({} if batch_size is None else {"batch_size": batch_size}))
    rows, sizes = split_steps.rollout_with_recv(vec, plan, seed=11)
    split_steps.assert_same_trajectories(rows, reference)
    assert sum(sizes) == plan.size
    finals = [r for env_rows in rows for r in env_rows if "final_observation" in r[4]]
    assert finals  # autoresets happened along the way
    closed_clean(vec)


def test_proc_batches_follow_the_slow_sub_env(tmp_path: Path) -> None:
    vec = ProcVecEnv([toy(slow_on=1, gate=str(tmp_path / "gate"))] * 4, batch_size=2)
    assert vec.batch_size == 2
    split_steps.check_recv_skips_the_gated(vec, tmp_path / "gate", gated=2)
    closed_clean(vec)


def test_proc_messages_queue_up_in_a_worker(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    vec = ProcVecEnv(
        [toy(slow_on=1, gate=str(gate))] * 4, num_workers=2, batch_size=1, context="fork"
    )
    vec.reset(seed=0)
    vec.send([1], env_ids=[0])  # worker 0 is stuck on sub-env 0 ...
    vec.send([0, 0], env_ids=[1, 3])  # ... so sub-env 1 waits behind it; 3 is in worker 1
    assert vec.recv().env_ids.tolist() == [3]
    gate.touch()
    ids = []
    while len(ids) < 2:
        ids += vec.recv().env_ids.tolist()
    assert sorted(ids) == [0, 1]
    closed_clean(vec)


def test_proc_partial_batches_without_shared_memory() -> None:
    space = sekai.Sequence(sekai.Discrete(3))
    vec = ProcVecEnv([lambda: ToyEnv(space)] * 3, num_workers=2, context="fork")
    sync = SyncVecEnv([lambda: ToyEnv(space)] * 3)
    assert not vec.shared_memory
    vec.reset(seed=1), sync.reset(seed=1)
    vec.send([0, 0], env_ids=[2, 1])
    part = vec.recv()
    whole = sync.step([0, 0, 0])
    assert part.env_ids.tolist() == [1, 2]
    assert_trees_equal(list(part.observations), list(whole.observations[1:]))
    closed_clean(vec)
    sync.close()


# -- native envs: the whole batch at once -----------------------------------------------------


def test_native_send_recv_takes_every_sub_env() -> None:
    vec = sekai.make_vec("OptimalExecution-v0", num_envs=3)
    twin = sekai.make_vec("OptimalExecution-v0", num_envs=3)
    vec.reset(seed=0), twin.reset(seed=0)
    actions = vec.batch_action_space.sample()
    vec.send(actions[[2, 0, 1]], env_ids=[2, 0, 1])
    result = vec.recv()
    expected = twin.step(actions)
    assert result.env_ids.tolist() == [0, 1, 2]
    assert_trees_equal(
        (result.observations, result.rewards), (expected.observations, expected.rewards)
    )
    with pytest.raises(ValueError, match="steps all of its sub-envs at once"):
        vec.send(actions[:2], env_ids=[0, 1])
    assert vec.batch_size == 3
    vec.close()
    twin.close()


# -- misuse -----------------------------------------------------------------------------------


def test_env_ids_follow_the_int_rule() -> None:
    ids = check_env_ids([2.0, np.float32(0.0)], 3)
    assert ids.dtype == np.intp and ids.tolist() == [2, 0]
    assert check_env_ids(np.array([1.0, 2.0]), 3).tolist() == [1, 2]
    for bad in ([0.5], np.array([0.0, 1.5]), [0, True], [float("nan")]):
        with pytest.raises(TypeError, match="env_ids must hold ints"):
            check_env_ids(bad, 3)
    with pytest.raises(ValueError, match="out of range"):
        check_env_ids([3.0], 3)


@pytest.mark.parametrize("kind", KINDS)
def test_misuse_raises_clear_errors(kind: str) -> None:
    vec = build(kind, [toy()] * 3)
    vec.reset(seed=0)
    with pytest.raises(RuntimeError, match=r"recv\(\): no step in flight; send\(\) actions first"):
        vec.recv()
    for bad, error in [
        ([0.5], TypeError),
        ("0", TypeError),
        (3, TypeError),
        ([True], TypeError),
        ([3], ValueError),
        ([-1], ValueError),
        ([0, 0], ValueError),
        ([], ValueError),
        ([[0, 1]], ValueError),
    ]:
        with pytest.raises(error, match="env_ids must"):
            vec.send([0] * max(1, len(bad) if isinstance(bad, list) else 1), env_ids=bad)
    with pytest.raises(ValueError, match=r"actions must hold one per env_id \(2\) actions"):
        vec.send([0, 0, 0], env_ids=[0, 1])
    assert vec.in_flight.tolist() == []
    vec.send([0], env_ids=[1])
    assert vec.in_flight.tolist() == [1]
    with pytest.raises(RuntimeError, match=r"sub-envs \[1\] already have a step in flight"):
        vec.send([0, 0], env_ids=[0, 1])
    for call in (
        lambda: vec.step([0, 0, 0]),
        lambda: vec.reset(),
        lambda: vec.get_attr("count"),
        lambda: vec.set_attr("count", 0),
        lambda: vec.call("ping", 1),
    ):
        with pytest.raises(RuntimeError, match=r"1 sub-env\(s\) have a step in flight"):
            call()
    assert vec.recv().env_ids.tolist() == [1]
    assert vec.in_flight.tolist() == []
    assert vec.get_attr("count") == [0, 1, 0]  # nothing else ran
    vec.send([0, 0, 0])
    closed_clean(vec)  # with a step in flight
    with pytest.raises(VecEnvClosed):
        vec.send([0, 0, 0])
    with pytest.raises(VecEnvClosed):
        vec.recv()


@pytest.mark.parametrize("kind", ["proc", "proc-groups"])
def test_proc_batch_size_is_checked(kind: str) -> None:
    for bad, error in [(0, ValueError), (4.0, ValueError), (1.5, TypeError), ("2", TypeError)]:
        with pytest.raises(error, match="batch_size"):
            build(kind, [toy()] * 3, batch_size=bad)
    toys.assert_no_leftovers()


def test_proc_sub_env_error_in_recv_keeps_the_other_rows() -> None:
    vec = ProcVecEnv([toy(fail_on=1)] * 4, batch_size=4, context="fork")
    vec.reset(seed=0)
    vec.send(np.array([0, 1, 0, 0]))
    with pytest.raises(VecEnvWorkerError) as info:
        vec.recv()
    assert (info.value.rank, info.value.exc_type) == (1, "ValueError")
    rows = vec.recv()  # the other three, kept
    assert rows.env_ids.tolist() == [0, 2, 3]
    assert [i["count"] for i in rows.infos] == [1, 1, 1]
    vec.send([0], env_ids=[1])  # the sub-env that raised is usable
    assert vec.recv().infos[0]["count"] == 1
    closed_clean(vec)


def test_proc_dead_worker_fails_its_sub_envs_only() -> None:
    vec = ProcVecEnv([toy()] * 3, batch_size=1, context="fork")
    vec.reset(seed=0)
    vec._processes[1].kill()
    vec._processes[1].join()
    vec.send([0, 0], env_ids=[0, 1])
    ids: list[int] = []
    with pytest.raises(VecEnvWorkerError, match="Sub-env 1 raised EOFError"):
        while True:
            ids += vec.recv().env_ids.tolist()
    ids += [] if ids else vec.recv().env_ids.tolist()
    assert ids == [0]
    vec.send([0], env_ids=[2])  # the live workers go on
    assert vec.recv().env_ids.tolist() == [2]
    for call in (lambda: vec.send([0], env_ids=[1]), lambda: vec.step([0, 0, 0]), vec.reset):
        with pytest.raises(VecEnvWorkerError, match="Sub-env 1 raised EOFError"):
            call()
    closed_clean(vec)
