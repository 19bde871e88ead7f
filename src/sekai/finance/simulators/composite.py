"""Models built on other models: a fresh model per path, and listings on top of a model."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from sekai.finance.simulators.base import MarketModel, Simulation, _fmt_dt, _FrozenModel, _run_shape
from sekai.utils.validation import check_instance, check_int, check_real

__all__ = ["ListingProcess", "Randomized"]


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
        check_instance(model, "model", MarketModel, "a MarketModel")
        n = model.n_assets
        min_listed = check_int(min_listed, "min_listed", low=0)
        if min_listed > n:
            raise ValueError(f"min_listed {min_listed} exceeds the {n} assets.")
        listing_rate = check_real(listing_rate, "listing_rate", low=0.0)
        delisting_rate = check_real(delisting_rate, "delisting_rate", low=0.0)
        self._set(
            model=model,
            initial_listed=check_real(initial_listed, "initial_listed", low=0.0, high=1.0),
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
