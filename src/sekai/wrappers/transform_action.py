"""gymnasium's ``wrappers.transform_action`` module path to the matching sekai wrappers."""

from sekai.wrappers.action import ClipAction, RescaleAction

__all__ = ["ClipAction", "RescaleAction"]
