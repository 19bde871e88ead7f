"""``check_vector_backends``: run an env on every vector backend and compare the results.

It checks each backend, with and without autoreset, against the ``VecEnv`` contract and the
others. Backends are imported only when a check runs.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Number
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from sekai.core.env import Env
    from sekai.vector.vec_env import VecEnv

__all__ = ["VECTOR_BACKENDS", "check_vector_backends"]

VECTOR_BACKENDS = ("native", "sync", "async", "proc", "proc_no_shm", "ray")
"""Backend names ``check_vector_backends`` knows; ``proc_no_shm`` is ``ProcVecEnv`` with
``shared_memory=False``, ``ray`` is ``RayVecEnv``."""


@dataclass
class _Rollout:
    """One backend's results: ``("reset", obs, infos)``, ``("step", obs, r, te, tr, infos)``."""

    name: str
    per_env: bool = True
    """Whether sub-envs are seeded one by one (else one generator seeds a native slice)."""
    reseeded: _Rollout | None = None
    """Where ``per_env`` is False: the same env's rollout from a reset with another seed."""
    events: list[tuple[Any, ...]] = field(default_factory=list)
    observation_space: Any = None
    action_space: Any = None
    error: str | None = None


@dataclass(frozen=True)
class _Setup:
    """What every rollout of one check shares."""

    env: str | Callable[[], Env[Any, Any]]
    num_envs: int
    n_steps: int
    env_kwargs: Mapping[str, Any]
    proc_kwargs: Mapping[str, Any]
    ray_kwargs: Mapping[str, Any]
    native: Callable[..., VecEnv[Any, Any]] | None


def _build(setup: _Setup, backend: str, autoreset: bool) -> VecEnv[Any, Any]:
    """The VecEnv of ``backend`` for ``env`` (an id or a factory)."""
    env, num_envs = setup.env, setup.num_envs
    vector_kwargs: dict[str, Any] = {"autoreset": autoreset}
    if backend.startswith("proc"):
        vector_kwargs.update(setup.proc_kwargs)
        if backend == "proc_no_shm":
            vector_kwargs["shared_memory"] = False
    elif backend == "ray":
        vector_kwargs.update(setup.ray_kwargs)
    mode = "proc" if backend == "proc_no_shm" else backend
    if isinstance(env, str):
        from sekai.registry.registry import make_vec

        return make_vec(
            env,
            num_envs,
            vectorization_mode=mode,
            vector_kwargs=vector_kwargs,
            **setup.env_kwargs,
        )
    if backend == "native":
        assert setup.native is not None
        return setup.native(num_envs=num_envs, autoreset=autoreset, **setup.env_kwargs)
    fns = [env] * num_envs
    if mode == "sync":
        from sekai.vector.sync_vec_env import SyncVecEnv

        return SyncVecEnv(fns, **vector_kwargs)
    if mode == "async":
        from sekai.vector.async_vec_env import AsyncVecEnv

        return AsyncVecEnv(fns, **vector_kwargs)
    if mode == "ray":
        from sekai.vector.ray_vec_env import RayVecEnv

        return RayVecEnv(fns, **vector_kwargs)
    from sekai.vector.proc_vec_env import ProcVecEnv

    return ProcVecEnv(fns, **vector_kwargs)


def _record(vec: VecEnv[Any, Any], rollout: _Rollout, seed: int, n_steps: int) -> None:
    """Reset with ``seed``, None and a seed list, taking ``n_steps`` random steps after each."""
    from sekai.spaces.utils import batch_space

    rollout.observation_space = vec.observation_space
    rollout.action_space = vec.action_space
    n = vec.num_envs
    actions = batch_space(vec.action_space, n)
    actions.seed(seed)
    seeds: list[Any] = [seed, None, [seed + 1 + i for i in range(n)]]
    for reset_seed in seeds:
        result = vec.reset(seed=reset_seed)
        rollout.events.append(("reset", result.observations, [dict(i) for i in result.infos]))
        for _ in range(n_steps):
            step = vec.step(actions.sample())
            rollout.events.append(
                (
                    "step",
                    step.observations,
                    step.rewards,
                    step.terminated,
                    step.truncated,
                    [dict(i) for i in step.infos],
                )
            )


def _run(setup: _Setup, backend: str, autoreset: bool, seed: int) -> _Rollout:
    """Build ``backend``, record a rollout (one drawn from one generator: twice, the second
    time from a reset with another seed) and close it; errors end up in ``rollout.error``."""
    rollout = _Rollout(backend)
    vec = None
    try:
        vec = _build(setup, backend, autoreset)
        rollout.per_env = backend != "native" and not getattr(vec, "native_slices", False)
        _record(vec, rollout, seed, setup.n_steps)
        if not rollout.per_env:
            rollout.reseeded = _Rollout(backend, per_env=False)
            _record(vec, rollout.reseeded, seed + 1_000_003, setup.n_steps)
    except Exception as e:
        rollout.error = f"raised {type(e).__name__}: {e}"
    finally:
        if vec is not None:
            try:
                vec.close()
            except Exception as e:
                rollout.error = rollout.error or f"close() raised {type(e).__name__}: {e}"
    return rollout


# -- comparing values ---------------------------------------------------------------------------


def _is_float_array(x: np.ndarray[Any, Any]) -> bool:
    return x.dtype.kind in "fc"


def _diff(a: Any, b: Any, path: str, exact: bool, ignore: Collection[str]) -> str | None:
    """The first difference between ``a`` and ``b`` (values if ``exact``, else structure)."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
            return f"{path}: {type(a).__name__} vs {type(b).__name__}"
        keys_a = {k for k in a if k not in ignore}
        keys_b = {k for k in b if k not in ignore}
        if keys_a != keys_b:
            return f"{path}: keys {sorted(map(str, keys_a))} vs {sorted(map(str, keys_b))}"
        for key in a:
            if key in keys_a:
                found = _diff(a[key], b[key], f"{path}[{key!r}]", exact, ignore)
                if found:
                    return found
        return None
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return f"{path}: shape {x.shape} vs {y.shape}"
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and x.dtype != y.dtype:
            return f"{path}: dtype {x.dtype} vs {y.dtype}"
        if exact:
            nan = _is_float_array(x) and _is_float_array(y)
            if not np.array_equal(x, y, equal_nan=nan):
                return f"{path}: {a!r} vs {b!r}"
        return None
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        if not (isinstance(a, (tuple, list)) and isinstance(b, (tuple, list))):
            return f"{path}: {type(a).__name__} vs {type(b).__name__}"
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _diff(x, y, f"{path}[{i}]", exact, ignore)
            if found:
                return found
        return None
    numbers = isinstance(a, (Number, np.generic)) and isinstance(b, (Number, np.generic))
    if not exact:
        if numbers or type(a) is type(b):
            return None
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if numbers:
        try:
            if math.isnan(a) and math.isnan(b):
                return None
        except TypeError:
            pass
    try:
        equal = bool(a == b)
    except Exception:
        equal = False
    return None if equal else f"{path}: {a!r} vs {b!r}"


def _compare(ref: _Rollout, other: _Rollout, exact: bool, ignore: Collection[str]) -> str | None:
    """The first disagreement between two rollouts, as text."""
    if ref.observation_space != other.observation_space:
        return f"observation_space {ref.observation_space!r} vs {other.observation_space!r}"
    if ref.action_space != other.action_space:
        return f"action_space {ref.action_space!r} vs {other.action_space!r}"
    fields = ("observations", "rewards", "terminated", "truncated", "infos")
    for k, (a, b) in enumerate(zip(ref.events, other.events, strict=True)):
        where = f"{a[0]} #{_event_number(ref.events, k)}"
        names = fields[:-1] if a[0] == "step" else fields[:1]
        for name, x, y in zip(names, a[1:-1], b[1:-1], strict=True):
            found = _diff(x, y, name, exact, ())
            if found:
                return f"{where}: {found}"
        infos_a, infos_b = a[-1], b[-1]
        if exact:
            found = _diff(infos_a, infos_b, "infos", True, ignore)
            if found:
                return f"{where}: {found}"
            continue
        for i, (x, y) in enumerate(zip(infos_a, infos_b, strict=True)):
            if _info_kind(x) == _info_kind(y):
                found = _diff(x, y, f"infos[{i}]", False, ignore)
                if found:
                    return f"{where}: {found}"
    return None


def _event_number(events: Sequence[tuple[Any, ...]], k: int) -> str:
    """``"<segment>.<step>"`` of event ``k`` (segment = the reset it follows, from 1)."""
    segment = sum(1 for e in events[: k + 1] if e[0] == "reset")
    last_reset = max(j for j in range(k + 1) if events[j][0] == "reset")
    return f"{segment}" if k == last_reset else f"{segment}.{k - last_reset}"


def _info_kind(info: Mapping[str, Any]) -> str:
    if not info:
        return "empty"
    return "final" if "final_observation" in info else "plain"


# -- the contract every backend keeps -----------------------------------------------------------


def _contract(rollout: _Rollout, num_envs: int, autoreset: bool) -> str | None:
    """The first break of the ``VecEnv`` contract in one rollout, as text."""
    from sekai.spaces.utils import batch_space
    from sekai.vector.native import take_index

    single = rollout.observation_space
    batched = batch_space(single, num_envs)
    frozen: dict[int, tuple[Any, bool, bool]] = {}
    for k, event in enumerate(rollout.events):
        where = f"{event[0]} #{_event_number(rollout.events, k)}"
        observations, infos = event[1], event[-1]
        if not batched.contains(observations):
            return f"{where}: observations not in batch_observation_space: {observations!r}"
        if len(infos) != num_envs:
            return f"{where}: {len(infos)} infos for {num_envs} sub-envs"
        if event[0] == "reset":
            frozen.clear()
            continue
        rewards, terminated, truncated = event[2:5]
        for name, array, kind in (
            ("rewards", rewards, "f"),
            ("terminated", terminated, "b"),
            ("truncated", truncated, "b"),
        ):
            if not isinstance(array, np.ndarray) or array.shape != (num_envs,):
                return f"{where}: {name} is not an array of shape ({num_envs},): {array!r}"
            if array.dtype != (np.float64 if kind == "f" else np.bool_):
                return f"{where}: {name} has dtype {array.dtype}"
        for i in sorted(set(np.flatnonzero(terminated | truncated).tolist()) | frozen.keys()):
            info = infos[i]
            if i in frozen:
                obs, term, trunc = frozen[i]
                row = take_index(single, observations, i)
                if (
                    rewards[i] != 0.0
                    or (bool(terminated[i]), bool(truncated[i])) != (term, trunc)
                    or info
                    or _diff(obs, row, "", True, ())
                ):
                    return (
                        f"{where}: frozen sub-env {i} must repeat its final observation and "
                        f"flags with reward 0.0 and info {{}}, got reward {rewards[i]!r}, "
                        f"flags ({terminated[i]}, {truncated[i]}), info {info!r}"
                    )
            elif "final_observation" in info:
                missing = {"final_info", "reset_info"} - set(info)
                if missing:
                    return f"{where}: infos[{i}] lacks {sorted(missing)}"
                if not single.contains(info["final_observation"]):
                    return f"{where}: infos[{i}]['final_observation'] not in observation_space"
            elif autoreset:
                return f"{where}: sub-env {i} finished without 'final_observation' in its info"
            else:
                row = take_index(single, observations, i)
                frozen[i] = (row, bool(terminated[i]), bool(truncated[i]))
    return None


def _resolve_backends(
    env: str | Callable[[], Env[Any, Any]],
    backends: Iterable[str] | None,
    native: Callable[..., VecEnv[Any, Any]] | None,
) -> list[str]:
    if isinstance(env, str):
        from sekai.registry.registry import spec

        has_native = spec(env).vector_entry_point is not None
    elif callable(env):
        has_native = native is not None
    else:
        raise TypeError(f"env must be a registered id or an env factory, got {env!r}.")
    if backends is None:
        applies = {"native": has_native, "ray": _ray_running()}
        return [b for b in VECTOR_BACKENDS if applies.get(b, True)]
    chosen = list(dict.fromkeys(backends))
    unknown = [b for b in chosen if b not in VECTOR_BACKENDS]
    if unknown:
        raise ValueError(f"unknown backends {unknown}; choose from {VECTOR_BACKENDS}.")
    if "native" in chosen and not has_native:
        raise ValueError(f"{env!r} has no native vector implementation to check.")
    if not chosen:
        raise ValueError("backends must name at least one backend.")
    return chosen


def _ray_running() -> bool:
    """Whether this process is connected to Ray (without importing it)."""
    ray = sys.modules.get("ray")
    return ray is not None and bool(ray.is_initialized())


def check_vector_backends(
    env: str | Callable[[], Env[Any, Any]],
    *,
    num_envs: int = 3,
    seed: int = 0,
    n_steps: int = 30,
    backends: Iterable[str] | None = None,
    autoreset: bool | Iterable[bool] = (True, False),
    env_kwargs: Mapping[str, Any] | None = None,
    proc_kwargs: Mapping[str, Any] | None = None,
    ray_kwargs: Mapping[str, Any] | None = None,
    native: Callable[..., VecEnv[Any, Any]] | None = None,
    ignore_info_keys: Collection[str] = (),
) -> list[str]:
    """Run ``env`` on several vector backends and report every disagreement; ``[]`` = none.

    ``env`` is a registered id (built with ``make_vec``, ``env_kwargs`` passed on) or a
    zero-argument env factory (``native``, if given, builds its native VecEnv as
    ``native(num_envs=..., autoreset=..., **env_kwargs)``). ``backends`` default to every
    name of ``VECTOR_BACKENDS`` that applies ("native" only where a native version exists,
    "ray" only while this process is connected to Ray); ``proc_kwargs`` go to ``ProcVecEnv``,
    ``ray_kwargs`` to ``RayVecEnv`` (e.g. ``num_workers``).

    For each autoreset mode, every backend is reset with ``seed``, then with None, then with
    a list of ``num_envs`` seeds, taking ``n_steps`` steps of the same random actions (a
    ``batch_action_space`` seeded with ``seed``) after each reset. Each backend must keep the
    ``VecEnv`` contract (shapes, dtypes, observations in the space, ``final_observation`` /
    ``final_info`` / ``reset_info`` on autoreset, frozen sub-envs without it). Sync, async,
    proc and ray seed sub-envs alike, so their observations, rewards, flags and infos must be
    identical (the first backend is the reference). A native env draws from one generator
    (and so does each slice of "ray" for an id with a native version, see ``make_vec``):
    it is compared value for value only if its rollout does not depend on the seed, otherwise
    only in structure (spaces, shapes, dtypes, info keys and value types of sub-envs in the
    same state). Info keys in ``ignore_info_keys`` (e.g. timings) are skipped at any depth.
    Each problem is one line naming the backends, the autoreset mode and the first event that
    differs (``step #2.5``: 5th step after the 2nd reset). Exceptions are reported, not raised.
    """
    names = _resolve_backends(env, backends, native)
    modes = [autoreset] if isinstance(autoreset, bool) else list(autoreset)
    if num_envs < 1 or n_steps < 1:
        raise ValueError(f"num_envs and n_steps must be >= 1, got {num_envs} and {n_steps}.")
    setup = _Setup(
        env,
        num_envs,
        n_steps,
        dict(env_kwargs or {}),
        dict(proc_kwargs or {}),
        dict(ray_kwargs or {}),
        native,
    )
    ignore = frozenset(ignore_info_keys)
    problems: list[str] = []
    for mode in modes:
        tag = f"autoreset={bool(mode)}"
        rollouts = []
        for name in names:
            rollout = _run(setup, name, bool(mode), seed)
            if rollout.error is None:
                found = _contract(rollout, num_envs, bool(mode))
                if found is None:
                    rollouts.append(rollout)
                    continue
                rollout.error = found
            problems.append(f"[{name}, {tag}] {rollout.error}")
        per_env = [r for r in rollouts if r.per_env]
        for r in rollouts:
            ref = per_env[0] if per_env else None
            if ref is None or r is ref:
                continue
            exact = r.per_env or _seed_independent(r, ignore)
            found = _compare(ref, r, exact, ignore)
            if found:
                how = "" if exact else " (structure)"
                problems.append(f"[{ref.name} vs {r.name}{how}, {tag}] {found}")
    return problems


def _seed_independent(rollout: _Rollout, ignore: Collection[str]) -> bool:
    """Whether a native rollout is the same with another seed (deterministic dynamics)."""
    again = rollout.reseeded
    return again is not None and _compare(rollout, again, True, ignore) is None
