"""Bridges between sekai and gymnasium, PettingZoo and Stable-Baselines3.

The functions import their optional dependency when called; a missing one raises
``ImportError`` naming the extra to install. The classes are loaded on first access.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from sekai.compat._install import install_hint

if TYPE_CHECKING:
    from sekai.compat.gymnasium import (
        GymnasiumRenderer,
        GymnasiumToSekai,
        SekaiToGymnasium,
        _Renderer,
    )
    from sekai.compat.gymnasium_vector import SekaiToGymnasiumVector
    from sekai.compat.pettingzoo import PettingZooToSekai, SekaiToPettingZoo
    from sekai.core import Env, MultiAgentEnv
    from sekai.spaces import Space
    from sekai.vector import VecEnv

__all__ = [
    "to_gymnasium",
    "from_gymnasium",
    "to_gymnasium_vector",
    "from_gymnasium_vector",
    "register_gymnasium",
    "to_sb3",
    "to_pettingzoo",
    "from_pettingzoo",
    "space_to_gymnasium",
    "space_from_gymnasium",
    "SekaiToGymnasium",
    "GymnasiumToSekai",
    "GymnasiumRenderer",
    "SekaiToGymnasiumVector",
    "GymnasiumVectorToSekai",
    "SekaiToSB3VecEnv",
    "SekaiToPettingZoo",
    "PettingZooToSekai",
]

_CLASS_PACKAGE = {
    "SekaiToGymnasium": "gymnasium",
    "GymnasiumToSekai": "gymnasium",
    "GymnasiumRenderer": "gymnasium",
    "SekaiToGymnasiumVector": "gymnasium_vector",
    "SekaiToPettingZoo": "pettingzoo",
    "PettingZooToSekai": "pettingzoo",
    "from_gymnasium_vector": "gymnasium_vector",
    "GymnasiumVectorToSekai": "gymnasium_vector",
    # sekai.compat.sb3 needs gymnasium; it imports stable-baselines3 itself, in to_sb3().
    "to_sb3": "sb3",
    "SekaiToSB3VecEnv": "sb3",
}
_BRIDGE_DEPENDENCY = {"sb3": "gymnasium", "gymnasium_vector": "gymnasium"}


def _bridge(package: str) -> ModuleType:
    """The bridge module ``sekai.compat.<package>`` (``gymnasium``, ``pettingzoo``, ...)."""
    dependency = _BRIDGE_DEPENDENCY.get(package, package)
    try:
        importlib.import_module(dependency)
    except ImportError as exc:
        raise ImportError(install_hint(dependency)) from exc
    return importlib.import_module(f"sekai.compat.{package}")


def __dir__() -> list[str]:
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    package = _CLASS_PACKAGE.get(name)
    if package is None:
        raise AttributeError(f"module 'sekai.compat' has no attribute {name!r}")
    return getattr(_bridge(package), name)


def to_gymnasium(
    env: Env[Any, Any], renderer: _Renderer | None = None, render_mode: str | None = None
) -> SekaiToGymnasium:
    """``env`` as a ``gymnasium.Env`` (see ``SekaiToGymnasium``)."""
    return _bridge("gymnasium").SekaiToGymnasium(env, renderer=renderer, render_mode=render_mode)


def from_gymnasium(env: Any) -> GymnasiumToSekai:
    """The ``gymnasium.Env`` ``env`` as a ``sekai.Env`` (see ``GymnasiumToSekai``)."""
    return _bridge("gymnasium").GymnasiumToSekai(env)


def to_gymnasium_vector(
    vec: VecEnv[Any, Any], *, autoreset_mode: Any = "same_step"
) -> SekaiToGymnasiumVector:
    """``vec`` as a ``gymnasium.vector.VectorEnv`` (see ``sekai.compat.gymnasium_vector``);
    ``autoreset_mode``: ``"same_step"``, ``"next_step"`` or ``"disabled"``."""
    return _bridge("gymnasium_vector").to_gymnasium_vector(vec, autoreset_mode=autoreset_mode)


def register_gymnasium() -> list[str]:
    """Register every sekai id in gymnasium's registry (``sekai/<id>``); returns the new ids.

    ``import sekai`` does this by itself once gymnasium is imported.
    """
    from sekai.compat.gymnasium_registration import register_gymnasium as register

    return register()


def to_pettingzoo(env: MultiAgentEnv[Any, Any, Any]) -> SekaiToPettingZoo:
    """``env`` as a PettingZoo ``ParallelEnv`` (see ``SekaiToPettingZoo``)."""
    return _bridge("pettingzoo").SekaiToPettingZoo(env)


def from_pettingzoo(env: Any) -> PettingZooToSekai:
    """The PettingZoo ``ParallelEnv`` ``env`` as a ``sekai.MultiAgentEnv``."""
    return _bridge("pettingzoo").PettingZooToSekai(env)


def space_to_gymnasium(space: Space[Any]) -> Any:
    """The ``gymnasium.spaces`` equivalent of ``space``; ``TypeError`` if there is none."""
    return _bridge("gymnasium").space_to_gymnasium(space)


def space_from_gymnasium(space: Any) -> Space[Any]:
    """The sekai equivalent of a ``gymnasium.spaces`` space; ``TypeError`` if there is none."""
    return _bridge("gymnasium").space_from_gymnasium(space)
