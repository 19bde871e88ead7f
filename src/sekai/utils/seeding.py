"""Random generators and seed derivation."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["check_seed", "child_seeds", "make_seed_sequence", "np_random"]

_EXPECTED = "an int, a numpy Generator or None"


def np_random(seed: Any = None) -> tuple[np.random.Generator, int]:
    """Return ``(generator, seed_used)``.

    A Generator is adopted as is (seed ``-1``); None draws a 128-bit seed from OS entropy.
    """
    checked = check_seed(seed)
    if isinstance(checked, np.random.Generator):
        return checked, -1
    if checked is None:
        checked = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    return np.random.default_rng(checked), checked


def check_seed(seed: object, expected: str = _EXPECTED) -> int | np.random.Generator | None:
    """``seed`` as ``np_random`` (so ``Env.reset``) takes it: None, a Generator or an int >= 0.

    numpy ints become Python ints; negative ints and other real numbers (``2.5``, ``2.0``) raise
    ``ValueError``; bools and other types ``TypeError`` (its message says the seed must be
    ``expected``).
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Real):
        raise TypeError(f"seed must be {expected}, got {seed!r}.")
    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative int, got {seed!r}.")
    value = int(seed)
    if value < 0:
        raise ValueError(f"seed must be a non-negative int, got {value}.")
    return value


def make_seed_sequence(base_seed: int, n: int) -> list[int]:
    """Derive ``n`` distinct, deterministic 32-bit seeds from ``base_seed``."""
    children = np.random.SeedSequence(int(base_seed)).spawn(int(n))
    return [int(child.generate_state(1)[0]) for child in children]


def child_seeds(rng: np.random.Generator, seed_used: int, n: int) -> list[int]:
    """Seeds for ``n`` children of a generator seeded with ``seed_used`` (``-1``: unknown)."""
    base = seed_used if seed_used != -1 else int(rng.integers(2**63))
    return make_seed_sequence(base, n)
