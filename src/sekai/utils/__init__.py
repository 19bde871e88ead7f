"""Seeding, running statistics, normalisation, action masks and the env checker."""

from sekai.utils.seeding import make_seed_sequence, np_random

__all__ = ["np_random", "make_seed_sequence"]
