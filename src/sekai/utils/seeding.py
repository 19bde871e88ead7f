"""Random generators and seed derivation."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from sekai.utils.validation import check_int

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

    numpy ints and whole floats (``3.0``) become Python ints; a negative number raises
    ``ValueError``; a float with a fraction (``2.5``, ``inf``, NaN) raises ``TypeError`` as
    ``check_int`` does, and so do bools and other types (a message saying that the seed must
    be ``expected``).
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Real):
        raise TypeError(f"seed must be {expected}, got {seed!r}.")
    value = check_int(seed, "seed")
    if value < 0:
        raise ValueError(f"seed must be a non-negative int, got {value}.")
    return value


def make_seed_sequence(base_seed: int, n: int) -> list[int]:
    """Derive ``n`` distinct, deterministic 32-bit seeds from ``base_seed``."""
    base = check_int(base_seed, "make_seed_sequence base_seed", low=0)
    children = np.random.SeedSequence(base).spawn(check_int(n, "make_seed_sequence n", low=0))
    return [int(child.generate_state(1)[0]) for child in children]


def child_seeds(rng: np.random.Generator, seed_used: int, n: int) -> list[int]:
    """Seeds for ``n`` children of a generator seeded with ``seed_used`` (``-1``: unknown)."""
    base = seed_used if seed_used != -1 else int(rng.integers(2**63))
    return make_seed_sequence(base, n)
