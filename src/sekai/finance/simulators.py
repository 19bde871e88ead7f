"""Market models that simulate price paths, and the GBM helpers the finance envs use."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "GBM",
    "MarketModel",
    "Simulation",
    "random_correlation",
    "sample_window",
    "simulate_gbm",
]

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
        prices = np.asarray(self.prices, dtype=np.float64)
        if prices.ndim not in (2, 3):
            raise ValueError(
                "Simulation prices must be (n_steps+1, n) or (n_paths, n_steps+1, n), "
                f"got shape {prices.shape}."
            )
        object.__setattr__(self, "prices", prices)
        if self.mask is not None:
            mask = np.asarray(self.mask)
            if mask.dtype != np.bool_:
                raise TypeError(f"Simulation mask must be a bool array, got dtype {mask.dtype}.")
            if mask.shape != prices.shape:
                raise ValueError(
                    f"Simulation mask has shape {mask.shape}, prices have {prices.shape}."
                )
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


# -- validation helpers shared by the built-in models --------------------------------------


def _check_count(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}.")
    return int(value)


def _check_scalar(value: Any, name: str, *, positive: bool = False) -> float:
    if isinstance(value, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be a scalar, got {value!r}.")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    out = float(value)
    if not np.isfinite(out) or (positive and out <= 0):
        raise ValueError(f"{name} must be finite{' and > 0' if positive else ''}, got {value!r}.")
    return out


def _vector(value: Any, name: str) -> Array:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a number or a sequence of numbers, got {value!r}."
        ) from exc
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or 1-D, got shape {arr.shape}.")
    return arr


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
        sources["n_assets"] = _check_count(n_assets, "n_assets")
    for name, value in params.items():
        size = _vector(value, name).size
        if size > 1:
            sources[name] = size
    if corr is not None:
        shape = np.shape(corr)
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"corr must be a square (n, n) matrix, got shape {shape}.")
        sources["corr"] = shape[0]
    if len(set(sources.values())) > 1:
        raise ValueError(f"inconsistent numbers of assets: {sources}.")
    return next(iter(sources.values()), 1)


def _check_corr(corr: Any, n: int) -> tuple[Array, Array]:
    """A validated correlation matrix (read-only) and the transposed Cholesky factor."""
    arr = np.array(corr, dtype=np.float64)
    if arr.shape != (n, n):
        raise ValueError(f"corr must have shape ({n}, {n}), got {arr.shape}.")
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


def _gbm_coefficients(mu: Array, sigma: Array, dt: float) -> tuple[Array, Array]:
    return (mu - 0.5 * sigma**2) * dt, sigma * np.sqrt(dt)


def _gbm_prices(z: Array, drift: Array, vol: Array, s0: Array, chol_t: Array | None) -> Array:
    """Exact GBM prices from shocks ``z (..., n_steps, n)``; row 0 is ``s0``."""
    if chol_t is not None:
        z = z @ chol_t
    log_paths = np.cumsum(drift + vol * z, axis=-2)
    shape = (*z.shape[:-2], z.shape[-2] + 1, z.shape[-1])
    prices = np.empty(shape)
    prices[..., 0, :] = s0
    prices[..., 1:, :] = s0 * np.exp(log_paths)
    return prices


class _FrozenModel(MarketModel):
    """Base of the built-in models: immutable, rebuilt from its parameters when pickled."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new model.")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable.")

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @abstractmethod
    def _params(self) -> dict[str, Any]:
        """Constructor keyword arguments that rebuild this model."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_model, (type(self), self._params()))


def _rebuild_model(cls: type[_FrozenModel], params: dict[str, Any]) -> _FrozenModel:
    return cls(**params)


class GBM(_FrozenModel):
    """Geometric Brownian motion, exact: ``dlog S = (mu - sigma^2/2) dt + sigma sqrt(dt) z``."""

    mu: Array
    sigma: Array
    s0: Array
    corr: Array | None
    _n_assets: int
    _dt: float
    _drift: Array
    _vol: Array
    _chol_t: Array | None

    def __init__(
        self,
        mu: Any = 0.0,
        sigma: Any = 0.2,
        *,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        n = _infer_n_assets(n_assets, {"mu": mu, "sigma": sigma, "s0": s0}, corr)
        mu_a = _per_asset(mu, "mu", n)
        sigma_a = _per_asset(sigma, "sigma", n, low=0.0)
        s0_a = _per_asset(s0, "s0", n, low=0.0, strict=True)
        dt = _check_scalar(dt, "dt", positive=True)
        corr_a, chol_t = (None, None) if corr is None else _check_corr(corr, n)
        drift, vol = _gbm_coefficients(mu_a, sigma_a, dt)
        self._set(
            mu=mu_a,
            sigma=sigma_a,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _drift=drift,
            _vol=vol,
            _chol_t=chol_t,
        )

    @property
    def n_assets(self) -> int:
        """Number of simulated assets."""
        return self._n_assets

    @property
    def dt(self) -> float:
        """Years per step."""
        return self._dt

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw turned into exact GBM prices."""
        n_steps = _check_count(n_steps, "n_steps")
        paths = () if n_paths is None else (_check_count(n_paths, "n_paths"),)
        z = rng.standard_normal((*paths, n_steps, self._n_assets))
        return Simulation(_gbm_prices(z, self._drift, self._vol, self.s0, self._chol_t))

    def _params(self) -> dict[str, Any]:
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "s0": self.s0,
            "corr": self.corr,
            "dt": self._dt,
            "n_assets": self._n_assets,
        }

    def __repr__(self) -> str:
        corr = "None" if self.corr is None else f"<{self._n_assets}x{self._n_assets}>"
        return (
            f"GBM(n_assets={self._n_assets}, mu={_fmt_param(self.mu)}, "
            f"sigma={_fmt_param(self.sigma)}, s0={_fmt_param(self.s0)}, corr={corr}, "
            f"dt={_fmt_dt(self._dt)})"
        )


def simulate_gbm(
    rng: np.random.Generator,
    n_steps: int,
    *,
    s0: Any = 100.0,
    mu: Any = 0.0,
    sigma: Any = 0.2,
    dt: float = 1 / 252,
    corr: Any = None,
) -> Array:
    """An exact log-normal GBM path: ``(n_steps+1,)`` for scalar parameters, else ``(..., n)``.

    Draws ``rng.standard_normal((n_steps, n))`` once; row 0 is ``s0``.
    """
    n_steps = _check_count(n_steps, "n_steps")
    params = {"s0": s0, "mu": mu, "sigma": sigma}
    n = _infer_n_assets(None, params, corr)
    mu_a = _per_asset(mu, "mu", n)
    sigma_a = _per_asset(sigma, "sigma", n, low=0.0)
    s0_a = _per_asset(s0, "s0", n, low=0.0, strict=True)
    dt = _check_scalar(dt, "dt", positive=True)
    chol_t = None if corr is None else _check_corr(corr, n)[1]
    drift, vol = _gbm_coefficients(mu_a, sigma_a, dt)
    z = rng.standard_normal((n_steps, n))
    prices = _gbm_prices(z, drift, vol, s0_a, chol_t)
    scalar = n == 1 and all(np.ndim(v) == 0 for v in params.values())
    return prices[:, 0] if scalar else prices


def random_correlation(rng: np.random.Generator, n: int, strength: float = 0.5) -> Array:
    """A random ``(n, n)`` correlation matrix from ``max(1, n//2)`` factors of ``strength``."""
    n = _check_count(n, "n")
    strength = _check_scalar(strength, "strength")
    if not 0.0 <= strength < 1.0:
        raise ValueError(f"strength must be in [0, 1), got {strength}.")
    factors = rng.standard_normal((n, max(1, n // 2))) * strength
    cov = factors @ factors.T + (1.0 - strength**2) * np.eye(n)
    d = np.sqrt(np.diag(cov))
    return cov / np.outer(d, d)


def sample_window(rng: np.random.Generator, prices: Any, length: int) -> Array:
    """A random contiguous ``length``-row slice of ``prices`` as a float64 copy."""
    arr = np.asarray(prices)
    length = _check_count(length, "length")
    if arr.ndim == 0 or length > len(arr):
        raise ValueError(f"length {length} exceeds the {len(arr) if arr.ndim else 0} rows.")
    start = int(rng.integers(0, len(arr) - length + 1))
    return np.array(arr[start : start + length], dtype=np.float64)
