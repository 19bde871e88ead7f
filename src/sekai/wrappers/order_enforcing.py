"""gymnasium's ``wrappers.order_enforcing`` module path to ``OrderEnforcing``."""

from sekai.wrappers.common import OrderEnforcing

__all__ = ["OrderEnforcing"]
