"""gymnasium's ``wrappers.stateful_action`` module path to the matching sekai wrappers."""

from sekai.wrappers.action import ActionRepeat, StickyAction

__all__ = ["ActionRepeat", "StickyAction"]
