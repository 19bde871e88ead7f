"""The infos of a NativeVecEnv: a lazy list that reads exactly like a list of dicts."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np
import pytest
from drift_envs import FrozenAwareDrift

from sekai.vector import stack_infos
from sekai.vector.native import LazyInfos


def stepped(max_episode_steps: int | None = 10) -> Any:
    vec = FrozenAwareDrift(3, max_episode_steps=max_episode_steps)
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}, {"x": 1.0}])
    return vec.step(np.array([1, 0, 0])).infos


def simple() -> LazyInfos:
    return LazyInfos(3, {"a": np.array([1, 2, 3]), "b": np.array([0.5, 1.5, 2.5])})


EXPECTED = [{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}, {"a": 3, "b": 2.5}]


def test_is_a_list_built_only_on_first_read() -> None:
    infos = stepped()
    assert isinstance(infos, list) and isinstance(infos, LazyInfos)
    assert not infos._filled and list.__len__(infos) == 0
    assert len(infos) == 3 and bool(infos)
    assert not infos._filled
    infos[0]
    assert infos._filled and list.__len__(infos) == 3


def test_indexing_negative_and_slices() -> None:
    assert simple()[0] == EXPECTED[0]
    assert simple()[-1] == EXPECTED[-1]
    sliced = simple()[1:]
    assert sliced == EXPECTED[1:] and type(sliced) is list
    assert simple()[::-1] == EXPECTED[::-1]
    with pytest.raises(IndexError):
        simple()[3]


def test_iteration_and_unpacking() -> None:
    assert [info for info in simple()] == EXPECTED
    a, b, c = simple()
    assert [a, b, c] == EXPECTED
    assert list(enumerate(simple()))[2] == (2, EXPECTED[2])
    assert list(reversed(simple())) == EXPECTED[::-1]
    assert tuple(simple()) == tuple(EXPECTED)
    assert sorted(simple(), key=lambda i: -i["a"]) == EXPECTED[::-1]


def test_equality_both_orders() -> None:
    assert simple() == EXPECTED
    assert EXPECTED == simple()  # noqa: SIM300 - the reflected operand order is the point
    assert simple() != EXPECTED[:2]
    assert EXPECTED[:2] != simple()
    assert simple() == simple()
    assert not (simple() != simple())  # noqa: SIM202 - exercises __ne__


def test_repr_print_and_str(capsys: pytest.CaptureFixture[str]) -> None:
    assert repr(simple()) == repr(EXPECTED)
    assert str(simple()) == str(EXPECTED)
    assert f"{simple()}" == str(EXPECTED)
    print(simple())
    assert capsys.readouterr().out == f"{EXPECTED}\n"


def test_list_and_copy() -> None:
    built = list(simple())
    assert built == EXPECTED and type(built) is list
    assert simple().copy() == EXPECTED


def test_json_dumps_with_and_without_indent() -> None:
    assert json.dumps(simple()) == json.dumps(EXPECTED)
    assert json.dumps(simple(), indent=2) == json.dumps(EXPECTED, indent=2)
    assert json.dumps({"infos": simple()}) == json.dumps({"infos": EXPECTED})


def test_copy_and_deepcopy() -> None:
    infos = simple()
    shallow = copy.copy(infos)
    assert shallow == EXPECTED and shallow[0] is infos[0]
    deep = copy.deepcopy(simple())
    assert deep == EXPECTED and type(deep) is list
    deep[0]["a"] = 100
    assert EXPECTED[0]["a"] == 1


def test_pickling() -> None:
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(simple(), protocol=protocol))
        assert restored == EXPECTED and type(restored) is list


def test_membership_and_search() -> None:
    assert EXPECTED[1] in simple()
    assert {"a": 9} not in simple()
    assert simple().index(EXPECTED[2]) == 2
    assert simple().count(EXPECTED[0]) == 1


def test_concatenation_and_repetition() -> None:
    assert simple() + [{}] == [*EXPECTED, {}]  # noqa: RUF005 - exercises __add__
    assert [{}] + simple() == [{}, *EXPECTED]  # noqa: RUF005 - exercises __radd__
    assert simple() * 2 == EXPECTED * 2
    assert 2 * simple() == EXPECTED * 2
    both = simple()
    both += [{}]
    assert both == [*EXPECTED, {}]


def test_mutations_after_lazy_construction() -> None:
    infos = simple()
    infos.append({"c": 1})
    assert infos == [*EXPECTED, {"c": 1}] and len(infos) == 4
    infos = simple()
    infos[0]["a"] = 10
    assert infos[0]["a"] == 10
    infos = simple()
    del infos[0]
    assert infos == EXPECTED[1:]
    infos = simple()
    infos.insert(0, {})
    assert infos[0] == {} and len(infos) == 4
    infos = simple()
    assert infos.pop() == EXPECTED[-1] and len(infos) == 2


def test_stack_infos_reads_it() -> None:
    assert stack_infos(simple())["a"].tolist() == [1, 2, 3]


def test_autoreset_entries_are_built() -> None:
    infos = stepped()
    assert sorted(infos[0]) == [
        "elapsed_steps",
        "final_info",
        "final_observation",
        "pair",
        "reset_info",
        "x",
    ]
    assert infos[0]["final_info"] is not infos[0]
    assert infos[0]["final_info"]["elapsed_steps"] == 1
    assert sorted(infos[1]) == ["elapsed_steps", "pair", "x"]


def test_private_arrays_and_column() -> None:
    infos = stepped()
    assert infos._final_indices.tolist() == [0]
    assert infos._arrays["elapsed_steps"].tolist() == [1, 1, 1]
    column = infos._column("x")
    assert column is not None and column.shape == (3,)
    assert infos._empty is None
    assert not infos._filled
    assert infos._column("missing") is None
    infos[0]
    filled = infos._column("elapsed_steps")
    assert filled is not None and filled.tolist() == [1, 1, 1]
    assert infos._column("final_observation") is None


def test_set_entries_without_building() -> None:
    infos = stepped()
    infos._set_entries("episode", [0, 2], ["first", "third"])
    assert not infos._filled
    assert infos[0]["episode"] == "first" and infos[2]["episode"] == "third"
    assert "episode" not in infos[1]
    infos._set_entries("late", np.array([1]), [5])
    assert infos[1]["late"] == 5
    with pytest.raises(ValueError, match="indices"):
        infos._set_entries("bad", [0, 1], [1])


def test_map_final_observations_before_and_after_building() -> None:
    infos = stepped()
    original = copy.deepcopy(infos)[0]["final_observation"]
    infos = stepped()
    infos._map_final_observations(lambda obs: obs * 2)
    assert not infos._filled
    assert np.array_equal(infos[0]["final_observation"], original * 2)
    infos._map_final_observations(lambda obs: obs + 1)
    assert np.array_equal(infos[0]["final_observation"], original * 2 + 1)
    assert "final_observation" not in infos[1]


def test_frozen_rows_are_empty_and_marked() -> None:
    vec = FrozenAwareDrift(2, autoreset=False)
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}])
    vec.step(np.array([1, 0]))
    infos = vec.step(np.array([1, 0])).infos
    assert infos._empty is not None and infos._empty.tolist() == [True, False]
    assert infos._column("x") is None
    assert infos[0] == {} and sorted(infos[1]) == ["pair", "x"]


def test_reset_infos_are_lazy_too() -> None:
    vec = FrozenAwareDrift(2)
    result = vec.reset(seed=0, options={"x": 0.5})
    assert isinstance(result.infos, LazyInfos) and not result.infos._filled
    assert result.infos == [{"start": 0.5}, {"start": 0.5}]


def test_info_arrays_are_copied_at_step_time() -> None:
    class StateInfo(FrozenAwareDrift):
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, _ = super()._step(actions)
            return rewards, terminated, truncated, {"x": self.x}

    vec = StateInfo(2)
    vec.reset(seed=0, options={"x": 0.0})
    first = vec.step(np.array([1, 1]))
    x_then = vec.x.copy()
    vec.step(np.array([1, 1]))
    assert [info["x"] for info in first.infos] == x_then.tolist()
