"""ProcVecEnv's step timeouts and self-healing workers (``on_worker_failure="restart"``)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest
import worker_failures as checks

from sekai.vector import ProcVecEnv, VecEnv

deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def build(fns: list[Any], **kwargs: Any) -> ProcVecEnv:
    return ProcVecEnv(fns, context="fork", **kwargs)


def kill(vec: VecEnv[Any, Any], w: int) -> None:
    assert isinstance(vec, ProcVecEnv)
    os.kill(vec._processes[w].pid, signal.SIGKILL)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def nothing_left() -> Any:
    yield
    toys.assert_no_leftovers()


def test_timeout_raises() -> None:
    checks.check_timeout_raises(build)


@pytest.mark.parametrize("how", ["raise", "kill", "hang"])
def test_restart(how: str) -> None:
    checks.check_restart(build, kill, how)


def test_restart_with_worker_groups_and_no_shared_memory() -> None:
    checks.check_group_mates_are_owed(build, kill)
    checks.check_group_mates_are_owed(lambda fns, **kw: build(fns, shared_memory=False, **kw), kill)


def test_a_partial_reset_after_a_restart_keeps_the_new_episodes() -> None:
    vec = build([checks.toy] * 2, num_workers=1, shared_memory=False, on_worker_failure="restart")
    vec.reset(seed=0)
    result = vec.step(np.array([0, checks.FAIL]))  # one worker: both sub-envs restart
    assert result.truncated.tolist() == [True, True]
    again = vec.reset(options={"reset_mask": np.array([True, False])})
    np.testing.assert_array_equal(again.observations[1], result.observations[1])
    assert again.infos[1] == {}
    vec.close()


def test_crash_loop(tmp_path: Path) -> None:
    checks.check_crash_loop(build, tmp_path)


def test_arguments() -> None:
    checks.check_arguments(build)


def test_restarts_are_deterministic() -> None:
    def run() -> list[Any]:
        vec = build([checks.toy] * 2, on_worker_failure="restart", num_workers=1)
        vec.reset(seed=11)
        out = [vec.step(np.array([0, checks.FAIL])).observations]
        out.append(vec.step(np.array([0, 0])).observations)
        vec.close()
        return out

    first, second = run(), run()
    np.testing.assert_array_equal(np.stack(first), np.stack(second))
