"""The old path of ``ObservationNormalizer``, which lives in ``sekai.wrappers._normalizer``."""

from __future__ import annotations

from sekai.utils._moved import moved_names

# The names load on first access (``__getattr__``): sekai.wrappers is a layer above sekai.utils.
__all__ = ["ObservationNormalizer", "StatsKind"]  # noqa: F822

__getattr__ = moved_names(__name__, "sekai.wrappers._normalizer", __all__)
