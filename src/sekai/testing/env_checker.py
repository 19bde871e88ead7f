"""``check_env``: validate that an environment follows the sekai ``Env`` contract."""

from __future__ import annotations

import asyncio
import copy
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sekai.spaces import Box, Discrete, MultiDiscrete, Space
from sekai.spaces.masking import flatten_action_mask, get_action_mask, supports_action_mask
from sekai.testing.learnability import action_space_warning, reward_scale_warning
from sekai.utils.validation import check_int

if TYPE_CHECKING:
    from sekai.core import Env

__all__ = ["check_env"]

_RESET_FIELDS = ("observation", "info")
_STEP_FIELDS = ("observation", "reward", "terminated", "truncated", "info")
_MASKED_SAMPLE = "action_space.sample(mask=env.action_mask())"
_DETERMINISM_SEED = 123
_DETERMINISM_MAX_STEPS = 50


def _equal(a: Any, b: Any) -> bool:
    """Structural equality in which NaN equals NaN (dicts, tuples, lists, arrays, scalars)."""
    if isinstance(a, Mapping):
        return (
            isinstance(b, Mapping)
            and a.keys() == b.keys()
            and all(_equal(value, b[key]) for key, value in a.items())
        )
    if isinstance(a, (tuple, list)):
        return (
            isinstance(b, (tuple, list))
            and len(a) == len(b)
            and all(_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except (TypeError, ValueError):
        pass  # no NaN test for the dtype (strings, objects): compare without it
    try:
        return bool(np.array_equal(a, b))
    except Exception:
        return a is b


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _flag_is_true(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:
        return False


@dataclass
class _Group:
    message: str
    unit: str
    error: bool
    count: int = 1


class _SampleFailure(Exception):
    """Action sampling failed inside a rollout; ``cause`` is what the sampler raised."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class _Checker:
    """One run of ``check_env``; collects issues in the order they are found."""

    def __init__(
        self,
        env: Env[Any, Any],
        *,
        n_steps: int,
        warn: bool,
        check_obs_space: bool,
        check_action_space: bool,
        determinism: bool,
        learnability: bool,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.env = env
        self.n_steps = n_steps
        self.warn = warn
        self.check_obs_space = check_obs_space
        self.check_action_space = check_action_space
        self.learnability = learnability
        self.rewards: list[float] = []  # the rollout's finite rewards, kept for learnability
        self.issues: list[str] = []
        self.groups: dict[tuple[str, str], _Group] = {}
        self.masked = supports_action_mask(env)
        self.mask_failures: set[str] = set()
        self.observation_space: Space[Any]
        self.action_space: Space[Any]
        self.progress = progress
        self.determinism_steps = min(n_steps, _DETERMINISM_MAX_STEPS)
        self.total_steps = n_steps + (2 * self.determinism_steps if determinism else 0)

    def advance(self, done: int) -> None:
        """Report ``done`` of the ``total_steps`` env steps to the progress callback."""
        if self.progress is not None:
            self.progress(done, self.total_steps)

    # reporting ------------------------------------------------------------------------------
    def error(self, message: str) -> None:
        self.issues.append(f"ERROR: {message}")

    def warning(self, message: str) -> None:
        if self.warn:
            self.issues.append(f"WARNING: {message}")

    def note(self, kind: str, unit: str, message: str, *, error: bool = False) -> None:
        """Count a grouped warning (an error if ``error``); ``unit``: ``"steps"``/``"resets"``."""
        group = self.groups.get((kind, unit))
        if group is None:
            self.groups[kind, unit] = _Group(message, unit, error)
        else:
            group.count += 1

    def flush_groups(self) -> None:
        for group in self.groups.values():
            suffix = (
                f" (seen at {group.count} {group.unit}; first shown)" if group.count > 1 else ""
            )
            if group.error:
                self.error(group.message + suffix)
            else:
                self.warning(group.message + suffix)
        self.groups.clear()

    def mask_failure_is_new(self, exc: Exception) -> bool:
        """Record a failure of masked sampling; False if the same one was reported already."""
        if not self.masked:
            return True
        key = _describe(exc)
        if key in self.mask_failures:
            return False
        self.mask_failures.add(key)
        return True

    # pieces ---------------------------------------------------------------------------------
    def check_spaces(self) -> bool:
        spaces: dict[str, Space[Any]] = {}
        for name in ("observation_space", "action_space"):
            try:
                space = getattr(self.env, name)
            except AttributeError:
                self.error(f"{name} is not defined; set self.{name} in __init__.")
                continue
            if isinstance(space, Space):
                spaces[name] = space
            else:
                kind = type(space)
                self.error(
                    f"{name} must be a sekai.Space, got {kind.__module__}.{kind.__qualname__}."
                )
        if len(spaces) < 2:
            return False
        self.observation_space = spaces["observation_space"]
        self.action_space = spaces["action_space"]
        return True

    def sample(self, space: Space[Any]) -> Any:
        """A random action, respecting the env's mask when it has one."""
        if not self.masked:
            return space.sample()
        mask = get_action_mask(self.env)
        if mask is not None and isinstance(space, (Discrete, MultiDiscrete, Box)):
            flatten_action_mask(space, mask)
        return space.sample(mask=mask)

    def check_samples(self) -> None:
        for name, space, wanted in (
            ("action_space", self.action_space, self.check_action_space),
            ("observation_space", self.observation_space, self.check_obs_space),
        ):
            if not wanted:
                continue
            try:
                value = space.sample()
            except Exception as exc:
                self.error(f"{name}.sample() raised {_describe(exc)}")
                continue
            if not self._contains(space, value):
                self.error(f"{name}.sample() returned {value!r}, which is not in {space!r}.")

    @staticmethod
    def _contains(space: Space[Any], value: Any) -> bool:
        try:
            return bool(space.contains(value))
        except Exception:
            return False

    def malformed(self, result: Any, fields: tuple[str, ...], call: str) -> bool:
        missing = [name for name in fields if not hasattr(result, name)]
        if missing:
            kind = "StepResult" if "reward" in fields else "ResetResult"
            self.error(
                f"{call} returned {type(result).__name__}, which lacks {', '.join(missing)}; "
                f"return a sekai.{kind}."
            )
        return bool(missing)

    def obs_problems(self, obs: Any, where: str) -> list[tuple[str, str]]:
        """``(kind, message)`` for each problem with an observation."""
        if not (self.check_obs_space and self.warn):
            return []
        space = self.observation_space
        problems: list[tuple[str, str]] = []
        if not self._contains(space, obs):
            problems.append(
                (
                    "obs-space",
                    f"Observation from {where} is not within observation_space. obs={obs!r}",
                )
            )
        dtype = getattr(obs, "dtype", None) if isinstance(space, Box) else None
        if isinstance(dtype, np.dtype) and dtype != space.dtype:
            message = f"Observation from {where} has dtype {dtype}, space has {space.dtype}."
            problems.append(("obs-dtype", message))
        return problems

    def note_obs(self, obs: Any, where: str, unit: str) -> None:
        for kind, message in self.obs_problems(obs, where):
            self.note(kind, unit, message)

    def check_info(self, info: Any, call: str, unit: str) -> None:
        if not isinstance(info, dict):
            self.note(
                "info", unit, f"info from {call} has type {type(info).__name__}; return a dict."
            )

    def snapshot(self, obs: Any) -> Any:
        """A deep copy for in-place mutation checks (skipped when warnings are off)."""
        return copy.deepcopy(obs) if self.warn else None

    def unchanged(self, obs: Any, snapshot: Any) -> bool:
        return not self.warn or _equal(obs, snapshot)

    # procedure ------------------------------------------------------------------------------
    def rollout(self) -> bool:
        """Steps 4-6: first reset, masked sample, random rollout. False: skip later checks."""
        env = self.env
        try:
            result = env.reset(seed=42)
        except Exception as exc:
            self.error(f"reset(seed=42) raised {_describe(exc)}")
            return False
        if self.malformed(result, _RESET_FIELDS, "reset(seed=42)"):
            return False
        if not isinstance(result.info, dict):
            self.error(
                f"reset() returned info of type {type(result.info).__name__}; info must be a dict."
            )
        self.note_obs(result.observation, "reset()", "resets")

        if self.masked:
            try:
                action = self.sample(self.action_space)
            except Exception as exc:
                self.mask_failure_is_new(exc)
                self.error(f"{_MASKED_SAMPLE} right after reset() raised {_describe(exc)}")
                return False
            if not self._contains(self.action_space, action):
                self.error(
                    f"{_MASKED_SAMPLE} returned {action!r} right after reset(), "
                    f"which is not in {self.action_space!r}."
                )

        obs = result.observation
        saved = self.snapshot(obs)
        mutation_seen = overwrite_seen = False
        infinite = 0
        for i in range(self.n_steps):
            try:
                action = self.sample(self.action_space)
            except Exception as exc:
                if not self.masked:
                    self.error(
                        f"action_space.sample() raised {type(exc).__name__} at step {i}: {exc}"
                    )
                elif self.mask_failure_is_new(exc):
                    self.error(
                        f"{_MASKED_SAMPLE} raised {type(exc).__name__} at step {i}: {exc} "
                        "(action_mask() must return a valid mask with at least one allowed "
                        "action)"
                    )
                break
            try:
                step = env.step(action)
            except Exception as exc:
                self.error(f"step() raised {type(exc).__name__} at step {i}: {exc}")
                break
            where = f"step() at step {i}"
            if self.malformed(step, _STEP_FIELDS, where):
                break
            if not mutation_seen and not self.unchanged(obs, saved):
                mutation_seen = True
                self.warning(
                    f"{where} mutated a previously returned observation in place; "
                    "return a new object every step (buffers may still hold the "
                    "old one)."
                )
            obs = step.observation
            saved = self.snapshot(obs)
            self.note_obs(obs, where, "steps")
            infinite += self.check_step_values(step, i)
            self.check_info(step.info, where, "steps")
            self.advance(i + 1)
            if not (_flag_is_true(step.terminated) or _flag_is_true(step.truncated)):
                continue
            where = f"reset() after the episode ended at step {i}"
            try:
                result = env.reset()
            except Exception as exc:
                self.error(f"{where} raised {_describe(exc)}")
                return False
            if self.malformed(result, _RESET_FIELDS, where):
                return False
            if not overwrite_seen and not self.unchanged(obs, saved):
                overwrite_seen = True
                self.warning(
                    f"reset() overwrote, in place, the terminal observation of the "
                    f"episode that ended at step {i}; vector envs keep it as "
                    "final_observation, so return a new object from reset()."
                )
            obs = result.observation
            saved = self.snapshot(obs)
            self.note_obs(obs, where, "resets")
            self.check_info(result.info, where, "resets")
        self.advance(self.n_steps)
        if infinite:
            self.warning(f"Encountered {infinite} infinite reward(s) during {self.n_steps} steps.")
        return True

    def check_step_values(self, step: Any, i: int) -> int:
        """Note reward and flag problems of step ``i``; return 1 for an infinite reward."""
        reward = step.reward
        if not _is_real(reward):
            self.note(
                "reward-type",
                "steps",
                f"Reward from step() at step {i} has type {type(reward).__name__}; return a float.",
                error=True,
            )
        elif math.isnan(reward):
            self.note("reward-nan", "steps", f"Reward from step() at step {i} is NaN.")
        elif math.isinf(reward):
            return 1
        elif self.learnability:
            self.rewards.append(float(reward))
        for name in ("terminated", "truncated"):
            flag = getattr(step, name)
            if not isinstance(flag, (bool, np.bool_)):
                self.note(
                    name,
                    "steps",
                    f"{name} from step() at step {i} has type "
                    f"{type(flag).__name__}; return a bool.",
                )
        return 0

    def check_learnability(self) -> None:
        """Warn about an action box and a reward scale that trap learners (``learnability``)."""
        for message in (
            action_space_warning(self.action_space),
            reward_scale_warning(self.rewards),
        ):
            if message is not None:
                self.warning(message)

    def check_reset_seed(self) -> None:
        try:
            first = self.env.reset(seed=0)
            if self.malformed(first, _RESET_FIELDS, "reset(seed=0)"):
                return
            self.note_obs(first.observation, "reset(seed=0)", "resets")
            self.check_info(first.info, "reset(seed=0)", "resets")
            saved = self.snapshot(first.observation)
            second = self.env.reset(seed=0)
            if self.malformed(second, _RESET_FIELDS, "reset(seed=0)"):
                return
        except Exception as exc:
            self.error(f"reset(seed=0) raised {_describe(exc)}")
            return
        if not self.unchanged(second.observation, saved):
            self.warning(
                "reset(seed=0) returned different observations on two calls; call "
                "self._set_rng(seed) first in reset() and draw all randomness from "
                "self.rng."
            )

    def check_determinism(self) -> None:
        try:
            first, second = self.seeded_rollout(), self.seeded_rollout()
        except _SampleFailure as failure:
            if self.mask_failure_is_new(failure.cause):
                self.error(f"The determinism check's rollout raised {_describe(failure.cause)}")
            return
        except Exception as exc:
            self.error(f"The determinism check's rollout raised {_describe(exc)}")
            return
        self.advance(self.total_steps)
        if not _equal(first, second):
            self.warning(
                f"Two rollouts with reset(seed={_DETERMINISM_SEED}) and the same "
                "actions differed; if the env is stochastic beyond its seed, register "
                "it with nondeterministic=True."
            )

    def seeded_rollout(self) -> list[Any]:
        space = copy.deepcopy(self.action_space)
        space.seed(_DETERMINISM_SEED)
        result = self.env.reset(seed=_DETERMINISM_SEED)
        record = [copy.deepcopy(result.observation)]
        for _ in range(self.determinism_steps):
            try:
                action = self.sample(space)
            except Exception as exc:
                raise _SampleFailure(exc) from exc
            step = self.env.step(action)
            record.append(
                copy.deepcopy((step.observation, step.reward, step.terminated, step.truncated))
            )
            if _flag_is_true(step.terminated) or _flag_is_true(step.truncated):
                break
        return record

    async def check_async(self) -> None:
        env = self.env
        try:
            result = await env.async_reset(seed=7)
        except Exception as exc:
            self.error(f"async_reset() raised {_describe(exc)}")
            return
        if not self.async_result_ok(result, _RESET_FIELDS, "async_reset()"):
            return
        try:
            action = self.sample(self.action_space)
        except Exception as exc:
            if self.mask_failure_is_new(exc):
                sampler = _MASKED_SAMPLE if self.masked else "action_space.sample()"
                self.error(f"{sampler} after async_reset() raised {_describe(exc)}")
            return
        try:
            step = await env.async_step(action)
        except Exception as exc:
            self.error(f"async_step() raised {_describe(exc)}")
            return
        self.async_result_ok(step, _STEP_FIELDS, "async_step()")

    def async_result_ok(self, result: Any, fields: tuple[str, ...], call: str) -> bool:
        if self.malformed(result, fields, call):
            return False
        if not isinstance(result.info, dict):
            self.error(
                f"{call} returned info of type {type(result.info).__name__}; info must be a dict."
            )
        for _, message in self.obs_problems(result.observation, call):
            self.warning(message)
        return True


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _check_n_steps(n_steps: object) -> int:
    """``n_steps`` as an int (``check_int``: ``3.0`` counts as 3), ``ValueError`` if < 1."""
    steps = check_int(n_steps, "check_env n_steps")
    if steps < 1:
        raise ValueError(f"check_env n_steps must be a positive int, got {steps}.")
    return steps


def check_env(
    env: Env[Any, Any],
    *,
    n_steps: int = 100,
    warn_on_anomaly: bool = True,
    check_obs_space: bool = True,
    check_action_space: bool = True,
    check_reset_seed: bool = True,
    check_determinism: bool = False,
    check_async: bool = True,
    check_learnability: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[str]:
    """Validate that ``env`` correctly implements the sekai ``Env`` API.

    Returns issue strings prefixed ``"ERROR: "`` or ``"WARNING: "``; ``[]`` means every check
    passed. Exceptions from the env are reported, not raised. The env is reset and stepped, so
    pass a fresh one. The async check is skipped inside a running event loop.

    ``check_learnability`` adds warnings where the env keeps the contract but traps a learner
    with the usual defaults (``sekai.testing.learnability``): a bounded float ``Box`` action
    space other than ``[-1, 1]``, and rewards of the random rollout whose root mean square is
    outside ``[0.01, 100]``. They come after the rollout's grouped warnings and, like every
    warning, only with ``warn_on_anomaly``.

    ``progress``, if given, is called as ``progress(done, total)``: after each env step of the
    random rollout, at its end and at the end of the determinism check, with ``done`` of the
    ``total`` env steps those take at most (a rollout cut short jumps to its end).

    ``n_steps`` must be a positive int (``TypeError`` for another type, bools included;
    ``ValueError`` below 1), the flags bools and ``progress`` callable or None (``TypeError``);
    these raise.
    """
    n_steps = _check_n_steps(n_steps)
    for name, flag in (
        ("warn_on_anomaly", warn_on_anomaly),
        ("check_obs_space", check_obs_space),
        ("check_action_space", check_action_space),
        ("check_reset_seed", check_reset_seed),
        ("check_determinism", check_determinism),
        ("check_async", check_async),
        ("check_learnability", check_learnability),
    ):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"check_env {name} must be a bool, got {type(flag).__name__} {flag!r}.")
    if progress is not None and not callable(progress):
        raise TypeError(
            f"check_env progress must be callable or None, got {type(progress).__name__}."
        )
    checker = _Checker(
        env,
        n_steps=n_steps,
        warn=warn_on_anomaly,
        check_obs_space=check_obs_space,
        check_action_space=check_action_space,
        determinism=bool(check_determinism),
        learnability=bool(check_learnability),
        progress=progress,
    )
    if not checker.check_spaces():
        return checker.issues
    checker.check_samples()
    proceed = checker.rollout()
    if proceed and check_reset_seed:
        checker.check_reset_seed()
    checker.flush_groups()
    if check_learnability:
        checker.check_learnability()
    if not proceed:
        return checker.issues
    if check_determinism:
        checker.check_determinism()
    if check_async and not _loop_running():
        # A private loop: asyncio.run() would replace (then unset) the caller's current loop.
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(checker.check_async())
        finally:
            loop.close()
    return checker.issues
