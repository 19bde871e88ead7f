"""The old path of ``check_env``, which lives in ``sekai.testing.env_checker``."""

from __future__ import annotations

from sekai.utils._moved import moved_names

# The name loads on first access (``__getattr__``): sekai.testing is a layer above sekai.utils.
__all__ = ["check_env"]  # noqa: F822

__getattr__ = moved_names(__name__, "sekai.testing.env_checker", __all__)
