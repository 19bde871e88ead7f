"""Envs and checks shared by the RayVecEnv tests (their Ray: ``local_ray``, tests/conftest.py).

The test modules import it as ``ray_helpers`` (pytest puts this folder on ``sys.path``); like
``proc_toy_envs`` it registers itself with cloudpickle, so that its classes travel to the Ray
workers by value.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys

import sekai
from sekai.testing import assert_trees_equal

cloudpickle.register_pickle_by_value(sys.modules[__name__])


class PidEnv(toys.ToyEnv):
    """A ``ToyEnv`` that writes the id of its process to ``folder/<rank>`` when built."""

    def __init__(self, folder: str, rank: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        (Path(folder) / str(rank)).write_text(str(os.getpid()))


def pid_envs(folder: Path, n: int, **kwargs: Any) -> list[Any]:
    """``n`` factories of ``PidEnv`` writing to ``folder``."""
    return [lambda k=k: PidEnv(str(folder), k, **kwargs) for k in range(n)]


def pids_in(folder: Path) -> set[int]:
    """The process ids the ``PidEnv`` built in ``folder`` wrote."""
    return {int(path.read_text()) for path in folder.iterdir()}


def all_gone(pids: set[int] | list[int]) -> bool:
    """Whether every process of ``pids`` has exited, waiting up to 20 s."""
    return toys.wait_until(lambda: all(toys.exited(pid) for pid in pids), 20.0)


def assert_same_rollout(a: Any, b: Any, actions: list[Any], seed: int = 0) -> None:
    """Two vector envs give equal results for a reset with ``seed`` and ``actions``."""
    first, second = a.reset(seed=seed), b.reset(seed=seed)
    assert_trees_equal(
        (first.observations, list(first.infos)), (second.observations, list(second.infos))
    )
    for action in actions:
        x, y = a.step(action), b.step(action)
        assert_trees_equal(
            (x.observations, x.rewards, x.terminated, x.truncated, list(x.infos)),
            (y.observations, y.rewards, y.terminated, y.truncated, list(y.infos)),
        )
        assert x.rewards.dtype == np.float64 and x.terminated.dtype == bool


def cartpoles(n: int) -> list[Any]:
    """``n`` factories of CartPole-v1."""
    return [lambda: sekai.make("CartPole-v1")] * n
