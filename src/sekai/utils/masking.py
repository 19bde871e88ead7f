"""The old path of the action-mask helpers, which live in ``sekai.spaces.masking``."""

from __future__ import annotations

from sekai.utils._moved import moved_names

# The names load on first access (``__getattr__``): sekai.spaces is a layer above sekai.utils.
__all__ = ["action_mask_space", "flatten_action_mask", "get_action_mask", "supports_action_mask"]  # noqa: F822

__getattr__ = moved_names(__name__, "sekai.spaces.masking", __all__)
