"""gymnasium's ``wrappers.filter_observation`` module path to ``FilterObservation``."""

from sekai.wrappers.observation import FilterObservation

__all__ = ["FilterObservation"]
