"""The environment registry: registering specs, and building environments and renderers.

Everything that turns an ``EnvSpec`` into objects lives here: entry point loading, ``make``,
``make_vec``, ``renderer_for`` and the check on entry points read from data. Importing this
module installs ``make`` as what ``EnvSpec.make`` calls.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import re
import reprlib
from collections.abc import Callable, Iterable
from typing import Any

from sekai.core.env import Env
from sekai.core.gymnasium_names import RENDERING_HINT
from sekai.core.spec import (
    DataEntryPoint,
    EnvSpec,
    PerSubEnv,
    WrapperSpec,
    _check_steps,
    set_builder,
)
from sekai.error import EnvAlreadyRegistered, EnvNotFound
from sekai.registry._suggest import close_ids
from sekai.rendering import Renderer
from sekai.utils.validation import check_int
from sekai.vector import AsyncVecEnv, ProcVecEnv, RayVecEnv, SyncVecEnv, VecEnv
from sekai.wrappers.common import TimeLimit

__all__ = [
    "EnvRegistry",
    "all_specs",
    "default_registry",
    "deregister",
    "load_entry_point",
    "make",
    "make_vec",
    "pprint_registry",
    "register",
    "register_namespace",
    "renderer_for",
    "spec",
]

_NAMESPACE_RE = re.compile(r"[a-zA-Z0-9_-]+")
_OWN_ENTRY_POINTS = ("entry_point", "vector_entry_point", "renderer")


def _check_id(id: object) -> str:
    if not isinstance(id, str):
        raise TypeError(f"Environment id must be a str, got {type(id).__name__} {id!r}.")
    return id


def load_entry_point(entry_point: str) -> Any:
    """Import ``"module.path:Attr"`` (split at the last colon; ``Attr`` may be dotted)."""
    module_name, colon, attr = entry_point.rpartition(":")
    if not colon or not module_name or not attr:
        raise ValueError(f"Entry point {entry_point!r} must have the form 'module.path:Attr'.")
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AttributeError(
                f"Entry point {entry_point!r}: {module_name!r} has no attribute {attr!r}."
            ) from None
    return target


def _entry_point_name(entry_point: object) -> str:
    """``'module:Attr'`` for a string, ``module.QualName`` for a callable."""
    if isinstance(entry_point, str):
        return repr(str(entry_point))
    qualname = getattr(entry_point, "__qualname__", None)
    module = getattr(entry_point, "__module__", None)
    return f"{module}.{qualname}" if qualname and module else repr(entry_point)


def _check_built(result: object, kind: type, what: str) -> None:
    """``TypeError`` naming ``what`` (an entry point) unless ``result`` is a ``kind``."""
    if not isinstance(result, kind):
        raise TypeError(
            f"{what} returned {type(result).__name__} {reprlib.repr(result)}, "
            f"not a sekai.{kind.__name__}."
        )


def _resolve(entry_point: object, what: str) -> Callable[..., Any]:
    """The callable an entry point (a ``"module.path:Attr"`` string or a callable) names."""
    if isinstance(entry_point, str):
        target = load_entry_point(entry_point)
        if not callable(target):
            raise TypeError(f"{what} {entry_point!r} is not callable.")
        return target
    if callable(entry_point):
        return entry_point
    raise TypeError(
        f"{what} must be a 'module.path:Attr' string or a callable, "
        f"got {type(entry_point).__name__} {entry_point!r}."
    )


_NO_RENDER_MODE = "unexpected keyword argument 'render_mode'"


def _render_mode_error(call: str, id: str, render_mode: object) -> TypeError:
    return TypeError(
        f"{call}({id!r}, render_mode={render_mode!r}): sekai envs have no render_mode; "
        f"{RENDERING_HINT}"
    )


def _takes_render_mode(creator: Callable[..., Any]) -> bool:
    """False when ``creator``'s signature has neither a ``render_mode`` keyword nor ``**kwargs``."""
    try:
        parameters = inspect.signature(creator).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(
        p.kind is p.VAR_KEYWORD or (p.name == "render_mode" and p.kind is not p.POSITIONAL_ONLY)
        for p in parameters
    )


def _create(build: Callable[[], Any], kwargs: dict[str, Any], call: str, id: str) -> Any:
    """``build()``, which passes ``kwargs`` on; a ``render_mode`` among them that is refused
    raises a ``TypeError`` saying how sekai envs are drawn."""
    try:
        return build()
    except TypeError as exc:
        if "render_mode" in kwargs and _NO_RENDER_MODE in str(exc):
            raise _render_mode_error(call, id, kwargs["render_mode"]) from exc
        raise


def _make_from_spec(
    spec: EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any
) -> Env[Any, Any]:
    """Build, time-limit and wrap an environment as ``spec`` describes."""
    if spec.entry_point is None:
        raise EnvNotFound(spec.id)
    override = _check_steps(max_episode_steps, "max_episode_steps", allow_unset=True)
    steps = spec.max_episode_steps if override is None else (None if override == -1 else override)
    merged = {**spec.kwargs, **kwargs}
    used = dataclasses.replace(spec, kwargs=merged, max_episode_steps=steps)
    creator = _resolve(spec.entry_point, f"Entry point of {spec.id!r}")
    env = _create(lambda: creator(**merged), merged, "make", spec.id)
    _check_built(env, Env, f"Entry point {_entry_point_name(spec.entry_point)} of {spec.id!r}")
    env.spec = used
    if steps is not None:
        env = TimeLimit(env, max_episode_steps=steps)
    for wrapper in spec.additional_wrappers:
        wrapped = _resolve(wrapper.entry_point, f"Wrapper {wrapper.name!r} entry point")(
            env, **wrapper.kwargs
        )
        _check_built(
            wrapped,
            Env,
            f"Wrapper {wrapper.name!r} entry point {_entry_point_name(wrapper.entry_point)}",
        )
        env = wrapped
    return env


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
        renderer: str | Callable[..., Any] | None = None,
    ) -> EnvSpec:
        """Add an environment; entry points are only resolved by ``make()`` (and
        ``renderer_for()`` for the renderer)."""
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
            renderer=renderer,
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

    def renderer_for(
        self, env_or_id: str | EnvSpec | Env[Any, Any] | VecEnv[Any, Any], **kwargs: Any
    ) -> Renderer:
        """A new renderer for an env id, a spec or an env built by ``make`` / ``make_vec``.

        Calls the spec's ``renderer`` (an env's spec is ``env.spec``) with ``kwargs``, the
        renderer's own options such as ``width`` and ``height``. ``ValueError`` when the spec
        has no renderer or the env has no spec; ``TypeError`` for anything else.
        """
        if isinstance(env_or_id, str):
            found = self.spec(env_or_id)
        elif isinstance(env_or_id, EnvSpec):
            self._check_data_entry_points(env_or_id)
            found = env_or_id
        elif not hasattr(env_or_id, "spec"):
            raise TypeError(
                "renderer_for() takes an env id, an EnvSpec or an env, "
                f"got {type(env_or_id).__name__} {reprlib.repr(env_or_id)}."
            )
        elif isinstance(env_or_id.spec, EnvSpec):
            self._check_data_entry_points(env_or_id.spec)
            found = env_or_id.spec
        else:
            raise ValueError(
                f"{env_or_id} has no spec, so its renderer is unknown: pass its env id, build "
                "it with sekai.make() / sekai.make_vec(), or construct a renderer directly."
            )
        if found.renderer is None:
            raise ValueError(
                f"{found.id!r} has no renderer: register it with renderer='module.path:Attr' "
                "(or a callable), or construct a renderer directly."
            )
        factory = _resolve(found.renderer, f"Renderer of {found.id!r}")
        renderer = factory(**kwargs)
        # An Env matches the Renderer protocol by its render attribute, which only raises.
        if not isinstance(renderer, Renderer) or isinstance(renderer, Env):
            raise TypeError(
                f"Renderer {_entry_point_name(found.renderer)} of {found.id!r} returned "
                f"{type(renderer).__name__} {reprlib.repr(renderer)}, which lacks render(env) "
                "or close() (see sekai.rendering.Renderer)."
            )
        return renderer

    def _check_data_entry_points(self, spec: EnvSpec) -> None:
        """``ValueError`` unless each entry point ``spec`` read from data is registered here.

        Entry points from ``EnvSpec.from_json`` (``DataEntryPoint``) must equal the one
        registered for ``spec.id`` (``entry_point``, ``vector_entry_point``, ``renderer``) or,
        for ``additional_wrappers``, the entry point of a wrapper of any registered spec.
        Entry points set in code are not checked.
        """
        points: list[tuple[str, object]] = [(key, getattr(spec, key)) for key in _OWN_ENTRY_POINTS]
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
            if what in _OWN_ENTRY_POINTS:
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
        return close_ids(id, self._specs)

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


_VECTORIZATION_MODES = ["native", "sync", "async", "proc", "ray"]


def _per_sub_env(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with each ``PerSubEnv`` value replaced by its copy for one new sub-env."""
    return {
        key: value.__copy_for_sub_env__() if isinstance(value, PerSubEnv) else value
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
            found, max_episode_steps=-1 if steps is None else steps, **_per_sub_env(kwargs)
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
    name from ``make()``d sub-envs, each wrapped by ``wrappers`` in order; each sub-env gets
    its own copy of every ``PerSubEnv`` keyword argument (such as a stateful episode sampler).
    ``"ray"`` builds a ``RayVecEnv``: where native would apply, each worker runs the native
    vector env of its slice (``RayVecEnv.from_native``), else a group of such sub-envs.
    None picks native when the entry has one and no per-sub-env wrappers apply, else sync.
    ``vector_kwargs`` go to the VecEnv constructor, other keyword arguments
    (``max_episode_steps`` included) to the env. The result's ``spec`` records the merged
    kwargs and time limit.
    """
    if isinstance(id, EnvSpec):
        default_registry._check_data_entry_points(id)
        found = id
    else:
        found = default_registry.spec(_check_id(id))
    num_envs = check_int(num_envs, "make_vec: num_envs", low=1)
    override = _check_steps(
        env_kwargs.pop("max_episode_steps", None), "max_episode_steps", allow_unset=True
    )
    steps = found.max_episode_steps if override is None else (None if override == -1 else override)
    wrapper_fns = tuple(wrappers)
    mode = "native" if vectorization_mode == "vector_entry_point" else vectorization_mode
    native = found.vector_entry_point is not None
    native_applies = native and not wrapper_fns and not found.additional_wrappers
    if mode is None:
        mode = "native" if native_applies else "sync"
    if mode not in _VECTORIZATION_MODES:
        raise ValueError(
            f"vectorization_mode must be one of {_VECTORIZATION_MODES} (or None), "
            f"got {vectorization_mode!r}."
        )
    merged = {**found.kwargs, **env_kwargs}
    extra = dict(vector_kwargs or {})
    vec: Any
    if mode == "ray" and native_applies:
        factory = _resolve(found.vector_entry_point, f"Vector entry point of {found.id!r}")
        limit = {} if steps is None else {"max_episode_steps": steps}
        make_slice = functools.partial(factory, **merged, **limit)
        vec = RayVecEnv.from_native(make_slice, num_envs, **extra)
    elif mode == "native":
        if found.vector_entry_point is None:
            raise ValueError(
                f"{found.id!r} has no native vector implementation (no vector_entry_point); "
                "use vectorization_mode='sync', 'async', 'proc' or 'ray'."
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
        vec = _create(
            lambda: factory(num_envs=num_envs, **merged, **limit, **extra),
            merged,
            "make_vec",
            found.id,
        )
        _check_built(
            vec,
            VecEnv,
            f"Vector entry point {_entry_point_name(found.vector_entry_point)} of {found.id!r}",
        )
    else:
        if "render_mode" in merged and found.entry_point is not None:
            creator = _resolve(found.entry_point, f"Entry point of {found.id!r}")
            if not _takes_render_mode(creator):  # refused here, before any sub-env is built
                raise _render_mode_error("make_vec", found.id, merged["render_mode"])
        env_fns = [_sub_env_factory(found, merged, steps, wrapper_fns)] * num_envs
        backends = {"sync": SyncVecEnv, "async": AsyncVecEnv, "proc": ProcVecEnv, "ray": RayVecEnv}
        vec = backends[mode](env_fns, **extra)
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


def renderer_for(
    env_or_id: str | EnvSpec | Env[Any, Any] | VecEnv[Any, Any], **kwargs: Any
) -> Renderer:
    """A new renderer for a registered env id, a spec or an env (see
    ``EnvRegistry.renderer_for``)."""
    return default_registry.renderer_for(env_or_id, **kwargs)


set_builder(make)
