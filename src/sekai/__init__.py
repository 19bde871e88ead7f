"""sekai: reinforcement-learning environments for large simulations and financial markets."""

from sekai._version import __version__

__all__ = ["__version__"]
