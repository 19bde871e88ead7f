"""Stable slot assignment for a changing universe of assets."""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_int

__all__ = ["SlotMap"]


class SlotMap:
    """Assigns asset ids to ``max_slots`` fixed slots; an incumbent keeps its slot.

    ``None`` marks an empty slot, so it cannot be an id.
    """

    def __init__(self, max_slots: int) -> None:
        self._max_slots = check_int(max_slots, "max_slots", low=1)
        self._owners: list[Hashable | None] = [None] * self._max_slots
        self._slots: dict[Hashable, int] = {}
        self._changed = np.zeros(self._max_slots, dtype=bool)

    @property
    def max_slots(self) -> int:
        """The number of slots."""
        return self._max_slots

    def update(self, present: Iterable[Hashable]) -> NDArray[np.intp]:
        """Assign slots to the ids ``present`` now; returns their slots, in the given order.

        Departed ids free their slots first; newcomers then take the lowest free slots in the
        order given. Invalid input leaves the map unchanged.
        """
        ids = list(present)
        wanted = set(ids)
        if len(wanted) != len(ids):
            raise ValueError(f"ids must be unique, got {ids!r}.")
        if len(ids) > self._max_slots:
            raise ValueError(f"{len(ids)} ids do not fit in {self._max_slots} slots.")
        if None in wanted:
            raise ValueError("None cannot be an id: it marks an empty slot.")
        changed = np.zeros(self._max_slots, dtype=bool)
        for asset in [asset for asset in self._slots if asset not in wanted]:
            slot = self._slots.pop(asset)
            self._owners[slot] = None
            changed[slot] = True
        free = iter([slot for slot, owner in enumerate(self._owners) if owner is None])
        out = np.empty(len(ids), dtype=np.intp)
        for i, asset in enumerate(ids):
            held = self._slots.get(asset)
            if held is None:
                held = self._slots[asset] = next(free)
                self._owners[held] = asset
                changed[held] = True
            out[i] = held
        self._changed = changed
        return out

    @property
    def changed(self) -> NDArray[np.bool_]:
        """Bool ``(max_slots,)``: slots whose owner changed in the last ``update``."""
        return self._changed.copy()

    def slot_of(self, asset: Hashable) -> int | None:
        """The slot holding ``asset``, or None."""
        return self._slots.get(asset)

    @property
    def assets(self) -> tuple[Hashable | None, ...]:
        """The id in each slot (None for an empty slot)."""
        return tuple(self._owners)

    @property
    def mask(self) -> NDArray[np.int8]:
        """Int8 ``(max_slots,)``: 1 for occupied slots."""
        return np.array([owner is not None for owner in self._owners], dtype=np.int8)

    def reset(self) -> None:
        """Empty every slot and clear ``changed``."""
        self._owners = [None] * self._max_slots
        self._slots = {}
        self._changed = np.zeros(self._max_slots, dtype=bool)

    def __len__(self) -> int:
        return len(self._slots)

    def __repr__(self) -> str:
        return f"SlotMap({len(self)}/{self._max_slots} slots used)"
