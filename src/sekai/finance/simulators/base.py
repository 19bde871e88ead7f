"""The simulation record, the market-model interface and what the built-in models share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_array, check_int, check_real

__all__ = ["MarketModel", "Simulation", "sample_window"]

Array = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Simulation:
    """Simulated prices ``(n_steps+1, n)`` or ``(n_paths, n_steps+1, n)``.

    ``mask`` (same shape, None = all valid) marks listed assets; ``state`` holds latent series
    with leading dims ``prices.shape[:-1]``.
    """

    prices: Array
    mask: NDArray[np.bool_] | None = None
    state: Mapping[str, NDArray[Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        prices = check_array(self.prices, "Simulation prices").astype(np.float64, copy=False)
        if prices.ndim not in (2, 3):
            raise ValueError(
                "Simulation prices must be (n_steps+1, n) or (n_paths, n_steps+1, n), "
                f"got shape {prices.shape}."
            )
        object.__setattr__(self, "prices", prices)
        if self.mask is not None:
            mask = check_array(self.mask, "Simulation mask", dtype_kind="b", shape=prices.shape)
            object.__setattr__(self, "mask", mask)
        state = {}
        for key, value in self.state.items():
            arr = np.asarray(value)
            if arr.shape[: prices.ndim - 1] != prices.shape[:-1]:
                raise ValueError(
                    f"Simulation state {key!r} has shape {arr.shape}; its leading dims must be "
                    f"{prices.shape[:-1]}."
                )
            state[key] = arr
        object.__setattr__(self, "state", state)


class MarketModel(ABC):
    """A simulator of ``n_assets`` price paths with ``dt`` years per step."""

    @property
    @abstractmethod
    def n_assets(self) -> int:
        """Number of simulated assets."""

    @property
    @abstractmethod
    def dt(self) -> float:
        """Years per step."""

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """Latent state keys and their per-step trailing shapes."""
        return {}

    @abstractmethod
    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Simulate ``n_steps`` steps; ``n_paths=None`` gives a result without a paths axis."""


# -- parameter checks shared by the built-in models -----------------------------------------


def _run_shape(n_steps: Any, n_paths: Any) -> tuple[int, tuple[int, ...]]:
    """Checked ``n_steps`` and the leading paths shape: ``()`` for None, else ``(n_paths,)``."""
    steps = check_int(n_steps, "n_steps", low=1)
    return steps, () if n_paths is None else (check_int(n_paths, "n_paths", low=1),)


def _positive(value: Any, name: str) -> float:
    """A finite real ``> 0``."""
    return check_real(value, name, low=0.0, low_open=True)


def _vector(value: Any, name: str) -> Array:
    """A number or a 1-D sequence of numbers as float64."""
    return check_array(value, name, ndim=(0, 1)).astype(np.float64, copy=False)


def _per_asset(
    value: Any, name: str, n: int, *, low: float | None = None, strict: bool = False
) -> Array:
    """``value`` broadcast to a read-only ``(n,)`` float64 array, checked finite and bounded."""
    arr = _vector(value, name).reshape(-1)
    if arr.size not in (1, n):
        raise ValueError(f"{name} has {arr.size} entries for {n} assets.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {value!r}.")
    if low is not None and ((arr <= low).any() if strict else (arr < low).any()):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low}, got {value!r}.")
    out = np.array(np.broadcast_to(arr, (n,)))
    out.setflags(write=False)
    return out


def _infer_n_assets(n_assets: Any, params: Mapping[str, Any], corr: Any) -> int:
    """``n_assets`` from the explicit value, any length>1 parameter or ``corr``."""
    sources: dict[str, int] = {}
    if n_assets is not None:
        sources["n_assets"] = check_int(n_assets, "n_assets", low=1)
    for name, value in params.items():
        size = _vector(value, name).size
        if size > 1:
            sources[name] = size
    if corr is not None:
        shape = check_array(corr, "corr").shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"corr must be a square (n, n) matrix, got shape {shape}.")
        sources["corr"] = shape[0]
    if len(set(sources.values())) > 1:
        raise ValueError(f"inconsistent numbers of assets: {sources}.")
    return next(iter(sources.values()), 1)


def _check_corr(corr: Any, n: int) -> tuple[Array, Array]:
    """A validated correlation matrix (read-only) and the transposed Cholesky factor."""
    arr = np.array(check_array(corr, "corr", shape=(n, n)), dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError("corr must be finite.")
    if np.abs(arr - arr.T).max() > 1e-8:
        raise ValueError("corr must be symmetric.")
    if np.abs(np.diag(arr) - 1.0).max() > 1e-8:
        raise ValueError("corr must have a unit diagonal.")
    try:
        chol_t = np.linalg.cholesky(arr).T
    except np.linalg.LinAlgError as exc:
        raise ValueError("corr must be positive definite.") from exc
    arr.setflags(write=False)
    chol_t.setflags(write=False)
    return arr, chol_t


# A parameter's bound: ``(low, strict)``, checked as ``> low`` when strict, else ``>= low``.
_Bound = tuple[float | None, bool]
_FREE: _Bound = (None, False)
_NONNEG: _Bound = (0.0, False)
_POSITIVE: _Bound = (0.0, True)


def _check_params(
    n_assets: Any, corr: Any, dt: Any, values: Mapping[str, Any], bounds: Mapping[str, _Bound]
) -> tuple[int, dict[str, Array], Array | None, Array | None, float]:
    """``n`` inferred, each of ``values`` as a per-asset array within its bound, ``corr`` with
    its transposed Cholesky factor, and ``dt``."""
    n = _infer_n_assets(n_assets, values, corr)
    arrays = {
        name: _per_asset(value, name, n, low=bounds[name][0], strict=bounds[name][1])
        for name, value in values.items()
    }
    corr_a, chol_t = (None, None) if corr is None else _check_corr(corr, n)
    return n, arrays, corr_a, chol_t, _positive(dt, "dt")


# -- path arithmetic -------------------------------------------------------------------------


def _frozen(arr: Array) -> Array:
    arr.setflags(write=False)
    return arr


def _from_log(s0: Array, log_paths: Array) -> Array:
    """Prices ``s0 * exp(log_paths)`` for rows ``1..n_steps`` of ``log_paths (..., n_steps, n)``;
    row 0 is ``s0``."""
    shape = (*log_paths.shape[:-2], log_paths.shape[-2] + 1, log_paths.shape[-1])
    prices = np.empty(shape)
    prices[..., 0, :] = s0
    # exp on the contiguous logs, as for one path: SIMD and scalar exp may differ in the last bit
    np.multiply(np.exp(log_paths), s0, out=prices[..., 1:, :])
    return prices


def _shocks(z: Array, chol_t: Array | None) -> Array:
    return z if chol_t is None else z @ chol_t


def _log_simulation(s0: Array, increments: Array, **state: Array) -> Simulation:
    """The simulation of prices ``s0 * exp(cumsum(increments))`` with latent ``state``."""
    return Simulation(_from_log(s0, np.cumsum(increments, axis=-2)), state=state)


# -- the built-in models' base ---------------------------------------------------------------


def _fmt_dt(dt: float) -> str:
    steps = 1.0 / dt
    k = round(steps)
    return f"1/{k}" if k > 1 and abs(steps - k) <= 1e-9 * steps else repr(dt)


def _fmt_param(arr: Array) -> str:
    if (arr == arr[0]).all():
        return repr(float(arr[0]))
    values = [repr(float(v)) for v in arr]
    if len(values) > 6:
        values = [*values[:3], "...", values[-1]]
    return "[" + ", ".join(values) + "]"


class _FrozenModel(MarketModel):
    """Base of the built-in models: immutable, rebuilt from its parameters when pickled.

    ``_fields`` names the constructor keywords, each readable as an attribute; ``_bounds``
    holds the bound of each per-asset parameter that ``_set_checked`` checks; the default
    ``repr`` shows ``n_assets``, the per-asset arrays among them, ``corr`` and ``dt``.
    """

    _fields: ClassVar[tuple[str, ...]]
    _bounds: ClassVar[Mapping[str, _Bound]] = {}
    _n_assets: int
    _dt: float
    _chol_t: Array | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new model.")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable.")

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _set_checked(self, n_assets: Any, corr: Any, dt: Any, **values: Any) -> dict[str, Array]:
        """Check ``values`` per asset by ``_bounds``, then ``corr`` and ``dt``; set them with
        ``_n_assets`` and ``_chol_t`` and return the checked parameters."""
        n, arrays, corr_a, chol_t, dt_f = _check_params(n_assets, corr, dt, values, self._bounds)
        self._set(**arrays, corr=corr_a, _n_assets=n, _dt=dt_f, _chol_t=chol_t)
        return arrays

    def _normals(self, rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
        """A ``standard_normal(shape)`` draw correlated across assets by ``corr``."""
        return _shocks(rng.standard_normal(shape), self._chol_t)

    @property
    def n_assets(self) -> int:
        """Number of simulated assets."""
        return self._n_assets

    @property
    def dt(self) -> float:
        """Years per step."""
        return self._dt

    def __reduce__(self) -> tuple[Any, ...]:
        params = {name: getattr(self, name) for name in self._fields}
        return (_rebuild_model, (type(self), params))

    def __repr__(self) -> str:
        n = self._n_assets
        shown = "".join(
            f"{name}={_fmt_param(getattr(self, name))}, "
            for name in self._fields
            if name not in ("corr", "dt", "n_assets")
        )
        corr = "None" if getattr(self, "corr", None) is None else f"<{n}x{n}>"
        return f"{type(self).__name__}(n_assets={n}, {shown}corr={corr}, dt={_fmt_dt(self._dt)})"


def _rebuild_model(cls: type[_FrozenModel], params: dict[str, Any]) -> _FrozenModel:
    return cls(**params)


def sample_window(rng: np.random.Generator, prices: Any, length: int) -> Array:
    """A random contiguous ``length``-row slice of ``prices`` as a float64 copy."""
    arr = np.asarray(prices)
    length = check_int(length, "length", low=1)
    if arr.ndim == 0 or length > len(arr):
        raise ValueError(f"length {length} exceeds the {len(arr) if arr.ndim else 0} rows.")
    start = int(rng.integers(0, len(arr) - length + 1))
    return np.array(arr[start : start + length], dtype=np.float64)
