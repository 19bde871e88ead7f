"""ProcVecEnv faults under every start method: each raises its documented error and leaves no
process, zombie or shared-memory block behind."""

from __future__ import annotations

import contextlib
import gc
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

from sekai import Box, Dict, Discrete
from sekai.error import VecEnvWorkerError
from sekai.vector.proc_vec_env import ProcVecEnv

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and /proc")

METHODS = [
    m for m in ("fork", "forkserver", "spawn") if m in multiprocessing.get_all_start_methods()
]
DIED = "EOFError: worker process exited unexpectedly"
SRC = Path(__file__).resolve().parents[2] / "src"


ToyEnv = toys.ToyEnv
deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(params=METHODS)
def method(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pids_of(vec: ProcVecEnv) -> list[int]:
    pids = [p.pid for p in vec._processes]
    return [pid for pid in pids if pid is not None]


def assert_clean(pids: list[int]) -> None:
    """Every worker in ``pids`` is gone and reaped, and no block of ours is left."""
    assert toys.wait_until(lambda: all(toys.reaped(pid) for pid in pids)), [
        pid for pid in pids if not toys.reaped(pid)
    ]
    toys.assert_no_leftovers()


def close_clean(vec: ProcVecEnv) -> None:
    pids = pids_of(vec)
    vec.close()
    toys.assert_released(vec)
    assert_clean(pids)


@contextlib.contextmanager
def after(seconds: float, action: Callable[[], Any]) -> Iterator[None]:
    """Run ``action`` in a timer thread ``seconds`` from now; cancel it on the way out."""
    timer = threading.Timer(seconds, action)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()


def kill(pid: int, signum: int = signal.SIGKILL) -> None:
    os.kill(pid, signum)


# -- a sub-env raises ---------------------------------------------------------------------------


def test_exception_in_step(method: str) -> None:
    vec = ProcVecEnv([lambda: ToyEnv(fail_on=1)] * 3, context=method, num_workers=2)
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([1, 0, 0]))  # sub-env 0 fails; sub-env 1 shares its worker
    assert (info.value.rank, info.value.exc_type) == (0, "ValueError")
    assert vec.get_attr("count") == [0, 1, 1]  # the others advanced; the failed one did not
    assert vec.step(np.zeros(3, int)).rewards.tolist() == [1.0, 2.0, 2.0]
    close_clean(vec)


def test_exception_in_reset(method: str) -> None:
    vec = ProcVecEnv([ToyEnv] * 3, context=method, num_workers=1)
    vec.reset(seed=0)
    vec.step(np.zeros(3, int))
    with pytest.raises(VecEnvWorkerError) as info:
        vec.reset(options=[{"fail": True}, None, None])
    assert (info.value.rank, info.value.exc_type) == (0, "RuntimeError")
    assert vec.get_attr("count") == [0, 0, 0]  # sub-envs 1 and 2 were reset all the same
    close_clean(vec)


def test_exception_in_constructor(method: str) -> None:
    fns = [ToyEnv, toys.raising_factory, ToyEnv]
    with pytest.raises(
        VecEnvWorkerError, match=r"^Sub-env 1 raised RuntimeError: factory exploded"
    ):
        ProcVecEnv(fns, context=method)
    assert toys.wait_until(lambda: toys.our_workers() == [])
    toys.assert_no_leftovers()


def test_exception_whose_str_raises(method: str) -> None:
    with pytest.raises(VecEnvWorkerError) as info:
        ProcVecEnv([ToyEnv, toys.unprintable_factory], context=method)
    assert (info.value.rank, info.value.exc_type) == (1, "UnprintableError")
    assert "<str() of the UnprintableError raised RuntimeError>" in str(info.value)
    assert "exited unexpectedly" not in str(info.value)
    toys.assert_no_leftovers()


def test_non_env_factory(method: str) -> None:
    with pytest.raises(VecEnvWorkerError) as info:
        ProcVecEnv([ToyEnv, ToyEnv, toys.non_env_factory], context=method, num_workers=2)
    assert (info.value.rank, info.value.exc_type) == (2, "TypeError")
    assert "env_fns[2] returned 5 (int), not an environment" in str(info.value)
    toys.assert_no_leftovers()


# -- a worker dies ----------------------------------------------------------------------------


def test_sigkill_idle_worker(method: str) -> None:
    vec = ProcVecEnv([ToyEnv] * 2, context=method)
    vec.reset(seed=0)
    pids = pids_of(vec)
    kill(pids[1])
    with pytest.raises(VecEnvWorkerError, match=f"^Sub-env 1 raised {DIED}$"):
        vec.step(np.zeros(2, int))
    vec.close()  # reported already: close releases the rest without raising again
    toys.assert_released(vec)
    assert_clean(pids)


def test_sigkill_worker_while_parent_waits(method: str) -> None:
    vec = ProcVecEnv([lambda: ToyEnv(slow_on=1, delay=20.0)] * 2, context=method)
    vec.reset(seed=0)
    pids = pids_of(vec)
    start = time.monotonic()
    with after(0.3, lambda: kill(pids[0])), pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([1, 0]))
    assert time.monotonic() - start < 5
    assert str(info.value) == f"Sub-env 0 raised {DIED}"
    vec.close()
    assert_clean(pids)


PARENT = """
import json, os, signal, sys, time
sys.path.insert(0, {src!r})
import numpy as np
from sekai.spaces import Box, Discrete

import sekai


class Held(sekai.Env):
    observation_space = Box(-1.0, 1.0, (3,))
    action_space = Discrete(2)

    def reset(self, *, seed=None, options=None):
        return sekai.ResetResult(np.zeros(3, np.float32), {{}})

    def step(self, action):
        return sekai.StepResult(np.zeros(3, np.float32), 0.0, False, False, {{}})


if __name__ == "__main__":
    from sekai.vector.proc_vec_env import ProcVecEnv

    vec = ProcVecEnv([Held] * 3, context={method!r}, num_workers=3)
    vec.reset(seed=0)
    pids = [p.pid for p in vec._processes]
    print(json.dumps({{"pids": pids, "block": vec._shm.name}}), flush=True)
    how = {how!r}
    if how == "exit":
        os._exit(0)
    time.sleep(60)
"""


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "exit"])
def test_parent_death(method: str, how: str, tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(PARENT.format(src=str(SRC), method=method, how=how)))
    # The parent cannot remove its temporary folder (the forkserver's socket) when killed:
    # TMPDIR puts it in tmp_path.
    parent = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    try:
        assert parent.stdout is not None
        state = json.loads(parent.stdout.readline())
        block = Path("/dev/shm") / state["block"]
        if how != "exit":  # (after os._exit the workers may be gone already)
            assert block.exists() and all(not toys.exited(pid) for pid in state["pids"])
            parent.send_signal(getattr(signal, how))
        parent.wait(10)
        assert toys.wait_until(lambda: all(toys.exited(pid) for pid in state["pids"]))
        assert toys.wait_until(lambda: not block.exists())
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_garbage_collected_without_close(method: str) -> None:
    vec = ProcVecEnv([ToyEnv] * 3, context=method, num_workers=2)
    vec.reset(seed=0)
    pids = pids_of(vec)
    block = Path("/dev/shm") / vec._shm.name if vec._shm is not None else None
    del vec
    gc.collect()
    if method != "forkserver":  # our own children: joined by the collector, no zombie left
        assert all(toys.reaped(pid) for pid in pids)
    assert_clean(pids)
    assert block is not None and not block.exists()


# -- hangs and interrupts -----------------------------------------------------------------------


@pytest.mark.usefixtures("sigint_default")
def test_hung_step_then_close(method: str) -> None:
    vec = ProcVecEnv(
        [lambda: ToyEnv(slow_on=1, delay=30.0), ToyEnv], context=method, close_timeout=0.5
    )
    vec.reset(seed=0)
    pids = pids_of(vec)
    with (
        after(0.3, lambda: kill(os.getpid(), signal.SIGINT)),
        pytest.raises(KeyboardInterrupt),
    ):
        vec.step(np.array([1, 0]))
    start = time.monotonic()
    with pytest.warns(RuntimeWarning, match=r"^Worker 0 \(sub-env 0\) was still busy"):
        vec.close()
    assert time.monotonic() - start < 0.5 + 1.0 + 1.5
    toys.assert_released(vec)
    assert_clean(pids)


@pytest.mark.usefixtures("sigint_default")
def test_sigint_during_step(method: str) -> None:
    vec = ProcVecEnv([lambda: ToyEnv(slow_on=1, delay=1.0)] * 2, context=method)
    vec.reset(seed=0)
    with (
        after(0.2, lambda: kill(os.getpid(), signal.SIGINT)),
        pytest.raises(KeyboardInterrupt),
    ):
        vec.step(np.ones(2, int))
    assert all(p.is_alive() for p in vec._processes)
    assert [info["count"] for info in vec.step(np.zeros(2, int)).infos] == [2, 2]
    close_clean(vec)


@pytest.mark.parametrize("error", [TimeoutError, OSError, InterruptedError])
def test_signal_handler_error_while_waiting(method: str, error: type[OSError]) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise error("raised by the user's handler")

    vec = ProcVecEnv([lambda: ToyEnv(slow_on=1, delay=1.0)] * 2, context=method)
    vec.reset(seed=0)
    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        with after(0.2, lambda: kill(os.getpid(), signal.SIGUSR1)), pytest.raises(error) as info:
            vec.step(np.ones(2, int))
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert type(info.value) is error and str(info.value) == "raised by the user's handler"
    assert not vec._dead and all(p.is_alive() for p in vec._processes)
    assert [info["count"] for info in vec.step(np.zeros(2, int)).infos] == [2, 2]
    assert vec.get_attr("count") == [2, 2]
    close_clean(vec)


# -- data that cannot travel or does not fit ------------------------------------------------------


def test_unpicklable_action(method: str) -> None:
    vec = ProcVecEnv([ToyEnv] * 2, context=method)
    vec.reset(seed=0)
    with pytest.raises(TypeError, match="pickle"):
        vec.step([0, threading.Lock()])
    assert vec.get_attr("count") == [0, 0]
    close_clean(vec)


@pytest.mark.parametrize("part", ["observation", "info"])
def test_unpicklable_reply(method: str, part: str) -> None:
    kwargs = {"lock_on": 1} if part == "observation" else {"lock_info_on": 1}
    vec = ProcVecEnv(
        [lambda: ToyEnv(**kwargs)] * 3, context=method, num_workers=2, shared_memory=False
    )
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 0, 1]))
    assert (info.value.rank, info.value.exc_type) == (2, "TypeError")
    assert "pickle" in str(info.value)
    assert len(vec.step(np.zeros(3, int)).infos) == 3
    close_clean(vec)


BAD_OBSERVATIONS = [
    (Box(-1.0, 1.0, (4,)), np.full(1, 0.5, np.float32), "expected shape (4,)"),
    (Box(-1.0, 1.0, (4,)), 7.0, "expected shape (4,)"),
    (Box(-1.0, 1.0, (4,)), np.full(4, 1e300), "finite values overflow float32"),
    (Box(-1.0, 1.0, (4,)), np.zeros(4, object), "expected dtype float32"),
    (Discrete(3), 2.0, "expected dtype int64"),
    (Box(0, 100, (2,), np.int8), np.array([300, 1]), "values outside the range of int8"),
    (Dict({"a": Discrete(2)}), {"b": 1}, "expected a mapping with its keys"),
]


@pytest.mark.parametrize(("space", "bad", "expected"), BAD_OBSERVATIONS)
def test_bad_observation_into_shared_memory(
    method: str, space: Any, bad: Any, expected: str
) -> None:
    vec = ProcVecEnv([lambda: ToyEnv(space, bad_obs={1: bad})] * 3, context=method, num_workers=2)
    assert vec.shared_memory
    vec.reset(seed=0)
    with pytest.raises(VecEnvWorkerError) as info:
        vec.step(np.array([0, 1, 0]))
    assert info.value.rank == 1 and info.value.exc_type in ("ValueError", "TypeError")
    assert f"observation does not fit {space!r}: {expected}" in str(info.value)
    assert "got " in str(info.value)
    assert vec.get_attr("count") == [1, 1, 1]
    result = vec.step(np.zeros(3, int))  # still usable
    assert vec.batch_observation_space.contains(result.observations)
    close_clean(vec)
