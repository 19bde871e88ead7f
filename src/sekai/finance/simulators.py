"""Market models that simulate price paths, and the GBM helpers the finance envs use."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "GARCH",
    "GBM",
    "BlockBootstrap",
    "CointegratedPair",
    "Heston",
    "ListingProcess",
    "MarketModel",
    "MeanReverting",
    "MertonJumpDiffusion",
    "Randomized",
    "RegimeSwitching",
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


def _check_count(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)


def _run_shape(n_steps: Any, n_paths: Any) -> tuple[int, tuple[int, ...]]:
    """Checked ``n_steps`` and the leading paths shape: ``()`` for None, else ``(n_paths,)``."""
    steps = _check_count(n_steps, "n_steps")
    return steps, () if n_paths is None else (_check_count(n_paths, "n_paths"),)


def _check_scalar(value: Any, name: str, *, positive: bool = False) -> float:
    if isinstance(value, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be a scalar, got {value!r}.")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    out = float(value)
    if not np.isfinite(out) or (positive and out <= 0):
        raise ValueError(f"{name} must be finite{' and > 0' if positive else ''}, got {value!r}.")
    return out


def _as_float(value: Any, name: str) -> Array:
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a number or a sequence of numbers, got {value!r}."
        ) from exc


def _vector(value: Any, name: str) -> Array:
    arr = _as_float(value, name)
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


def _check_unit(value: Any, name: str) -> float:
    out = _check_scalar(value, name)
    if not 0.0 <= out <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}.")
    return out


def _check_rate(value: Any, name: str) -> float:
    out = _check_scalar(value, name)
    if out < 0.0:
        raise ValueError(f"{name} must be >= 0, got {value!r}.")
    return out


def _check_common(
    n: int, s0: Any, corr: Any, dt: Any
) -> tuple[Array, Array | None, Array | None, float]:
    """Checked ``s0``, ``corr`` with its transposed Cholesky factor, and ``dt``."""
    s0_a = _per_asset(s0, "s0", n, low=0.0, strict=True)
    corr_a, chol_t = (None, None) if corr is None else _check_corr(corr, n)
    return s0_a, corr_a, chol_t, _check_scalar(dt, "dt", positive=True)


def _frozen(arr: Array) -> Array:
    arr.setflags(write=False)
    return arr


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


def _from_log(s0: Array, log_paths: Array) -> Array:
    """Prices ``s0 * exp(log_paths)`` for rows ``1..n_steps`` of ``log_paths (..., n_steps, n)``;
    row 0 is ``s0``."""
    shape = (*log_paths.shape[:-2], log_paths.shape[-2] + 1, log_paths.shape[-1])
    prices = np.empty(shape)
    prices[..., 0, :] = s0
    prices[..., 1:, :] = s0 * np.exp(log_paths)
    return prices


def _shocks(z: Array, chol_t: Array | None) -> Array:
    return z if chol_t is None else z @ chol_t


def _gbm_coefficients(mu: Array, sigma: Array, dt: float) -> tuple[Array, Array]:
    return (mu - 0.5 * sigma**2) * dt, sigma * np.sqrt(dt)


def _gbm_prices(z: Array, drift: Array, vol: Array, s0: Array, chol_t: Array | None) -> Array:
    """Exact GBM prices from shocks ``z (..., n_steps, n)``; row 0 is ``s0``."""
    return _from_log(s0, np.cumsum(drift + vol * _shocks(z, chol_t), axis=-2))


def _ou_coefficients(theta: Any, sigma: Any, dt: float) -> tuple[Any, Any]:
    """Exact OU step: decay ``e^(-theta dt)`` and noise scale
    ``sigma sqrt((1 - e^(-2 theta dt)) / (2 theta))``."""
    return np.exp(-theta * dt), sigma * np.sqrt((1.0 - np.exp(-2.0 * theta * dt)) / (2.0 * theta))


class _FrozenModel(MarketModel):
    """Base of the built-in models: immutable, rebuilt from its parameters when pickled.

    ``_fields`` names the constructor keywords, each readable as an attribute; the default
    ``repr`` shows ``n_assets``, the per-asset arrays among them, ``corr`` and ``dt``.
    """

    _fields: ClassVar[tuple[str, ...]]
    _n_assets: int
    _dt: float

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new model.")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable.")

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

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


class GBM(_FrozenModel):
    """Geometric Brownian motion, exact: ``dlog S = (mu - sigma^2/2) dt + sigma sqrt(dt) z``."""

    _fields = ("mu", "sigma", "s0", "corr", "dt", "n_assets")

    mu: Array
    sigma: Array
    s0: Array
    corr: Array | None
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
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
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

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw turned into exact GBM prices."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        z = rng.standard_normal((*paths, n_steps, self._n_assets))
        return Simulation(_gbm_prices(z, self._drift, self._vol, self.s0, self._chol_t))


class Heston(_FrozenModel):
    """Heston stochastic volatility by full-truncation Euler (``v+ = max(v, 0)``)."""

    _fields = ("mu", "kappa", "theta", "xi", "rho", "v0", "s0", "corr", "dt", "n_assets")

    mu: Array
    kappa: Array
    theta: Array
    xi: Array
    rho: Array
    v0: Array
    s0: Array
    corr: Array | None
    _chol_t: Array | None

    def __init__(
        self,
        mu: Any = 0.05,
        kappa: Any = 2.0,
        theta: Any = 0.04,
        xi: Any = 0.3,
        rho: Any = -0.7,
        *,
        v0: Any = None,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {"mu": mu, "kappa": kappa, "theta": theta, "xi": xi, "rho": rho, "s0": s0}
        if v0 is not None:
            params["v0"] = v0
        n = _infer_n_assets(n_assets, params, corr)
        mu_a = _per_asset(mu, "mu", n)
        kappa_a = _per_asset(kappa, "kappa", n, low=0.0, strict=True)
        theta_a = _per_asset(theta, "theta", n, low=0.0, strict=True)
        xi_a = _per_asset(xi, "xi", n, low=0.0, strict=True)
        rho_a = _per_asset(rho, "rho", n)
        if (np.abs(rho_a) > 1.0).any():
            raise ValueError(f"rho must satisfy abs(rho) <= 1, got {rho!r}.")
        v0_a = theta_a if v0 is None else _per_asset(v0, "v0", n, low=0.0)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        self._set(
            mu=mu_a,
            kappa=kappa_a,
            theta=theta_a,
            xi=xi_a,
            rho=rho_a,
            v0=v0_a,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _chol_t=chol_t,
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"variance"``: the truncated variance ``v+`` per asset."""
        return {"variance": (self._n_assets,)}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, 2, n))`` draw: ``[..., 0, :]`` price shocks
        (correlated by ``corr``), ``[..., 1, :]`` the independent part of the variance shocks."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        n, dt = self._n_assets, self._dt
        z = rng.standard_normal((*paths, n_steps, 2, n))
        z1 = _shocks(z[..., 0, :], self._chol_t)
        z2 = self.rho * z1 + np.sqrt(1.0 - self.rho**2) * z[..., 1, :]
        variance = np.empty((*paths, n_steps + 1, n))
        increments = np.empty((*paths, n_steps, n))
        v = np.broadcast_to(self.v0, (*paths, n))
        for t in range(n_steps):
            v_plus = np.maximum(v, 0.0)
            variance[..., t, :] = v_plus
            root = np.sqrt(v_plus * dt)
            increments[..., t, :] = (self.mu - v_plus / 2.0) * dt + root * z1[..., t, :]
            v = v + self.kappa * (self.theta - v_plus) * dt + self.xi * root * z2[..., t, :]
        variance[..., n_steps, :] = np.maximum(v, 0.0)
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"variance": variance})


class MertonJumpDiffusion(_FrozenModel):
    """GBM plus compound-Poisson log-normal jumps, compensated so ``E[S_t] = s0 e^{mu t}``."""

    _fields = (
        "mu",
        "sigma",
        "jump_intensity",
        "jump_mean",
        "jump_std",
        "s0",
        "corr",
        "dt",
        "n_assets",
    )

    mu: Array
    sigma: Array
    jump_intensity: Array
    jump_mean: Array
    jump_std: Array
    s0: Array
    corr: Array | None
    _drift: Array
    _vol: Array
    _chol_t: Array | None

    def __init__(
        self,
        mu: Any = 0.05,
        sigma: Any = 0.2,
        jump_intensity: Any = 1.0,
        jump_mean: Any = -0.05,
        jump_std: Any = 0.1,
        *,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {
            "mu": mu,
            "sigma": sigma,
            "jump_intensity": jump_intensity,
            "jump_mean": jump_mean,
            "jump_std": jump_std,
            "s0": s0,
        }
        n = _infer_n_assets(n_assets, params, corr)
        mu_a = _per_asset(mu, "mu", n)
        sigma_a = _per_asset(sigma, "sigma", n, low=0.0)
        lam = _per_asset(jump_intensity, "jump_intensity", n, low=0.0)
        m = _per_asset(jump_mean, "jump_mean", n)
        s = _per_asset(jump_std, "jump_std", n, low=0.0)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        k = np.exp(m + s**2 / 2.0) - 1.0
        self._set(
            mu=mu_a,
            sigma=sigma_a,
            jump_intensity=lam,
            jump_mean=m,
            jump_std=s,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _drift=(mu_a - sigma_a**2 / 2.0 - lam * k) * dt,
            _vol=sigma_a * np.sqrt(dt),
            _chol_t=chol_t,
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"jumps"``: the number of jumps in the step ending at each row (row 0 is 0)."""
        return {"jumps": (self._n_assets,)}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Draws, each ``(*paths, n_steps, n)``: diffusion shocks ``z`` (correlated by ``corr``),
        jump counts ``poisson(jump_intensity * dt)``, then jump-size shocks ``w``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        shape = (*paths, n_steps, self._n_assets)
        z = _shocks(rng.standard_normal(shape), self._chol_t)
        counts = rng.poisson(self.jump_intensity * self._dt, shape).astype(np.float64)
        w = rng.standard_normal(shape)
        increments = (
            self._drift
            + self._vol * z
            + counts * self.jump_mean
            + np.sqrt(counts) * self.jump_std * w
        )
        jumps = np.zeros((*paths, n_steps + 1, self._n_assets))
        jumps[..., 1:, :] = counts
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"jumps": jumps})


class RegimeSwitching(_FrozenModel):
    """GBM with parameters driven by a hidden Markov chain; regime t sets the step t -> t+1."""

    _fields = ("regimes", "transition", "initial")

    regimes: tuple[GBM, ...]
    transition: Array
    initial: Array
    s0: Array
    _drift: Array
    _vol: Array

    def __init__(self, regimes: Sequence[GBM], transition: Any, *, initial: Any = None) -> None:
        if not isinstance(regimes, Sequence):
            raise TypeError(f"regimes must be a sequence of GBM models, got {regimes!r}.")
        models = tuple(regimes)
        if not models:
            raise ValueError("RegimeSwitching needs at least one regime.")
        for model in models:
            if not isinstance(model, GBM):
                raise TypeError(f"every regime must be a GBM, got {model!r}.")
        first = models[0]
        for model in models[1:]:
            if (
                model.n_assets != first.n_assets
                or model.dt != first.dt
                or not np.array_equal(model.s0, first.s0)
            ):
                raise ValueError("all regimes must share n_assets, dt and s0.")
        k = len(models)
        trans = np.array(_as_float(transition, "transition"))
        if trans.shape != (k, k):
            raise ValueError(f"transition must have shape ({k}, {k}), got {trans.shape}.")
        if not np.isfinite(trans).all() or (trans < 0).any():
            raise ValueError("transition must be finite and non-negative.")
        if np.abs(trans.sum(axis=1) - 1.0).max() > 1e-8:
            raise ValueError("transition rows must sum to 1.")
        if initial is None:
            init = _stationary(trans)
        else:
            init = np.array(_as_float(initial, "initial"))
            if init.shape != (k,):
                raise ValueError(f"initial must have shape ({k},), got {init.shape}.")
            if not np.isfinite(init).all() or (init < 0).any():
                raise ValueError("initial must be finite and non-negative.")
            if abs(init.sum() - 1.0) > 1e-8:
                raise ValueError("initial must sum to 1.")
        self._set(
            regimes=models,
            transition=_frozen(trans),
            initial=_frozen(init),
            s0=first.s0,
            _n_assets=first.n_assets,
            _dt=first.dt,
            _drift=np.stack([m._drift for m in models]),
            _vol=np.stack([m._vol for m in models]),
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"regime"``: the regime index (as float64) at each row."""
        return {"regime": ()}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Draws ``u0 = random(paths)``, ``u = random((*paths, n_steps))`` and
        ``standard_normal((*paths, n_steps, n))`` shocks, correlated by the regime's ``corr``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        u0 = rng.random(paths)
        u = rng.random((*paths, n_steps))
        eps = rng.standard_normal((*paths, n_steps, self._n_assets))
        cum_initial = np.cumsum(self.initial)
        cum_transition = np.cumsum(self.transition, axis=1)
        regime = np.empty((*paths, n_steps + 1), dtype=np.intp)
        regime[..., 0] = _categorical(cum_initial, u0)
        for t in range(n_steps):
            regime[..., t + 1] = _categorical(cum_transition[regime[..., t]], u[..., t])
        increments = np.empty_like(eps)
        for k, model in enumerate(self.regimes):
            rows = regime[..., :-1] == k
            z = _shocks(eps[rows], model._chol_t)
            increments[rows] = self._drift[k] + self._vol[k] * z
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"regime": regime.astype(np.float64)})

    def __repr__(self) -> str:
        return (
            f"RegimeSwitching(n_regimes={len(self.regimes)}, n_assets={self._n_assets}, "
            f"dt={_fmt_dt(self._dt)})"
        )


def _stationary(transition: Array) -> Array:
    """Least-squares solution of ``pi P = pi, sum(pi) = 1``, clipped at 0 and normalised."""
    k = len(transition)
    a = np.vstack([transition.T - np.eye(k), np.ones((1, k))])
    b = np.zeros(k + 1)
    b[-1] = 1.0
    pi = np.clip(np.linalg.lstsq(a, b, rcond=None)[0], 0.0, None)
    return pi / pi.sum()


def _categorical(cumulative: Array, u: Array) -> NDArray[np.intp]:
    """The first category whose cumulative probability exceeds ``u``."""
    count = (cumulative <= np.asarray(u)[..., None]).sum(axis=-1)
    return np.minimum(count, cumulative.shape[-1] - 1)


class GARCH(_FrozenModel):
    """GARCH(1, 1) log returns: ``eps_t = sqrt(h_t) z_t``, ``h_{t+1} = omega + alpha eps_t^2 +
    beta h_t``, started at the unconditional variance."""

    _fields = ("omega", "alpha", "beta", "mu", "s0", "corr", "dt", "n_assets")

    omega: Array
    alpha: Array
    beta: Array
    mu: Array
    s0: Array
    corr: Array | None
    _h0: Array
    _chol_t: Array | None

    def __init__(
        self,
        omega: Any = 1e-6,
        alpha: Any = 0.08,
        beta: Any = 0.9,
        *,
        mu: Any = 0.0,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {"omega": omega, "alpha": alpha, "beta": beta, "mu": mu, "s0": s0}
        n = _infer_n_assets(n_assets, params, corr)
        omega_a = _per_asset(omega, "omega", n, low=0.0, strict=True)
        alpha_a = _per_asset(alpha, "alpha", n, low=0.0)
        beta_a = _per_asset(beta, "beta", n, low=0.0)
        if (alpha_a + beta_a >= 1.0).any():
            raise ValueError(f"alpha + beta must be < 1, got {alpha!r} + {beta!r}.")
        mu_a = _per_asset(mu, "mu", n)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        self._set(
            omega=omega_a,
            alpha=alpha_a,
            beta=beta_a,
            mu=mu_a,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _h0=_frozen(omega_a / (1.0 - alpha_a - beta_a)),
            _chol_t=chol_t,
        )

    @property
    def unconditional_variance(self) -> Array:
        """``omega / (1 - alpha - beta)``, the per-step variance ``h_0``."""
        return self._h0

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"variance"``: the conditional variance ``h_t`` of the step leaving row t."""
        return {"variance": (self._n_assets,)}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw, correlated by ``corr``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        n = self._n_assets
        z = _shocks(rng.standard_normal((*paths, n_steps, n)), self._chol_t)
        variance = np.empty((*paths, n_steps + 1, n))
        increments = np.empty((*paths, n_steps, n))
        h = np.broadcast_to(self._h0, (*paths, n))
        drift = self.mu * self._dt
        for t in range(n_steps):
            variance[..., t, :] = h
            eps = np.sqrt(h) * z[..., t, :]
            increments[..., t, :] = drift + eps
            h = self.omega + self.alpha * eps**2 + self.beta * h
        variance[..., n_steps, :] = h
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"variance": variance})


class MeanReverting(_FrozenModel):
    """Exponential Ornstein-Uhlenbeck prices: ``log(S/s0)`` reverts to ``log(mean/s0)``, exactly."""

    _fields = ("theta", "mean", "sigma", "s0", "corr", "dt", "n_assets")

    theta: Array
    mean: Array
    sigma: Array
    s0: Array
    corr: Array | None
    _target: Array
    _decay: Array
    _scale: Array
    _chol_t: Array | None

    def __init__(
        self,
        theta: Any = 5.0,
        mean: Any = 100.0,
        sigma: Any = 0.2,
        *,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {"theta": theta, "mean": mean, "sigma": sigma, "s0": s0}
        n = _infer_n_assets(n_assets, params, corr)
        theta_a = _per_asset(theta, "theta", n, low=0.0, strict=True)
        mean_a = _per_asset(mean, "mean", n, low=0.0, strict=True)
        sigma_a = _per_asset(sigma, "sigma", n, low=0.0)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        decay, scale = _ou_coefficients(theta_a, sigma_a, dt)
        self._set(
            theta=theta_a,
            mean=mean_a,
            sigma=sigma_a,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _target=np.log(mean_a / s0_a),
            _decay=decay,
            _scale=scale,
            _chol_t=chol_t,
        )

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw, correlated by ``corr``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        n = self._n_assets
        z = _shocks(rng.standard_normal((*paths, n_steps, n)), self._chol_t)
        m = self._target
        y = np.zeros((*paths, n))
        levels = np.empty((*paths, n_steps, n))
        for t in range(n_steps):
            y = m + (y - m) * self._decay + self._scale * z[..., t, :]
            levels[..., t, :] = y
        return Simulation(_from_log(self.s0, levels))


class CointegratedPair(_FrozenModel):
    """Two assets sharing a GBM trend ``x``, split by an OU spread ``s``:
    ``log P1 = log s0[0] + x + s/2``, ``log P2 = log s0[1] + x - s/2``."""

    _fields = ("mu", "sigma", "theta", "spread_sigma", "s0", "dt")

    mu: float
    sigma: float
    theta: float
    spread_sigma: float
    s0: Array
    _decay: float
    _scale: float

    def __init__(
        self,
        mu: float = 0.05,
        sigma: float = 0.2,
        theta: float = 5.0,
        spread_sigma: float = 0.1,
        *,
        s0: Any = (100.0, 100.0),
        dt: float = 1 / 252,
    ) -> None:
        mu = _check_scalar(mu, "mu")
        sigma = _check_rate(sigma, "sigma")
        theta = _check_scalar(theta, "theta", positive=True)
        spread_sigma = _check_rate(spread_sigma, "spread_sigma")
        s0_a = _per_asset(s0, "s0", 2, low=0.0, strict=True)
        dt = _check_scalar(dt, "dt", positive=True)
        decay, scale = _ou_coefficients(theta, spread_sigma, dt)
        self._set(
            mu=mu,
            sigma=sigma,
            theta=theta,
            spread_sigma=spread_sigma,
            s0=s0_a,
            _n_assets=2,
            _dt=dt,
            _decay=float(decay),
            _scale=float(scale),
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"spread"``: the OU spread ``s`` at each row."""
        return {"spread": ()}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, 2))`` draw: column 0 the trend, 1 the spread."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        z = rng.standard_normal((*paths, n_steps, 2))
        drift = (self.mu - self.sigma**2 / 2.0) * self._dt
        trend = np.cumsum(drift + self.sigma * np.sqrt(self._dt) * z[..., 0], axis=-1)
        spread = np.zeros((*paths, n_steps + 1))
        for t in range(n_steps):
            spread[..., t + 1] = spread[..., t] * self._decay + self._scale * z[..., t, 1]
        half = spread[..., 1:] / 2.0
        log_paths = np.stack([trend + half, trend - half], axis=-1)
        return Simulation(_from_log(self.s0, log_paths), state={"spread": spread})

    def __repr__(self) -> str:
        return (
            f"CointegratedPair(mu={self.mu!r}, sigma={self.sigma!r}, theta={self.theta!r}, "
            f"spread_sigma={self.spread_sigma!r}, s0={_fmt_param(self.s0)}, "
            f"dt={_fmt_dt(self._dt)})"
        )


class BlockBootstrap(_FrozenModel):
    """Circular block bootstrap of whole rows of ``returns``, used as log increments."""

    _fields = ("returns", "block_size", "s0", "dt")

    returns: Array
    block_size: int
    s0: Array

    def __init__(
        self, returns: Any, *, block_size: int = 20, s0: Any = 100.0, dt: float = 1 / 252
    ) -> None:
        arr = np.array(_as_float(returns, "returns"))
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2 or arr.size == 0:
            raise ValueError(f"returns must be a non-empty (T,) or (T, n) array, got {arr.shape}.")
        if not np.isfinite(arr).all():
            raise ValueError("returns must be finite.")
        block_size = _check_count(block_size, "block_size")
        if block_size > len(arr):
            raise ValueError(f"block_size {block_size} exceeds the {len(arr)} rows of returns.")
        self._set(
            returns=_frozen(arr),
            block_size=block_size,
            s0=_per_asset(s0, "s0", arr.shape[1], low=0.0, strict=True),
            _n_assets=arr.shape[1],
            _dt=_check_scalar(dt, "dt", positive=True),
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


class Randomized(_FrozenModel):
    """A fresh model ``factory(rng)`` per path; ``factory(default_rng(0))`` fixes the shape."""

    _fields = ("factory",)

    factory: Callable[[np.random.Generator], MarketModel]
    reference: MarketModel
    _state_spec: dict[str, tuple[int, ...]]

    def __init__(self, factory: Callable[[np.random.Generator], MarketModel]) -> None:
        if not callable(factory):
            raise TypeError(f"factory must be callable, got {factory!r}.")
        reference = factory(np.random.default_rng(0))
        if not isinstance(reference, MarketModel):
            raise TypeError(f"factory must return a MarketModel, got {reference!r}.")
        self._set(
            factory=factory,
            reference=reference,
            _n_assets=reference.n_assets,
            _dt=reference.dt,
            _state_spec=dict(reference.state_spec()),
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """The reference model's state keys and shapes."""
        return dict(self._state_spec)

    def _build(self, rng: np.random.Generator) -> MarketModel:
        model = self.factory(rng)
        if not isinstance(model, MarketModel):
            raise TypeError(f"factory must return a MarketModel, got {model!r}.")
        if (
            model.n_assets != self._n_assets
            or model.dt != self._dt
            or model.state_spec() != self._state_spec
        ):
            raise ValueError(
                f"factory built {model!r}, which does not match the reference's n_assets, dt "
                "and state_spec."
            )
        return model

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Per path in turn: ``factory(rng)``, then that model's ``simulate(rng, n_steps)``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        if not paths:
            return self._build(rng).simulate(rng, n_steps)
        sims = [self._build(rng).simulate(rng, n_steps) for _ in range(paths[0])]
        mask = None
        if any(sim.mask is not None for sim in sims):
            mask = np.stack(
                [np.ones(s.prices.shape, bool) if s.mask is None else s.mask for s in sims]
            )
        state = {key: np.stack([s.state[key] for s in sims]) for key in self._state_spec}
        return Simulation(np.stack([s.prices for s in sims]), mask=mask, state=state)

    def __repr__(self) -> str:
        name = getattr(self.factory, "__qualname__", repr(self.factory))
        return f"Randomized(factory={name}, n_assets={self._n_assets}, dt={_fmt_dt(self._dt)})"


class ListingProcess(_FrozenModel):
    """Listings and delistings on top of ``model``: each asset follows a two-state Markov chain,
    with at least ``min_listed`` assets listed at every row."""

    _fields = ("model", "initial_listed", "listing_rate", "delisting_rate", "min_listed")

    model: MarketModel
    initial_listed: float
    listing_rate: float
    delisting_rate: float
    min_listed: int
    _p_list: float
    _p_delist: float

    def __init__(
        self,
        model: MarketModel,
        *,
        initial_listed: float = 0.8,
        listing_rate: float = 1.0,
        delisting_rate: float = 0.25,
        min_listed: int = 1,
    ) -> None:
        if not isinstance(model, MarketModel):
            raise TypeError(f"model must be a MarketModel, got {model!r}.")
        n = model.n_assets
        min_listed = _check_count(min_listed, "min_listed", minimum=0)
        if min_listed > n:
            raise ValueError(f"min_listed {min_listed} exceeds the {n} assets.")
        listing_rate = _check_rate(listing_rate, "listing_rate")
        delisting_rate = _check_rate(delisting_rate, "delisting_rate")
        self._set(
            model=model,
            initial_listed=_check_unit(initial_listed, "initial_listed"),
            listing_rate=listing_rate,
            delisting_rate=delisting_rate,
            min_listed=min_listed,
            _n_assets=n,
            _dt=model.dt,
            _p_list=1.0 - np.exp(-listing_rate * model.dt),
            _p_delist=1.0 - np.exp(-delisting_rate * model.dt),
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """The inner model's state keys and shapes."""
        return self.model.state_spec()

    def _floor(self, listed: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """``listed`` with unlisted assets switched on, by column, up to ``min_listed``."""
        missing = self.min_listed - listed.sum(axis=-1, keepdims=True)
        off = ~listed
        return listed | (off & (np.cumsum(off, axis=-1) <= missing))

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """The inner simulation, then draws ``random((*paths, n))`` (initial listings) and
        ``random((*paths, n_steps, n))`` (transitions); prices are NaN where unmasked."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        inner = self.model.simulate(rng, n_steps, n_paths=n_paths)
        n = self._n_assets
        u0 = rng.random((*paths, n))
        u = rng.random((*paths, n_steps, n))
        listed = np.empty((*paths, n_steps + 1, n), dtype=np.bool_)
        now = self._floor(u0 < self.initial_listed)
        listed[..., 0, :] = now
        for t in range(n_steps):
            step = u[..., t, :]
            now = self._floor(np.where(now, step >= self._p_delist, step < self._p_list))
            listed[..., t + 1, :] = now
        mask = listed if inner.mask is None else listed & inner.mask
        prices = np.where(mask, inner.prices, np.nan)
        return Simulation(prices, mask=mask, state=inner.state)

    def __repr__(self) -> str:
        return (
            f"ListingProcess({self.model!r}, initial_listed={self.initial_listed!r}, "
            f"listing_rate={self.listing_rate!r}, delisting_rate={self.delisting_rate!r}, "
            f"min_listed={self.min_listed})"
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
