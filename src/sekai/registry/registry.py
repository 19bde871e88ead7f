"""The environment registry and the module-level functions that use the default one."""

from __future__ import annotations

import dataclasses
import difflib
import numbers
import re
from collections.abc import Callable, Iterable
from typing import Any

from sekai.core.env import Env
from sekai.error import EnvAlreadyRegistered, EnvNotFound
from sekai.registry.spec import (
    DataEntryPoint,
    EnvSpec,
    WrapperSpec,
    _check_built,
    _check_steps,
    _entry_point_name,
    _make_from_spec,
    _resolve,
)
from sekai.vector import AsyncVecEnv, ProcVecEnv, SyncVecEnv, VecEnv

__all__ = [
    "EnvRegistry",
    "all_specs",
    "default_registry",
    "deregister",
    "make",
    "make_vec",
    "pprint_registry",
    "register",
    "register_namespace",
    "spec",
]

_NAMESPACE_RE = re.compile(r"[a-zA-Z0-9_-]+")


def _check_id(id: object) -> str:
    if not isinstance(id, str):
        raise TypeError(f"Environment id must be a str, got {type(id).__name__} {id!r}.")
    return id


class EnvRegistry:
    """Maps environment ids to ``EnvSpec``s; namespaces may be loaded lazily."""

    def __init__(self) -> None:
        self._specs: dict[str, EnvSpec] = {}
        self._loaders: dict[str, Callable[[], Any]] = {}

    def register(
        self,
        id: str,
        entry_point: str | Callable[..., Env[Any, Any]] | None,
        *,
        reward_threshold: float | None = None,
        nondeterministic: bool = False,
        max_episode_steps: int | None = None,
        kwargs: dict[str, Any] | None = None,
        additional_wrappers: tuple[WrapperSpec, ...] = (),
        vector_entry_point: str | Callable[..., Any] | None = None,
    ) -> EnvSpec:
        """Add an environment; the entry point is only resolved by ``make()``."""
        if _check_id(id) in self._specs:
            raise EnvAlreadyRegistered(id)
        new = EnvSpec(
            id=id,
            entry_point=entry_point,
            reward_threshold=reward_threshold,
            nondeterministic=nondeterministic,
            max_episode_steps=max_episode_steps,
            kwargs={} if kwargs is None else kwargs,
            additional_wrappers=additional_wrappers,
            vector_entry_point=vector_entry_point,
        )
        self._specs[id] = new
        return new

    def deregister(self, id: str) -> None:
        """Remove an environment; ``EnvNotFound`` if it is not registered."""
        if _check_id(id) not in self._specs:
            raise EnvNotFound(id, self._suggestions(id))
        del self._specs[id]

    def register_namespace(self, namespace: str, loader: Callable[[], Any]) -> None:
        """Have ``loader`` register ``namespace``'s ids when one is first looked up.

        The loader is dropped once it returns; one that raises is tried again next time.
        """
        if not isinstance(namespace, str):
            raise TypeError(f"namespace must be a str, got {type(namespace).__name__}.")
        if not _NAMESPACE_RE.fullmatch(namespace):
            raise ValueError(
                f"namespace must be letters, digits, '_' and '-' only, got {namespace!r}."
            )
        if not callable(loader):
            raise TypeError(f"loader must be callable, got {type(loader).__name__}.")
        self._loaders[namespace] = loader

    def spec(self, id: str) -> EnvSpec:
        """The spec registered as ``id``; ``EnvNotFound`` (with suggestions) if none."""
        if _check_id(id) not in self._specs and "/" in id:
            namespace = id.split("/", 1)[0]
            loader = self._loaders.get(namespace)
            if loader is not None:
                loader()
                if self._loaders.get(namespace) is loader:
                    del self._loaders[namespace]
        try:
            return self._specs[id]
        except KeyError:
            raise EnvNotFound(id, self._suggestions(id)) from None

    def make(
        self, id: str | EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any
    ) -> Env[Any, Any]:
        """Build the environment ``id`` names (or the given spec describes).

        ``max_episode_steps``: None uses the spec's limit, -1 removes it. Other keyword
        arguments override the spec's ``kwargs``.
        """
        if isinstance(id, EnvSpec):
            self._check_data_entry_points(id)
            found = id
        else:
            found = self.spec(_check_id(id))
        return _make_from_spec(found, max_episode_steps=max_episode_steps, **kwargs)

    def _check_data_entry_points(self, spec: EnvSpec) -> None:
        """``ValueError`` unless each entry point ``spec`` read from data is registered here.

        Entry points from ``EnvSpec.from_json`` (``DataEntryPoint``) must equal the one
        registered for ``spec.id`` (``entry_point``, ``vector_entry_point``) or, for
        ``additional_wrappers``, the entry point of a wrapper of any registered spec.
        Entry points set in code are not checked.
        """
        points: list[tuple[str, object]] = [
            ("entry_point", spec.entry_point),
            ("vector_entry_point", spec.vector_entry_point),
        ]
        points += [
            (f"additional_wrappers[{i}] ({w.name!r}) entry point", w.entry_point)
            for i, w in enumerate(spec.additional_wrappers)
        ]
        from_data = [(what, point) for what, point in points if isinstance(point, DataEntryPoint)]
        if not from_data:
            return
        try:
            registered: EnvSpec | None = self.spec(spec.id)
        except EnvNotFound:
            registered = None
        wrapper_points = [
            w.entry_point for known in self._specs.values() for w in known.additional_wrappers
        ]
        refused = []
        for what, point in from_data:
            name = f"{what} {_entry_point_name(point)}"
            if what in ("entry_point", "vector_entry_point"):
                if registered is None:
                    refused.append(f"{name} ({spec.id!r} is not registered)")
                elif point != getattr(registered, what):
                    expected = getattr(registered, what)
                    shown = "none" if expected is None else _entry_point_name(expected)
                    refused.append(f"{name} (registered: {shown})")
            elif point not in wrapper_points:
                refused.append(f"{name} (no registered wrapper has it)")
        if refused:
            raise ValueError(
                f"EnvSpec {spec.id!r} was read from JSON with entry points that are not "
                f"registered: {'; '.join(refused)}. Importing a module path taken from data can "
                "run any code, so a spec read from JSON may only use entry points registered in "
                "code. Register the environment, or pass trust_entry_points=True to "
                "EnvSpec.from_json() if the JSON comes from a trusted source."
            )

    def all_specs(self) -> list[EnvSpec]:
        """Every registered spec, in registration order."""
        return list(self._specs.values())

    def pprint(self) -> str:
        """The registered ids grouped by namespace, both sorted."""
        groups: dict[str, list[str]] = {}
        for registered in self._specs.values():
            groups.setdefault(registered.namespace or "", []).append(registered.id)
        lines = ["Registered environments:"]
        for namespace in sorted(groups):
            lines.append(f"  [{namespace or 'no namespace'}]")
            lines.extend(f"    {id}" for id in sorted(groups[namespace]))
        return "\n".join(lines)

    def _suggestions(self, id: str) -> list[str]:
        return difflib.get_close_matches(id, list(self._specs), n=3, cutoff=0.6)

    def __contains__(self, id: object) -> bool:
        return isinstance(id, str) and id in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return f"EnvRegistry({len(self._specs)} environments)"


default_registry = EnvRegistry()
"""The registry behind ``sekai.register``, ``sekai.make`` and the other module functions."""


def register(id: str, entry_point: str | Callable[..., Env[Any, Any]], **kwargs: Any) -> EnvSpec:
    """Register an environment in the default registry (options as ``EnvRegistry.register``)."""
    return default_registry.register(id, entry_point, **kwargs)


def deregister(id: str) -> None:
    """Remove an environment from the default registry."""
    default_registry.deregister(id)


def make(
    id: str | EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any
) -> Env[Any, Any]:
    """Build a registered environment (see ``EnvRegistry.make``)."""
    return default_registry.make(id, max_episode_steps=max_episode_steps, **kwargs)


_VECTORIZATION_MODES = ["native", "sync", "async", "proc"]


def _spawn_samplers(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with every episode sampler replaced by its ``spawn()`` (per-sub-env copy)."""
    from sekai.finance.sampling import EpisodeSampler

    return {
        key: value.spawn() if isinstance(value, EpisodeSampler) else value
        for key, value in kwargs.items()
    }


def _sub_env_factory(
    found: EnvSpec,
    kwargs: dict[str, Any],
    steps: int | None,
    wrappers: tuple[Callable[[Env[Any, Any]], Env[Any, Any]], ...],
) -> Callable[[], Env[Any, Any]]:
    """A zero-argument callable building one wrapped sub-env, like ``make()``."""

    def env_fn() -> Env[Any, Any]:
        env = _make_from_spec(
            found, max_episode_steps=-1 if steps is None else steps, **_spawn_samplers(kwargs)
        )
        for wrapper in wrappers:
            env = wrapper(env)
        return env

    return env_fn


def make_vec(
    id: str | EnvSpec,
    num_envs: int = 1,
    *,
    vectorization_mode: str | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Iterable[Callable[[Env[Any, Any]], Env[Any, Any]]] = (),
    **env_kwargs: Any,
) -> VecEnv[Any, Any]:
    """Build a vector env of ``num_envs`` copies of a registered environment.

    ``vectorization_mode``: ``"native"`` (alias ``"vector_entry_point"``) uses the entry's
    ``vector_entry_point``; ``"sync"``, ``"async"`` and ``"proc"`` build the VecEnv of that
    name from ``make()``d sub-envs, each wrapped by ``wrappers`` in order. None picks native
    when the entry has one and no per-sub-env wrappers apply, else sync. ``vector_kwargs`` go
    to the VecEnv constructor, other keyword arguments (``max_episode_steps`` included) to the
    env. The result's ``spec`` records the merged kwargs and time limit.
    """
    if isinstance(id, EnvSpec):
        default_registry._check_data_entry_points(id)
        found = id
    else:
        found = default_registry.spec(_check_id(id))
    if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral):
        raise TypeError(f"num_envs must be an int, got {type(num_envs).__name__} {num_envs!r}.")
    if num_envs < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}.")
    num_envs = int(num_envs)
    override = _check_steps(
        env_kwargs.pop("max_episode_steps", None), "max_episode_steps", allow_unset=True
    )
    steps = found.max_episode_steps if override is None else (None if override == -1 else override)
    wrapper_fns = tuple(wrappers)
    mode = "native" if vectorization_mode == "vector_entry_point" else vectorization_mode
    if mode is None:
        native = found.vector_entry_point is not None
        mode = "native" if native and not wrapper_fns and not found.additional_wrappers else "sync"
    if mode not in _VECTORIZATION_MODES:
        raise ValueError(
            f"vectorization_mode must be one of {_VECTORIZATION_MODES} (or None), "
            f"got {vectorization_mode!r}."
        )
    merged = {**found.kwargs, **env_kwargs}
    extra = dict(vector_kwargs or {})
    vec: Any
    if mode == "native":
        if found.vector_entry_point is None:
            raise ValueError(
                f"{found.id!r} has no native vector implementation (no vector_entry_point); "
                "use vectorization_mode='sync', 'async' or 'proc'."
            )
        if wrapper_fns:
            raise ValueError(
                f"vectorization_mode='native' cannot apply per-sub-env wrappers to {found.id!r}: "
                "a native vector env has no sub-env objects; use vector wrappers instead."
            )
        if found.additional_wrappers:
            names = ", ".join(w.name for w in found.additional_wrappers)
            raise ValueError(
                f"vectorization_mode='native' cannot apply {found.id!r}'s "
                f"additional_wrappers ({names}); use vectorization_mode='sync'."
            )
        factory = _resolve(found.vector_entry_point, f"Vector entry point of {found.id!r}")
        limit = {} if steps is None else {"max_episode_steps": steps}
        vec = factory(num_envs=num_envs, **merged, **limit, **extra)
        _check_built(
            vec,
            VecEnv,
            f"Vector entry point {_entry_point_name(found.vector_entry_point)} of {found.id!r}",
        )
    else:
        env_fns = [_sub_env_factory(found, merged, steps, wrapper_fns)] * num_envs
        if mode == "sync":
            vec = SyncVecEnv(env_fns, **extra)
        elif mode == "async":
            vec = AsyncVecEnv(env_fns, **extra)
        else:
            vec = ProcVecEnv(env_fns, **extra)
    vec.spec = dataclasses.replace(found, kwargs=merged, max_episode_steps=steps)
    return vec


def spec(id: str) -> EnvSpec:
    """The spec registered as ``id``."""
    return default_registry.spec(id)


def all_specs() -> list[EnvSpec]:
    """Every registered spec, in registration order."""
    return default_registry.all_specs()


def register_namespace(namespace: str, loader: Callable[[], Any]) -> None:
    """Have ``loader`` register ``namespace``'s environments on first lookup."""
    default_registry.register_namespace(namespace, loader)


def pprint_registry() -> None:
    """Print the default registry's ``pprint()``."""
    print(default_registry.pprint())
