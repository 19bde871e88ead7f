"""The old ``sekai.utils`` paths of names that moved up give the very same objects."""

from __future__ import annotations

import importlib

import pytest

import sekai.spaces.masking
import sekai.testing
from sekai.wrappers import _normalizer

MOVED = [
    ("sekai.utils.checker", sekai.testing, ["check_env"]),
    ("sekai.utils.masking", sekai.spaces.masking, sekai.spaces.masking.__all__),
    (
        "sekai.utils.normalization",
        _normalizer,
        ["ObservationNormalizer", "StatsKind"],
    ),
    ("sekai.utils", sekai.spaces.masking, sekai.spaces.masking.__all__),
]


@pytest.mark.parametrize(("old", "home", "names"), MOVED, ids=[old for old, _, _ in MOVED])
def test_old_paths_resolve_to_the_new_homes(old: str, home: object, names: list[str]) -> None:
    module = importlib.import_module(old)
    assert set(names) <= set(module.__all__)
    for name in names:
        namespace: dict[str, object] = {}
        exec(f"from {old} import {name}", namespace)
        assert namespace[name] is getattr(module, name) is getattr(home, name)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = module.no_such_name
