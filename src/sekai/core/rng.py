"""The generator every environment owns."""

from __future__ import annotations

import numpy as np

from sekai._types import SeedType
from sekai.utils.seeding import np_random

__all__ = ["SeededRNG"]


class SeededRNG:
    """Mixin giving ``rng`` and ``_set_rng`` with gymnasium's seeding semantics."""

    _rng: np.random.Generator | None = None
    _rng_seed: int | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The generator; created from OS entropy on first use."""
        if self._rng is None:
            self._rng, self._rng_seed = np_random()
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value
        self._rng_seed = -1

    def _set_rng(self, seed: SeedType) -> int:
        """Seed ``rng`` (None keeps an existing generator) and return the seed in use."""
        if seed is None and self._rng is not None:
            return -1 if self._rng_seed is None else self._rng_seed
        self._rng, self._rng_seed = np_random(seed)
        return self._rng_seed
