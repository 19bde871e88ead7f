"""gymnasium's ``wrappers.rescale_action`` module path to ``RescaleAction``."""

from sekai.wrappers.action import RescaleAction

__all__ = ["RescaleAction"]
