"""Tests for sekai.finance.universe."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from sekai.finance.universe import SlotMap


def test_spec_example():
    slots = SlotMap(3)
    first = slots.update(["A", "B"])
    assert first.dtype == np.intp and first.tolist() == [0, 1]
    assert slots.changed.tolist() == [True, True, False]
    second = slots.update(["B", "C", "D"])
    assert second.dtype == np.intp and second.tolist() == [1, 0, 2]
    assert slots.changed.tolist() == [True, False, True]
    assert slots.assets == ("C", "B", "D")
    assert slots.mask.dtype == np.int8 and slots.mask.tolist() == [1, 1, 1]
    assert len(slots) == 3 and repr(slots) == "SlotMap(3/3 slots used)"
    assert slots.slot_of("C") == 0 and slots.slot_of("A") is None


def test_initial_state_and_repr():
    slots = SlotMap(4)
    assert slots.max_slots == 4 and len(slots) == 0
    assert slots.assets == (None, None, None, None)
    assert slots.mask.tolist() == [0, 0, 0, 0]
    assert slots.changed.dtype == np.bool_ and not slots.changed.any()
    assert repr(slots) == "SlotMap(0/4 slots used)"
    empty = slots.update([])
    assert empty.dtype == np.intp and empty.shape == (0,)


def test_departures_free_slots_and_unchanged_updates():
    slots = SlotMap(3)
    slots.update(["A", "B", "C"])
    assert slots.update(["C"]).tolist() == [2]
    assert slots.changed.tolist() == [True, True, False]
    assert slots.assets == (None, None, "C") and slots.mask.tolist() == [0, 0, 1]
    assert slots.update(["C"]).tolist() == [2] and not slots.changed.any()
    assert slots.update(["E", "C", "D"]).tolist() == [0, 2, 1]
    assert slots.changed.tolist() == [True, True, False]
    assert repr(slots) == "SlotMap(3/3 slots used)"


def test_accessors_return_fresh_arrays():
    slots = SlotMap(2)
    slots.update(["A"])
    slots.changed[:] = False
    slots.mask[:] = 0
    assert slots.changed.tolist() == [True, False] and slots.mask.tolist() == [1, 0]


def test_reset():
    slots = SlotMap(2)
    slots.update(["A", "B"])
    slots.reset()
    assert len(slots) == 0 and slots.assets == (None, None) and not slots.changed.any()
    assert slots.slot_of("A") is None
    assert slots.update(["B"]).tolist() == [0]


def test_numpy_ids_match_python_ids():
    slots = SlotMap(3)
    slots.update(np.array([5, 7]))
    assert slots.update([7, 9]).tolist() == [1, 0]
    assert slots.slot_of(np.int64(9)) == 0


def test_errors_leave_the_map_unchanged():
    slots = SlotMap(2)
    slots.update(["A"])
    with pytest.raises(ValueError, match="unique"):
        slots.update(["B", "B"])
    with pytest.raises(ValueError, match="do not fit"):
        slots.update(["A", "B", "C"])
    with pytest.raises(ValueError, match="None"):
        slots.update(["A", None])
    with pytest.raises(TypeError):
        slots.update([["unhashable"]])
    assert slots.assets == ("A", None) and slots.changed.tolist() == [True, False]


@pytest.mark.parametrize("bad", [0, -1, 0.0])
def test_max_slots_range(bad):
    with pytest.raises(ValueError, match="max_slots"):
        SlotMap(bad)


@pytest.mark.parametrize("bad", [True, "3", None, 2.5, float("nan")])
def test_max_slots_type(bad):
    with pytest.raises(TypeError, match="max_slots"):
        SlotMap(bad)


def test_numpy_max_slots_and_pickle():
    slots = SlotMap(np.int64(3))
    assert slots.max_slots == 3 and type(slots.max_slots) is int
    slots.update(["X", "Y"])
    for clone in (pickle.loads(pickle.dumps(slots)), copy.deepcopy(slots)):
        assert clone.assets == slots.assets and clone.changed.tolist() == [True, True, False]
        assert clone.update(["Y", "Z"]).tolist() == [1, 0]
    assert slots.assets == ("X", "Y", None)


IDS = st.sampled_from("ABCDEFGHIJ")


class SlotMachine(RuleBasedStateMachine):
    """Compares SlotMap against the rule stated in the spec, update by update."""

    def __init__(self) -> None:
        super().__init__()
        self.size = 4
        self.slots = SlotMap(self.size)
        self.owners: list[str | None] = [None] * self.size

    @rule(present=st.lists(IDS, unique=True, max_size=4))
    def update(self, present):
        before = list(self.owners)
        kept = {owner: slot for slot, owner in enumerate(before) if owner in present}
        free = sorted(set(range(self.size)) - set(kept.values()))
        newcomers = [asset for asset in present if asset not in kept]
        expected = dict(kept)
        expected.update(zip(newcomers, free, strict=False))
        out = self.slots.update(present)
        assert out.tolist() == [expected[asset] for asset in present]
        self.owners = [None] * self.size
        for asset, slot in expected.items():
            self.owners[slot] = asset
        assert self.slots.changed.tolist() == [
            a != b for a, b in zip(before, self.owners, strict=True)
        ]

    @rule(present=st.lists(IDS, min_size=5, max_size=8, unique=True))
    def too_many(self, present):
        with pytest.raises(ValueError):
            self.slots.update(present)
        assert list(self.slots.assets) == self.owners

    @rule()
    def reset(self):
        self.slots.reset()
        self.owners = [None] * self.size
        assert not self.slots.changed.any()

    @invariant()
    def consistent(self):
        assert list(self.slots.assets) == self.owners
        occupied = [owner is not None for owner in self.owners]
        assert self.slots.mask.tolist() == [int(flag) for flag in occupied]
        assert len(self.slots) == sum(occupied)
        assert repr(self.slots) == f"SlotMap({sum(occupied)}/4 slots used)"
        for slot, owner in enumerate(self.owners):
            if owner is not None:
                assert self.slots.slot_of(owner) == slot


TestSlotMachine = SlotMachine.TestCase
TestSlotMachine.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(IDS, unique=True, max_size=6), min_size=1, max_size=12))
def test_incumbents_keep_slots(updates):
    slots = SlotMap(6)
    previous: dict[str, int] = {}
    for present in updates:
        out = slots.update(present)
        current = dict(zip(present, out.tolist(), strict=True))
        assert len(set(current.values())) == len(present)
        for asset in set(previous) & set(current):
            assert current[asset] == previous[asset]
        newcomer_slots = [current[a] for a in present if a not in previous]
        assert newcomer_slots == sorted(newcomer_slots)
        taken = {slot for asset, slot in current.items() if asset in previous}
        free = sorted(set(range(6)) - taken)
        assert newcomer_slots == free[: len(newcomer_slots)]
        previous = current
