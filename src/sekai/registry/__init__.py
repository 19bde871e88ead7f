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
)
from sekai.registry.registry import renderer_for as renderer_for
from sekai.registry.registry import spec as _spec
from sekai.registry.spec import EnvSpec, WrapperSpec

# Bound after the imports: loading the submodule ``sekai.registry.spec`` sets this package's
# ``spec`` attribute to that module, while ``sekai.registry.spec`` is the lookup function.
spec = _spec

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
