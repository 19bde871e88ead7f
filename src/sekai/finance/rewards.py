"""Reward functions of a trading step, for one env (floats) or a batch of sub-envs (arrays).

A reward is called with a ``StepOutcome`` whose fields are floats (single env) or
``(num_envs,)`` arrays (native vector env); stateful rewards keep one state entry per
sub-env and ``reset(mask)`` re-initialises only the masked entries.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_real

__all__ = [
    "DifferentialSharpe",
    "DrawdownPenalty",
    "LogReturn",
    "MeanVariance",
    "ProfitAndLoss",
    "RewardFunction",
    "SimpleReturn",
    "StepOutcome",
    "TurnoverPenalty",
    "WeightedSum",
]


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What a step did to the account: floats, or ``(num_envs,)`` arrays."""

    log_return: Any
    simple_return: Any
    equity: Any
    turnover: Any
    cost: Any
    pnl: Any = None

    @classmethod
    def from_growth(
        cls,
        growth: Any,
        *,
        equity: Any,
        turnover: Any,
        cost: Any,
        previous_equity: Any = None,
    ) -> StepOutcome:
        """Outcome of an equity ``growth`` factor, floored at ``1e-12`` for the returns."""
        g: Any
        if isinstance(growth, np.ndarray):
            g = np.maximum(growth, 1e-12)
            log_return: Any = np.log(g)
        else:
            g = 1e-12 if growth < 1e-12 else float(growth)
            # np.log, not math.log: a batched env must get bit-identical rewards.
            log_return = float(np.log(g))
        pnl = None if previous_equity is None else equity - previous_equity
        return cls(log_return, g - 1.0, equity, turnover, cost, pnl)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _fmt(value: float) -> str:
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


class RewardFunction(ABC):
    """Maps a ``StepOutcome`` to a reward; combine with ``+``, ``-`` and ``*`` by numbers."""

    # NumPy arrays must not broadcast reward arithmetic elementwise: make them refuse it.
    __array_ufunc__ = None

    @abstractmethod
    def __call__(self, outcome: StepOutcome) -> Any:
        """The reward of ``outcome``."""

    def reset(self, mask: Any = None) -> None:  # noqa: B027 - stateless rewards need nothing
        """Start a new episode for every sub-env (``None``) or the masked ones."""

    def _terms(self) -> list[tuple[float, RewardFunction]]:
        return [(1.0, self)]

    @staticmethod
    def _operand(other: object) -> list[tuple[float, RewardFunction]] | None:
        if isinstance(other, RewardFunction):
            return other._terms()
        if _is_number(other):
            return [(float(other), _Unit())]  # type: ignore[arg-type]
        return None

    def __add__(self, other: object) -> RewardFunction:
        terms = self._operand(other)
        if terms is None:
            return NotImplemented
        return WeightedSum(self._terms() + terms)

    def __radd__(self, other: object) -> RewardFunction:
        terms = self._operand(other)
        if terms is None:
            return NotImplemented
        return WeightedSum(terms + self._terms())

    def __sub__(self, other: object) -> RewardFunction:
        terms = self._operand(other)
        if terms is None:
            return NotImplemented
        return WeightedSum(self._terms() + [(-w, r) for w, r in terms])

    def __rsub__(self, other: object) -> RewardFunction:
        terms = self._operand(other)
        if terms is None:
            return NotImplemented
        return WeightedSum(terms + [(-w, r) for w, r in self._terms()])

    def __mul__(self, other: object) -> RewardFunction:
        if not _is_number(other):
            return NotImplemented
        k = float(other)  # type: ignore[arg-type]
        return WeightedSum([(k * w, r) for w, r in self._terms()])

    __rmul__ = __mul__

    def __neg__(self) -> RewardFunction:
        return WeightedSum([(-w, r) for w, r in self._terms()])


class _Unit(RewardFunction):
    """The constant 1: a number ``c`` in a reward expression is the term ``c * _Unit()``."""

    def __call__(self, outcome: StepOutcome) -> Any:
        shape = np.shape(outcome.log_return)
        return 1.0 if not shape else np.ones(shape)


class WeightedSum(RewardFunction):
    """``sum(w_i * reward_i)``: what reward arithmetic builds (flat; constants are numbers).

    A reward object appearing in several terms is evaluated once per step.
    """

    def __init__(self, terms: list[tuple[float, RewardFunction]]) -> None:
        self._weighted = list(terms)
        self._unique: list[RewardFunction] = []
        index: list[int] = []
        for _, reward in self._weighted:
            for i, seen in enumerate(self._unique):
                if seen is reward:
                    index.append(i)
                    break
            else:
                index.append(len(self._unique))
                self._unique.append(reward)
        self._plan = [(w, i) for (w, _), i in zip(self._weighted, index, strict=True)]

    @property
    def terms(self) -> list[tuple[float, RewardFunction]]:
        """``(weight, reward)`` pairs; a constant ``c`` appears as ``(c, _Unit())``."""
        return list(self._weighted)

    def _terms(self) -> list[tuple[float, RewardFunction]]:
        return list(self._weighted)

    def __call__(self, outcome: StepOutcome) -> Any:
        """The weighted sum of the terms' rewards."""
        values = [reward(outcome) for reward in self._unique]
        total: Any = 0.0
        for weight, i in self._plan:
            total = total + weight * values[i]
        return total

    def reset(self, mask: Any = None) -> None:
        """Reset every term."""
        for reward in self._unique:
            reward.reset(mask)

    def __repr__(self) -> str:
        pieces = []
        for k, (weight, reward) in enumerate(self._weighted):
            size = abs(weight)
            if isinstance(reward, _Unit):
                body = _fmt(size)
            elif size == 1.0:
                body = repr(reward)
            else:
                body = f"{_fmt(size)} * {reward!r}"
            if k == 0:
                pieces.append(f"-{body}" if weight < 0 else body)
            else:
                pieces.append(f" - {body}" if weight < 0 else f" + {body}")
        return "".join(pieces)


class LogReturn(RewardFunction):
    """The step's log return."""

    def __call__(self, outcome: StepOutcome) -> Any:
        """``outcome.log_return``."""
        return outcome.log_return

    def __repr__(self) -> str:
        return "LogReturn()"


class SimpleReturn(RewardFunction):
    """The step's simple return."""

    def __call__(self, outcome: StepOutcome) -> Any:
        """``outcome.simple_return``."""
        return outcome.simple_return

    def __repr__(self) -> str:
        return "SimpleReturn()"


class ProfitAndLoss(RewardFunction):
    """The step's profit and loss in currency."""

    def __call__(self, outcome: StepOutcome) -> Any:
        """``pnl`` if known, else ``equity*r/(1+r)`` (needs every equity > 0)."""
        if outcome.pnl is not None:
            return outcome.pnl
        equity, r = outcome.equity, outcome.simple_return
        if np.any(np.asarray(equity) <= 0):
            raise ValueError(
                "ProfitAndLoss needs pnl when equity <= 0: the equity lost in a wipe-out "
                "cannot be recovered from the returns (pass previous_equity to from_growth)."
            )
        return equity * r / (1.0 + r)

    def __repr__(self) -> str:
        return "ProfitAndLoss()"


class MeanVariance(RewardFunction):
    """``r - (rho/2) * r^2`` on the log return ``r``."""

    def __init__(self, risk_aversion: float = 1.0) -> None:
        value = check_real(risk_aversion, "risk_aversion", low=0.0)
        self.risk_aversion = value
        self._half = 0.5 * value

    def __call__(self, outcome: StepOutcome) -> Any:
        """``r - (risk_aversion/2) * r^2``."""
        r = outcome.log_return
        return r - self._half * r * r

    def __repr__(self) -> str:
        return f"MeanVariance(risk_aversion={self.risk_aversion!r})"


class TurnoverPenalty(RewardFunction):
    """The step's turnover (subtract it: ``LogReturn() - 0.1 * TurnoverPenalty()``)."""

    def __call__(self, outcome: StepOutcome) -> Any:
        """``outcome.turnover``."""
        return outcome.turnover

    def __repr__(self) -> str:
        return "TurnoverPenalty()"


class _StatefulReward(RewardFunction):
    """A reward with per-sub-env state arrays, allocated on the first call."""

    _INIT: ClassVar[dict[str, float]]

    def __init__(self) -> None:
        self._state: dict[str, NDArray[np.float64] | None] = dict.fromkeys(self._INIT)

    def _arrays(self, shape: tuple[int, ...]) -> list[NDArray[np.float64]]:
        """The state arrays, (re)built with the initial values if missing or reshaped."""
        arrays = list(self._state.values())
        first = arrays[0]
        if first is None or first.shape != shape:
            for key, value in self._INIT.items():
                self._state[key] = np.full(shape, value)
        return list(self._state.values())  # type: ignore[arg-type]

    def reset(self, mask: Any = None) -> None:
        """Drop the state (``None``) or re-initialise the masked entries."""
        if mask is None:
            self._state = dict.fromkeys(self._INIT)
            return
        index = np.asarray(mask)
        for key, value in self._INIT.items():
            arr = self._state[key]
            if arr is not None:
                arr[index] = value


class DrawdownPenalty(_StatefulReward):
    """The increase of the drawdown from the running equity peak (0 when it shrinks)."""

    _INIT: ClassVar[dict[str, float]] = {"peak": 1.0, "drawdown": 0.0}

    def __call__(self, outcome: StepOutcome) -> Any:
        """``max(dd - dd_prev, 0)`` with ``dd = 1 - equity/peak``."""
        equity = outcome.equity
        if isinstance(equity, np.ndarray):
            return self._batched(equity)
        peak, previous = self._arrays(())
        top = max(float(peak), float(equity))
        drawdown = 1.0 - equity / top
        reward = max(drawdown - float(previous), 0.0)
        peak[()] = top
        previous[()] = drawdown
        return reward

    def _batched(self, equity: NDArray[np.float64]) -> NDArray[np.float64]:
        peak, previous = self._arrays(equity.shape)
        np.maximum(peak, equity, out=peak)
        drawdown = 1.0 - equity / peak
        reward = np.maximum(drawdown - previous, 0.0)
        previous[...] = drawdown
        return reward

    def __repr__(self) -> str:
        return "DrawdownPenalty()"


class DifferentialSharpe(_StatefulReward):
    """Moody's differential Sharpe ratio of the simple return, with EMA rate ``eta``."""

    _INIT: ClassVar[dict[str, float]] = {"A": 0.0, "B": 0.0}

    def __init__(self, eta: float = 0.01) -> None:
        eta = check_real(eta, "eta", low=0.0, high=1.0, low_open=True, high_open=True)
        super().__init__()
        self.eta = eta

    def __call__(self, outcome: StepOutcome) -> Any:
        """``(B dA - A dB / 2) / (B - A^2)^1.5`` (0 when ``B - A^2 <= 1e-12``); then update A, B."""
        r = outcome.simple_return
        if isinstance(r, np.ndarray):
            return self._batched(r)
        eta = self.eta
        a_arr, b_arr = self._arrays(())
        a, b = float(a_arr), float(b_arr)
        da = r - a
        db = r * r - b
        var = b - a * a
        d = (b * da - 0.5 * a * db) / (var * math.sqrt(var)) if var > 1e-12 else 0.0
        a_arr[()] = a + eta * da
        b_arr[()] = b + eta * db
        return d

    def _batched(self, r: NDArray[np.float64]) -> NDArray[np.float64]:
        a, b = self._arrays(r.shape)
        da = r - a
        db = r * r - b
        var = b - a * a
        ok = var > 1e-12
        var = np.where(ok, var, 1.0)
        # v*sqrt(v) rather than v**1.5: sqrt is correctly rounded, so both paths agree bitwise.
        d = np.where(ok, (b * da - 0.5 * a * db) / (var * np.sqrt(var)), 0.0)
        a += self.eta * da
        b += self.eta * db
        return d

    def __repr__(self) -> str:
        return f"DifferentialSharpe(eta={self.eta!r})"
