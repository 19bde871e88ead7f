"""gymnasium's ``wrappers.autoreset`` module path to ``AutoReset``."""

from sekai.wrappers.common import AutoReset

__all__ = ["AutoReset"]
