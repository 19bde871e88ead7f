"""Environment specifications: the records that ``make()`` builds environments from.

This module is data only. Building an environment from a spec (importing entry points,
applying the time limit and wrappers) is the registry's work: ``EnvSpec.make`` calls the
function ``sekai.registry`` installs with ``set_builder`` when it is imported. The module sits
below ``sekai.core.env`` (whose ``Env.spec`` holds an ``EnvSpec``), so it names environments
as ``Any``.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from sekai.utils.validation import check_int

__all__ = [
    "DataEntryPoint",
    "EnvSpec",
    "PerSubEnv",
    "WrapperSpec",
    "parse_env_id",
    "set_builder",
]

_ID_RE = re.compile(
    r"^(?:(?P<namespace>[a-zA-Z0-9_-]+)/)?(?P<name>[a-zA-Z0-9_-]+?)(?:-v(?P<version>\d+))?$"
)
_JSON_KEYS = frozenset(
    (
        "id",
        "entry_point",
        "reward_threshold",
        "nondeterministic",
        "max_episode_steps",
        "kwargs",
        "additional_wrappers",
        "vector_entry_point",
        "renderer",
    )
)
_JSON_ENTRY_POINTS = ("entry_point", "vector_entry_point", "renderer")

_builder: Callable[..., Any] | None = None


def set_builder(build: Callable[..., Any]) -> None:
    """Have ``EnvSpec.make(...)`` return ``build(spec, max_episode_steps=..., **kwargs)``.

    ``sekai.registry`` installs its ``make`` here when it is imported.
    """
    global _builder
    _builder = build


def parse_env_id(id: str) -> tuple[str | None, str, int | None]:
    """Split ``[namespace/]name[-vN]`` into ``(namespace, name, version)``."""
    if not isinstance(id, str):
        raise TypeError(f"Environment id must be a str, got {type(id).__name__} {id!r}.")
    match = _ID_RE.fullmatch(id)
    if match is None:
        raise ValueError(
            f"Malformed environment id {id!r}: expected '[namespace/]name[-vN]' using letters, "
            "digits, '_' and '-' (e.g. 'CartPole-v1' or 'my_ns/MyEnv-v0')."
        )
    version = match["version"]
    return match["namespace"], match["name"], None if version is None else int(version)


class DataEntryPoint(str):
    """An entry point string that ``EnvSpec.from_json`` read from data, not one set in code.

    It compares, hashes and serialises as the plain string. ``make`` imports it only where it
    is the entry point registered for the spec's id (or a registered wrapper's entry point):
    importing and calling a module path taken from data can run any code.
    """

    __slots__ = ()


@runtime_checkable
class PerSubEnv(Protocol):
    """A keyword argument value of which each sub-env of a vector env gets its own copy.

    ``make_vec`` builds each sub-env of a ``"sync"``, ``"async"`` or ``"proc"`` vector env
    with ``value.__copy_for_sub_env__()`` in place of such a value; the spec keeps the
    original. Returning ``self`` shares the value between the sub-envs.
    """

    def __copy_for_sub_env__(self) -> Any:
        """The value one new sub-env receives."""
        ...


def _check_steps(value: Any, what: str, *, allow_unset: bool) -> int | None:
    """``value`` as an int step limit (None kept); -1 is accepted when ``allow_unset``."""
    if value is None:
        return None
    value = check_int(value, what)
    if value < 1 and not (allow_unset and value == -1):
        hint = (
            "a positive int, -1 for no limit, or None" if allow_unset else "a positive int or None"
        )
        raise ValueError(f"{what} must be {hint}, got {value}.")
    return value


@dataclass
class WrapperSpec:
    """A wrapper that ``make()`` applies: ``entry_point`` is ``"module.path:Attr"``."""

    name: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(repr=False)
class EnvSpec:
    """Everything ``make()`` needs to build an environment, and the renderer that draws it.

    ``namespace``, ``name`` and ``version`` are parsed from ``id``. ``renderer`` is a
    ``"module.path:Attr"`` string or a callable that ``sekai.renderer_for`` calls to build a
    renderer for the environment.
    """

    id: str
    entry_point: str | Callable[..., Any] | None = None
    reward_threshold: float | None = None
    nondeterministic: bool = False
    max_episode_steps: int | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    additional_wrappers: tuple[WrapperSpec, ...] = ()
    vector_entry_point: str | Callable[..., Any] | None = None
    renderer: str | Callable[..., Any] | None = None
    namespace: str | None = field(init=False, compare=False)
    name: str = field(init=False, compare=False)
    version: int | None = field(init=False, compare=False)

    def __post_init__(self) -> None:
        self.namespace, self.name, self.version = parse_env_id(self.id)
        where = f"EnvSpec {self.id!r}"
        if self.reward_threshold is not None and (
            isinstance(self.reward_threshold, (bool, np.bool_))
            or not isinstance(self.reward_threshold, numbers.Real)
        ):
            raise TypeError(
                f"{where}: reward_threshold must be a number or None, "
                f"got {type(self.reward_threshold).__name__}."
            )
        if not isinstance(self.nondeterministic, (bool, np.bool_)):
            raise TypeError(
                f"{where}: nondeterministic must be a bool, "
                f"got {type(self.nondeterministic).__name__}."
            )
        self.nondeterministic = bool(self.nondeterministic)
        self.max_episode_steps = _check_steps(
            self.max_episode_steps, f"{where}: max_episode_steps", allow_unset=False
        )
        if not isinstance(self.kwargs, dict):
            raise TypeError(f"{where}: kwargs must be a dict, got {type(self.kwargs).__name__}.")
        if "max_episode_steps" in self.kwargs:
            raise ValueError(
                f"{where}: pass max_episode_steps as its own argument, not inside kwargs."
            )
        wrappers = tuple(self.additional_wrappers)
        for wrapper in wrappers:
            if not isinstance(wrapper, WrapperSpec):
                raise TypeError(
                    f"{where}: additional_wrappers must hold WrapperSpec objects, "
                    f"got {type(wrapper).__name__}."
                )
        self.additional_wrappers = wrappers

    def __repr__(self) -> str:
        return f"EnvSpec(id={self.id!r})"

    def make(self, *, max_episode_steps: int | None = None, **kwargs: Any) -> Any:
        """Build a ``sekai.Env`` from this spec, as ``sekai.make(self, ...)`` does."""
        if _builder is None:
            raise RuntimeError("EnvSpec.make() needs the registry: import sekai first.")
        return _builder(self, max_episode_steps=max_episode_steps, **kwargs)

    def to_json(self) -> str:
        """This spec as indented JSON; callable entry points and renderers are left out."""
        data: dict[str, Any] = {
            "id": self.id,
            "reward_threshold": self.reward_threshold,
            "nondeterministic": self.nondeterministic,
            "max_episode_steps": self.max_episode_steps,
            "kwargs": self.kwargs,
            "additional_wrappers": [dataclasses.asdict(w) for w in self.additional_wrappers],
        }
        for key in _JSON_ENTRY_POINTS:
            value = getattr(self, key)
            if isinstance(value, str):
                data[key] = value
        return json.dumps(data, indent=2)

    @classmethod
    def from_json(cls, s: str, *, trust_entry_points: bool = False) -> EnvSpec:
        """The spec ``to_json()`` wrote; missing keys take their defaults.

        Building an environment imports and calls its entry points, so an entry point taken
        from data could run any code. By default ``make`` / ``make_vec`` / ``renderer_for``
        therefore accept the spec only if each entry point string in it (``entry_point``,
        ``vector_entry_point``, ``renderer``, ``additional_wrappers``) is the one registered
        for its ``id`` (for a wrapper: any registered wrapper's), and raise ``ValueError``
        otherwise. ``trust_entry_points=True`` lifts that check; pass it only for JSON from a
        trusted source.
        """
        if not isinstance(trust_entry_points, (bool, np.bool_)):
            raise TypeError(
                f"trust_entry_points must be a bool, got {type(trust_entry_points).__name__}."
            )
        data = json.loads(s)
        if not isinstance(data, dict):
            raise ValueError(f"EnvSpec JSON must be an object, got {type(data).__name__}.")
        if "id" not in data:
            raise ValueError("EnvSpec JSON has no 'id'.")
        unknown = sorted(data.keys() - _JSON_KEYS)
        if unknown:
            raise ValueError(f"EnvSpec JSON has unknown keys {unknown}.")
        wrappers = tuple(WrapperSpec(**w) for w in data.pop("additional_wrappers", ()))
        if not trust_entry_points:
            for key in _JSON_ENTRY_POINTS:
                if isinstance(data.get(key), str):
                    data[key] = DataEntryPoint(data[key])
            for wrapper in wrappers:
                if isinstance(wrapper.entry_point, str):
                    wrapper.entry_point = DataEntryPoint(wrapper.entry_point)
        return cls(**data, additional_wrappers=wrappers)

    def pprint(self) -> str:
        """A readable multi-line description; unset options are omitted."""
        lines = [f"id={self.id}", f"entry_point={_describe(self.entry_point)}"]
        if self.vector_entry_point is not None:
            lines.append(f"vector_entry_point={_describe(self.vector_entry_point)}")
        if self.renderer is not None:
            lines.append(f"renderer={_describe(self.renderer)}")
        if self.max_episode_steps is not None:
            lines.append(f"max_episode_steps={self.max_episode_steps}")
        if self.reward_threshold is not None:
            lines.append(f"reward_threshold={self.reward_threshold}")
        if self.nondeterministic:
            lines.append("nondeterministic=True")
        if self.kwargs:
            lines.append(f"kwargs={self.kwargs}")
        for w in self.additional_wrappers:
            lines.append(f"wrapper={w.name} ({w.entry_point}) {w.kwargs or ''}".rstrip())
        return "\n".join(lines)


def _describe(entry_point: object) -> str:
    return entry_point if isinstance(entry_point, str) else repr(entry_point)
