"""The renderer protocol, its frame types and a base class."""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from sekai.core.closing import Closing

__all__ = ["ANSIString", "BaseRenderer", "RGBArray", "RenderFrame", "Renderer"]

RGBArray: TypeAlias = NDArray[np.uint8]
"""An ``(H, W, 3)`` uint8 image."""

ANSIString: TypeAlias = str
"""A text frame, possibly with ANSI escape codes."""

RenderFrame: TypeAlias = RGBArray | ANSIString
"""What a renderer returns."""


@runtime_checkable
class Renderer(Protocol):
    """Anything with ``render(env)`` and ``close()``; ``isinstance`` checks both."""

    def render(self, env: Any) -> RenderFrame:
        """The frame for the env's current state."""
        ...

    def close(self) -> None:
        """Release what the renderer holds."""
        ...


class BaseRenderer(Closing):
    """A renderer to subclass: override ``render``; usable as a context manager."""

    def render(self, env: Any) -> RenderFrame:
        """The frame for the env's current state."""
        raise NotImplementedError(f"{type(self).__name__} does not implement render(env).")

    def close(self) -> None:
        """Release what the renderer holds (nothing here)."""
