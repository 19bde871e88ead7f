"""``check_native_matches``: a native vector env against a ``SyncVecEnv`` of single envs."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable
from typing import Any

from sekai.core.env import Env
from sekai.spaces.utils import batch_space
from sekai.testing.trees import tree_difference
from sekai.utils.validation import check_int, check_real
from sekai.vector.sync_vec_env import SyncVecEnv
from sekai.vector.vec_env import VecEnv

__all__ = ["check_native_matches"]


def check_native_matches(
    env_fn: Callable[[], Env[Any, Any]],
    vec_fn: Callable[..., VecEnv[Any, Any]],
    *,
    num_envs: int,
    steps: int,
    seed: int = 0,
    options: Any = None,
    actions: Callable[[int], Any] | None = None,
    autoreset: bool | Iterable[bool] = (True, False),
    rtol: float = 0.0,
    atol: float = 0.0,
) -> list[str]:
    """Step a native vector env and ``num_envs`` single envs side by side; ``[]``: they agree.

    For each autoreset mode, ``vec_fn(num_envs=num_envs, autoreset=mode)`` builds the native
    env and ``SyncVecEnv([env_fn] * num_envs, autoreset=mode)`` the reference. Both are reset
    once with ``options`` (one mapping for all sub-envs or a list of one per sub-env), the
    native env with ``seed`` and every single env with ``seed`` as well, then take ``steps``
    steps with the same actions: ``actions(k)`` for step ``k`` (from 1), or else samples of
    the batched action space seeded with ``seed``. Their spaces, observations, rewards, flags
    and infos (``final_observation``, ``final_info`` and ``reset_info`` on autoreset, ``{}``
    for a frozen sub-env) must agree as ``tree_difference`` compares them: exactly, floats
    within ``rtol`` and ``atol``.

    Such agreement holds where each sub-env of the native env draws what a single env draws:
    with one sub-env (both generators are seeded with ``seed``), or where an episode does not
    depend on the generator, such as a fixed price history with start points in ``options``.
    Each problem is one line naming the autoreset mode, the first event that differs
    (``reset`` or ``step #k``) and where, the native env's value first; a mode stops at its
    first problem. Exceptions are reported, not raised.
    """
    num_envs = check_int(num_envs, "num_envs", low=1)
    steps = check_int(steps, "steps", low=1)
    seed = check_int(seed, "seed", low=0)
    compare = functools.partial(
        tree_difference,
        rtol=check_real(rtol, "rtol", low=0.0),
        atol=check_real(atol, "atol", low=0.0),
    )
    modes = [autoreset] if isinstance(autoreset, bool) else list(autoreset)
    problems = []
    for mode in modes:
        envs: list[VecEnv[Any, Any]] = []
        where = "building the envs"
        try:
            envs.append(vec_fn(num_envs=num_envs, autoreset=bool(mode)))
            envs.append(SyncVecEnv([env_fn] * num_envs, autoreset=bool(mode)))
            native, single = envs
            where = "spaces"
            found = _space_difference(native, single)
            if found is None:
                where = "reset"
                found = _reset_difference(native, single, seed, options, compare)
            draw = actions or _sampler(native, num_envs, seed)
            k = 0
            while found is None and k < steps:
                k += 1
                where = f"step #{k}"
                found = _step_difference(native, single, draw(k), compare)
        except Exception as exc:
            found = f"raised {type(exc).__name__}: {exc}"
        for vec in envs:
            try:
                vec.close()
            except Exception as exc:
                found = found or f"close() raised {type(exc).__name__}: {exc}"
        if found is not None:
            problems.append(f"[autoreset={bool(mode)}] {where}: {found}")
    return problems


def _sampler(native: VecEnv[Any, Any], num_envs: int, seed: int) -> Callable[[int], Any]:
    """Random batches of actions from the native env's action space, seeded with ``seed``."""
    space = batch_space(native.action_space, num_envs)
    space.seed(seed)
    return lambda _k: space.sample()


def _space_difference(native: VecEnv[Any, Any], single: VecEnv[Any, Any]) -> str | None:
    for name in ("observation_space", "action_space"):
        ours, theirs = getattr(native, name), getattr(single, name)
        if ours != theirs:
            return f"{name} {ours!r} vs {theirs!r}"
    return None


def _reset_difference(
    native: VecEnv[Any, Any],
    single: VecEnv[Any, Any],
    seed: int,
    options: Any,
    compare: Callable[..., str | None],
) -> str | None:
    a = native.reset(seed=seed, options=copy.deepcopy(options))
    b = single.reset(seed=[seed] * single.num_envs, options=copy.deepcopy(options))
    return compare(a.observations, b.observations, name="observations") or compare(
        list(a.infos), list(b.infos), name="infos"
    )


def _step_difference(
    native: VecEnv[Any, Any],
    single: VecEnv[Any, Any],
    batch: Any,
    compare: Callable[..., str | None],
) -> str | None:
    a = native.step(copy.deepcopy(batch))
    b = single.step(copy.deepcopy(batch))
    for name in ("observations", "rewards", "terminated", "truncated"):
        found = compare(getattr(a, name), getattr(b, name), name=name)
        if found is not None:
            return found
    return compare(list(a.infos), list(b.infos), name="infos")
