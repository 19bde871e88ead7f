"""Tests for EnvSpec and WrapperSpec: id parsing, equality, JSON and pprint."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sekai.core import Env, ResetResult, StepResult
from sekai.registry import EnvSpec, WrapperSpec
from sekai.registry.spec import load_entry_point, parse_env_id
from sekai.spaces import Discrete
from sekai.wrappers import TimeLimit


class TinyEnv(Env[int, int]):
    def __init__(self, size: int = 2) -> None:
        self.size = size
        self.observation_space = Discrete(size)
        self.action_space = Discrete(size)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        return StepResult(0, 0.0, True, False, {})


@pytest.mark.parametrize(
    ("id", "parsed"),
    [
        ("CartPole-v1", (None, "CartPole", 1)),
        ("qc/MarketEnv-v0", ("qc", "MarketEnv", 0)),
        ("my_ns/CustomEnv", ("my_ns", "CustomEnv", None)),
        ("Foo-Bar-v12", (None, "Foo-Bar", 12)),
        ("Plain", (None, "Plain", None)),
        ("a-v1-v2", (None, "a-v1", 2)),
        ("x-v", (None, "x-v", None)),
    ],
)
def test_id_parsing(id: str, parsed: tuple[str | None, str, int | None]) -> None:
    spec = EnvSpec(id)
    assert (spec.namespace, spec.name, spec.version) == parsed
    assert parse_env_id(id) == parsed


@pytest.mark.parametrize("bad", ["bad id!", "a/b/c", "", "/x", "ns/", "x-v1\n", "é"])
def test_invalid_ids(bad: str) -> None:
    with pytest.raises(ValueError, match="id"):
        EnvSpec(bad)


def test_non_str_id() -> None:
    with pytest.raises(TypeError, match="id must be a str"):
        EnvSpec(3)  # type: ignore[arg-type]


_PART = st.text(alphabet="abcXYZ019_-", min_size=1, max_size=12)


@given(
    namespace=st.none() | _PART,
    name=_PART,
    version=st.none() | st.integers(min_value=0, max_value=10**6),
)
def test_id_round_trip(namespace: str | None, name: str, version: int | None) -> None:
    if version is None and re.search(r"-v\d+$", name):
        name += "x"  # such a name would parse as a version suffix
    id = (f"{namespace}/" if namespace is not None else "") + name
    if version is not None:
        id += f"-v{version}"
    assert parse_env_id(id) == (namespace, name, version)


def test_defaults_equality_hash_and_repr() -> None:
    spec = EnvSpec("CartPole-v1")
    assert spec.entry_point is None
    assert spec.reward_threshold is None
    assert spec.nondeterministic is False
    assert spec.max_episode_steps is None
    assert spec.kwargs == {}
    assert spec.additional_wrappers == ()
    assert spec.vector_entry_point is None
    assert repr(spec) == "EnvSpec(id='CartPole-v1')"
    assert spec == EnvSpec("CartPole-v1")
    assert spec != EnvSpec("CartPole-v1", max_episode_steps=5)
    assert spec != EnvSpec("CartPole-v1", kwargs={"a": 1})
    with pytest.raises(TypeError):
        hash(spec)
    assert EnvSpec("a", kwargs={}).kwargs is not EnvSpec("b").kwargs
    assert [f.name for f in dataclasses.fields(EnvSpec) if f.init] == [
        "id",
        "entry_point",
        "reward_threshold",
        "nondeterministic",
        "max_episode_steps",
        "kwargs",
        "additional_wrappers",
        "vector_entry_point",
        "renderer",
    ]


def test_replace_reparses_id() -> None:
    spec = dataclasses.replace(EnvSpec("CartPole-v1"), id="ns/Other-v4")
    assert (spec.namespace, spec.name, spec.version) == ("ns", "Other", 4)


def test_wrapper_spec() -> None:
    w = WrapperSpec("TimeLimit", "sekai.wrappers:TimeLimit")
    assert w.kwargs == {}
    assert w == WrapperSpec("TimeLimit", "sekai.wrappers:TimeLimit", {})
    w.kwargs = {"max_episode_steps": 3}  # mutable
    assert repr(w) == (
        "WrapperSpec(name='TimeLimit', entry_point='sekai.wrappers:TimeLimit', "
        "kwargs={'max_episode_steps': 3})"
    )


def test_additional_wrappers_stored_as_tuple() -> None:
    w = WrapperSpec("A", "m:A")
    spec = EnvSpec("X-v0", additional_wrappers=[w])  # type: ignore[arg-type]
    assert spec.additional_wrappers == (w,)


@pytest.mark.parametrize(
    ("field", "value", "exc"),
    [
        ("max_episode_steps", 0, ValueError),
        ("max_episode_steps", -1, ValueError),
        ("max_episode_steps", 2.5, TypeError),
        ("max_episode_steps", 0.0, ValueError),
        ("max_episode_steps", True, TypeError),
        ("kwargs", [("a", 1)], TypeError),
        ("kwargs", {"max_episode_steps": 3}, ValueError),
        ("reward_threshold", "high", TypeError),
        ("nondeterministic", "yes", TypeError),
        ("additional_wrappers", ("m:W",), TypeError),
    ],
)
def test_field_validation(field: str, value: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc, match=field):
        EnvSpec("X-v0", **{field: value})


def test_to_json_order_and_callables_dropped() -> None:
    spec = EnvSpec(
        "ns/Env-v2",
        entry_point="pkg.mod:Env",
        reward_threshold=1.5,
        nondeterministic=True,
        max_episode_steps=9,
        kwargs={"a": [1, 2]},
        additional_wrappers=(WrapperSpec("W", "pkg.w:W", {"k": 1}),),
        vector_entry_point="pkg.mod:VecEnv",
    )
    text = spec.to_json()
    data = json.loads(text)
    assert list(data) == [
        "id",
        "reward_threshold",
        "nondeterministic",
        "max_episode_steps",
        "kwargs",
        "additional_wrappers",
        "entry_point",
        "vector_entry_point",
    ]
    assert data["additional_wrappers"] == [
        {"name": "W", "entry_point": "pkg.w:W", "kwargs": {"k": 1}}
    ]
    assert text == json.dumps(data, indent=2)
    assert EnvSpec.from_json(text) == spec

    with_callables = dataclasses.replace(spec, entry_point=TinyEnv, vector_entry_point=TinyEnv)
    data = json.loads(with_callables.to_json())
    assert "entry_point" not in data and "vector_entry_point" not in data
    restored = EnvSpec.from_json(with_callables.to_json())
    assert restored.entry_point is None and restored.vector_entry_point is None


def test_from_json_defaults_and_errors() -> None:
    assert EnvSpec.from_json('{"id": "X-v0"}') == EnvSpec("X-v0")
    restored = EnvSpec.from_json(
        '{"id": "X-v0", "additional_wrappers": [{"name": "W", "entry_point": "m:W"}]}'
    )
    assert restored.additional_wrappers == (WrapperSpec("W", "m:W"),)
    with pytest.raises(ValueError, match="'id'"):
        EnvSpec.from_json("{}")
    with pytest.raises(ValueError, match="object"):
        EnvSpec.from_json("[]")
    with pytest.raises(ValueError, match="unknown keys"):
        EnvSpec.from_json('{"id": "X-v0", "max_steps": 3}')


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
_KWARGS = st.dictionaries(
    st.text(min_size=1, max_size=6).filter(lambda k: k != "max_episode_steps"),
    _JSON_VALUES,
    max_size=4,
)


@given(
    id=st.sampled_from(["A-v0", "ns/B", "C-D-v10"]),
    entry_point=st.none() | st.just("pkg.mod:Env"),
    reward_threshold=st.none() | st.floats(allow_nan=False, allow_infinity=False),
    nondeterministic=st.booleans(),
    max_episode_steps=st.none() | st.integers(min_value=1, max_value=10**9),
    kwargs=_KWARGS,
    wrappers=st.lists(
        st.builds(WrapperSpec, st.text(max_size=4), st.just("m:W"), _KWARGS), max_size=3
    ),
    vector_entry_point=st.none() | st.just("pkg.mod:Vec"),
)
def test_json_round_trip(
    id: str,
    entry_point: str | None,
    reward_threshold: float | None,
    nondeterministic: bool,
    max_episode_steps: int | None,
    kwargs: dict[str, Any],
    wrappers: list[WrapperSpec],
    vector_entry_point: str | None,
) -> None:
    spec = EnvSpec(
        id,
        entry_point,
        reward_threshold,
        nondeterministic,
        max_episode_steps,
        kwargs,
        tuple(wrappers),
        vector_entry_point,
    )
    assert EnvSpec.from_json(spec.to_json()) == spec


def test_pprint_minimal_and_full() -> None:
    assert EnvSpec("X-v0", entry_point="m:E").pprint() == "id=X-v0\nentry_point=m:E"
    assert EnvSpec("X-v0").pprint() == "id=X-v0\nentry_point=None"
    spec = EnvSpec(
        "X-v0",
        entry_point=TinyEnv,
        reward_threshold=475.0,
        nondeterministic=True,
        max_episode_steps=7,
        kwargs={"size": 3},
        additional_wrappers=(WrapperSpec("A", "m:A"), WrapperSpec("B", "m:B", {"k": 2})),
        vector_entry_point="m:VecE",
    )
    assert spec.pprint().splitlines() == [
        "id=X-v0",
        f"entry_point={TinyEnv!r}",
        "vector_entry_point=m:VecE",
        "max_episode_steps=7",
        "reward_threshold=475.0",
        "nondeterministic=True",
        "kwargs={'size': 3}",
        "wrapper=A (m:A)",
        "wrapper=B (m:B) {'k': 2}",
    ]


def test_spec_make_accepts_max_episode_steps() -> None:
    spec = EnvSpec("Tiny-v0", entry_point=TinyEnv, max_episode_steps=4, kwargs={"size": 3})
    env = spec.make()
    assert isinstance(env, TimeLimit) and env.max_episode_steps == 4
    assert env.unwrapped.observation_space == Discrete(3)
    longer = spec.make(max_episode_steps=9, size=5)
    assert longer.get_attr("max_episode_steps") == 9
    assert longer.spec is not None and longer.spec.kwargs == {"size": 5}
    assert isinstance(spec.make(max_episode_steps=-1), TinyEnv)


def test_load_entry_point() -> None:
    assert load_entry_point("sekai.wrappers.common:TimeLimit") is TimeLimit
    assert load_entry_point("os.path:join.__name__") == "join"  # dotted attribute path
    with pytest.raises(ValueError, match=r"module\.path:Attr"):
        load_entry_point("sekai.wrappers.TimeLimit")
    with pytest.raises(ValueError, match=r"module\.path:Attr"):
        load_entry_point(":TimeLimit")
    with pytest.raises(ModuleNotFoundError, match="'os:path'"):
        load_entry_point("os:path:join")  # split at the last colon
    with pytest.raises(AttributeError, match="NoSuchThing"):
        load_entry_point("sekai.wrappers:NoSuchThing")
