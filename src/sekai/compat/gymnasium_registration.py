"""Every sekai id in gymnasium's registry, so that ``gymnasium.make`` / ``make_vec`` build them.

An id without a namespace is registered as ``sekai/<id>`` (``gymnasium.make("sekai/CartPole-v1")``,
or ``gymnasium.make("sekai:sekai/CartPole-v1")`` in a process that has not imported sekai yet:
gymnasium imports the module named before the colon). A namespaced sekai id keeps its name.

``gymnasium.make`` builds ``to_gymnasium(sekai.make(id, max_episode_steps=-1, **kwargs))``
under gymnasium's own ``TimeLimit`` (the gymnasium spec carries sekai's ``max_episode_steps``);
``render_mode`` gives the env the renderer of ``sekai.renderer_for``. ``gymnasium.make_vec``
uses the spec's vector entry point, ``to_gymnasium_vector(sekai.make_vec(id, num_envs, ...))``,
so a sekai env with a native vector implementation keeps its speed; the keyword argument
``autoreset_mode="next_step"`` (or ``"disabled"``) picks gymnasium's other autoreset modes.

``import sekai`` registers the ids when gymnasium is already loaded, and otherwise arranges for
them to be registered right after gymnasium is first imported; it never imports gymnasium
itself.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from sekai.compat._install import install_hint
from sekai.registry.registry import all_specs, make, make_vec, renderer_for

__all__ = [
    "gymnasium_id",
    "make_gymnasium_env",
    "make_gymnasium_vector_env",
    "register_gymnasium",
    "register_when_gymnasium_loads",
]

_ENTRY = f"{__name__}:make_gymnasium_env"
_VECTOR_ENTRY = f"{__name__}:make_gymnasium_vector_env"


def gymnasium_id(sekai_id: str) -> str:
    """The gymnasium id of the sekai id ``sekai_id``: ``sekai/<id>`` unless it has a namespace."""
    return sekai_id if "/" in sekai_id else f"sekai/{sekai_id}"


def register_gymnasium() -> list[str]:
    """Register every sekai id not yet in gymnasium's registry; returns the new gymnasium ids.

    Safe to call again, e.g. after registering more sekai envs.
    """
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError as exc:
        raise ImportError(install_hint("gymnasium")) from exc
    added = []
    for spec in all_specs():
        gym_id = gymnasium_id(spec.id)
        if gym_id in registry:
            continue
        register(
            id=gym_id,
            entry_point=_ENTRY,
            vector_entry_point=_VECTOR_ENTRY,
            reward_threshold=spec.reward_threshold,
            nondeterministic=spec.nondeterministic,
            max_episode_steps=spec.max_episode_steps,
            kwargs={"sekai_id": spec.id},
        )
        added.append(gym_id)
    return added


def make_gymnasium_env(sekai_id: str, render_mode: str | None = None, **kwargs: Any) -> Any:
    """The gymnasium entry point: sekai env ``sekai_id`` as a ``gymnasium.Env``."""
    from sekai.compat.gymnasium import SekaiToGymnasium

    env = make(sekai_id, max_episode_steps=-1, **kwargs)
    try:
        renderer = None if render_mode is None else renderer_for(env)
        return SekaiToGymnasium(env, renderer=renderer, render_mode=render_mode)
    except BaseException:
        env.close()
        raise


def make_gymnasium_vector_env(
    sekai_id: str,
    num_envs: int,
    render_mode: str | None = None,
    autoreset_mode: Any = "same_step",
    **kwargs: Any,
) -> Any:
    """The gymnasium vector entry point: ``sekai.make_vec(sekai_id, num_envs)`` as a
    ``gymnasium.vector.VectorEnv`` in ``autoreset_mode`` (see ``to_gymnasium_vector``; the
    sekai env is built with ``autoreset=False`` for ``"next_step"`` and ``"disabled"``);
    other keyword arguments go to the sekai env."""
    from gymnasium.vector import AutoresetMode

    from sekai.compat.gymnasium_vector import to_gymnasium_vector

    if render_mode is not None:
        raise ValueError(
            f"render_mode={render_mode!r}: a sekai vector env is drawn one sub-env at a time "
            "with sekai.renderer_for(env_id); build it with render_mode=None."
        )
    same_step = autoreset_mode in ("same_step", AutoresetMode.SAME_STEP)
    vector_kwargs = {} if same_step else {"autoreset": False}
    vec = make_vec(sekai_id, num_envs, vector_kwargs=vector_kwargs, **kwargs)
    try:
        return to_gymnasium_vector(vec, autoreset_mode=autoreset_mode)
    except BaseException:
        vec.close()
        raise


class _RegisterAfterImport(importlib.abc.Loader):
    """Runs gymnasium's own loader, then ``register_gymnasium``."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if module.__spec__ is not None:  # gymnasium keeps its own loader for its resources
            module.__spec__.loader = self._loader
        module.__loader__ = self._loader
        self._loader.exec_module(module)
        try:
            register_gymnasium()
        except Exception as exc:  # a failure here must not break ``import gymnasium``
            warnings.warn(
                f"sekai could not register its envs with gymnasium ({exc!r}); "
                "call sekai.compat.register_gymnasium() to see why.",
                RuntimeWarning,
                stacklevel=2,
            )


class _GymnasiumImportHook(importlib.abc.MetaPathFinder):
    """Finds gymnasium with the other finders and wraps its loader in ``_RegisterAfterImport``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisterAfterImport(spec.loader)
        return spec


def register_when_gymnasium_loads() -> None:
    """Register the sekai ids now if gymnasium is loaded, else right after it is imported."""
    if sys.modules.get("gymnasium") is not None:
        register_gymnasium()
    elif not any(isinstance(finder, _GymnasiumImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumImportHook())
