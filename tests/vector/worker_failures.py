"""Checks of step timeouts and worker restarts shared by the ProcVecEnv and RayVecEnv tests.

The test modules import it as ``worker_failures`` (pytest puts this folder on ``sys.path``).
Each check takes ``build(fns, **kwargs)``, which makes the vector env under test, and
``kill(vec, w)``, which kills worker ``w`` from outside.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

import sekai
from sekai.error import VecEnvWorkerError
from sekai.testing import assert_trees_equal
from sekai.utils.seeding import make_seed_sequence
from sekai.vector import SyncVecEnv, VecEnv

cloudpickle.register_pickle_by_value(sys.modules[__name__])

Build = Callable[..., VecEnv[Any, Any]]
Kill = Callable[[VecEnv[Any, Any], int], None]

HANG = 1  # the action on which a sub-env sleeps for 30 s
FAIL = 2  # the action on which a sub-env raises


def toy() -> sekai.Env:
    """Episodes of 3 steps; action 1 hangs, action 2 raises."""
    return sekai.TimeLimit(toys.ToyEnv(length=3, slow_on=HANG, delay=30.0, fail_on=FAIL), 50)


def restart_seed(seed: int, num_envs: int, i: int, k: int) -> int:
    """The documented seed of sub-env ``i``'s ``k``-th restart after ``reset(seed=seed)``."""
    own = make_seed_sequence(seed, num_envs)[i]
    return int(np.random.SeedSequence(own).spawn(k)[k - 1].generate_state(1)[0])


def check_timeout_raises(build: Build) -> None:
    """A step past ``step_timeout`` fails its sub-env with a ``TimeoutError``; the others'
    rows come back, and later uses of the killed worker raise the same error."""
    vec = build([toy] * 3, num_workers=3, step_timeout=0.3)
    assert vec.step_timeout == 0.3 and vec.on_worker_failure == "raise"
    vec.reset(seed=0)
    vec.send(np.array([0, HANG, 0]))
    with pytest.raises(VecEnvWorkerError) as info:
        vec.recv()
    error = info.value
    assert (error.rank, error.exc_type) == (1, "TimeoutError")
    assert isinstance(error.__cause__, TimeoutError) and "step_timeout=0.3 s" in str(error)
    rows = vec.recv()
    assert rows.env_ids.tolist() == [0, 2] and [i["count"] for i in rows.infos] == [1, 1]
    with pytest.raises(VecEnvWorkerError, match="TimeoutError"):
        vec.send([0], env_ids=[1])
    vec.send([0, 0], env_ids=[0, 2])
    assert [i["count"] for i in vec.recv().infos] == [2, 2]
    vec.close()


def check_restart(build: Build, kill: Kill, how: str) -> None:
    """With ``"restart"``, a worker that raises, is killed or hangs is rebuilt: its step comes
    back as a truncation and a new episode, seeded as documented; the others lose nothing."""
    n = 3
    vec = build([toy] * n, num_workers=n, step_timeout=0.5, on_worker_failure="restart")
    sync = SyncVecEnv([toy] * n)
    vec.reset(seed=7)
    sync.reset(seed=7)
    for _ in range(2):  # some steps first, one of them ending an episode
        vec.step(np.zeros(n, dtype=np.int64))
        sync.step(np.zeros(n, dtype=np.int64))
    last = vec.step(np.zeros(n, dtype=np.int64))
    expected = sync.step(np.zeros(n, dtype=np.int64))
    assert_trees_equal(last.observations, expected.observations)
    actions = np.zeros(n, dtype=np.int64)
    if how == "raise":
        actions[1] = FAIL
    elif how == "hang":
        actions[1] = HANG
    else:
        kill(vec, 1)
    result = vec.step(actions)
    reference = sync.step(np.zeros(n, dtype=np.int64))
    assert result.env_ids.tolist() == [0, 1, 2]
    assert result.truncated.tolist() == [False, True, False]
    assert result.terminated[1] == False and result.rewards[1] == 0.0  # noqa: E712
    info = result.infos[1]
    failure = info["worker_failure"]
    kind = {"raise": "ValueError", "hang": "TimeoutError"}.get(how)
    assert isinstance(failure, VecEnvWorkerError) and failure.rank == 1
    assert kind is None or failure.exc_type == kind
    if how == "raise":
        assert "action 2 is not supported" in str(failure) and failure.remote_traceback
    assert_trees_equal(info["final_observation"], last.observations[1])
    fresh = toy()
    first = fresh.reset(seed=restart_seed(7, n, 1, 1)).observation
    assert_trees_equal(result.observations[1], first)
    for i in (0, 2):  # the other sub-envs lost nothing
        assert_trees_equal(result.observations[i], reference.observations[i])
        assert result.infos[i]["count"] == reference.infos[i]["count"]
    assert vec.restarts.tolist() == [0, 1, 0]
    after = vec.step(np.zeros(n, dtype=np.int64))  # the new episode goes on
    assert after.infos[1]["count"] == 1 and not after.truncated.any()
    assert_trees_equal(after.observations[1], fresh.step(0).observation)
    vec.close()


def check_group_mates_are_owed(build: Build, kill: Kill) -> None:
    """A rebuilt worker's sub-envs that were not stepping get their truncation on their next
    step, without being stepped."""
    vec = build([toy] * 4, num_workers=2, batch_size=1, on_worker_failure="restart")
    seen = vec.reset(seed=1).observations
    kill(vec, 0)  # sub-envs 0 and 1
    vec.send([0], env_ids=[0])
    first = vec.recv()
    assert first.env_ids.tolist() == [0] and first.truncated.tolist() == [True]
    assert_trees_equal(first.infos[0]["final_observation"], seen[0])
    vec.send([0, 0], env_ids=[1, 3])
    got: dict[int, Any] = {}
    while len(got) < 2:
        part = vec.recv()
        for k, i in enumerate(part.env_ids.tolist()):
            got[i] = (bool(part.truncated[k]), part.infos[k])
    assert got[1][0] and "worker_failure" in got[1][1] and "count" not in got[1][1]
    assert_trees_equal(got[1][1]["final_observation"], seen[1])
    assert not got[3][0] and got[3][1]["count"] == 1
    assert vec.restarts.tolist() == [1, 0]
    vec.send([0], env_ids=[1])
    assert vec.recv().infos[0]["count"] == 1
    vec.close()


def check_crash_loop(build: Build, folder: Path) -> None:
    """Rebuilds stop at ``max_restarts``: then the failure is raised and the worker stays
    down, also when the factory itself keeps failing."""
    vec = build([toy] * 2, num_workers=2, on_worker_failure="restart", max_restarts=2)
    vec.reset(seed=0)
    for count in (1, 2):
        assert vec.step(np.array([0, FAIL])).truncated.tolist() == [False, True]
        assert vec.restarts.tolist() == [0, count]
    with pytest.raises(VecEnvWorkerError, match="max_restarts=2") as info:
        vec.step(np.array([0, FAIL]))
    assert info.value.exc_type == "ValueError" and info.value.rank == 1
    with pytest.raises(VecEnvWorkerError, match="max_restarts=2"):
        vec.send([0], env_ids=[1])
    vec.send([0], env_ids=[0])
    assert vec.recv().env_ids.tolist() == [0]
    vec.close()
    broken = folder / "broken"
    fns = [toy, lambda: _fragile(str(broken))]
    vec = build(fns, num_workers=2, on_worker_failure="restart", max_restarts=3)
    vec.reset(seed=0)
    broken.touch()  # from now on the factory raises
    with pytest.raises(VecEnvWorkerError, match="max_restarts=3") as info:
        vec.step(np.array([0, FAIL]))
    assert info.value.exc_type == "OSError" and vec.restarts.tolist() == [0, 3]
    vec.close()


def _fragile(broken: str) -> sekai.Env:
    """``toy()``, unless file ``broken`` exists: then ``OSError``."""
    if Path(broken).exists():
        raise OSError("cannot build the env any more")
    return toy()


def check_arguments(build: Build) -> None:
    """The new constructor arguments are checked before any worker starts."""
    bad: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"step_timeout": 0}, ValueError, "step_timeout"),
        ({"step_timeout": float("nan")}, ValueError, "step_timeout"),
        ({"step_timeout": "1"}, TypeError, "step_timeout"),
        ({"on_worker_failure": "retry"}, ValueError, "on_worker_failure"),
        ({"on_worker_failure": None}, TypeError, "on_worker_failure"),
        ({"max_restarts": -1}, ValueError, "max_restarts"),
        ({"max_restarts": 1.5}, TypeError, "max_restarts"),
        ({"max_restarts": -1.0}, ValueError, "max_restarts"),
        ({"on_worker_failure": "restart", "autoreset": False}, ValueError, "autoreset"),
    ]
    for kwargs, error, word in bad:
        with pytest.raises(error, match=word):
            build([toy] * 2, **kwargs)
