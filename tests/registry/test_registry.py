"""Tests for EnvRegistry, make() and the module-level registry functions."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

import pytest

import sekai.registry
from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.error import EnvAlreadyRegistered, EnvNotFound, SekaiError
from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec
from sekai.registry.registry import default_registry
from sekai.spaces import Discrete
from sekai.wrappers import OrderEnforcing, TimeLimit

HERE = __name__


class CountingEnv(Env[int, int]):
    """Counts steps; refuses unknown constructor arguments (max_episode_steps included)."""

    def __init__(self, size: int = 4, bonus: float = 0.0) -> None:
        self.size = size
        self.bonus = bonus
        self.observation_space = Discrete(size + 1)
        self.action_space = Discrete(2)
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        self.t += 1
        return StepResult(self.t, 1.0 + self.bonus, self.t >= self.size, False, {})


class Tag(Wrapper[int, int, int, int]):
    def __init__(self, env: Env[int, int], label: str = "") -> None:
        super().__init__(env)
        self.label = label


class OtherTag(Tag):
    pass


def make_wrapped(**kwargs: Any) -> Env[int, int]:
    return OrderEnforcing(CountingEnv(**kwargs))


def not_an_env(**kwargs: Any) -> object:
    return object()


@pytest.fixture
def reg() -> EnvRegistry:
    registry = EnvRegistry()
    registry.register("Counting-v0", f"{HERE}:CountingEnv", max_episode_steps=3)
    registry.register("Counting-v1", CountingEnv, kwargs={"size": 2})
    registry.register("games/Maze-v0", CountingEnv, reward_threshold=1.0)
    return registry


def test_all() -> None:
    assert sekai.registry.__all__ == [
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


# registration ---------------------------------------------------------------------------------


def test_register_returns_stored_spec(reg: EnvRegistry) -> None:
    spec = reg.register(
        "New-v0",
        "some.module:Env",
        reward_threshold=2.0,
        nondeterministic=True,
        max_episode_steps=10,
        additional_wrappers=(WrapperSpec("T", f"{HERE}:Tag"),),
        vector_entry_point="some.module:VecEnv",
    )
    assert reg.spec("New-v0") is spec
    assert spec == EnvSpec(
        "New-v0",
        "some.module:Env",
        2.0,
        True,
        10,
        {},
        (WrapperSpec("T", f"{HERE}:Tag"),),
        "some.module:VecEnv",
    )
    assert reg.spec("Counting-v0").kwargs == {}


def test_register_duplicate(reg: EnvRegistry) -> None:
    with pytest.raises(EnvAlreadyRegistered, match="Counting-v0"):
        reg.register("Counting-v0", CountingEnv)
    assert len(reg) == 3


def test_entry_point_not_validated_at_registration(reg: EnvRegistry) -> None:
    reg.register("NoColon-v0", "no_colon_here")
    reg.register("Number-v0", 42)  # type: ignore[arg-type]
    reg.register("Missing-v0", "sekai_no_such_module_xyz:Env")
    with pytest.raises(ValueError, match=r"module\.path:Attr"):
        reg.make("NoColon-v0")
    with pytest.raises(TypeError, match="string or a callable"):
        reg.make("Number-v0")
    with pytest.raises(ModuleNotFoundError, match="sekai_no_such_module_xyz"):
        reg.make("Missing-v0")


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((5, CountingEnv), {}, TypeError, "id must be a str"),
        (("bad id!", CountingEnv), {}, ValueError, "Malformed environment id"),
        (("a/b/c", CountingEnv), {}, ValueError, "Malformed environment id"),
        (("X-v0", CountingEnv), {"max_episode_steps": 0}, ValueError, "max_episode_steps"),
        (("X-v0", CountingEnv), {"max_episode_steps": -1}, ValueError, "max_episode_steps"),
        (("X-v0", CountingEnv), {"max_episode_steps": "10"}, TypeError, "max_episode_steps"),
        (("X-v0", CountingEnv), {"kwargs": [1]}, TypeError, "kwargs"),
        (("X-v0", CountingEnv), {"reward_threshold": "x"}, TypeError, "reward_threshold"),
        (("X-v0", CountingEnv), {"additional_wrappers": ["m:W"]}, TypeError, "WrapperSpec"),
    ],
)
def test_register_bad_input(
    reg: EnvRegistry,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    exc: type[Exception],
    match: str,
) -> None:
    with pytest.raises(exc, match=match):
        reg.register(*args, **kwargs)
    assert len(reg) == 3


def test_deregister(reg: EnvRegistry) -> None:
    reg.deregister("Counting-v1")
    assert "Counting-v1" not in reg
    with pytest.raises(EnvNotFound) as info:
        reg.deregister("Counting-v1")
    assert info.value.suggestions == ("Counting-v0",)
    with pytest.raises(TypeError):
        reg.deregister(None)  # type: ignore[arg-type]


# lookup ---------------------------------------------------------------------------------------


def test_spec_not_found_suggestions(reg: EnvRegistry) -> None:
    with pytest.raises(EnvNotFound) as info:
        reg.spec("Countin-v2")
    ids = [s.id for s in reg.all_specs()]
    expected = difflib.get_close_matches("Countin-v2", ids, n=3, cutoff=0.6)
    assert expected  # the example is meaningful
    assert info.value.suggestions == tuple(expected)
    assert info.value.id == "Countin-v2"
    assert "Did you mean" in str(info.value)
    with pytest.raises(EnvNotFound) as far:
        reg.spec("Zzzzzzzzzz")
    assert far.value.suggestions == ()
    assert "Did you mean" not in str(far.value)


def test_container_protocol_and_order(reg: EnvRegistry) -> None:
    assert "Counting-v0" in reg and "Nope" not in reg and 5 not in reg
    assert len(reg) == 3
    assert [s.id for s in reg.all_specs()] == ["Counting-v0", "Counting-v1", "games/Maze-v0"]
    assert repr(reg) == "EnvRegistry(3 environments)"
    assert repr(EnvRegistry()) == "EnvRegistry(0 environments)"


def test_pprint(reg: EnvRegistry) -> None:
    reg.register("games/Alpha", CountingEnv)
    reg.register("Aardvark-v0", CountingEnv)
    reg.register("zoo/Yak-v1", CountingEnv)
    assert reg.pprint() == "\n".join(
        [
            "Registered environments:",
            "  [no namespace]",
            "    Aardvark-v0",
            "    Counting-v0",
            "    Counting-v1",
            "  [games]",
            "    games/Alpha",
            "    games/Maze-v0",
            "  [zoo]",
            "    zoo/Yak-v1",
        ]
    )
    assert EnvRegistry().pprint() == "Registered environments:"


def test_namespace_loader_runs_once_after_success() -> None:
    reg = EnvRegistry()
    calls: list[int] = []

    def loader() -> None:
        calls.append(1)
        reg.register("lazy/Env-v0", CountingEnv)

    reg.register_namespace("lazy", loader)
    assert "lazy/Env-v0" not in reg  # registration is deferred
    with pytest.raises(EnvNotFound):
        reg.spec("lazyEnv-v0")  # no '/': the loader is not consulted
    assert calls == []
    assert reg.spec("lazy/Env-v0").id == "lazy/Env-v0"
    assert calls == [1]
    with pytest.raises(EnvNotFound):
        reg.spec("lazy/Missing-v0")  # the loader has been dropped
    assert calls == [1]
    assert isinstance(reg.make("lazy/Env-v0"), CountingEnv)


def test_raising_namespace_loader_is_retried() -> None:
    reg = EnvRegistry()
    attempts: list[int] = []

    def flaky() -> None:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("network down")
        reg.register("flaky/Env-v0", CountingEnv)

    reg.register_namespace("flaky", flaky)
    with pytest.raises(RuntimeError, match="network down"):
        reg.spec("flaky/Env-v0")
    assert reg.spec("flaky/Env-v0").id == "flaky/Env-v0"
    assert len(attempts) == 2


def test_namespace_loader_not_run_for_registered_id(reg: EnvRegistry) -> None:
    called: list[int] = []
    reg.register_namespace("games", lambda: called.append(1))
    reg.spec("games/Maze-v0")
    assert called == []


def test_register_namespace_validation() -> None:
    reg = EnvRegistry()
    with pytest.raises(ValueError, match="namespace"):
        reg.register_namespace("a/b", lambda: None)
    with pytest.raises(TypeError, match="namespace"):
        reg.register_namespace(3, lambda: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="loader"):
        reg.register_namespace("ok", "not callable")  # type: ignore[arg-type]


# make -----------------------------------------------------------------------------------------


def test_make_time_limit_and_spec(reg: EnvRegistry) -> None:
    env = reg.make("Counting-v0", size=5)
    assert isinstance(env, TimeLimit) and env.max_episode_steps == 3
    assert isinstance(env.env, CountingEnv) and env.env.size == 5
    registered = reg.spec("Counting-v0")
    assert env.spec is not registered
    assert env.spec == EnvSpec(
        "Counting-v0", f"{HERE}:CountingEnv", max_episode_steps=3, kwargs={"size": 5}
    )
    assert registered.kwargs == {}  # the registry entry is untouched
    assert str(env) == "<TimeLimit(<Counting-v0>)>"
    clone = env.spec.make()
    assert isinstance(clone, TimeLimit) and clone.unwrapped.size == 5  # type: ignore[attr-defined]
    assert clone.spec == env.spec


def test_make_merges_kwargs(reg: EnvRegistry) -> None:
    env = reg.make("Counting-v1", bonus=0.5)
    assert isinstance(env, CountingEnv)
    assert (env.size, env.bonus) == (2, 0.5)
    assert env.spec is not None and env.spec.kwargs == {"size": 2, "bonus": 0.5}
    override = reg.make("Counting-v1", size=7)
    assert override.spec is not None and override.spec.kwargs == {"size": 7}


def test_make_max_episode_steps_override(reg: EnvRegistry) -> None:
    unlimited = reg.make("Counting-v0", max_episode_steps=-1)
    assert isinstance(unlimited, CountingEnv)
    assert unlimited.spec is not None and unlimited.spec.max_episode_steps is None
    assert isinstance(unlimited.spec.make(), CountingEnv)
    seven = reg.make("Counting-v1", max_episode_steps=7)
    assert isinstance(seven, TimeLimit) and seven.max_episode_steps == 7
    assert seven.spec is not None and seven.spec.max_episode_steps == 7
    assert "max_episode_steps" not in seven.spec.kwargs
    seven.reset()
    results = [seven.step(0) for _ in range(2)]
    assert results[-1].terminated and results[-1].info == {"elapsed_steps": 2}


@pytest.mark.parametrize(
    ("steps", "exc"),
    [(0, ValueError), (-2, ValueError), (-2.0, ValueError), ("5", TypeError), (2.5, TypeError)],
)
def test_make_bad_max_episode_steps(reg: EnvRegistry, steps: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc, match="max_episode_steps"):
        reg.make("Counting-v0", max_episode_steps=steps)


def test_make_bad_id(reg: EnvRegistry) -> None:
    with pytest.raises(TypeError, match="id must be a str"):
        reg.make(42)  # type: ignore[arg-type]
    with pytest.raises(EnvNotFound, match="Did you mean") as info:
        reg.make("Counting v0")
    assert isinstance(info.value, SekaiError)
    assert "Counting-v0" in info.value.suggestions


def test_make_unregistered_spec_and_missing_entry_point(reg: EnvRegistry) -> None:
    spec = EnvSpec("Elsewhere-v0", entry_point=CountingEnv, kwargs={"size": 1})
    env = reg.make(spec)
    assert isinstance(env, CountingEnv) and env.size == 1
    assert "Elsewhere-v0" not in reg
    with pytest.raises(EnvNotFound, match="Ghost-v0"):
        reg.make(EnvSpec("Ghost-v0"))


def test_make_spec_lands_on_base_env(reg: EnvRegistry) -> None:
    reg.register("Wrapped-v0", make_wrapped, kwargs={"size": 2})
    env = reg.make("Wrapped-v0")
    assert isinstance(env, OrderEnforcing)
    assert env.unwrapped.spec is env.spec
    assert env.spec is not None and env.spec.kwargs == {"size": 2}


def test_make_rejects_non_env_result(reg: EnvRegistry) -> None:
    reg.register("Junk-v0", not_an_env)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"not a sekai\.Env"):
        reg.make("Junk-v0")


def test_make_additional_wrappers_in_order(reg: EnvRegistry) -> None:
    reg.register(
        "Layered-v0",
        CountingEnv,
        max_episode_steps=5,
        additional_wrappers=(
            WrapperSpec("Tag", f"{HERE}:Tag", {"label": "inner"}),
            WrapperSpec("OtherTag", f"{HERE}:OtherTag", {"label": "outer"}),
        ),
    )
    env = reg.make("Layered-v0")
    assert [type(layer) for layer in env] == [OtherTag, Tag, TimeLimit, CountingEnv]  # type: ignore[attr-defined]
    assert [layer.label for layer in env if isinstance(layer, Tag)] == ["outer", "inner"]  # type: ignore[attr-defined]
    assert env.spec is not None
    rebuilt = env.spec.make()
    assert [type(layer) for layer in rebuilt] == [OtherTag, Tag, TimeLimit, CountingEnv]  # type: ignore[attr-defined]


def test_make_bad_wrapper_entry_point(reg: EnvRegistry) -> None:
    reg.register("BadWrap-v0", CountingEnv, additional_wrappers=(WrapperSpec("W", "nocolon"),))
    with pytest.raises(ValueError, match=r"module\.path:Attr"):
        reg.make("BadWrap-v0")


# module-level functions ---------------------------------------------------------------------


@pytest.fixture
def global_ids() -> Iterator[list[str]]:
    ids: list[str] = []
    yield ids
    for id in ids:
        if id in default_registry:
            sekai.registry.deregister(id)


def test_global_functions(global_ids: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    id = "sekai_test_registry/Counting-v0"
    global_ids.append(id)
    spec = sekai.registry.register(
        id, f"{HERE}:CountingEnv", max_episode_steps=2, kwargs={"size": 3}
    )
    assert sekai.registry.spec(id) is spec
    assert spec in sekai.registry.all_specs()
    env = sekai.registry.make(id, bonus=1.0)
    assert isinstance(env, TimeLimit)
    assert env.spec is not None and env.spec.kwargs == {"size": 3, "bonus": 1.0}
    assert isinstance(sekai.registry.make(id, max_episode_steps=-1), CountingEnv)
    sekai.registry.pprint_registry()
    out = capsys.readouterr().out
    assert out.startswith("Registered environments:\n")
    assert "  [sekai_test_registry]\n    sekai_test_registry/Counting-v0\n" in out
    with pytest.raises(EnvAlreadyRegistered):
        sekai.registry.register(id, CountingEnv)
    sekai.registry.deregister(id)
    with pytest.raises(EnvNotFound):
        sekai.registry.spec(id)


def test_global_register_namespace(global_ids: list[str]) -> None:
    id = "sekai_test_lazy_ns/Counting-v0"
    global_ids.append(id)
    sekai.registry.register_namespace(
        "sekai_test_lazy_ns", lambda: sekai.registry.register(id, CountingEnv)
    )
    assert isinstance(sekai.registry.make(id), CountingEnv)
