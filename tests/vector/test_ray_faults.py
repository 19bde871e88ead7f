"""RayVecEnv faults on a local Ray: sub-envs that raise, actors killed, closes that fail."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

ray = pytest.importorskip("ray")

import ray_helpers as helpers  # noqa: E402

from sekai.error import VecEnvWorkerError  # noqa: E402
from sekai.vector import RayVecEnv  # noqa: E402

ToyEnv = toys.ToyEnv
deadline = toys.deadline  # autouse
pytestmark = pytest.mark.usefixtures("local_ray")
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def close_and_check(vec: RayVecEnv) -> None:
    """``close()`` does not raise and every worker process exits."""
    pids = [w.pid for w in vec.workers]
    vec.close()
    assert helpers.all_gone(pids)


# -- a sub-env raises -------------------------------------------------------------------------


def test_step_raises_and_the_other_workers_stay_usable() -> None:
    vec = RayVecEnv([lambda: ToyEnv(fail_on=1)] * 5, num_workers=2)
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 0, 0, 1, 1]))
    error = info.value
    assert (error.rank, error.exc_type) == (3, "ValueError")
    assert str(error).startswith("Sub-env 3 raised ValueError: action 1 is not supported")
    assert "Traceback" in error.remote_traceback and "in step" in error.remote_traceback
    result = vec.step(np.zeros(5, int))  # sub-envs 3 and 4 raised: their count stayed 0
    assert [i["count"] for i in result.infos] == [2, 2, 2, 1, 1]
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 1, 0, 1, 0]))
    assert info.value.rank == 1  # the lowest sub-env that raised
    vec.reset(seed=1)
    assert [i["count"] for i in vec.step(np.zeros(5, int)).infos] == [1] * 5
    close_and_check(vec)


def test_reset_raises() -> None:
    vec = RayVecEnv([ToyEnv] * 3, num_workers=2)
    options: list[Any] = [None, None, {"fail": True}]
    with pytest.raises(VecEnvWorkerError) as info:
        vec.reset(seed=0, options=options)
    assert (info.value.rank, info.value.exc_type) == (2, "RuntimeError")
    assert "reset failed on request" in str(info.value)
    assert len(vec.reset(seed=0).infos) == 3
    close_and_check(vec)


@pytest.mark.parametrize("where", ["observation", "info"])
def test_unpicklable_result_blames_its_sub_env(where: str) -> None:
    kwargs = {"lock_on": 1} if where == "observation" else {"lock_info_on": 1}
    vec = RayVecEnv([lambda: ToyEnv(**kwargs)] * 4, num_workers=2)
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 0, 0, 1]))
    assert info.value.rank == 3
    assert len(vec.step(np.zeros(4, int)).infos) == 4
    close_and_check(vec)


def test_missing_attribute() -> None:
    vec = RayVecEnv([ToyEnv] * 2)
    for method in (vec.get_attr, vec.call):
        with pytest.raises(VecEnvWorkerError) as info:
            method("no_such_attribute")
        assert (info.value.rank, info.value.exc_type) == (0, "AttributeError")
    assert vec.get_attr("length") == [5, 5]
    close_and_check(vec)


# -- construction -----------------------------------------------------------------------------


def test_factory_raises_and_the_built_sub_envs_are_closed(tmp_path: Path) -> None:
    pids, closed = tmp_path / "pids", tmp_path / "closed"
    pids.mkdir()
    closed.mkdir()
    fns = [lambda k=k: helpers.PidEnv(str(pids), k, marker=str(closed / str(k))) for k in range(4)]
    fns[1] = toys.raising_factory
    with pytest.raises(VecEnvWorkerError) as info:
        RayVecEnv(fns, num_workers=2)
    assert (info.value.rank, info.value.exc_type) == (1, "RuntimeError")
    assert str(info.value).startswith("Sub-env 1 raised RuntimeError: factory exploded")
    assert sorted(p.name for p in closed.iterdir()) == ["0", "2", "3"]
    assert helpers.all_gone(helpers.pids_in(pids))


def test_factory_returns_no_env() -> None:
    with pytest.raises(VecEnvWorkerError, match=r"env_fns\[2\] returned 5") as info:
        RayVecEnv([ToyEnv, ToyEnv, toys.non_env_factory], num_workers=2)
    assert (info.value.rank, info.value.exc_type) == (2, "TypeError")


def test_unpicklable_factory() -> None:
    lock = threading.Lock()
    with pytest.raises(TypeError, match="pickle"):
        RayVecEnv([ToyEnv, lambda: (lock, ToyEnv())[1]])


# -- a worker dies ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["ray.kill", "SIGKILL"])
def test_worker_killed_while_idle(how: str) -> None:
    vec = RayVecEnv([ToyEnv] * 4, num_workers=2)
    vec.reset(seed=0)
    if how == "ray.kill":
        ray.kill(vec._actors[1])
    else:
        os.kill(vec.workers[1].pid, signal.SIGKILL)
    assert helpers.all_gone([vec.workers[1].pid])
    for _ in range(2):  # and again: the worker is known to be dead
        with pytest.raises(VecEnvWorkerError) as info:
            vec.step(np.zeros(4, int))
        error = info.value
        assert error.rank == 2 and error.exc_type.startswith("Actor")
        assert str(error).startswith(
            f"Sub-env 2 raised {error.exc_type}: the Ray worker holding sub-envs 2-3 died"
        )
    close_and_check(vec)


def test_worker_killed_while_the_parent_waits(tmp_path: Path) -> None:
    vec = RayVecEnv([lambda: ToyEnv(slow_on=1, delay=50.0)] * 3, num_workers=3)
    vec.reset(seed=0)
    killer = threading.Timer(1.0, ray.kill, (vec._actors[2],))
    killer.start()
    try:
        with pytest.raises(VecEnvWorkerError) as info:
            vec.step(np.array([0, 0, 1]))
    finally:
        killer.join()
    assert info.value.rank == 2 and "holding sub-env 2 died" in str(info.value)
    close_and_check(vec)


def test_async_step_reports_a_dead_worker() -> None:
    import asyncio

    vec = RayVecEnv([ToyEnv] * 2, num_workers=2)
    vec.reset(seed=0)
    ray.kill(vec._actors[0])
    assert helpers.all_gone([vec.workers[0].pid])  # a kill is asynchronous
    with pytest.raises(VecEnvWorkerError, match="holding sub-env 0 died"):
        asyncio.run(vec.async_step(np.zeros(2, int)))
    close_and_check(vec)


# -- closing ----------------------------------------------------------------------------------


def test_close_raises_after_closing_every_worker(tmp_path: Path) -> None:
    fns = [lambda k=k: ToyEnv(fail_close=k == 2, marker=str(tmp_path / str(k))) for k in range(4)]
    vec = RayVecEnv(fns, num_workers=2)
    pids = [w.pid for w in vec.workers]
    with pytest.raises(VecEnvWorkerError) as info:
        vec.close()
    assert (info.value.rank, info.value.exc_type) == (2, "RuntimeError")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0", "1", "2", "3"]
    assert helpers.all_gone(pids)
    vec.close()  # closed: nothing more to report


def test_hung_close_is_killed_with_a_warning() -> None:
    vec = RayVecEnv([lambda: ToyEnv(hang_close=1)] * 2, num_workers=2, close_timeout=1.0)
    pids = [w.pid for w in vec.workers]
    with pytest.warns(RuntimeWarning) as record:
        vec.close()
    assert sorted(str(w.message) for w in record) == [
        f"Worker {k} (sub-env {k}) did not close its sub-envs within close_timeout=1 s: its "
        "actor was killed."
        for k in range(2)
    ]
    assert helpers.all_gone(pids)
