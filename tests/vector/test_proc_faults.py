"""ProcVecEnv fault matrix: every failure leaves no worker process and no shared memory behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

import sekai
from sekai import Box, Sequence
from sekai.error import VecEnvWorkerError
from sekai.vector.proc_vec_env import ProcVecEnv

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


ToyEnv = toys.ToyEnv
assert_released = toys.assert_released
assert_no_leftovers = toys.assert_no_leftovers
deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])

DIED = "EOFError: worker process exited unexpectedly"


def kill_worker(vec: ProcVecEnv, w: int) -> None:
    process = vec._processes[w]
    assert process.pid is not None
    os.kill(process.pid, signal.SIGKILL)
    process.join(5)
    assert process.exitcode == -signal.SIGKILL


def close_and_check(vec: ProcVecEnv) -> None:
    vec.close()
    assert_released(vec)
    assert_no_leftovers()


# -- a sub-env raises ---------------------------------------------------------------------------


def test_step_raises() -> None:
    vec = ProcVecEnv([lambda: ToyEnv(fail_on=1)] * 2)
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 1]))
    error = info.value
    assert (error.rank, error.exc_type) == (1, "ValueError")
    assert str(error).startswith("Sub-env 1 raised ValueError: action 1 is not supported")
    assert "Worker traceback:" in str(error) and "in step" in error.remote_traceback
    result = vec.step(np.array([0, 0]))  # still usable; the failed call's results are dropped
    assert result.rewards.tolist() == [2.0, 1.0]
    close_and_check(vec)


def test_step_raises_in_multi_env_workers() -> None:
    fns = [ToyEnv, lambda: ToyEnv(fail_on=1), lambda: ToyEnv(fail_on=1), ToyEnv]
    vec = ProcVecEnv(fns, num_workers=2)
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 1, 1, 0]))  # both workers fail: the lowest one's error wins
    assert info.value.rank == 1
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 0, 1, 0]))
    assert info.value.rank == 2 and info.value.exc_type == "ValueError"
    # every other sub-env of a failed step advances, in every worker: counts never drift
    assert vec.get_attr("count") == [2, 1, 0, 2]
    close_and_check(vec)


def test_reset_raises() -> None:
    vec = ProcVecEnv([ToyEnv] * 3, num_workers=2)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.reset(options=[None, None, {"fail": True}])
    assert (info.value.rank, info.value.exc_type) == (2, "RuntimeError")
    assert "reset failed on request" in str(info.value)
    assert len(vec.reset(seed=0).infos) == 3
    close_and_check(vec)


def test_close_raises(tmp_path: Path) -> None:
    fns = [
        lambda k=k: ToyEnv(fail_close=k in (1, 2), marker=str(tmp_path / f"closed-{k}"))
        for k in range(4)
    ]
    vec = ProcVecEnv(fns, num_workers=2)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.close()
    assert (info.value.rank, info.value.exc_type) == (1, "RuntimeError")
    assert "close failed on request" in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"closed-{k}" for k in range(4)]
    assert_released(vec)
    assert_no_leftovers()
    vec.close()  # idempotent, nothing raised again


# -- a worker dies ----------------------------------------------------------------------------


@pytest.mark.parametrize("context", ["forkserver", "fork"])
def test_killed_single_env_worker(context: str) -> None:
    vec = ProcVecEnv([ToyEnv] * 3, context=context)
    vec.reset(seed=0)
    kill_worker(vec, 1)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.zeros(3, int))
    assert str(info.value) == f"Sub-env 1 raised {DIED}"
    assert (info.value.rank, info.value.exc_type) == (1, "EOFError")
    for call in (lambda: vec.step(np.zeros(3, int)), lambda: vec.get_attr("count"), vec.reset):
        with pytest.raises(VecEnvWorkerError, match=f"^Sub-env 1 raised {DIED}$"):
            call()
    close_and_check(vec)  # the dead worker was reported already: close releases the others


def test_killed_multi_env_worker() -> None:
    vec = ProcVecEnv([ToyEnv] * 5, num_workers=2)
    vec.reset(seed=0)
    kill_worker(vec, 1)
    expected = f"Worker 1 (sub-envs 3-4) raised {DIED}"
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.zeros(5, int))
    assert str(info.value) == expected and info.value.rank == 3
    with pytest.raises(VecEnvWorkerError, match=r"^Worker 1 \(sub-envs 3-4\) raised "):
        vec.set_attr("length", 3)
    close_and_check(vec)


def test_killed_worker_detected_at_close() -> None:
    vec = ProcVecEnv([ToyEnv] * 2)
    kill_worker(vec, 0)
    with pytest.raises(VecEnvWorkerError, match=f"^Sub-env 0 raised {DIED}$"):
        vec.close()
    assert_released(vec)
    assert_no_leftovers()


# -- interrupts and unpicklable data ------------------------------------------------------------


@pytest.mark.usefixtures("sigint_default")
def test_sigint_during_step() -> None:
    vec = ProcVecEnv([lambda: ToyEnv(slow_on=1, delay=1.0)] * 4, num_workers=2)
    vec.reset(seed=0)
    for process in vec._processes:  # workers ignore SIGINT
        assert process.pid is not None
        os.kill(process.pid, signal.SIGINT)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            vec.step(np.ones(4, int))
    finally:
        timer.cancel()
    assert time.monotonic() - start < 1.8  # interrupted while the workers were stepping
    assert all(p.is_alive() for p in vec._processes)
    # The interrupted step's replies are drained first: this step's results are its own.
    result = vec.step(np.zeros(4, int))
    assert [info["count"] for info in result.infos] == [2] * 4
    assert vec.get_attr("count") == [2] * 4
    close_and_check(vec)


def test_unpicklable_action() -> None:
    vec = ProcVecEnv([ToyEnv] * 4, num_workers=2)
    vec.reset(seed=0)
    with pytest.raises(TypeError, match="pickle"):
        vec.step([0, 0, threading.Lock(), 0])
    assert vec.get_attr("count") == [0] * 4  # nothing was sent, not even to worker 0
    assert [info["count"] for info in vec.step([0, 0, 0, 0]).infos] == [1] * 4
    close_and_check(vec)


def test_unpicklable_set_attr_value() -> None:
    vec = ProcVecEnv([ToyEnv] * 4, num_workers=2)
    with pytest.raises(TypeError, match="pickle"):
        vec.set_attr("length", [7, 7, 7, threading.Lock()])
    assert vec.get_attr("length") == [5] * 4
    close_and_check(vec)


@pytest.mark.parametrize(
    ("space", "num_workers", "shared_memory"),
    [
        (Box(-1.0, 1.0, (2,)), None, False),
        (Box(-1.0, 1.0, (2,)), 2, False),
        (Sequence(Box(-1.0, 1.0, (2,)), max_length=2), 2, None),
    ],
)
def test_unpicklable_observation(
    space: sekai.Space[Any], num_workers: int | None, shared_memory: bool | None
) -> None:
    fns = [lambda: ToyEnv(space, lock_on=1)] * 4
    vec = ProcVecEnv(fns, num_workers=num_workers, shared_memory=shared_memory)
    assert vec.shared_memory is False
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 0, 0, 1]))
    assert (info.value.rank, info.value.exc_type) == (3, "TypeError")
    assert "pickle" in str(info.value)
    assert len(vec.step(np.zeros(4, int)).observations) == 4
    close_and_check(vec)


# -- close ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("hang", "signum"), [(1, signal.SIGTERM), (2, signal.SIGKILL)])
def test_hung_worker_at_close(hang: int, signum: int) -> None:
    vec = ProcVecEnv([lambda: ToyEnv(hang_close=hang), ToyEnv], close_timeout=0.5)
    start = time.monotonic()
    with pytest.warns(RuntimeWarning) as caught:  # a hang is no failure: nothing raised
        vec.close()
    elapsed = time.monotonic() - start
    assert [str(w.message) for w in caught] == [
        "Sub-env 0 did not finish close() within close_timeout=0.5 s: its worker was terminated."
    ]
    assert elapsed < 0.5 + 1.0 + 1.5
    if signum == signal.SIGKILL:
        assert elapsed > 0.5 + 1.0 - 0.1  # SIGTERM ignored: killed after the 1-second grace
    assert [p.exitcode for p in vec._processes] == [-signum, 0]
    assert_released(vec)
    assert_no_leftovers()


def test_del_terminates_workers() -> None:
    vec = ProcVecEnv([ToyEnv] * 2)
    processes = list(vec._processes)
    del vec
    for process in processes:
        process.join(5)
        assert process.exitcode is not None
    assert_no_leftovers()


# -- construction -----------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "num_workers"), [(3, None), (4, 2)])
def test_factory_raises(tmp_path: Path, n: int, num_workers: int | None) -> None:
    fns = [lambda k=k: ToyEnv(marker=str(tmp_path / f"closed-{k}")) for k in range(n)]
    fns[1] = toys.raising_factory
    with pytest.raises(VecEnvWorkerError) as info:
        ProcVecEnv(fns, num_workers=num_workers)
    assert (info.value.rank, info.value.exc_type) == (1, "RuntimeError")
    assert str(info.value).startswith("Sub-env 1 raised RuntimeError: factory exploded")
    built = [k for k in range(n) if k != 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"closed-{k}" for k in built]
    assert_no_leftovers()


def test_factory_exits() -> None:
    with pytest.raises(VecEnvWorkerError, match=f"^Sub-env 1 raised {DIED}$"):
        ProcVecEnv([ToyEnv, toys.exiting_factory, ToyEnv])
    assert_no_leftovers()


def test_unpicklable_factory() -> None:
    lock = threading.Lock()
    with pytest.raises(TypeError, match="pickle"):
        ProcVecEnv([ToyEnv, ToyEnv, lambda: (lock, ToyEnv())[1]])
    assert_no_leftovers()


# -- arguments and start-up -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_workers": True}, TypeError, r"num_workers must be an int, got bool True"),
        ({"num_workers": "2"}, TypeError, r"got str '2'"),
        ({"num_workers": 2.5}, TypeError, r"num_workers must be an int, got float 2\.5"),
        ({"num_workers": float("nan")}, TypeError, r"num_workers must be an int, got float nan"),
        ({"num_workers": 0}, ValueError, r"num_workers must be at least 1, got 0\.$"),
        ({"num_workers": -2.0}, ValueError, r"num_workers must be at least 1, got -2\.$"),
        ({"close_timeout": 0}, ValueError, r"close_timeout must be a positive number"),
        ({"close_timeout": -1.0}, ValueError, r"got -1.0\.$"),
        ({"close_timeout": float("nan")}, ValueError, r"got nan\.$"),
        ({"close_timeout": True}, TypeError, r"close_timeout must be a positive number"),
        ({"close_timeout": "5"}, TypeError, r"got '5' \(str\)"),
        ({"context": 5}, TypeError, r"context must be a start method name or None"),
        ({"context": "bogus"}, ValueError, r"bogus"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        ProcVecEnv([ToyEnv] * 2, **kwargs)
    assert_no_leftovers()


def test_infinite_close_timeout_waits_for_a_slow_close() -> None:
    vec = ProcVecEnv([lambda: ToyEnv(close_delay=0.6)], close_timeout=float("inf"))
    vec.close()  # no warning: the slow close() finished
    assert [p.exitcode for p in vec._processes] == [0]
    assert_released(vec)


def test_slow_close_warns_naming_the_sub_env(tmp_path: Path) -> None:
    fns = [
        lambda k=k: ToyEnv(close_delay=30.0 if k == 2 else 0.0, marker=str(tmp_path / f"c{k}"))
        for k in range(4)
    ]
    vec = ProcVecEnv(fns, num_workers=2, close_timeout=0.5)
    with pytest.warns(RuntimeWarning, match=r"^Sub-env 2 did not finish close\(\) within "):
        vec.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c0", "c1", "c2"]
    assert_released(vec)
    assert_no_leftovers()


UNGUARDED = """
import sys
sys.path.insert(0, {src!r})
import sekai
from sekai.vector.proc_vec_env import ProcVecEnv

vec = ProcVecEnv([lambda: sekai.make("CartPole-v1")] * 2, context={method!r})
vec.close()
print("built")
"""


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_script_without_main_guard(tmp_path: Path, method: str) -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED.format(src=src, method=method))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=50, cwd=tmp_path
    )
    assert done.returncode == 1 and "built" not in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("sekai.error.VecEnvWorkerError: Sub-env 0 raised RuntimeError: ")
    assert 'under `if __name__ == "__main__":`' in last and f"the {method!r} start method" in last
    assert "exited unexpectedly" not in done.stderr
