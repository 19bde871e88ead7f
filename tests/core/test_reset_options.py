"""reset(options=...) on every built-in env: unknown keys warn once, bad types raise."""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import sekai
import sekai.core.options
from sekai.core.options import check_options_type, check_reset_options, check_reset_options_each
from sekai.envs.finance import LimitOrderBookMarket

#: Options each registered env understands, with values that leave its defaults valid.
KNOWN: dict[str, dict[str, Any]] = {
    "CartPole-v1": {"low": -0.01, "high": 0.01},
    "MountainCar-v0": {"low": -0.55, "high": -0.45},
    "MountainCarContinuous-v0": {"low": -0.55, "high": -0.45},
    "Pendulum-v1": {"x_init": 0.5, "y_init": 0.5},
    "Acrobot-v1": {"low": -0.05, "high": 0.05},
    "Trading-v0": {"start": None, "random_start": False},
    "Trading-v1": {"start": None, "random_start": True},
    "Portfolio-v0": {"start": None, "random_start": False},
    "Portfolio-v1": {"start": None, "random_start": True},
    "Market-v0": {"start": None},
    "MarketDiscrete-v0": {"start": None},
    "MarketMaking-v0": {"random_start": False},
    "MarketMaking-v1": {"random_start": True},
    "OptimalExecution-v0": {"random_start": False},
    "OptimalExecution-v1": {"random_start": True},
    "LimitOrderBook-v0": {},
}
#: Keys the single env understands besides those of KNOWN: the span of one history episode
#: (its native vector env, whose sub-envs share ``episode_length``, refuses it).
WINDOWED = ("Trading-v0", "Trading-v1", "Portfolio-v0", "Portfolio-v1", "Market-v0")
SINGLE_ONLY = {id: ("end",) for id in (*WINDOWED, "MarketDiscrete-v0")}
IDS = [spec.id for spec in sekai.all_specs()]
VECTOR_IDS = [spec.id for spec in sekai.all_specs() if spec.vector_entry_point is not None]
CASES = [pytest.param(id, False, id=id) for id in IDS] + [
    pytest.param(id, True, id=f"{id}-native-vector") for id in VECTOR_IDS
]
UNKNOWN = "no_such_option"


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Forget which (class, key) pairs have warned, so each test sees the first time."""
    monkeypatch.setattr(sekai.core.options, "_warned", set())
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        yield


def _user_warnings(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, UserWarning)]


def _build(id: str, vector: bool) -> Any:
    return sekai.make_vec(id, 3) if vector else sekai.make(id)


def test_every_registered_id_is_covered() -> None:
    assert sorted(IDS) == sorted(KNOWN)


@pytest.mark.parametrize(("id", "vector"), CASES)
def test_unknown_key_warns_once(id: str, vector: bool) -> None:
    env = _build(id, vector)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for seed in (0, 1, None):
            env.reset(seed=seed, options={**KNOWN[id], UNKNOWN: 1})
        env.reset(seed=0)
    messages = _user_warnings(record)
    assert len(messages) == 1, messages
    name = type(env.unwrapped).__name__
    assert messages[0].startswith(f"{name}.reset() ignores the unknown option {UNKNOWN!r}")
    if KNOWN[id]:
        keys = [*KNOWN[id], *(() if vector else SINGLE_ONLY.get(id, ()))]
        assert messages[0].endswith("it understands only " + ", ".join(map(repr, keys)) + ".")
    else:
        assert messages[0].endswith("it understands no options.")
    # A second unknown key is a new (class, key) pair: it warns once too.
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        env.reset(options={"other": 1, UNKNOWN: 2})
        env.reset(options={"other": 1})
    assert _user_warnings(record) == [messages[0].replace(repr(UNKNOWN), "'other'")]


@pytest.mark.parametrize(("id", "vector"), CASES)
def test_known_keys_do_not_warn(id: str, vector: bool) -> None:
    env = _build(id, vector)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        env.reset(seed=0, options=KNOWN[id])
        env.reset(seed=0, options={})
        env.reset(seed=0, options=types.MappingProxyType(dict(KNOWN[id])))
        env.reset(seed=0)
    assert _user_warnings(record) == []


@pytest.mark.parametrize("options", ["low", 3, ["start"], ("start", 1), np.zeros(2)])
@pytest.mark.parametrize("id", IDS)
def test_options_that_are_not_a_mapping_raise(id: str, options: Any) -> None:
    env = sekai.make(id)
    with pytest.raises(TypeError, match="options must be a mapping"):
        env.reset(options=options)


@pytest.mark.parametrize("id", VECTOR_IDS)
def test_native_vector_options_entries_must_be_mappings(id: str) -> None:
    vec = sekai.make_vec(id, 2)
    for options in ("start", 5, [{}, "start"], [None, 3]):
        with pytest.raises(TypeError, match="options must be a mapping"):
            vec.reset(options=options)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        vec.reset(seed=0, options=[None, {UNKNOWN: 1}])
    assert len(_user_warnings(record)) == 1


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_other_vector_backends_check_the_options_type_first(mode: str) -> None:
    with sekai.make_vec("CartPole-v1", 2, vectorization_mode=mode) as vec:
        first = vec.reset(seed=3).observations
        with pytest.raises(TypeError, match="options must be a mapping"):
            vec.reset(seed=9, options=[{}, "low"])
        np.testing.assert_array_equal(vec.reset(seed=3).observations, first)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            vec.reset(options={UNKNOWN: 1})
    assert len(_user_warnings(record)) == 1  # one process, one CartPoleEnv class


def test_multi_agent_book_warns_too() -> None:
    market = LimitOrderBookMarket()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        market.reset(seed=0, options={UNKNOWN: 1})
        market.reset(seed=0, options={UNKNOWN: 1})
        market.reset(seed=0, options={})
    assert _user_warnings(record) == [
        f"LimitOrderBookMarket.reset() ignores the unknown option {UNKNOWN!r}; "
        "it understands no options."
    ]
    with pytest.raises(TypeError, match="options must be a mapping"):
        market.reset(options="x")


def test_autoreset_steps_do_not_check_options(monkeypatch: pytest.MonkeyPatch) -> None:
    vec = sekai.make_vec("MarketMaking-v0", 4, n_steps=2)
    with pytest.warns(UserWarning, match=UNKNOWN):
        vec.reset(seed=0, options={UNKNOWN: 1})

    def fail(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("options were checked on an autoreset")

    monkeypatch.setattr(sekai.core.options, "check_reset_options", fail)
    for _ in range(5):  # episodes of 2 steps: autoreset runs with None options
        vec.step(np.zeros((4, 2)))


def test_helper_contract() -> None:
    class Probe:
        pass

    probe = Probe()
    assert check_reset_options(probe, None, ("a",)) is None
    given = {"a": 1}
    assert check_reset_options(probe, given, ("a",)) is given
    assert check_options_type(None) is None
    with pytest.raises(TypeError, match="got list"):
        check_options_type([])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        check_reset_options_each(probe, [None, {"b": 1}, {"b": 2}], ("a",))
        check_reset_options(Probe(), {"b": 3}, ("a",))  # same class, same key
    assert _user_warnings(record) == [
        "Probe.reset() ignores the unknown option 'b'; it understands only 'a'."
    ]


def test_a_warning_turned_into_an_error_raises_every_time() -> None:
    env = sekai.make("CartPole-v1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        for _ in range(2):
            with pytest.raises(UserWarning, match=UNKNOWN):
                env.reset(options={UNKNOWN: 1})
