"""Block bootstrap: prices resampled from the rows of a history of returns."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai.finance.simulators.base import (
    Array,
    Simulation,
    _fmt_dt,
    _fmt_param,
    _from_log,
    _frozen,
    _FrozenModel,
    _per_asset,
    _positive,
    _run_shape,
)
from sekai.utils.validation import check_array, check_int

__all__ = ["BlockBootstrap"]


class BlockBootstrap(_FrozenModel):
    """Circular block bootstrap of whole rows of ``returns``, used as log increments."""

    _fields = ("returns", "block_size", "s0", "dt")

    returns: Array
    block_size: int
    s0: Array

    def __init__(
        self, returns: Any, *, block_size: int = 20, s0: Any = 100.0, dt: float = 1 / 252
    ) -> None:
        arr = np.array(check_array(returns, "returns"), dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2 or arr.size == 0:
            raise ValueError(f"returns must be a non-empty (T,) or (T, n) array, got {arr.shape}.")
        if not np.isfinite(arr).all():
            raise ValueError("returns must be finite.")
        block_size = check_int(block_size, "block_size", low=1)
        if block_size > len(arr):
            raise ValueError(f"block_size {block_size} exceeds the {len(arr)} rows of returns.")
        self._set(
            returns=_frozen(arr),
            block_size=block_size,
            s0=_per_asset(s0, "s0", arr.shape[1], low=0.0, strict=True),
            _n_assets=arr.shape[1],
            _dt=_positive(dt, "dt"),
        )

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``integers(0, T, (*paths, ceil(n_steps / block_size)))`` draw of block starts."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        b, n_rows = self.block_size, len(self.returns)
        n_blocks = -(-n_steps // b)
        starts = rng.integers(0, n_rows, (*paths, n_blocks))
        rows = (starts[..., None] + np.arange(b)) % n_rows
        rows = rows.reshape(*paths, n_blocks * b)[..., :n_steps]
        return Simulation(_from_log(self.s0, np.cumsum(self.returns[rows], axis=-2)))

    def __repr__(self) -> str:
        return (
            f"BlockBootstrap(n_assets={self._n_assets}, n_rows={len(self.returns)}, "
            f"block_size={self.block_size}, s0={_fmt_param(self.s0)}, dt={_fmt_dt(self._dt)})"
        )
