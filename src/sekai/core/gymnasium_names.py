"""Names gymnasium envs have and sekai envs lack: reading one says what sekai has instead."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

__all__ = ["RENDERING_HINT", "GymnasiumNames"]

RENDERING_HINT = (
    "a sekai env does not draw itself: a renderer does, e.g. "
    "sekai.renderer_for(env).render(env) (see sekai.rendering); for gymnasium's render() and "
    "render_mode use sekai.compat.to_gymnasium(env, renderer=sekai.renderer_for(env), "
    "render_mode='rgb_array')."
)
"""Where rendering lives, for messages about ``render()`` and ``render_mode``."""

_HINTS: Mapping[str, str] = MappingProxyType(
    {
        "render": RENDERING_HINT,
        "render_mode": RENDERING_HINT,
        "np_random": "a sekai env keeps its generator in env.rng (seeded by reset(seed=...)).",
    }
)


class GymnasiumNames:
    """Mixin: reading ``render``, ``render_mode`` or ``np_random`` where nothing defines it
    raises ``AttributeError`` saying what sekai has instead.

    The hints come from ``__getattr__``, which Python calls only once the ordinary lookup has
    failed: they are no attributes, so ``dir()``, ``hasattr()`` and the class do not show them,
    and a subclass or an instance that defines one of these names keeps it. Any other missing
    name raises Python's usual ``AttributeError``.
    """

    __slots__ = ()

    if not TYPE_CHECKING:  # a __getattr__ would make every attribute valid to type checkers

        def __getattr__(self, name: str) -> Any:
            owner = type(self).__name__
            hint = _HINTS.get(name)
            if hint is not None:
                raise AttributeError(f"{owner} has no {name}: {hint}", name=name, obj=self)
            raise AttributeError(f"'{owner}' object has no attribute '{name}'", name=name, obj=self)
