"""Partial batches: the sub-envs a ``send()`` names, and rows of several replies joined into
one ``VecStepResult`` in sub-env order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Box, Dict, Space, Tuple
from sekai.spaces.utils import concatenate, iterate
from sekai.utils.validation import check_int_array
from sekai.vector.result import VecStepResult, all_ids

__all__ = ["check_env_ids", "cut_batch", "join_batches", "join_results", "take_rows"]

_STACK_ARRAYS = concatenate.dispatch(Box)


def check_env_ids(env_ids: Any, num_envs: int) -> NDArray[np.intp]:
    """``env_ids`` of a ``send()`` as an int array: None gives every sub-env in order.

    Otherwise a 1-D sequence or array of distinct sub-env indices in ``[0, num_envs)``, at
    least one: ``TypeError`` for anything but ints (whole floats count as their int, as in
    ``check_int_array``), ``ValueError`` for a wrong value.
    """
    if env_ids is None:
        return all_ids(num_envs)
    expected = f"None or a 1-D sequence of distinct sub-env indices in [0, {num_envs})"
    if isinstance(env_ids, (str, bytes, Mapping)) or not isinstance(
        env_ids, (Sequence, np.ndarray)
    ):
        raise TypeError(f"env_ids must be {expected}, got {env_ids!r} ({type(env_ids).__name__}).")
    ids = check_int_array(env_ids, "env_ids")
    if ids.ndim != 1 or not ids.size:
        raise ValueError(f"env_ids must be {expected}, got {env_ids!r}.")
    ids = ids.astype(np.intp, copy=False)
    if ids.min() < 0 or ids.max() >= num_envs:
        raise ValueError(f"env_ids must be {expected}, got {env_ids!r}: out of range.")
    if np.unique(ids).size != ids.size:
        raise ValueError(f"env_ids must be {expected}, got {env_ids!r}: repeated indices.")
    return ids


def take_rows(space: Space[Any] | None, batch: Any, order: Sequence[int] | NDArray[Any]) -> Any:
    """A new batch of ``space`` with rows ``order`` of ``batch``, through Dict / Tuple; a plain
    list or tuple of rows gives a list or tuple of those rows."""
    if isinstance(space, Dict) and isinstance(batch, Mapping):
        return {key: take_rows(space.spaces.get(key), part, order) for key, part in batch.items()}
    if isinstance(space, Tuple) and isinstance(batch, tuple) and len(batch) == len(space.spaces):
        return tuple(
            take_rows(sub, part, order) for sub, part in zip(space.spaces, batch, strict=True)
        )
    if isinstance(batch, np.ndarray) and batch.ndim:
        return batch[np.asarray(order, dtype=np.intp)]
    if isinstance(batch, (list, tuple)):
        rows = [batch[k] for k in order]
        return rows if isinstance(batch, list) else tuple(rows)
    assert space is not None, "take_rows() needs the space of a batch that is not a sequence"
    rows = list(iterate(space, batch))
    return concatenate(space, [rows[k] for k in order])


def _own_row(row: Any) -> Any:
    """``row``, or a copy of it if it is a read-only array (one Ray handed over)."""
    if isinstance(row, np.ndarray) and not row.flags.writeable:
        return row.copy()
    return row


def join_batches(space: Space[Any], batches: list[Any]) -> Any:
    """One batch from several batches of ``space``, in order: new arrays, through Dict / Tuple."""
    if isinstance(space, Dict) and all(
        isinstance(b, dict) and b.keys() == space.spaces.keys() for b in batches
    ):
        items = space.spaces.items()
        return {key: join_batches(sub, [b[key] for b in batches]) for key, sub in items}
    if isinstance(space, Tuple) and all(
        isinstance(b, tuple) and len(b) == len(space.spaces) for b in batches
    ):
        return tuple(
            join_batches(sub, [b[i] for b in batches]) for i, sub in enumerate(space.spaces)
        )
    if concatenate.dispatch(type(space)) is _STACK_ARRAYS and all(
        isinstance(b, np.ndarray) and b.ndim for b in batches
    ):
        return np.concatenate(batches)
    return concatenate(space, [_own_row(row) for b in batches for row in iterate(space, b)])


def join_results(space: Space[Any], parts: list[VecStepResult[Any]]) -> VecStepResult[Any]:
    """The rows of ``parts`` as one result, ordered by sub-env (``env_ids`` ascending); its
    observations are None when every part's are."""
    if len(parts) == 1 and _ascending(parts[0].env_ids):
        return parts[0]
    parts = sorted(parts, key=lambda part: int(part.env_ids[0]))
    env_ids = np.concatenate([part.env_ids for part in parts])
    batches = [part.observations for part in parts]
    observations = None if all(b is None for b in batches) else join_batches(space, batches)
    rewards = np.concatenate([part.rewards for part in parts])
    terminated = np.concatenate([part.terminated for part in parts])
    truncated = np.concatenate([part.truncated for part in parts])
    infos = [info for part in parts for info in part.infos]
    if not _ascending(env_ids):
        order = np.argsort(env_ids, kind="stable")
        env_ids = env_ids[order]
        if observations is not None:
            observations = take_rows(space, observations, order)
        rewards, terminated, truncated = rewards[order], terminated[order], truncated[order]
        infos = [infos[k] for k in order.tolist()]
    return VecStepResult(observations, rewards, terminated, truncated, infos, env_ids)


def _ascending(ids: NDArray[np.intp]) -> bool:
    return ids.size < 2 or bool((ids[1:] > ids[:-1]).all())


def cut_batch(space: Space[Any] | None, batch: Any, bounds: list[tuple[int, int]], n: int) -> Any:
    """``batch`` cut into rows ``lo:hi`` for each of ``bounds``, through Dict / Tuple; None if
    a part of it does not hold ``n`` rows."""
    parts: Any
    if isinstance(space, Dict) and isinstance(batch, Mapping):
        parts = {
            key: cut_batch(space.spaces.get(key), value, bounds, n) for key, value in batch.items()
        }
        if any(part is None for part in parts.values()):
            return None
        return [{key: part[k] for key, part in parts.items()} for k in range(len(bounds))]
    if isinstance(space, Tuple) and isinstance(batch, tuple):
        if len(batch) != len(space.spaces):
            return None
        parts = [
            cut_batch(sub, part, bounds, n) for sub, part in zip(space.spaces, batch, strict=True)
        ]
        if any(part is None for part in parts):
            return None
        return [tuple(part[k] for part in parts) for k in range(len(bounds))]
    if (isinstance(batch, np.ndarray) and batch.ndim) or isinstance(batch, (list, tuple)):
        return [batch[lo:hi] for lo, hi in bounds] if len(batch) == n else None
    return None
