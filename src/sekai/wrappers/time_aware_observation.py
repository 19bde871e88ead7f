"""gymnasium's ``wrappers.time_aware_observation`` module path to ``TimeAwareObservation``."""

from sekai.wrappers.observation import TimeAwareObservation

__all__ = ["TimeAwareObservation"]
