"""The old path of the gymnasium registration, which lives in
``sekai.compat.gymnasium_registration``."""

from __future__ import annotations

from sekai.utils._moved import moved_names

# The names load on first access (``__getattr__``): sekai.compat is a layer above sekai.registry.
__all__ = [  # noqa: F822
    "gymnasium_id",
    "make_gymnasium_env",
    "make_gymnasium_vector_env",
    "register_gymnasium",
    "register_when_gymnasium_loads",
]

__getattr__ = moved_names(__name__, "sekai.compat.gymnasium_registration", __all__)
