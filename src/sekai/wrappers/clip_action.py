"""gymnasium's ``wrappers.clip_action`` module path to ``ClipAction``."""

from sekai.wrappers.action import ClipAction

__all__ = ["ClipAction"]
