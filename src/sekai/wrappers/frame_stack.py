"""gymnasium's ``wrappers.frame_stack`` module path to ``FrameStackObservation``."""

from sekai.wrappers.observation import FrameStackObservation

__all__ = ["FrameStackObservation"]
