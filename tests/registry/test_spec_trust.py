"""Specs read from JSON only reach registered entry points; entry point results are checked."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import subprocess
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec
from sekai.registry.spec import DataEntryPoint
from sekai.spaces import Discrete
from sekai.vector import SyncVecEnv

HERE = __name__

#: Every call that reached ``record_call`` (or a patched ``os.system`` / ``subprocess.call``).
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []


def record_call(*args: Any, **kwargs: Any) -> int:
    """Stands for code that must never run: remembers that it was called."""
    CALLS.append(("record_call", args, kwargs))
    return 0


class PlainEnv(Env[int, int]):
    def __init__(self, size: int = 3) -> None:
        self.size = size
        self.observation_space = Discrete(size + 1)
        self.action_space = Discrete(2)
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        self.t += 1
        return StepResult(self.t, 1.0, self.t >= self.size, False, {})


class Marker(Wrapper[int, int, int, int]):
    def __init__(self, env: Env[int, int], label: str = "") -> None:
        super().__init__(env)
        self.label = label


def recording_env(**kwargs: Any) -> PlainEnv:
    """An entry point that records its call and builds a real env."""
    CALLS.append(("recording_env", (), kwargs))
    return PlainEnv(**kwargs)


def returns_int(**kwargs: Any) -> int:
    return 42


def wrapper_returns_none(env: Env[Any, Any], **kwargs: Any) -> None:
    return None


def vec_returns_list(num_envs: int, **kwargs: Any) -> list[int]:
    return [0] * num_envs


def plain_sync_vec(num_envs: int, **kwargs: Any) -> SyncVecEnv[Any, Any]:
    return SyncVecEnv([lambda: PlainEnv(**kwargs)] * num_envs)


@pytest.fixture(autouse=True)
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Replace ``os.system`` and ``subprocess.call`` by recorders; clear the record."""

    def fake(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> int:
            CALLS.append((name, args, kwargs))
            return 0

        return call

    monkeypatch.setattr(os, "system", fake("os.system"))
    monkeypatch.setattr(subprocess, "call", fake("subprocess.call"))
    CALLS.clear()
    yield CALLS
    CALLS.clear()


@pytest.fixture
def registered() -> Iterator[str]:
    """``trust/Plain-v0`` in the default registry, with a string entry point and a wrapper."""
    id = "trust/Plain-v0"
    sekai.register(
        id,
        f"{HERE}:PlainEnv",
        kwargs={"size": 2},
        additional_wrappers=(WrapperSpec("Marker", f"{HERE}:Marker", {"label": "x"}),),
        vector_entry_point=f"{HERE}:plain_sync_vec",
    )
    yield id
    sekai.deregister(id)


def _json(id: str, entry_point: str | None = None, **extra: Any) -> str:
    data: dict[str, Any] = {"id": id, **extra}
    if entry_point is not None:
        data["entry_point"] = entry_point
    return json.dumps(data)


HOSTILE = ["os:system", "subprocess:call", f"{HERE}:record_call"]


@pytest.mark.parametrize("entry_point", HOSTILE)
@pytest.mark.parametrize("id", ["CartPole-v1", "Nowhere-v0"])
def test_json_entry_point_not_registered_is_refused(
    entry_point: str, id: str, recorded: list[Any]
) -> None:
    spec = EnvSpec.from_json(_json(id, entry_point, kwargs={"command": "echo hacked"}))
    with pytest.raises(ValueError, match="trust_entry_points=True") as info:
        sekai.make(spec)
    assert repr(entry_point) in str(info.value)
    with pytest.raises(ValueError, match="read from JSON"):
        spec.make()
    with pytest.raises(ValueError, match="trust_entry_points"):
        sekai.make_vec(spec, 2)
    with pytest.raises(ValueError, match="trust_entry_points"):
        EnvRegistry().make(spec)
    assert recorded == []


def test_refusal_names_the_reason(registered: str) -> None:
    unknown = EnvSpec.from_json(_json("Nowhere-v0", "os:system"))
    with pytest.raises(ValueError, match="'Nowhere-v0' is not registered"):
        sekai.make(unknown)
    other = EnvSpec.from_json(_json(registered, "os:system"))
    with pytest.raises(ValueError, match=f"registered: '{HERE}:PlainEnv'"):
        sekai.make(other)


@pytest.mark.parametrize("entry_point", HOSTILE)
def test_json_wrapper_entry_point_not_registered_is_refused(
    entry_point: str, registered: str, recorded: list[Any]
) -> None:
    wrappers = [{"name": "Evil", "entry_point": entry_point, "kwargs": {"command": "ls"}}]
    text = _json(registered, f"{HERE}:PlainEnv", additional_wrappers=wrappers)
    with pytest.raises(ValueError, match="additional_wrappers\\[0\\] \\('Evil'\\)"):
        sekai.make(EnvSpec.from_json(text))
    with pytest.raises(ValueError, match="no registered wrapper"):
        sekai.make_vec(EnvSpec.from_json(text), 2)
    assert recorded == []


@pytest.mark.parametrize("entry_point", HOSTILE)
def test_json_vector_entry_point_not_registered_is_refused(
    entry_point: str, registered: str, recorded: list[Any]
) -> None:
    text = _json(registered, f"{HERE}:PlainEnv", vector_entry_point=entry_point)
    for mode in ("native", "sync", None):
        with pytest.raises(ValueError, match="vector_entry_point"):
            sekai.make_vec(EnvSpec.from_json(text), 2, vectorization_mode=mode)
    with pytest.raises(ValueError, match="vector_entry_point"):
        sekai.make(EnvSpec.from_json(text))
    assert recorded == []


def test_registered_entry_points_from_json_are_used(registered: str) -> None:
    spec = EnvSpec.from_json(sekai.spec(registered).to_json())
    assert isinstance(spec.entry_point, DataEntryPoint)
    assert all(isinstance(w.entry_point, DataEntryPoint) for w in spec.additional_wrappers)
    env = sekai.make(spec)
    assert isinstance(env, Marker) and env.label == "x"
    assert isinstance(env.unwrapped, PlainEnv) and env.unwrapped.size == 2
    assert env.spec is not None
    assert isinstance(env.spec.make().unwrapped, PlainEnv)
    assert sekai.make_vec(spec, 2, vectorization_mode="sync").num_envs == 2
    builtin = EnvSpec.from_json(sekai.spec("Trading-v0").to_json())
    assert sekai.make_vec(builtin, 2).num_envs == 2
    assert sekai.make(EnvSpec.from_json(sekai.spec("CartPole-v1").to_json())).spec is not None


def test_a_registered_wrapper_may_be_applied_to_another_id(registered: str) -> None:
    wrappers = [{"name": "Marker", "entry_point": f"{HERE}:Marker", "kwargs": {"label": "y"}}]
    data = json.loads(sekai.spec("CartPole-v1").to_json())
    data["additional_wrappers"] = wrappers
    spec = EnvSpec.from_json(json.dumps(data))
    env = sekai.make(spec)
    assert isinstance(env, Marker) and env.label == "y"


def test_a_custom_registry_checks_against_itself(recorded: list[Any]) -> None:
    reg = EnvRegistry()
    reg.register("Rec-v0", f"{HERE}:recording_env")
    spec = EnvSpec.from_json(_json("Rec-v0", f"{HERE}:recording_env"))
    assert isinstance(reg.make(spec).unwrapped, PlainEnv)
    assert [name for name, _, _ in recorded] == ["recording_env"]
    with pytest.raises(ValueError, match="not registered"):
        sekai.make(spec)  # the default registry does not know Rec-v0
    assert len(recorded) == 1


def test_the_refusal_survives_copies(recorded: list[Any]) -> None:
    spec = EnvSpec.from_json(_json("CartPole-v1", f"{HERE}:record_call"))
    copies = [
        dataclasses.replace(spec, kwargs={"a": 1}),
        pickle.loads(pickle.dumps(spec)),
        EnvSpec.from_json(spec.to_json()),
    ]
    for copy in copies:
        with pytest.raises(ValueError, match="trust_entry_points"):
            sekai.make(copy)
    assert recorded == []


def test_trust_entry_points_opts_in(recorded: list[Any]) -> None:
    text = _json("Unregistered-v0", f"{HERE}:recording_env", kwargs={"size": 5})
    spec = EnvSpec.from_json(text, trust_entry_points=True)
    assert type(spec.entry_point) is str
    env = sekai.make(spec)
    assert isinstance(env, PlainEnv) and env.size == 5
    assert [name for name, _, _ in recorded] == ["recording_env"]
    assert spec == EnvSpec.from_json(text)  # the flag does not change equality
    with pytest.raises(TypeError, match="trust_entry_points must be a bool"):
        EnvSpec.from_json(text, trust_entry_points="yes")  # type: ignore[arg-type]
    assert EnvSpec.from_json(text, trust_entry_points=np.bool_(False)) == spec


def test_entry_points_set_in_code_stay_allowed(recorded: list[Any]) -> None:
    reg = EnvRegistry()
    reg.register("Code-v0", f"{HERE}:recording_env")
    assert isinstance(reg.make("Code-v0"), PlainEnv)
    # A spec written in code (not read from data) may name any entry point.
    assert isinstance(sekai.make(EnvSpec("Free-v0", f"{HERE}:recording_env")), PlainEnv)
    edited = dataclasses.replace(
        EnvSpec.from_json(_json("Free-v0", "os:system")), entry_point=f"{HERE}:recording_env"
    )
    assert isinstance(sekai.make(edited), PlainEnv)
    assert [name for name, _, _ in recorded] == ["recording_env"] * 3


def test_env_entry_point_result_is_type_checked() -> None:
    reg = EnvRegistry()
    reg.register("Int-v0", f"{HERE}:returns_int")
    reg.register("IntCallable-v0", returns_int)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=f"Entry point '{HERE}:returns_int' of 'Int-v0' returned int 42"
    ):
        reg.make("Int-v0")
    with pytest.raises(TypeError, match=f"{HERE}.returns_int of 'IntCallable-v0' returned int"):
        reg.make("IntCallable-v0")


def test_wrapper_entry_point_result_is_type_checked() -> None:
    reg = EnvRegistry()
    reg.register(
        "Wrapped-v0",
        PlainEnv,
        additional_wrappers=(WrapperSpec("Nothing", f"{HERE}:wrapper_returns_none"),),
    )
    with pytest.raises(
        TypeError,
        match=f"Wrapper 'Nothing' entry point '{HERE}:wrapper_returns_none' returned NoneType None",
    ):
        reg.make("Wrapped-v0")


def test_vector_entry_point_result_is_type_checked() -> None:
    sekai.register("trust/VecList-v0", PlainEnv, vector_entry_point=f"{HERE}:vec_returns_list")
    try:
        with pytest.raises(TypeError, match=f"'{HERE}:vec_returns_list'.*returned list"):
            sekai.make_vec("trust/VecList-v0", 2)
    finally:
        sekai.deregister("trust/VecList-v0")
