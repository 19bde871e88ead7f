"""``Box``: a rectangle in pixels, y up, that splits into rows and columns."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Box"]


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle in pixels, y up."""

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        """``right - left``."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """``top - bottom``."""
        return self.top - self.bottom

    def inset(
        self, left: float = 0.0, bottom: float = 0.0, right: float = 0.0, top: float = 0.0
    ) -> Box:
        """The box with each edge moved inwards by its amount (negative moves outwards)."""
        return Box(self.left + left, self.bottom + bottom, self.right - right, self.top - top)

    def rows(self, weights: Sequence[float], gap: float = 0.0) -> list[Box]:
        """Split into rows, top first, sharing ``height - gap·(k-1)`` in proportion to weights."""
        edges = _split(self.top, self.bottom, weights, gap)
        return [Box(self.left, lower, self.right, upper) for upper, lower in edges]

    def columns(self, weights: Sequence[float], gap: float = 0.0) -> list[Box]:
        """Split into columns, left first, sharing ``width - gap·(k-1)`` in proportion."""
        edges = _split(self.left, self.right, weights, gap)
        return [Box(left, self.bottom, right, self.top) for left, right in edges]

    def snapped(self) -> Box:
        """The box with every edge rounded to the nearest whole pixel (halves up)."""
        edges = (self.left, self.bottom, self.right, self.top)
        return Box(*(float(math.floor(edge + 0.5)) for edge in edges))


def _split(
    start: float, end: float, weights: Sequence[float], gap: float
) -> list[tuple[float, float]]:
    """``(near, far)`` edges of consecutive parts from ``start`` towards ``end``."""
    shares = [float(w) for w in weights]
    if not shares or not all(math.isfinite(w) and w > 0 for w in shares):
        raise ValueError(
            f"weights must be a non-empty sequence of positive numbers, got {weights!r}."
        )
    if not (math.isfinite(gap) and gap >= 0):
        raise ValueError(f"gap must be finite and >= 0, got {gap}.")
    direction = 1.0 if end >= start else -1.0
    length = abs(end - start) - gap * (len(shares) - 1)
    total = math.fsum(shares)
    edges: list[tuple[float, float]] = []
    done = 0.0
    for i, share in enumerate(shares):
        near = start + direction * (i * gap + length * done / total)
        done += share
        far = start + direction * (i * gap + length * done / total)
        edges.append((near, far))
    edges[-1] = (edges[-1][0], end)
    return edges
