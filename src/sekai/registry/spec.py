"""Environment specifications, re-exported from ``sekai.core.spec`` (and entry point loading)."""

from sekai.core.spec import DataEntryPoint as DataEntryPoint
from sekai.core.spec import EnvSpec as EnvSpec
from sekai.core.spec import WrapperSpec as WrapperSpec
from sekai.core.spec import parse_env_id as parse_env_id
from sekai.registry.registry import load_entry_point as load_entry_point

__all__ = ["DataEntryPoint", "EnvSpec", "WrapperSpec", "load_entry_point", "parse_env_id"]
