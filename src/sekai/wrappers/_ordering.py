"""The warning for episode-state wrappers placed outside an ``AutoReset``."""

from __future__ import annotations

import warnings
from typing import Any

from sekai.core.env import Env
from sekai.core.wrapper import Wrapper

__all__ = ["warn_if_autoreset_inside"]


def warn_if_autoreset_inside(wrapper: Wrapper[Any, Any, Any, Any], env: Env[Any, Any]) -> None:
    """Warn when ``env``'s stack holds a self-resetting wrapper (``AutoReset``) at any depth.

    A wrapper that keeps per-episode state never sees the resets such a wrapper makes, so its
    state would run on across episodes. Self-resetting classes set ``_resets_inner = True``.
    Call from ``__init__``; the warning points at the caller's construction line.
    """
    layer: Env[Any, Any] = env
    while True:
        if getattr(type(layer), "_resets_inner", False):
            warnings.warn(
                f"{type(wrapper).__name__} keeps per-episode state but wraps "
                f"{type(layer).__name__}, which starts new episodes beneath it. "
                "Make AutoReset the outermost wrapper.",
                UserWarning,
                stacklevel=3,
            )
            return
        if not isinstance(layer, Wrapper):
            return
        layer = layer.env
