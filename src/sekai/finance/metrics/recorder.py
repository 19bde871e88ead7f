"""A wrapper that summarises the performance of every episode from what its info reports."""

from __future__ import annotations

import math
import numbers
from collections import deque
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import numpy as np

from sekai._types import ActType, ObsType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.core.wrapper import _ResultWrapper
from sekai.finance.metrics.series import _series
from sekai.finance.metrics.summary import PerformanceSummary, PnLSummary, _summary, pnl_summary
from sekai.utils.validation import check_instance, check_int, check_real

__all__ = ["RecordPerformance"]


def _optional_key(value: Any, name: str) -> str | None:
    if value is None:
        return None
    return check_instance(value, f"RecordPerformance: {name}", str, "a str or None")


def _missing(info: Mapping[str, Any], key: str) -> KeyError:
    available = ", ".join(map(repr, info)) or "none"
    return KeyError(f"RecordPerformance: info has no {key!r}; available keys: {available}.")


def _read(info: Mapping[str, Any], key: str) -> float:
    if key not in info:
        raise _missing(info, key)
    value = info[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"RecordPerformance: info[{key!r}] must be a real number, "
            f"got {type(value).__name__} {value!r}."
        )
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"RecordPerformance: info[{key!r}] must be finite, got {x}.")
    return x


class RecordPerformance(_ResultWrapper[ObsType, ActType, ObsType]):
    """Summarises each episode from the equity (or, with ``pnl_key``, the P&L) its info reports.

    Equity mode: per-step returns of ``info[equity_key]`` from the reset info's value (1.0 if
    absent); the first step with equity ``<= 0`` returns -1, later ones 0. Steps reporting
    ``turnover_key`` / ``cost_key`` feed ``mean_turnover`` / ``total_cost``. P&L mode: the
    increments of ``info[pnl_key]`` from the reset value (0.0 if absent).

    The final step's info gets ``"performance"`` (a ``PerformanceSummary`` or ``PnLSummary``),
    also kept as ``last_summary`` and in ``summaries`` (the last ``deque_size``). Under an
    inner autoreset it reads ``info["final_info"]`` and restarts from ``info["reset_info"]``.
    A ``reset()`` mid-episode drops the partial episode.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        *,
        periods_per_year: float = 252,
        equity_key: str = "equity",
        pnl_key: str | None = None,
        turnover_key: str | None = "turnover",
        cost_key: str | None = "cost",
        risk_free: float = 0.0,
        deque_size: int = 100,
    ) -> None:
        super().__init__(env)
        self.periods_per_year = check_real(
            periods_per_year, "RecordPerformance: periods_per_year", low=0.0, low_open=True
        )
        self.equity_key = check_instance(equity_key, "RecordPerformance: equity_key", str, "a str")
        self.pnl_key = _optional_key(pnl_key, "pnl_key")
        self.turnover_key = _optional_key(turnover_key, "turnover_key")
        self.cost_key = _optional_key(cost_key, "cost_key")
        self.risk_free = check_real(risk_free, "RecordPerformance: risk_free")
        size = check_int(deque_size, "RecordPerformance: deque_size", low=1)
        self.summaries: deque[PerformanceSummary | PnLSummary] = deque(maxlen=size)
        self.last_summary: PerformanceSummary | PnLSummary | None = None
        self._begin({})

    def _begin(self, info: Mapping[str, Any]) -> None:
        if self.pnl_key is None:
            start = _read(info, self.equity_key) if self.equity_key in info else 1.0
            if start <= 0.0:
                raise ValueError(
                    f"RecordPerformance: the reset info's {self.equity_key!r} must be > 0 to "
                    f"measure returns, got {start}; pass pnl_key= to record a P&L instead."
                )
        else:
            start = _read(info, self.pnl_key) if self.pnl_key in info else 0.0
        self._level = start
        self._scale = abs(start)
        self._wiped = False
        self._values: list[float] = []
        self._turnover: list[float] = []
        self._costs: list[float] = []

    def _record(self, info: Mapping[str, Any]) -> None:
        if self.pnl_key is not None:
            value = _read(info, self.pnl_key)
            self._values.append(value - self._level)
            self._level = value
            self._scale = max(self._scale, abs(value))
            return
        equity = _read(info, self.equity_key)
        turnover = self._optional(info, self.turnover_key)
        cost = self._optional(info, self.cost_key)
        if self._wiped:
            self._values.append(0.0)
        elif equity <= 0.0:
            self._values.append(-1.0)
            self._wiped = True
        else:
            self._values.append(equity / self._level - 1.0)
            self._level = equity
        self._turnover += turnover
        self._costs += cost

    @staticmethod
    def _optional(info: Mapping[str, Any], key: str | None) -> list[float]:
        return [_read(info, key)] if key is not None and key in info else []

    def _summarise(self) -> PerformanceSummary | PnLSummary:
        if self.pnl_key is not None:
            return pnl_summary(self._values, self.periods_per_year, scale=self._scale)
        # Only the steps that report turnover / cost feed those two averages.
        return _summary(
            _series(self._values, "returns"),
            self.periods_per_year,
            risk_free=self.risk_free,
            level=0.95,
            mean_turnover=float(np.mean(self._turnover)) if self._turnover else None,
            total_cost=float(np.sum(self._costs)) if self._costs else None,
        )

    def _wrap_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._begin(result.info)
        return result

    def _wrap_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        info = result.info
        if not result.done:
            self._record(info)
            return result
        autoreset = "final_info" in info
        if autoreset and "reset_info" not in info:
            raise _missing(info, "reset_info")
        self._record(info["final_info"] if autoreset else info)
        summary = self._summarise()
        self.summaries.append(summary)
        self.last_summary = summary
        self._begin(info["reset_info"] if autoreset else {})
        return StepResult(
            result.observation,
            result.reward,
            result.terminated,
            result.truncated,
            {**info, "performance": summary},
        )

    def summary(self) -> dict[str, float]:
        """Mean of each field over ``summaries``, skipping Nones; fields never set are left out.

        A field holding both ``inf`` and ``-inf`` (ratios of zero dispersion) averages to NaN.
        """
        means: dict[str, float] = {}
        if not self.summaries:
            return means
        for field in fields(self.summaries[0]):
            values = [getattr(s, field.name) for s in self.summaries]
            present = [v for v in values if v is not None]
            if present:
                with np.errstate(invalid="ignore"):
                    means[field.name] = float(np.mean(present))
        return means
