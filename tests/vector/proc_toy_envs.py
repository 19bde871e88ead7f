"""Toy envs and checks shared by the ProcVecEnv tests.

The test modules import it as ``proc_toy_envs`` (pytest puts this folder on ``sys.path``); it
registers itself with cloudpickle so that its classes travel to the worker processes by value.
"""

from __future__ import annotations

import copy
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

import sekai
from sekai import Box, Discrete, ResetResult, StepResult
from sekai.spaces import Space

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SHM_DIR = Path("/dev/shm")
WORKER_PREFIX = "sekai-ProcVecEnv-worker-"


class ToyEnv(sekai.Env):
    """Observations sampled from any space; episodes of ``length`` steps.

    Faults on request: ``step(fail_on)`` raises ValueError, ``step(lock_on)`` returns an
    unpicklable observation, ``step(lock_info_on)`` an unpicklable info, ``step(a)`` returns
    ``bad_obs[a]`` as observation for an action in ``bad_obs``, ``step(slow_on)`` sleeps
    ``delay`` seconds (and first waits, up to 60 s, for file ``gate`` to exist),
    ``reset(options={"fail": True})`` raises, ``close()`` raises
    (``fail_close``) or hangs (``hang_close``: 1 sleeps, 2 also ignores SIGTERM; ``close_delay``
    sleeps that long). ``marker``: a file touched by ``close()``.
    """

    def __init__(
        self,
        space: Space[Any] | None = None,
        *,
        action_space: Space[Any] | None = None,
        length: int = 5,
        fail_on: Any = None,
        lock_on: Any = None,
        lock_info_on: Any = None,
        bad_obs: dict[Any, Any] | None = None,
        slow_on: Any = None,
        delay: float = 0.0,
        gate: str | None = None,
        fail_close: bool = False,
        hang_close: int = 0,
        close_delay: float = 0.0,
        marker: str | None = None,
    ) -> None:
        # a copy: sub-envs built from one closure must not share the space's generator
        self.observation_space = copy.deepcopy(space) if space is not None else Box(-1.0, 1.0, (2,))
        self.action_space = action_space if action_space is not None else Discrete(2)
        self.length = length
        self.fail_on = fail_on
        self.lock_on = lock_on
        self.lock_info_on = lock_info_on
        self.bad_obs = bad_obs or {}
        self.slow_on = slow_on
        self.delay = delay
        self.gate = gate
        self.fail_close = fail_close
        self.hang_close = hang_close
        self.close_delay = close_delay
        self.marker = marker
        self.count = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult:
        self._set_rng(seed)
        self.observation_space.seed(int(self.rng.integers(2**31)))
        self.count = 0
        if options and options.get("fail"):
            raise RuntimeError("reset failed on request")
        return ResetResult(self.observation_space.sample(), {"options": options})

    def step(self, action: Any) -> StepResult:
        if self.fail_on is not None and action == self.fail_on:
            raise ValueError(f"action {action} is not supported")
        if self.slow_on is not None and action == self.slow_on:
            if self.gate is not None:
                wait_until(Path(self.gate).exists, 60.0, 0.005)
            time.sleep(self.delay)
        self.count += 1
        obs = self.observation_space.sample()
        if self.lock_on is not None and action == self.lock_on:
            obs = threading.Lock()
        if self.bad_obs:
            obs = self.bad_obs.get(int(action), obs)
        info: dict[str, Any] = {"count": self.count, "action": action}
        if self.lock_info_on is not None and action == self.lock_info_on:
            info["lock"] = threading.Lock()
        return StepResult(obs, float(self.count), self.count >= self.length, False, info)

    def ping(self, x: Any, *, scale: int = 1) -> Any:
        return (x * scale, self.count)

    def close(self) -> None:
        if self.marker is not None:
            Path(self.marker).touch()
        if self.hang_close == 2:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if self.hang_close:
            time.sleep(60)
        time.sleep(self.close_delay)
        if self.fail_close:
            raise RuntimeError("close failed on request")


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Turn a hang into a failure (pytest-timeout is not installed)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError("test ran for more than 60 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def raising_factory() -> sekai.Env:
    raise RuntimeError("factory exploded")


class UnprintableError(Exception):
    """An exception whose ``str()`` raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text")


def unprintable_factory() -> sekai.Env:
    raise UnprintableError()


def non_env_factory() -> Any:
    return 5


def exiting_factory() -> sekai.Env:
    os._exit(3)


def our_workers() -> list[multiprocessing.process.BaseProcess]:
    """Live ProcVecEnv worker processes of this process."""
    return [p for p in multiprocessing.active_children() if p.name.startswith(WORKER_PREFIX)]


def our_blocks() -> list[Path]:
    """Shared-memory blocks created by this process."""
    return sorted(SHM_DIR.glob(f"sekai_{os.getpid()}_*")) if SHM_DIR.is_dir() else []


def assert_released(vec: Any) -> None:
    """``vec`` is closed: every worker has exited and its block is unlinked."""
    assert vec.closed
    assert vec._processes and all(not p.is_alive() for p in vec._processes)
    assert not set(multiprocessing.active_children()) & set(vec._processes)
    if vec._shm is not None:
        assert not (SHM_DIR / vec._shm.name).exists()


def assert_no_leftovers() -> None:
    """No worker process and no shared-memory block of ours is left."""
    assert our_workers() == []
    assert our_blocks() == []


def exited(pid: int) -> bool:
    """Whether process ``pid`` has exited (gone, or a zombie that its parent has not reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def reaped(pid: int) -> bool:
    """Whether process ``pid`` is gone altogether: exited and reaped, no zombie left."""
    return not Path(f"/proc/{pid}").exists()


def wait_until(condition: Any, timeout: float = 10.0, every: float = 0.05) -> bool:
    """Poll ``condition()`` every ``every`` seconds until it holds or ``timeout`` seconds
    pass."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(every)
    return True
