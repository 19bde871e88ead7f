"""ProcVecEnv in normal operation: layout, equality with SyncVecEnv, spaces, attributes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

import sekai
from sekai import Box, Dict, Discrete, MaskedBox, MultiBinary, MultiDiscrete, Sequence, Tuple
from sekai.error import VecEnvClosed, VecEnvWorkerError
from sekai.testing import assert_trees_equal
from sekai.vector.proc_vec_env import ProcVecEnv
from sekai.vector.sync_vec_env import SyncVecEnv

ToyEnv = toys.ToyEnv
deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def cartpole() -> sekai.Env:
    return sekai.make("CartPole-v1")


def toy(**kwargs: Any) -> sekai.Env:
    return sekai.TimeLimit(ToyEnv(**kwargs), 100)


@pytest.fixture(scope="module")
def cartpoles() -> Iterator[tuple[ProcVecEnv, SyncVecEnv]]:
    proc = ProcVecEnv([cartpole] * 4, num_workers=2)
    sync = SyncVecEnv([cartpole] * 4)
    yield proc, sync
    proc.close()
    sync.close()
    toys.assert_released(proc)


@pytest.fixture(scope="module")
def toyvec() -> Iterator[ProcVecEnv]:
    vec = ProcVecEnv([toy] * 3, num_workers=2)
    yield vec
    vec.close()
    toys.assert_released(vec)


def run_both(proc: Any, sync: Any, actions: list[Any], **reset_kwargs: Any) -> list[Any]:
    """Reset and step both VecEnvs alike, asserting equal results; return the step results."""
    a, b = proc.reset(**reset_kwargs), sync.reset(**reset_kwargs)
    assert_trees_equal(a.observations, b.observations)
    assert_trees_equal(a.infos, b.infos)
    results = []
    for action in actions:
        a, b = proc.step(action), sync.step(action)
        assert_trees_equal(a.observations, b.observations)
        for field in ("rewards", "terminated", "truncated"):
            assert_trees_equal(getattr(a, field), getattr(b, field))
        assert_trees_equal(a.infos, b.infos)
        results.append(a)
    return results


# -- construction ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"env_fns": []}, "at least one"), ({"num_workers": 0}, "num_workers"),
     ({"num_workers": -2}, "num_workers")],
)  # fmt: skip
def test_validation(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ProcVecEnv(**{"env_fns": [toy], **kwargs})


def test_layout(cartpoles: tuple[ProcVecEnv, SyncVecEnv]) -> None:
    proc, sync = cartpoles
    assert repr(proc) == "ProcVecEnv(num_envs=4)" and len(proc) == 4
    assert (proc.num_envs, proc.num_workers, proc._groups) == (4, 2, [[0, 1], [2, 3]])
    assert proc.autoreset is True and proc.close_timeout == 5.0 and proc.closed is False
    assert [p.name for p in proc._processes] == [
        "sekai-ProcVecEnv-worker-0",
        "sekai-ProcVecEnv-worker-1",
    ]
    assert all(p.daemon and p.is_alive() for p in proc._processes)
    assert proc.observation_space == sync.observation_space
    assert proc.action_space == sync.action_space
    assert proc.batch_action_space == sync.batch_action_space
    assert proc.shared_memory is True
    assert proc._shm is not None and (toys.SHM_DIR / proc._shm.name).exists()


@pytest.mark.parametrize(
    ("n", "num_workers", "groups"),
    [(3, 2, [[0, 1], [2]]), (3, None, [[0], [1], [2]]), (2, 5, [[0], [1]])],
)
def test_num_workers_grouping(n: int, num_workers: int | None, groups: list[list[int]]) -> None:
    with ProcVecEnv([toy] * n, num_workers=num_workers) as vec:
        assert vec.num_workers == len(groups) == len(vec._processes)
        assert vec._groups == groups
        result = vec.step(np.ones(n, int))
        assert [info["count"] for info in result.infos] == [1] * n
    toys.assert_released(vec)


# -- stepping -------------------------------------------------------------------------------


def test_matches_sync_cartpole(cartpoles: tuple[ProcVecEnv, SyncVecEnv]) -> None:
    proc, sync = cartpoles
    rng = np.random.default_rng(0)
    actions: list[Any] = [rng.integers(0, 2, 4) for _ in range(150)]
    actions += [[0, 1, 1, 0], np.array([[1], [0], [1], [1]])[:, 0]]
    results = run_both(proc, sync, actions, seed=0)
    assert any("final_observation" in info for r in results for info in r.infos)
    assert results[0].rewards.dtype == np.float64 and results[0].terminated.dtype == bool


def test_returns_copies(cartpoles: tuple[ProcVecEnv, SyncVecEnv]) -> None:
    proc, _ = cartpoles
    first = proc.reset(seed=1).observations
    kept = first.copy()
    second = proc.step(np.zeros(4, int)).observations
    np.testing.assert_array_equal(first, kept)
    assert not np.shares_memory(first, second)
    second[:] = 99.0
    assert not (proc.step(np.zeros(4, int)).observations == 99.0).any()


SPACES = {
    "discrete": (Discrete(5, start=2), True),
    "multi": (Dict(d=MultiDiscrete([2, 3]), b=MultiBinary((2, 2)), x=Box(0, 9, (3,), np.int16)),
              True),
    "tuple": (Tuple([Box(-1.0, 1.0, (2, 2), np.float64), Tuple([Discrete(3)]),
                     Dict(z=Box(0.0, 1.0, ()))]), True),
    "masked": (MaskedBox(-1.0, 1.0, (2,), max_size=4), True),
    "dict-masked": (Dict(slots=MaskedBox(0.0, 1.0, (2,), max_size=3), n=Discrete(4)), True),
    "sequence": (Sequence(Box(0.0, 1.0, (2,)), max_length=3), False),
    "stacked-sequence": (Sequence(Discrete(4), max_length=4, stack=True), False),
}  # fmt: skip


@pytest.mark.parametrize("name", list(SPACES))
def test_observation_spaces(name: str) -> None:
    space, shared = SPACES[name]
    fns = [lambda: toy(space=space, length=3)] * 3
    with ProcVecEnv(fns, num_workers=2) as proc, SyncVecEnv(fns) as sync:
        assert proc.shared_memory is shared
        assert proc.observation_space == space
        run_both(proc, sync, [np.array([0, 1, 0])] * 7, seed=3)
    toys.assert_released(proc)


def test_shared_memory_off() -> None:
    with ProcVecEnv([toy] * 2, shared_memory=False) as proc, SyncVecEnv([toy] * 2) as sync:
        assert proc.shared_memory is False and proc._shm is None
        run_both(proc, sync, [np.array([1, 0])] * 6, seed=[4, 5])
    toys.assert_released(proc)


def test_shared_memory_required_but_unsuitable() -> None:
    workers, blocks = set(toys.our_workers()), set(toys.our_blocks())
    space = Dict(a=Box(0.0, 1.0, (2,)), s=Sequence(Discrete(2)))
    with pytest.raises(TypeError, match="shared_memory"):
        ProcVecEnv([lambda: toy(space=space)] * 2, shared_memory=True)
    assert set(toys.our_workers()) <= workers and set(toys.our_blocks()) <= blocks


def test_autoreset_off_freezes() -> None:
    fns = [
        lambda: toy(length=2, fail_on=7),
        lambda: toy(length=4, fail_on=7),
        lambda: toy(length=9),
    ]
    with (
        ProcVecEnv(fns, autoreset=False, num_workers=2) as proc,
        SyncVecEnv(fns, autoreset=False) as sync,
    ):
        assert proc.autoreset is False
        steps = run_both(proc, sync, [np.array([0, 1, 0])] * 2 + [np.array([7, 0, 0])] * 3, seed=1)
        assert [s.dones.tolist() for s in steps[1:]] == [[True, False, False]] * 2 + [
            [True, True, False]
        ] * 2
        assert steps[2].rewards[0] == 0.0 and steps[2].infos[0] == {}
        np.testing.assert_array_equal(steps[4].observations[0], steps[1].observations[0])
        again = run_both(proc, sync, [np.zeros(3, int)], seed=0)  # reset unfreezes
        assert [info["count"] for info in again[0].infos] == [1, 1, 1]
    toys.assert_released(proc)


def test_self_resetting_sub_env() -> None:
    fns = [lambda: sekai.AutoReset(ToyEnv(length=2))] * 2
    with ProcVecEnv(fns) as proc, SyncVecEnv(fns) as sync:
        steps = run_both(proc, sync, [np.zeros(2, int)] * 3, seed=0)
        assert "final_observation" in steps[1].infos[0]
        assert "final_info" not in steps[1].infos[0]["final_info"]  # reset once, not twice
    toys.assert_released(proc)


def test_dict_actions() -> None:
    actions = Dict(a=Discrete(3), b=Box(-1.0, 1.0, (2,)))
    fns = [lambda: toy(action_space=actions)] * 3
    batch = {"a": np.array([0, 2, 1]), "b": np.arange(6, dtype=np.float32).reshape(3, 2)}
    with ProcVecEnv(fns, num_workers=2) as proc, SyncVecEnv(fns) as sync:
        steps = run_both(proc, sync, [batch], seed=0)
        assert steps[0].infos[2]["action"]["a"] == 1
    toys.assert_released(proc)


def test_bad_action_batches(toyvec: ProcVecEnv) -> None:
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.step(np.zeros(2, int))
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.step([0, 1])
    assert len(toyvec.step([0, 1, 1]).infos) == 3


def test_fork_context() -> None:
    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    with (
        ProcVecEnv([cartpole] * 3, context="fork", num_workers=2) as proc,
        SyncVecEnv([cartpole] * 3) as sync,
    ):
        run_both(proc, sync, [np.array([0, 1, 1])] * 20, seed=9)
    toys.assert_released(proc)


# -- seeds and options ------------------------------------------------------------------------


def test_seeds(toyvec: ProcVecEnv) -> None:
    first = toyvec.reset(seed=7).observations
    np.testing.assert_array_equal(toyvec.reset(seed=7).observations, first)
    assert not np.array_equal(first[0], first[1])
    with SyncVecEnv([toy] * 3) as sync:
        np.testing.assert_array_equal(sync.reset(seed=7).observations, first)
        listed = toyvec.reset(seed=[1, None, np.int64(2)]).observations
        np.testing.assert_array_equal(
            listed[[0, 2]], sync.reset(seed=[1, 0, 2]).observations[[0, 2]]
        )
    assert toyvec.reset(seed=np.float64(7.0)).observations.tolist() == first.tolist()
    with pytest.raises(TypeError, match="Generator"):
        toyvec.reset(seed=np.random.default_rng(0))
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.reset(seed=[1, 2])
    assert len(toyvec.reset().infos) == 3


def test_options(toyvec: ProcVecEnv) -> None:
    shared = {"level": 1}
    assert [i["options"] for i in toyvec.reset(options=shared).infos] == [shared] * 3
    per_env = [{"level": k} for k in range(3)]
    assert [i["options"] for i in toyvec.reset(options=per_env).infos] == per_env
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.reset(options=per_env[:2])


# -- reaching the sub-envs --------------------------------------------------------------------


def test_get_set_call(toyvec: ProcVecEnv) -> None:
    toyvec.reset(seed=0)
    toyvec.step([1, 1, 1])
    assert toyvec.get_attr("count") == [1, 1, 1]
    assert toyvec.get_attr("max_episode_steps") == [100] * 3  # from the TimeLimit wrapper
    toyvec.set_attr("length", 8)
    assert toyvec.get_attr("length") == [8] * 3
    toyvec.set_attr("length", [5, 6, 7])  # reaches ToyEnv through TimeLimit
    assert toyvec.get_attr("length") == [5, 6, 7]
    assert toyvec.call("ping", 3, scale=2) == [(6, 1)] * 3
    assert toyvec.call("length") == [5, 6, 7]
    toyvec.set_attr("hook", lambda: "hooked")  # cloudpickled
    assert toyvec.call("hook") == ["hooked"] * 3
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.set_attr("length", [1, 2])
    toyvec.set_attr("length", 5)


def test_missing_attribute(toyvec: ProcVecEnv) -> None:
    for method in (toyvec.get_attr, toyvec.call):
        with pytest.raises(VecEnvWorkerError) as info:
            method("no_such_attribute")
        assert (info.value.rank, info.value.exc_type) == (0, "AttributeError")
        assert "no_such_attribute" in str(info.value)
    assert toyvec.get_attr("length") == [5] * 3


def test_closed() -> None:
    with ProcVecEnv([toy] * 2) as vec:
        vec.reset(seed=0)
    assert vec.closed
    toys.assert_released(vec)
    for call in (lambda: vec.step([0, 0]), lambda: vec.reset(), lambda: vec.get_attr("count")):
        with pytest.raises(VecEnvClosed):
            call()
    vec.close()  # idempotent


def test_the_fork_server_imports_the_worker_module_once() -> None:
    from multiprocessing import forkserver

    kept = list(forkserver._forkserver._preload_modules)
    forkserver.set_forkserver_preload([*kept, "json"])  # a module the user asked for
    try:
        ProcVecEnv([toy], context="forkserver").close()
        wanted = forkserver._forkserver._preload_modules
        assert "json" in wanted and "__main__" in wanted
        assert wanted.count("sekai.vector.workers.proc_worker") == 1
        ProcVecEnv([toy], context="fork").close()  # other start methods leave it alone
        assert forkserver._forkserver._preload_modules == wanted
    finally:
        forkserver.set_forkserver_preload(kept)
