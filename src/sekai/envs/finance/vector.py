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
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.optimal_execution import SNAP, OptimalExecutionEnv
from sekai.error import InvalidAction
from sekai.vector.native import NativeVecEnv, shared
from sekai.vector.vec_env import per_env_values

__all__ = ["MarketMakingVecEnv", "OptimalExecutionVecEnv"]

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
