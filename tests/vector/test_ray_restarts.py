"""RayVecEnv's step timeouts and self-healing workers (``on_worker_failure="restart"``)."""

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
import worker_failures as checks  # noqa: E402

import sekai  # noqa: E402
from sekai.testing import assert_trees_equal  # noqa: E402
from sekai.vector import RayVecEnv, VecEnv  # noqa: E402

deadline = toys.deadline  # autouse
pytestmark = pytest.mark.usefixtures("local_ray")
cloudpickle.register_pickle_by_value(sys.modules[__name__])

PIDS: set[int] = set()


def build(fns: list[Any], **kwargs: Any) -> RayVecEnv:
    vec = RayVecEnv(fns, **kwargs)
    PIDS.update(w.pid for w in vec.workers)
    return vec


def kill(vec: VecEnv[Any, Any], w: int) -> None:
    assert isinstance(vec, RayVecEnv)
    pid = vec.workers[w].pid
    ray.kill(vec._actors[w], no_restart=True)
    assert helpers.all_gone([pid])  # a kill is asynchronous


@pytest.fixture(autouse=True)
def nothing_left() -> Any:
    PIDS.clear()
    yield
    assert helpers.all_gone(PIDS)


def test_timeout_raises() -> None:
    checks.check_timeout_raises(build)


@pytest.mark.parametrize("how", ["raise", "kill", "hang"])
def test_restart(how: str) -> None:
    checks.check_restart(build, kill, how)


def test_restart_with_worker_groups() -> None:
    checks.check_group_mates_are_owed(build, kill)


def test_crash_loop(tmp_path: Path) -> None:
    checks.check_crash_loop(build, tmp_path)


def test_arguments() -> None:
    checks.check_arguments(build)


def test_restarted_workers_are_listed_and_closed() -> None:
    vec = build([checks.toy] * 2, num_workers=2, on_worker_failure="restart")
    before = vec.workers[1].pid
    vec.reset(seed=0)
    assert vec.step(np.array([0, checks.FAIL])).truncated.tolist() == [False, True]
    after = vec.workers[1]
    assert after.pid != before and after.ranks == range(1, 2)
    assert helpers.all_gone([before])
    PIDS.add(after.pid)
    vec.close()


def test_native_slice_is_rebuilt_whole() -> None:
    vec = sekai.make_vec(
        "Trading-v0",
        4,
        vectorization_mode="ray",
        vector_kwargs={"num_workers": 2, "on_worker_failure": "restart"},
    )
    with vec:
        assert vec.native_slices
        PIDS.update(w.pid for w in vec.workers)
        seen = vec.reset(seed=3).observations
        kill(vec, 1)  # sub-envs 2 and 3
        result = vec.step(np.zeros(4, dtype=np.int64))
        assert result.truncated[2:].all() and vec.restarts.tolist() == [0, 1]
        for i in (2, 3):
            assert result.infos[i]["worker_failure"].rank == 2
            assert_trees_equal(result.infos[i]["final_observation"], seen[i])
        PIDS.update(w.pid for w in vec.workers)
        assert not vec.step(np.zeros(4, dtype=np.int64)).truncated[2:].any()
