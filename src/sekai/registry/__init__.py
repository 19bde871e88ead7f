"""Registering environments under ids and building them with ``make()``."""

from sekai.registry.registry import (
    EnvRegistry,
    all_specs,
    deregister,
    make,
    make_vec,
    pprint_registry,
    register,
    register_namespace,
    spec,
)
from sekai.registry.spec import EnvSpec, WrapperSpec

__all__ = [
    "EnvSpec",
    "WrapperSpec",
    "EnvRegistry",
    "register",
    "deregister",
    "make",
    "make_vec",
    "spec",
    "all_specs",
    "register_namespace",
    "pprint_registry",
]
