"""Checks of split stepping (``send`` / ``recv``) shared by the tests of every backend.

The test modules import it as ``split_steps`` (pytest puts this folder on ``sys.path``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sekai.testing import assert_trees_equal
from sekai.vector import VecEnv

Row = tuple[Any, float, bool, bool, dict[str, Any]]


def row(result: Any, k: int) -> Row:
    """Row ``k`` of a step result: ``(obs, reward, terminated, truncated, info)``."""
    obs = result.observations
    one = {key: value[k] for key, value in obs.items()} if isinstance(obs, dict) else obs[k]
    return (
        one,
        float(result.rewards[k]),
        bool(result.terminated[k]),
        bool(result.truncated[k]),
        dict(result.infos[k]),
    )


def rollout_with_step(vec: VecEnv[Any, Any], plan: np.ndarray, seed: int) -> list[list[Row]]:
    """Each sub-env's transitions when every sub-env steps together: ``plan[:, t]`` at t."""
    vec.reset(seed=seed)
    rows: list[list[Row]] = [[] for _ in range(vec.num_envs)]
    for t in range(plan.shape[1]):
        result = vec.step(plan[:, t])
        assert result.env_ids.tolist() == list(range(vec.num_envs))
        for i in range(vec.num_envs):
            rows[i].append(row(result, i))
    return rows


def rollout_with_recv(
    vec: VecEnv[Any, Any], plan: np.ndarray, seed: int
) -> tuple[list[list[Row]], list[int]]:
    """Each sub-env's transitions when a learner sends each sub-env its next action as soon
    as ``recv()`` returns it (sub-env ``i``'s t-th action is ``plan[i, t]``); and the size of
    every batch ``recv()`` returned."""
    n, steps = plan.shape
    vec.reset(seed=seed)
    rows: list[list[Row]] = [[] for _ in range(n)]
    sizes = []
    vec.send(plan[:, 0])
    flying = n
    while flying:
        result = vec.recv()
        ids = result.env_ids
        assert ids.dtype == np.intp and (np.diff(ids) > 0).all()
        assert len(ids) >= min(vec.batch_size, flying)
        sizes.append(len(ids))
        flying -= len(ids)
        for k, i in enumerate(ids.tolist()):
            rows[i].append(row(result, k))
        again = [i for i in ids.tolist() if len(rows[i]) < steps]
        if again:
            again.reverse()  # any order: the rows come back in sub-env order
            vec.send(plan[again, [len(rows[i]) for i in again]], env_ids=again)
            flying += len(again)
    return rows, sizes


def assert_same_trajectories(a: list[list[Row]], b: list[list[Row]]) -> None:
    """Every sub-env went through the same transitions in ``a`` and ``b``."""
    assert len(a) == len(b)
    for i, (mine, theirs) in enumerate(zip(a, b, strict=True)):
        assert len(mine) == len(theirs), i
        for t, (x, y) in enumerate(zip(mine, theirs, strict=True)):
            try:
                assert_trees_equal(x, y)
            except AssertionError as error:
                raise AssertionError(f"sub-env {i}, step {t}: {error}") from None


def check_recv_skips_the_gated(vec: VecEnv[Any, Any], gate: Path, gated: int) -> None:
    """With sub-env ``gated`` stuck until file ``gate`` exists (on action 1), ``recv()``
    keeps returning the others, at least ``batch_size`` at a time; once the gate opens, the
    gated sub-env comes back with its step done."""
    n = vec.num_envs
    vec.reset(seed=0)
    actions = np.zeros(n, dtype=np.int64)
    actions[gated] = 1
    vec.send(actions)
    fast = [i for i in range(n) if i != gated]
    counts = dict.fromkeys(fast, 0)
    flying = set(range(n))
    while min(counts.values()) < 3:
        result = vec.recv()
        ids = result.env_ids.tolist()
        assert gated not in ids
        assert len(ids) >= vec.batch_size
        flying -= set(ids)
        for k, i in enumerate(ids):
            counts[i] += 1
            assert result.infos[k]["action"] == 0
        vec.send(np.zeros(len(ids), dtype=np.int64), env_ids=ids)
        flying |= set(ids)
    gate.touch()
    seen: set[int] = set()
    while gated not in seen:
        result = vec.recv()
        seen |= set(result.env_ids.tolist())
        flying -= set(result.env_ids.tolist())
        if gated in result.env_ids:
            k = result.env_ids.tolist().index(gated)
            assert result.infos[k]["action"] == 1 and result.infos[k]["count"] == 1
    while flying:
        flying -= set(vec.recv().env_ids.tolist())
