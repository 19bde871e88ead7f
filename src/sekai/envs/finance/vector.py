"""Native vector versions of the finance environments.

Each ``XxxVecEnv(num_envs, *, autoreset=True, max_episode_steps=None, **kwargs)`` builds one
single env, ``template``, from ``kwargs`` (so validation, spaces and parameters are the single
env's) and keeps the state of all sub-envs in arrays with a leading ``num_envs`` axis.
Parameters are ``_Param`` descriptors reading and writing ``template``: every sub-env shares
them, and the batched dynamics read them from ``template`` on every step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core.env import Env
from sekai.core.options import check_reset_options_each
from sekai.envs.finance.market import WindowedEnv, choose_start, row_sum, simulated_prices
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.optimal_execution import SNAP, OptimalExecutionEnv
from sekai.envs.finance.portfolio import PortfolioEnv, cash_weights
from sekai.envs.finance.trading import TradingEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.rewards import StepOutcome
from sekai.finance.simulators import GBM
from sekai.vector.native import NativeVecEnv, shared
from sekai.vector.vec_env import per_env_values

__all__ = ["MarketMakingVecEnv", "OptimalExecutionVecEnv", "PortfolioVecEnv", "TradingVecEnv"]

EnvT = TypeVar("EnvT", bound=Env[Any, Any])

_NAN = float("nan")
_METADATA_READ_ONLY = "it describes the environment class"


class _Param:
    """A parameter of ``template``, shared by every sub-env of a ``_TemplateVecEnv``.

    Declared in the class body (``sigma = _Param()``); reading or writing ``vec.sigma`` reads
    or writes ``vec.template.sigma``. ``_Param(reason)`` is read-only: assigning it raises
    ``AttributeError`` quoting ``reason``. On the class itself it gives the single env class's
    attribute of that name when there is one (so ``MarketMakingVecEnv.metadata`` is
    ``MarketMakingEnv.metadata``), else the descriptor.
    """

    __slots__ = ("name", "reason")

    def __init__(self, reason: str | None = None) -> None:
        self.name = ""
        self.reason = reason

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: _TemplateVecEnv[Any] | None, objtype: type | None = None) -> Any:
        if obj is None:
            return getattr(getattr(objtype, "env_class", None), self.name, self)
        return getattr(obj.template, self.name)

    def __set__(self, obj: _TemplateVecEnv[Any], value: Any) -> None:
        self.check_writable(obj)
        setattr(obj.template, self.name, value)

    def check_writable(self, obj: _TemplateVecEnv[Any]) -> None:
        """Raise ``AttributeError`` if this parameter is read-only."""
        if self.reason is not None:
            raise AttributeError(f"{type(obj).__name__}.{self.name} is read-only: {self.reason}.")


def _same_value(a: Any, b: Any) -> bool:
    """Equality for ``set_attr`` lists: identity, else element-wise with NaN equal to NaN."""
    if a is b:
        return True
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except (TypeError, ValueError):
        pass  # no NaN test for the dtype (objects, strings): compare without it
    try:
        return bool(np.array_equal(a, b))
    except Exception:
        return False


class _TemplateVecEnv(NativeVecEnv, Generic[EnvT]):
    """A native vector env whose parameters are those of one single env, ``template``.

    Subclasses set ``env_class`` and declare each parameter as a ``_Param`` class attribute.
    For parameters, ``get_attr``/``call`` give ``[value] * num_envs`` and ``set_attr`` takes
    one value, or a ``num_envs``-long list of equal values (``ValueError`` for different
    ones); other names follow ``NativeVecEnv``.
    """

    env_class: ClassVar[type[Env[Any, Any]]]
    template: EnvT

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        template: Any = self.env_class(**kwargs)
        self.template = template
        super().__init__(
            num_envs,
            template.observation_space,
            template.action_space,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )

    @classmethod
    def _param(cls, name: str) -> _Param | None:
        """The ``_Param`` declared as ``name`` on the class or a base, else None."""
        for klass in cls.__mro__:
            if name in klass.__dict__:
                member = klass.__dict__[name]
                return member if isinstance(member, _Param) else None
        return None

    def get_attr(self, name: str) -> list[Any]:
        """Per-sub-env values of ``name``; a parameter gives ``[value] * num_envs``."""
        if self._param(name) is None:
            return super().get_attr(name)
        return [getattr(self, name)] * self.num_envs

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``name`` (or read it); a parameter's result is repeated for every sub-env."""
        if self._param(name) is None:
            return super().call(name, *args, **kwargs)
        member = getattr(self, name)
        return [member(*args, **kwargs) if callable(member) else member] * self.num_envs

    def set_attr(self, name: str, values: Any) -> None:
        """Set ``name``; a parameter takes one value or a list of ``num_envs`` equal values."""
        param = self._param(name)
        if param is None:
            super().set_attr(name, values)
            return
        param.check_writable(self)
        if isinstance(values, list):
            entries = per_env_values(name, values, self.num_envs)
            first = entries[0]
            if not all(_same_value(first, other) for other in entries[1:]):
                raise ValueError(
                    f"{type(self).__name__} shares {name!r} between all sub-envs, so "
                    f"set_attr({name!r}, values) needs equal values; for different values per "
                    "sub-env use make_vec(..., vectorization_mode='sync')."
                )
            values = first
        setattr(self, name, values)

    def _batch_actions(self, actions: Any, shape: tuple[int, ...]) -> NDArray[np.float64]:
        """``actions`` as a finite float64 array of ``shape``, else ``InvalidAction``."""
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(actions, self.batch_action_space) from exc
        if array.shape != shape or array.dtype.kind not in "iuf":
            raise InvalidAction(actions, self.batch_action_space)
        batch = array.astype(np.float64)
        if not np.isfinite(batch).all():
            raise InvalidAction(actions, self.batch_action_space)
        return batch


def _replaced(array: NDArray[Any], indices: NDArray[np.intp], value: Any) -> NDArray[Any]:
    """A copy of ``array`` with ``value`` at ``indices`` (info arrays handed out stay intact)."""
    result = array.copy()
    result[indices] = value
    return result


class MarketMakingVecEnv(_TemplateVecEnv[MarketMakingEnv]):
    """``num_envs`` copies of ``MarketMakingEnv`` stepped together.

    State arrays ``mid``, ``inventory`` (int64), ``cash``, ``bid``, ``ask``, ``bid_filled``,
    ``ask_filled``. Per step the generator draws ``random((N, 2))`` (bid, ask columns) then
    ``standard_normal(N)``.
    """

    env_class = MarketMakingEnv
    metadata = _Param(_METADATA_READ_ONLY)
    s0 = _Param()
    sigma = _Param()
    total_time = _Param()
    n_steps = _Param()
    dt = _Param()
    A = _Param()
    k = _Param()
    risk_aversion = _Param()
    max_inventory = _Param()
    order_size = _Param()
    max_offset = _Param()

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_envs, autoreset=autoreset, max_episode_steps=max_episode_steps, **kwargs
        )
        n = self.num_envs
        self.mid: NDArray[np.float64] = np.full(n, self.template.s0)
        self.inventory: NDArray[np.int64] = np.zeros(n, np.int64)
        self.cash: NDArray[np.float64] = np.zeros(n)
        self.bid: NDArray[np.float64] = np.full(n, _NAN)
        self.ask: NDArray[np.float64] = np.full(n, _NAN)
        self.bid_filled: NDArray[np.bool_] = np.zeros(n, bool)
        self.ask_filled: NDArray[np.bool_] = np.zeros(n, bool)
        self._t: NDArray[np.int64] = np.zeros(n, np.int64)

    @property
    def wealth(self) -> NDArray[np.float64]:
        """Marked-to-mid wealth ``cash + inventory·mid`` per sub-env."""
        result: NDArray[np.float64] = self.cash + self.inventory * self.mid
        return result

    @property
    def time_remaining(self) -> NDArray[np.float64]:
        """Time left in each sub-env's episode, ``(n_steps - t)·dt``."""
        template = self.template
        return (template.n_steps - self._t) * np.float64(template.dt)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        check_reset_options_each(self, options)
        self.mid = _replaced(self.mid, indices, self.template.s0)
        self.inventory = _replaced(self.inventory, indices, 0)
        self.cash = _replaced(self.cash, indices, 0.0)
        self.bid = _replaced(self.bid, indices, _NAN)
        self.ask = _replaced(self.ask, indices, _NAN)
        self.bid_filled = _replaced(self.bid_filled, indices, False)
        self.ask_filled = _replaced(self.ask_filled, indices, False)
        self._t = _replaced(self._t, indices, 0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        mid, inventory, cash = self.mid[indices], self.inventory[indices], self.cash[indices]
        return self._infos(
            mid,
            inventory,
            cash,
            cash + inventory * mid,
            self.bid[indices],
            self.ask[indices],
            self.bid_filled[indices],
            self.ask_filled[indices],
            self._t[indices],
        )

    def _infos(
        self,
        mid: NDArray[np.float64],
        inventory: NDArray[np.int64],
        cash: NDArray[np.float64],
        wealth: NDArray[np.float64],
        bid: NDArray[np.float64],
        ask: NDArray[np.float64],
        bid_filled: NDArray[np.bool_],
        ask_filled: NDArray[np.bool_],
        t: NDArray[np.int64],
    ) -> dict[str, NDArray[Any]]:
        dt = self.template.dt
        return {
            "mid_price": mid,
            "inventory": inventory,
            "cash": cash,
            "wealth": wealth,
            "bid": bid,
            "ask": ask,
            "bid_filled": bid_filled,
            "ask_filled": ask_filled,
            "timestamp": t * dt,
            "dt": np.full(len(t), dt),
        }

    def _observe(self) -> NDArray[np.float32]:
        template = self.template
        n_steps = template.n_steps
        obs = np.empty((self.num_envs, 2), np.float32)
        np.divide(self.inventory, template.max_inventory, out=obs[:, 0])
        np.divide(n_steps - self._t, n_steps, out=obs[:, 1])
        return obs

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        n = self.num_envs
        offsets = self._batch_actions(actions, (n, 2))
        np.maximum(offsets, 0.0, out=offsets)
        np.minimum(offsets, template.max_offset, out=offsets)
        mid, q, cash, t = self.mid, self.inventory, self.cash, self._t
        size, max_inventory, dt = template.order_size, template.max_inventory, template.dt
        bid = mid - offsets[:, 0]
        ask = mid + offsets[:, 1]
        rng = self.rng
        uniforms = rng.random((n, 2))
        z = rng.standard_normal(n)
        # 1 - exp(-A·exp(-k·δ)·dt), evaluated in place on the offsets
        np.multiply(offsets, -template.k, out=offsets)
        np.exp(offsets, out=offsets)
        np.multiply(offsets, -template.A, out=offsets)
        np.multiply(offsets, dt, out=offsets)
        np.exp(offsets, out=offsets)
        np.subtract(1.0, offsets, out=offsets)
        fills = uniforms < offsets
        bid_filled = fills[:, 0] & (q <= max_inventory - size)
        ask_filled = fills[:, 1] & (q >= size - max_inventory)
        frozen = self._frozen
        any_frozen = self._any_frozen
        if any_frozen:
            active = ~frozen
            bid_filled &= active
            ask_filled &= active
            z *= active
            t = t + active
        else:
            t = t + 1
        wealth_before = cash + q * mid
        q = q + size * bid_filled - size * ask_filled
        cash = cash - size * bid * bid_filled + size * ask * ask_filled
        sigma = template.sigma
        mid = mid + sigma * math.sqrt(dt) * z
        wealth = cash + q * mid
        penalty = 0.5 * template.risk_aversion * sigma * sigma * dt
        rewards = wealth - wealth_before - penalty * q * q
        if any_frozen:  # frozen sub-envs keep their last quotes and fills
            bid = np.where(frozen, self.bid, bid)
            ask = np.where(frozen, self.ask, ask)
            bid_filled = np.where(frozen, self.bid_filled, bid_filled)
            ask_filled = np.where(frozen, self.ask_filled, ask_filled)
        self.mid, self.inventory, self.cash, self._t = mid, q, cash, t
        self.bid, self.ask, self.bid_filled, self.ask_filled = bid, ask, bid_filled, ask_filled
        terminated = t >= template.n_steps
        infos = self._infos(mid, q, cash, wealth, bid, ask, bid_filled, ask_filled, t)
        return rewards, terminated, np.zeros(n, bool), infos

    def avellaneda_stoikov_action(self) -> NDArray[np.float32]:
        """Avellaneda-Stoikov quote distances ``(N, 2)`` for every sub-env's state."""
        template = self.template
        gamma = template.risk_aversion
        variance_left = template.sigma * template.sigma * self.time_remaining
        skew = self.inventory * gamma * variance_left
        if gamma > 0:
            spread = gamma * variance_left + (2.0 / gamma) * math.log(1.0 + gamma / template.k)
        else:
            spread = np.full(self.num_envs, 2.0 / template.k)
        half = spread / 2.0
        quotes = np.stack([half + skew, half - skew], axis=1)
        return np.clip(quotes, 0.0, template.max_offset).astype(np.float32)


class OptimalExecutionVecEnv(_TemplateVecEnv[OptimalExecutionEnv]):
    """``num_envs`` copies of ``OptimalExecutionEnv`` stepped together.

    State arrays ``inventory``, ``mid``, ``shortfall``. Per step the generator draws
    ``standard_normal(N)``.
    """

    env_class = OptimalExecutionEnv
    metadata = _Param(_METADATA_READ_ONLY)
    X0 = _Param()
    s0 = _Param()
    sigma = _Param()
    total_time = _Param()
    n_steps = _Param()
    tau = _Param()
    gamma = _Param()
    eta = _Param()
    epsilon = _Param()
    risk_aversion = _Param()

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_envs, autoreset=autoreset, max_episode_steps=max_episode_steps, **kwargs
        )
        n = self.num_envs
        self.inventory: NDArray[np.float64] = np.full(n, self.template.X0)
        self.mid: NDArray[np.float64] = np.full(n, self.template.s0)
        self.shortfall: NDArray[np.float64] = np.zeros(n)
        self._k: NDArray[np.int64] = np.zeros(n, np.int64)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        check_reset_options_each(self, options)
        self.inventory = _replaced(self.inventory, indices, self.template.X0)
        self.mid = _replaced(self.mid, indices, self.template.s0)
        self.shortfall = _replaced(self.shortfall, indices, 0.0)
        self._k = _replaced(self._k, indices, 0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        size = len(indices)
        return self._infos(
            np.zeros(size),
            np.full(size, _NAN),
            self.inventory[indices],
            self.mid[indices],
            self.shortfall[indices],
            self._k[indices],
        )

    def _infos(
        self,
        shares_sold: NDArray[np.float64],
        execution_price: NDArray[np.float64],
        inventory: NDArray[np.float64],
        mid: NDArray[np.float64],
        shortfall: NDArray[np.float64],
        k: NDArray[np.int64],
    ) -> dict[str, NDArray[Any]]:
        template = self.template
        tau = template.tau
        return {
            "shares_sold": shares_sold,
            "execution_price": execution_price,
            "inventory": inventory,
            "mid_price": mid,
            "implementation_shortfall": shortfall,
            "shortfall_bps": 1e4 * shortfall / (template.X0 * template.s0),
            "timestamp": k * tau,
            "dt": np.full(len(k), tau),
        }

    def _observe(self) -> NDArray[np.float32]:
        template = self.template
        n_steps = template.n_steps
        scale = template.sigma * math.sqrt(template.total_time)
        obs = np.empty((self.num_envs, 3), np.float32)
        np.divide(self.inventory, template.X0, out=obs[:, 0])
        np.divide(n_steps - self._k, n_steps, out=obs[:, 1])
        if scale != 0:
            np.divide(self.mid - template.s0, scale, out=obs[:, 2])
        else:
            obs[:, 2] = 0.0
        return obs

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        n = self.num_envs
        fraction = self._batch_actions(actions, (n, 1))[:, 0]
        np.maximum(fraction, 0.0, out=fraction)
        np.minimum(fraction, 1.0, out=fraction)
        x, mid, k = self.inventory, self.mid, self._k
        tau, s0, x0 = template.tau, template.s0, template.X0
        z = self.rng.standard_normal(n)
        shares = np.where(k == template.n_steps - 1, x, fraction * x)
        frozen = self._frozen
        if self._any_frozen:
            shares[frozen] = 0.0
            z *= ~frozen
            k = k + ~frozen
        else:
            k = k + 1
        selling = shares > 0
        price = np.where(selling, mid - template.epsilon - template.eta * shares / tau, mid)
        x = x - shares
        x[x < SNAP * x0] = 0.0
        shortfall = self.shortfall + shares * (s0 - price)
        mid = mid + template.sigma * math.sqrt(tau) * z
        mid -= template.gamma * shares
        self.inventory, self.mid, self.shortfall, self._k = x, mid, shortfall, k
        penalty = template.risk_aversion * template.sigma * template.sigma * tau
        rewards = 1e4 * (shares * (price - s0) - penalty * x * x) / (x0 * s0)
        terminated = (x == 0) | (k >= template.n_steps)
        infos = self._infos(shares, price, x, mid, shortfall, k)
        return rewards, terminated, np.zeros(n, bool), infos

    @shared
    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The template's Almgren-Chriss schedule ``(n_steps, 1)``, the same for every sub-env."""
        return self.template.almgren_chriss_actions()


def _windows(returns: NDArray[Any], count: int, lookback: int) -> NDArray[Any]:
    """Read-only view ``(N, count, lookback, ...)`` of ``returns (N, rows, ...)``: rows t.."""
    strides = returns.strides
    return np.lib.stride_tricks.as_strided(
        returns,
        shape=(returns.shape[0], count, lookback, *returns.shape[2:]),
        strides=(strides[0], strides[1], *strides[1:]),
        writeable=False,
    )


_SHAPE_READ_ONLY = "it fixes the shapes of the state arrays"
_HISTORY_READ_ONLY = "the history is loaded at build"
_COST_READ_ONLY = "it became cost_model; set cost_model instead"

WindowedT = TypeVar("WindowedT", bound=WindowedEnv)


class _WindowVecEnv(_TemplateVecEnv[WindowedT]):
    """Shared machinery of ``TradingVecEnv`` and ``PortfolioVecEnv``.

    Each sub-env holds one price window, ``_paths[i]`` (``(window,)`` or ``(window, n)``),
    with its log returns (float64 and float32) and its decision counter ``_t[i]``; a history
    window also records its start row ``_start[i]``. Decision prices are read through flat
    indices ``_path_rows + t``, observed returns through the strided window views.
    """

    prices = _Param(_HISTORY_READ_ONLY)
    data = _Param(_HISTORY_READ_ONLY)
    lookback = _Param(_SHAPE_READ_ONLY)
    episode_length = _Param(_SHAPE_READ_ONLY)
    transaction_cost = _Param(_COST_READ_ONLY)
    cost_model = _Param()
    reward_fn = _Param()
    dt = _Param()
    mu = _Param()
    sigma = _Param()
    model = _Param()
    capital = _Param()
    metadata = _Param(_METADATA_READ_ONLY)

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_envs, autoreset=autoreset, max_episode_steps=max_episode_steps, **kwargs
        )
        template = self.template
        n = self.num_envs
        window = template._window
        assets = self._asset_shape()
        self._paths: NDArray[np.float64] = np.ones((n, window, *assets))
        self._log_returns: NDArray[np.float64] = np.zeros((n, window - 1, *assets))
        self._log_returns32: NDArray[np.float32] = np.zeros((n, window - 1, *assets), np.float32)
        # the observable windows: _windows32[i, t] is _log_returns32[i, t : t + lookback]
        self._windows = _windows(self._log_returns, template.episode_length + 1, template.lookback)
        self._windows32 = _windows(
            self._log_returns32, template.episode_length + 1, template.lookback
        )
        self._t: NDArray[np.int64] = np.zeros(n, np.int64)
        self._start: NDArray[np.int64] = np.zeros(n, np.int64)
        self._path_rows = np.arange(n) * window + template.lookback
        history = template._history
        self._samplers = None if history is None else [template.sampler.spawn() for _ in range(n)]
        self._started = False

    def _asset_shape(self) -> tuple[int, ...]:
        """Trailing shape of one price row: ``()`` or ``(n_assets,)``."""
        raise NotImplementedError

    def _simulate(self, count: int) -> NDArray[np.float64]:
        """``count`` simulated windows ``(count, window, *assets)``."""
        raise NotImplementedError

    def _reset_windows(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        """New windows (history or simulation) for the sub-envs in ``indices``."""
        check_reset_options_each(self, options, ("start",))
        template = self.template
        history = template._history
        starts = [None if not option else option.get("start") for option in options]
        if history is None:
            if any(start is not None for start in starts):
                raise ValueError(
                    "the 'start' option needs historical prices; this market is simulated."
                )
            paths = self._simulate(len(indices))
            log_returns = np.diff(np.log(paths), axis=1)
            log_returns32 = log_returns.astype(np.float32)
        else:
            assert self._samplers is not None
            lookback, episode_length = template.lookback, template.episode_length
            first = np.array(
                [
                    choose_start(
                        start, history, self._samplers[i], self.rng, lookback, episode_length
                    )
                    for i, start in zip(indices.tolist(), starts, strict=True)
                ],
                dtype=np.int64,
            )
            self._start = _replaced(self._start, indices, first)
            rows = first[:, None] + np.arange(template._window)
            squeeze = (slice(None), slice(None), 0) if template._ndim == 1 else ()
            paths = history.prices[rows][squeeze]
            log_returns = history.log_returns[rows[:, :-1]][squeeze]
            log_returns32 = history.log_returns32[rows[:, :-1]][squeeze]
        self._paths[indices] = paths
        self._log_returns[indices] = log_returns
        self._log_returns32[indices] = log_returns32
        self._t = _replaced(self._t, indices, 0)
        self._started = True
        if len(indices) == self.num_envs:
            template.reward_fn.reset()
        else:
            mask = np.zeros(self.num_envs, bool)
            mask[indices] = True
            template.reward_fn.reset(mask)

    def _decision_steps(self) -> NDArray[np.int64]:
        """Each sub-env's step counter, frozen ones kept inside the window."""
        if self._any_frozen:
            return np.minimum(self._t, self.template.episode_length - 1)
        return self._t

    def _timestamps(self, t: NDArray[np.int64]) -> NDArray[Any]:
        history = self.template._history
        if history is None:
            return t
        return history.timestamps.take(self._start + self.template.lookback + t)

    def _cost_context(self, equity: NDArray[np.float64], t: NDArray[np.int64]) -> dict[str, Any]:
        """Context of ``cost_model`` at each decision row (only the keys it requires)."""
        template = self.template
        requires = template.cost_model.requires
        context: dict[str, Any] = {}
        if not requires:
            return context
        if "equity" in requires:
            context["equity"] = template.capital * equity
        if "volatility" in requires:
            std = self._windows[self._all, t].std(axis=1)
            context["volatility"] = std.reshape(self.num_envs, -1)
        history = template._history
        if history is not None:
            row = self._start + template.lookback + t
            if "volume" in requires:
                volume = history.field("volume")
                assert volume is not None
                context["volume"] = volume[row] * history.prices[row]
            if "spread" in requires:
                spread = history.field("spread")
                assert spread is not None
                context["spread"] = spread[row]
        return context

    def _check_started(self) -> None:
        """``ResetRequired`` before the first ``reset()`` (no episode windows yet)."""
        if not self._started:
            raise ResetRequired("This needs an episode: call reset() first.")

    @property
    def timestamp(self) -> NDArray[Any]:
        """Time of each sub-env's decision row: data timestamps, or step indices if simulated."""
        self._check_started()
        return self._timestamps(self._t)

    @property
    def price_history(self) -> NDArray[np.object_]:
        """Object array of each sub-env's prices up to its decision row (copies)."""
        self._check_started()
        result = np.empty(self.num_envs, dtype=object)
        stop = self.template.lookback + 1
        for i, t in enumerate(self._t.tolist()):
            result[i] = self._paths[i, : stop + t].copy()
        return result


class TradingVecEnv(_WindowVecEnv[TradingEnv]):
    """``num_envs`` copies of ``TradingEnv`` stepped together.

    State arrays ``position``, ``equity``; internal ``_paths (N, window)`` and ``_t``.
    Simulated windows come from ``GBM(mu, sigma, s0=s0, dt=dt)`` (or ``model``) with one
    ``simulate(rng, window - 1, n_paths=k)`` per reset batch.
    """

    env_class = TradingEnv
    positions = _Param()
    s0 = _Param()

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_envs, autoreset=autoreset, max_episode_steps=max_episode_steps, **kwargs
        )
        self.position: NDArray[np.float64] = np.zeros(self.num_envs)
        self.equity: NDArray[np.float64] = np.ones(self.num_envs)

    def _asset_shape(self) -> tuple[int, ...]:
        return ()

    def _simulate(self, count: int) -> NDArray[np.float64]:
        template = self.template
        steps = template._window - 1
        if template.model is not None:
            return simulated_prices(template.model, self.rng, steps, count)[..., 0]
        gbm = GBM(template.mu, template.sigma, s0=template.s0, dt=template.dt)
        return gbm.simulate(self.rng, steps, n_paths=count).prices[..., 0]

    @property
    def price(self) -> NDArray[np.float64]:
        """Price at each sub-env's decision row."""
        self._check_started()
        return self._paths.reshape(-1).take(self._path_rows + self._t)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._reset_windows(indices, options)
        self.position = _replaced(self.position, indices, 0.0)
        self.equity = _replaced(self.equity, indices, 1.0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        zeros = np.zeros(len(indices))
        t = self._t[indices]
        return {
            "equity": self.equity[indices],
            "position": self.position[indices],
            "price": self._paths.reshape(-1).take(self._path_rows[indices] + t),
            "asset_return": zeros,
            "cost": zeros,
            "turnover": zeros,
            "timestamp": self._timestamps(self._t)[indices],
            "dt": np.full(len(indices), self.template.dt),
        }

    def _observe(self) -> NDArray[np.float32]:
        lookback = self.template.lookback
        obs = np.empty((self.num_envs, lookback + 1), np.float32)
        obs[:, :lookback] = self._windows32[self._all, self._t]
        obs[:, lookback] = self.position
        return obs

    def _actions(self, actions: Any) -> NDArray[np.intp]:
        """Integral, in-range action indices ``(N,)``, else ``InvalidAction``."""
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(actions, self.batch_action_space) from exc
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iuf":
            raise InvalidAction(actions, self.batch_action_space)
        if array.dtype.kind == "f":
            if not (np.isfinite(array).all() and (array == np.floor(array)).all()):
                raise InvalidAction(actions, self.batch_action_space)
            array = array.astype(np.intp)
        if array.min() < 0 or array.max() >= len(self.template.positions):
            raise InvalidAction(actions, self.batch_action_space)
        return array

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        target = template.positions.take(self._actions(actions))
        position, equity = self.position, self.equity
        steps = self._decision_steps()
        trade = target - position
        cost = np.asarray(
            template.cost_model(trade[:, None], **self._cost_context(equity, steps)),
            dtype=np.float64,
        )
        index = self._path_rows + steps
        paths = self._paths.reshape(-1)
        price = paths.take(index)
        next_price = paths.take(index + 1)
        r = next_price / price - 1.0
        growth = (1.0 - cost) * (1.0 + target * r)
        growth[cost >= 1.0] = 0.0
        held = target * (1.0 + r)
        # 1 - target first: a long (1) or flat (0) position then drifts to exactly itself.
        denominator = held + (1.0 - target)
        alive = growth > 0.0
        moved = alive & (denominator > 0.0)
        new_position = np.where(moved, held / np.where(moved, denominator, 1.0), 0.0)
        new_equity = np.where(alive, equity * growth, 0.0)
        t = self._t
        if self._any_frozen:  # frozen sub-envs keep their state
            frozen = self._frozen
            new_position = np.where(frozen, position, new_position)
            new_equity = np.where(frozen, equity, new_equity)
            growth[frozen] = 1.0
            t = t + ~frozen
        else:
            t = t + 1
        turnover = np.abs(trade)
        self.position, self.equity, self._t = new_position, new_equity, t
        rewards = template.reward_fn(
            StepOutcome.from_growth(
                growth, equity=new_equity, turnover=turnover, cost=cost, previous_equity=equity
            )
        )
        terminated = growth <= 0.0
        truncated = (t >= template.episode_length) & ~terminated
        infos = {
            "equity": new_equity,
            "position": new_position,
            "price": next_price,
            "asset_return": r,
            "cost": cost,
            "turnover": turnover,
            "timestamp": self._timestamps(t),
            "dt": np.full(self.num_envs, template.dt),
        }
        return rewards, terminated, truncated, infos


class PortfolioVecEnv(_WindowVecEnv[PortfolioEnv]):
    """``num_envs`` copies of ``PortfolioEnv`` stepped together.

    State arrays ``weights (N, n+1)`` and ``portfolio_value (N,)``; internal
    ``_paths (N, window, n)``. Simulated windows come from
    ``GBM(mu, sigma, s0=100.0, corr=corr, dt=dt)`` (or ``model``).
    """

    env_class = PortfolioEnv
    n_assets = _Param(_SHAPE_READ_ONLY)
    allow_short = _Param(_SHAPE_READ_ONLY)
    corr = _Param()

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_envs, autoreset=autoreset, max_episode_steps=max_episode_steps, **kwargs
        )
        self.weights: NDArray[np.float64] = cash_weights((self.num_envs, self.n_assets + 1))
        self.portfolio_value: NDArray[np.float64] = np.ones(self.num_envs)

    def _asset_shape(self) -> tuple[int, ...]:
        return (self.template.n_assets,)

    def _simulate(self, count: int) -> NDArray[np.float64]:
        template = self.template
        steps = template._window - 1
        if template.model is not None:
            return simulated_prices(template.model, self.rng, steps, count)
        gbm = GBM(template.mu, template.sigma, s0=100.0, corr=template.corr, dt=template.dt)
        return gbm.simulate(self.rng, steps, n_paths=count).prices

    def action_to_weights(self, actions: Any) -> NDArray[np.float64]:
        """Target weights ``(N, n+1)`` of a batch of actions (the single env's rule per row)."""
        template = self.template
        size = template.n_assets if template.allow_short else template.n_assets + 1
        scores = self._batch_actions(actions, (self.num_envs, size))
        if not template.allow_short:
            np.maximum(scores, 0.0, out=scores)
            total = row_sum(scores)
            small = total < 1e-12
            if small.any():
                total[small] = 1.0
                weights = scores / total[:, None]
                weights[small] = cash_weights((template.n_assets + 1,))
                return weights
            result: NDArray[np.float64] = scores / total[:, None]
            return result
        np.clip(scores, -1.0, 1.0, out=scores)
        gross = row_sum(np.abs(scores))
        np.divide(scores, np.where(gross > 1.0, gross, 1.0)[:, None], out=scores)
        weights = np.empty((self.num_envs, template.n_assets + 1))
        weights[:, :-1] = scores
        weights[:, -1] = 1.0 - row_sum(scores)
        return weights

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._reset_windows(indices, options)
        self.weights = _replaced(self.weights, indices, cash_weights((self.n_assets + 1,)))
        self.portfolio_value = _replaced(self.portfolio_value, indices, 1.0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        size = len(indices)
        zeros = np.zeros(size)
        values = self.portfolio_value[indices]
        return {
            "portfolio_value": values,
            "equity": values,
            "weights": self.weights[indices],
            "turnover": zeros,
            "cost": zeros,
            "asset_returns": np.zeros((size, self.n_assets)),
            "timestamp": self._timestamps(self._t)[indices],
            "dt": np.full(size, self.template.dt),
        }

    def _observe(self) -> dict[str, NDArray[np.float32]]:
        return {
            "returns": self._windows32[self._all, self._t],
            "weights": self.weights.astype(np.float32),
        }

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        target = self.action_to_weights(actions)
        weights, value = self.weights, self.portfolio_value
        steps = self._decision_steps()
        trades = target[:, :-1] - weights[:, :-1]
        turnover = row_sum(np.abs(trades))
        cost = np.asarray(
            template.cost_model(trades, **self._cost_context(value, steps)), dtype=np.float64
        )
        index = self._path_rows + steps
        paths = self._paths.reshape(-1, self.n_assets)
        r = paths.take(index + 1, axis=0) / paths.take(index, axis=0) - 1.0
        invested = np.ascontiguousarray(target[:, None, :-1])
        gross = 1.0 + np.matmul(invested, r[:, :, None])[:, 0, 0]
        growth = (1.0 - cost) * gross
        growth[cost >= 1.0] = 0.0
        alive = growth > 0.0
        drifted = target
        drifted[:, :-1] *= 1.0 + r
        with np.errstate(divide="ignore", invalid="ignore"):
            new_weights = drifted / row_sum(drifted)[:, None]
        if not alive.all():
            new_weights[~alive] = cash_weights((self.n_assets + 1,))
        new_value = np.where(alive, value * growth, 0.0)
        t = self._t
        if self._any_frozen:  # frozen sub-envs keep their state
            frozen = self._frozen
            new_weights[frozen] = weights[frozen]
            new_value = np.where(frozen, value, new_value)
            growth[frozen] = 1.0
            t = t + ~frozen
        else:
            t = t + 1
        self.weights, self.portfolio_value, self._t = new_weights, new_value, t
        rewards = template.reward_fn(
            StepOutcome.from_growth(
                growth, equity=new_value, turnover=turnover, cost=cost, previous_equity=value
            )
        )
        terminated = growth <= 0.0
        truncated = (t >= template.episode_length) & ~terminated
        infos = {
            "portfolio_value": new_value,
            "equity": new_value,
            "weights": new_weights.copy(),
            "turnover": turnover,
            "cost": cost,
            "asset_returns": r,
            "timestamp": self._timestamps(t),
            "dt": np.full(self.num_envs, template.dt),
        }
        return rewards, terminated, truncated, infos
