"""gymnasium's ``wrappers.flatten_observation`` module path to ``FlattenObservation``."""

from sekai.wrappers.observation import FlattenObservation

__all__ = ["FlattenObservation"]
