"""The ``VecEnv`` base class and the helpers shared by its backends.

Kept path: ``merge_autoreset`` (in ``sekai.core.result``) also imports from here.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai._types import ActType, ObsType, SeedType
from sekai.core.closing import Closing
from sekai.core.env import install_async_fallbacks
from sekai.core.options import check_options_type
from sekai.core.result import ResetResult, StepResult
from sekai.core.result import merge_autoreset as merge_autoreset
from sekai.error import ResetRequired, VecEnvClosed
from sekai.spaces.box import Box
from sekai.spaces.space import Space
from sekai.spaces.utils import batch_space, concatenate, iterate
from sekai.utils.seeding import check_seed, make_seed_sequence
from sekai.vector._partial import check_env_ids, join_results, take_rows
from sekai.vector.partial_reset import PARTIAL_RESET_FIRST
from sekai.vector.result import VecResetResult, VecStepResult, all_ids

if TYPE_CHECKING:
    from sekai.core.spec import EnvSpec

__all__ = ["VecEnv"]

GENERATOR_SEED_ERROR = (
    "A vector env's reset() takes an int or a list of num_envs seeds as seed, not a numpy "
    "Generator: one generator cannot seed num_envs sub-envs independently."
)
"""Message of the ``TypeError`` raised when ``reset()`` is given a Generator as seed."""

_STACK_ARRAYS = concatenate.dispatch(Box)
_ITERATE_DEFAULT = iterate.dispatch(Space)


_VECTOR_SEED = "an int, a list of num_envs seeds or None"


def check_vector_seed(seed: object) -> int:
    """The int a vector ``reset(seed=...)`` takes as one seed (not None) for all sub-envs.

    Checked as ``Env.reset`` checks a seed (``check_seed``: ints >= 0, numpy ints and whole
    floats too, no bools). A Generator, a bool, a float with a fraction or another type
    raises ``TypeError``; a negative number or a string ``ValueError``.
    """
    if isinstance(seed, np.random.Generator):
        raise TypeError(GENERATOR_SEED_ERROR)
    if isinstance(seed, str):
        raise ValueError(f"seed must be {_VECTOR_SEED}, got the string {seed!r}.")
    checked = check_seed(seed, _VECTOR_SEED)
    if not isinstance(checked, int):
        raise TypeError("check_vector_seed() takes a seed other than None.")
    return checked


def resolve_seeds(seed: Any, num_envs: int) -> list[Any]:
    """One seed per sub-env from a vector ``reset(seed=...)`` argument, all checked first.

    None gives None to every sub-env. A list must have ``num_envs`` entries (``ValueError``),
    each checked as ``Env.reset`` checks its seed (None, a Generator or an int >= 0). Anything
    else must pass ``check_vector_seed`` and is expanded with ``make_seed_sequence``.
    """
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, list):
        if len(seed) != num_envs:
            raise ValueError(
                f"seed must be an int or a list of num_envs={num_envs} seeds, "
                f"got a list of {len(seed)}."
            )
        return [check_seed(entry) for entry in seed]
    return make_seed_sequence(check_vector_seed(seed), num_envs)


def resolve_options(options: Any, num_envs: int) -> list[Any]:
    """One options value per sub-env: a list is checked for length, anything else is shared.

    Every value must be a mapping or None (``TypeError``), checked before any sub-env resets.
    """
    if isinstance(options, list):
        if len(options) != num_envs:
            raise ValueError(
                f"options must be one dict or a list of num_envs={num_envs} dicts, "
                f"got a list of {len(options)}."
            )
        for entry in options:
            check_options_type(entry)
        return options
    check_options_type(options)
    return [options] * num_envs


def split_actions(space: Space[Any], actions: Any, num_envs: int, what: str = "") -> list[Any]:
    """Split a batch of actions into one action per sub-env with ``iterate``.

    ``what`` names the expected count, ``num_envs={num_envs}`` by default.
    """
    what = what or f"num_envs={num_envs}"
    try:
        items = list(iterate(space, actions))
    except TypeError as e:
        raise TypeError(f"actions must be a batch of {what} actions, got {actions!r}.") from e
    if len(items) != num_envs:
        raise ValueError(f"actions must hold {what} actions, got {len(items)}: {actions!r}.")
    return items


def in_flight_error(owner: str, call: str, count: int) -> RuntimeError:
    """The error for ``call`` on a vector env with ``count`` sub-envs in flight."""
    return RuntimeError(
        f"{owner}.{call}(): {count} sub-env(s) have a step in flight; recv() their results "
        "first (until in_flight is empty), or close()."
    )


def per_env_values(name: str, values: Any, num_envs: int) -> list[Any]:
    """``set_attr`` values: a list is checked to hold ``num_envs`` entries, anything else shared."""
    if isinstance(values, list):
        if len(values) != num_envs:
            raise ValueError(
                f"set_attr({name!r}, values): a list of values must hold num_envs={num_envs} "
                f"entries, got {len(values)}."
            )
        return values
    return [values] * num_envs


def env_get_attr(env: Any, name: str) -> Any:
    """``env.get_attr(name)`` when the env has it (searching its wrapper stack), else getattr."""
    getter = getattr(env, "get_attr", None)
    return getter(name) if callable(getter) else getattr(env, name)


def env_set_attr(env: Any, name: str, value: Any) -> None:
    """``env.set_attr(name, value)`` when the env has it, else setattr."""
    setter = getattr(env, "set_attr", None)
    if callable(setter):
        setter(name, value)
    else:
        setattr(env, name, value)


def env_call(env: Any, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """Call method ``name`` of ``env``, or return the attribute if it is not callable."""
    member = env_get_attr(env, name)
    return member(*args, **kwargs) if callable(member) else member


def check_built_env(env: Any, index: int) -> Any:
    """Return ``env``; ``TypeError`` unless ``env_fns[index]`` built an environment."""
    if not (
        callable(getattr(env, "step", None))
        and callable(getattr(env, "reset", None))
        and isinstance(getattr(env, "observation_space", None), Space)
        and isinstance(getattr(env, "action_space", None), Space)
    ):
        raise TypeError(
            f"env_fns[{index}] returned {env!r} ({type(env).__name__}), not an environment: "
            "expected an object with step(), reset() and sekai observation_space and "
            "action_space, such as a sekai.Env."
        )
    return env


def build_envs(env_fns: Iterable[Callable[[], Any]], first: int = 0) -> list[Any]:
    """Call each factory and check what it built; if one fails, close the envs already built
    and re-raise. ``first`` is the index of the first factory in the whole ``env_fns``."""
    envs: list[Any] = []
    try:
        for index, env_fn in enumerate(env_fns, first):
            envs.append(check_built_env(env_fn(), index))
    except BaseException:
        for env in envs:
            with contextlib.suppress(Exception):
                env.close()
        raise
    return envs


def close_envs(envs: Iterable[Any]) -> None:
    """Close every env, then raise the first error any of them raised."""
    first: Exception | None = None
    for env in envs:
        try:
            env.close()
        except Exception as e:
            if first is None:
                first = e
    if first is not None:
        raise first


def needs_autoreset(result: StepResult[Any]) -> bool:
    """Whether a sub-env's step ended its episode without resetting itself."""
    return bool(result.terminated or result.truncated) and "final_observation" not in result.info


def frozen_step(final: StepResult[Any]) -> StepResult[Any]:
    """What a frozen sub-env reports: its final observation and flags, reward 0, empty info."""
    return StepResult(final.observation, 0.0, final.terminated, final.truncated, {})


class VecEnv(Closing, abc.ABC, Generic[ObsType, ActType]):
    """``num_envs`` copies of an environment stepped as one batch.

    ``observation_space`` and ``action_space`` are the single-env spaces; the batched ones are
    ``batch_observation_space`` and ``batch_action_space``. The type parameters are the batch
    types: ``ObsType`` of the observations ``reset()`` and ``step()`` return, ``ActType`` of
    the actions ``step()`` takes.
    """

    num_envs: int
    observation_space: Space[Any]
    action_space: Space[Any]
    autoreset: bool = True
    closed: bool = False
    spec: EnvSpec | None = None
    _batch_cache: dict[str, tuple[Space[Any], Space[Any]]] | None = None
    _stack_cache: tuple[Space[Any], bool] | None = None
    _split_cache: tuple[Space[Any], bool] | None = None
    _sent: list[VecStepResult[Any]] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        install_async_fallbacks(cls)

    @abc.abstractmethod
    def step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Step every sub-env with its action from the batch ``actions``."""

    @abc.abstractmethod
    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Reset every sub-env (seed: int, list of num_envs seeds or None).

        ``options={"reset_mask": mask}`` resets only the sub-envs where the bool array
        ``mask`` (shape ``(num_envs,)``) is True: see ``sekai.vector.partial_reset``.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Close every sub-env; idempotent."""

    async def async_step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Async ``step``; runs the sync method unless overridden."""
        return self.step(actions)

    @property
    def batch_size(self) -> int:
        """The fewest rows ``recv()`` waits for while that many are in flight: ``num_envs``
        here, where ``recv()`` returns every row sent."""
        return self.num_envs

    @property
    def in_flight(self) -> NDArray[np.intp]:
        """The sub-envs sent a step whose result ``recv()`` has not returned yet, ascending."""
        sent = self._sent
        if not sent:
            return np.zeros(0, dtype=np.intp)
        return np.sort(np.concatenate([part.env_ids for part in sent]))

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Start a step of sub-envs ``env_ids`` (all when None; see ``check_env_ids``), row
        ``k`` of ``actions`` for ``env_ids[k]``; ``recv()`` returns the results.

        Here the step runs within ``send`` and ``recv()`` returns every row sent since the
        last ``recv()``. A sub-env whose step is in flight raises ``RuntimeError``. The base
        class steps all sub-envs at once, so ``env_ids`` must name all of them (in any order).
        """
        self._check_open()
        ids = check_env_ids(env_ids, self.num_envs)
        sent = self._sent or []
        if sent:
            busy = np.intersect1d(ids, np.concatenate([part.env_ids for part in sent]))
            if busy.size:
                raise RuntimeError(
                    f"{type(self).__name__}.send(): sub-envs {busy.tolist()} already have a step "
                    "in flight; recv() its result first."
                )
        result = self._step_subset(ids, actions)
        self._sent = [*sent, result]

    def recv(self) -> VecStepResult[ObsType]:
        """The results of every step sent since the last ``recv()``, in sub-env order
        (``env_ids``); ``RuntimeError`` when none is in flight."""
        self._check_open()
        parts = self._sent
        if not parts:
            raise RuntimeError(
                f"{type(self).__name__}.recv(): no step in flight; send() actions first."
            )
        self._sent = None
        return join_results(self.observation_space, parts)

    def _step_subset(self, ids: NDArray[np.intp], actions: Any) -> VecStepResult[ObsType]:
        """Step sub-envs ``ids``, ``actions`` holding one row for each: here all of them at
        once with ``step()`` (``ValueError`` for fewer)."""
        if ids.size != self.num_envs:
            raise ValueError(
                f"{type(self).__name__} steps all of its sub-envs at once: send() takes "
                f"env_ids=None or all {self.num_envs} sub-env ids, got {ids.tolist()}."
            )
        if (ids[1:] < ids[:-1]).any():
            actions = take_rows(self.action_space, actions, np.argsort(ids))
        return self.step(actions)

    def _check_idle(self, call: str) -> None:
        """``RuntimeError`` if steps are in flight (only ``send``, ``recv`` and ``close`` may
        run then)."""
        sent = self._sent
        if sent:
            raise in_flight_error(type(self).__name__, call, sum(len(p.env_ids) for p in sent))

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Async ``reset``; runs the sync method unless overridden."""
        return self.reset(seed=seed, options=options)

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` on every sub-env (non-callable attributes are returned)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement call().")

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of every sub-env."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get_attr().")

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` on every sub-env (a list gives one value per sub-env)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement set_attr().")

    def _batched(self, key: str, single: Space[Any]) -> Space[Any]:
        cache = self._batch_cache
        if cache is None:
            cache = self._batch_cache = {}
        entry = cache.get(key)
        if entry is None or entry[0] is not single:
            entry = cache[key] = (single, batch_space(single, self.num_envs))
        return entry[1]

    @property
    def batch_observation_space(self) -> Space[Any]:
        """``batch_space(observation_space, num_envs)``, memoised per single-env space."""
        return self._batched("observation", self.observation_space)

    @property
    def batch_action_space(self) -> Space[Any]:
        """``batch_space(action_space, num_envs)``, memoised per single-env space."""
        return self._batched("action", self.action_space)

    @property
    def single_observation_space(self) -> Space[Any]:
        """``observation_space``, under gymnasium's name: a sekai ``observation_space`` is
        already the single-env space (gymnasium's batched one is ``batch_observation_space``)."""
        return self.observation_space

    @property
    def single_action_space(self) -> Space[Any]:
        """``action_space``, under gymnasium's name: a sekai ``action_space`` is already the
        single-env space (gymnasium's batched one is ``batch_action_space``)."""
        return self.action_space

    @property
    def unwrapped(self) -> VecEnv[Any, Any]:
        """The innermost VecEnv (itself)."""
        return self

    def _check_open(self) -> None:
        if self.closed:
            raise VecEnvClosed()

    def _batch_observations(self, items: list[Any]) -> Any:
        """Batch per-env observations with ``concatenate`` (one ``np.array`` for array spaces)."""
        space = self.observation_space
        cached = self._stack_cache
        if cached is None or cached[0] is not space:
            cached = self._stack_cache = (space, concatenate.dispatch(type(space)) is _STACK_ARRAYS)
        if cached[1]:
            return np.array(items)
        return concatenate(space, items)

    def _split_actions(self, actions: Any, count: int | None = None) -> list[Any]:
        """One action per sub-env (``split_actions``; arrays of plain spaces split directly);
        ``count`` actions when given (one per ``env_ids`` entry of a ``send``)."""
        space = self.action_space
        cached = self._split_cache
        if cached is None or cached[0] is not space:
            cached = self._split_cache = (
                space,
                iterate.dispatch(type(space)) is _ITERATE_DEFAULT,
            )
        what = f"num_envs={self.num_envs}" if count is None else f"one per env_id ({count})"
        count = self.num_envs if count is None else count
        if cached[1] and isinstance(actions, np.ndarray) and actions.ndim:
            if len(actions) != count:
                raise ValueError(
                    f"actions must hold {what} actions, got {len(actions)}: {actions!r}."
                )
            return list(actions)
        return split_actions(space, actions, count, what)

    def _batch_steps(
        self, results: Sequence[StepResult[Any]], env_ids: NDArray[np.intp] | None = None
    ) -> VecStepResult[ObsType]:
        """Batch per-env step results (of sub-envs ``env_ids``, all by default) into one
        ``VecStepResult``."""
        return VecStepResult(
            self._batch_observations([r.observation for r in results]),
            np.array([r.reward for r in results], dtype=np.float64),
            np.array([r.terminated for r in results], dtype=bool),
            np.array([r.truncated for r in results], dtype=bool),
            [r.info for r in results],
            all_ids(len(results)) if env_ids is None else env_ids,
        )

    def __len__(self) -> int:
        return self.num_envs

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_envs={self.num_envs})"


class InProcessVecEnv(VecEnv[Any, Any]):
    """A vector env whose sub-envs live in this process, in ``envs``."""

    envs: list[Any]
    _frozen: list[StepResult[Any] | None]
    _observed: list[Any] | None
    """Each sub-env's current observation, as it returned it; None before the first reset."""

    def _build(self, env_fns: Iterable[Callable[[], Any]], autoreset: bool) -> None:
        """Build the sub-envs (at least one) and take the spaces of the first."""
        fns = list(env_fns)
        if not fns:
            raise ValueError(f"{type(self).__name__} needs at least one env factory in env_fns.")
        self.envs = build_envs(fns)
        self.num_envs = len(self.envs)
        self.autoreset = bool(autoreset)
        self.observation_space = self.envs[0].observation_space
        self.action_space = self.envs[0].action_space
        self._frozen = [None] * self.num_envs
        self._observed = None

    def _partial_requests(
        self, mask: NDArray[np.bool_], seed: Any, options: Any
    ) -> tuple[list[int], list[Any]]:
        """The sub-envs a masked reset resets and their seeds (as a full reset gives them)."""
        if self._observed is None:
            raise ResetRequired(PARTIAL_RESET_FIRST)
        seeds = resolve_seeds(seed, self.num_envs)
        check_options_type(options)
        indices = np.flatnonzero(mask).tolist()
        return indices, [seeds[i] for i in indices]

    def _keep_observed(self, env_ids: NDArray[np.intp] | None, observations: list[Any]) -> None:
        """Keep the observations a step returned, of sub-envs ``env_ids`` (None: all)."""
        if env_ids is None:
            self._observed = observations
        elif self._observed is not None:
            for i, obs in zip(env_ids.tolist(), observations, strict=True):
                self._observed[i] = obs

    def _partial_result(
        self, indices: list[int], results: Sequence[ResetResult[Any]]
    ) -> VecResetResult[Any]:
        """Unfreeze the reset sub-envs; their rows are ``results``, the others' unchanged."""
        observed = list(self._observed or ())
        infos: list[dict[str, Any]] = [{} for _ in observed]
        for i, result in zip(indices, results, strict=True):
            observed[i], infos[i] = result.observation, result.info
            self._frozen[i] = None
        self._observed = observed
        return VecResetResult(self._batch_observations(observed), infos)

    def get_attr(self, name: str) -> list[Any]:
        """Attribute ``name`` of every sub-env, looked up through its wrapper stack."""
        self._check_idle("get_attr")
        return [env_get_attr(env, name) for env in self.envs]

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name`` on every sub-env: one value for all or a list of ``num_envs`` values."""
        self._check_idle("set_attr")
        for env, value in zip(self.envs, per_env_values(name, values, self.num_envs), strict=True):
            env_set_attr(env, name, value)

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` on every sub-env (non-callable attributes are returned)."""
        self._check_idle("call")
        return [env_call(env, name, args, kwargs) for env in self.envs]
