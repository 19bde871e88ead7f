"""gymnasium's ``wrappers.time_limit`` module path to ``TimeLimit``."""

from sekai.wrappers.common import TimeLimit

__all__ = ["TimeLimit"]
