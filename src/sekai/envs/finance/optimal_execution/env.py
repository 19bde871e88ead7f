"""OptimalExecution: liquidate a block of shares under market impact (Almgren-Chriss)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import action_floats, check_float, check_int, episode_ended
from sekai.envs.finance._log import EpisodeLog
from sekai.error import ResetRequired
from sekai.spaces import Box

__all__ = ["OptimalExecutionEnv"]

_array = np.array
_float32 = np.float32
_NAN = float("nan")
#: Holdings below ``SNAP * X0`` are treated as fully liquidated.
SNAP = 1e-9
#: Below this ``κT`` the Almgren-Chriss trajectory is the linear (TWAP) one.
LINEAR_KAPPA_T = 1e-8


class OptimalExecutionEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """Sell ``X0`` shares over ``n_steps`` steps of length ``tau``.

    The action is the share of the still-held inventory to sell now (everything on the last
    step). Temporary impact lowers the execution price by ``epsilon + eta·n/tau``; permanent
    impact moves the mid by ``-gamma·n``. Reward (basis points of the arrival notional)
    ``1e4·(n(S̃ - s0) - λ·sigma²·τ·x²)/(X0·s0)``. Observation
    ``[x/X0, (N - k)/N, (mid - s0)/(sigma·√T)]``. One ``standard_normal()`` draw per step.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 5}

    def __init__(
        self,
        *,
        initial_inventory: float = 1e6,
        s0: float = 50.0,
        sigma: float = 0.95,
        total_time: float = 5.0,
        n_steps: int = 25,
        permanent_impact: float = 2.5e-7,
        temporary_impact: float = 2.5e-6,
        fixed_cost: float = 0.0625,
        risk_aversion: float = 1e-6,
    ) -> None:
        self.X0 = check_float(initial_inventory, "initial_inventory", low=0.0, low_open=True)
        self.s0 = check_float(s0, "s0", low=0.0, low_open=True)
        self.sigma = check_float(sigma, "sigma", low=0.0)
        self.total_time = check_float(total_time, "total_time", low=0.0, low_open=True)
        self.n_steps = check_int(n_steps, "n_steps", low=1)
        self.tau = self.total_time / self.n_steps
        self.gamma = check_float(permanent_impact, "permanent_impact", low=0.0)
        self.eta = check_float(temporary_impact, "temporary_impact", low=0.0, low_open=True)
        self.epsilon = check_float(fixed_cost, "fixed_cost", low=0.0)
        self.risk_aversion = check_float(risk_aversion, "risk_aversion", low=0.0)
        if not math.isfinite(self.X0 * self.s0):
            raise ValueError(
                "the arrival notional initial_inventory * s0 must be finite, got "
                f"{self.X0} * {self.s0}."
            )
        if not self.eta - self.gamma * self.tau / 2 > 0:
            raise ValueError(
                "temporary_impact - permanent_impact * tau / 2 must be > 0 "
                f"(tau = total_time / n_steps = {self.tau}), got {self.eta} - "
                f"{self.gamma} * {self.tau} / 2."
            )
        self.observation_space = Box(
            np.array([0.0, 0.0, -np.inf], dtype=np.float32),
            np.array([1.0, 1.0, np.inf], dtype=np.float32),
            dtype=np.float32,
        )
        self.action_space = Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        self._log = EpisodeLog()
        self._start_state()
        self._started = False

    def _start_state(self) -> None:
        """Holding ``X0`` shares at ``mid = s0``, no shortfall, step 0."""
        self.inventory = self.X0
        self.mid = self.s0
        self.shortfall = 0.0
        self.elapsed_steps = 0
        self._done = False

    def _observation(self) -> NDArray[np.float32]:
        scale = self.sigma * math.sqrt(self.total_time)
        return _array(
            [
                self.inventory / self.X0,
                (self.n_steps - self.elapsed_steps) / self.n_steps,
                (self.mid - self.s0) / scale if scale != 0 else 0.0,
            ],
            dtype=_float32,
        )

    def _info(self, shares_sold: float, execution_price: float) -> dict[str, Any]:
        """The info of the reset or of a step, noted in the episode log."""
        shortfall = self.shortfall
        info = {
            "shares_sold": shares_sold,
            "execution_price": execution_price,
            "inventory": self.inventory,
            "mid_price": self.mid,
            "implementation_shortfall": shortfall,
            "shortfall_bps": 1e4 * shortfall / (self.X0 * self.s0),
            "timestamp": self.elapsed_steps * self.tau,
            "dt": self.tau,
        }
        self._log.note(self.elapsed_steps, info)
        return info

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start holding ``X0`` shares at ``mid = s0``; takes no ``options``."""
        check_reset_options(self, options)
        self._set_rng(seed)
        self._start_state()
        self._started = True
        return ResetResult(self._observation(), self._info(0.0, _NAN))

    def step(self, action: ArrayLike) -> StepResult[NDArray[np.float32]]:
        """Sell ``clip(action[0], 0, 1)`` of the inventory left (all of it on the last step)."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        (fraction,) = action_floats(action, self.action_space, 1)
        fraction = min(max(fraction, 0.0), 1.0)
        x = self.inventory
        mid = self.mid
        tau = self.tau
        s0 = self.s0
        n = x if self.elapsed_steps == self.n_steps - 1 else fraction * x
        price = mid - self.epsilon - self.eta * n / tau if n > 0 else mid
        x -= n
        if x < SNAP * self.X0:
            x = 0.0
        self.shortfall += n * (s0 - price)
        mid += self.sigma * math.sqrt(tau) * self.rng.standard_normal()
        mid -= self.gamma * n
        self.inventory = x
        self.mid = mid
        self.elapsed_steps = k = self.elapsed_steps + 1
        penalty = self.risk_aversion * self.sigma * self.sigma * tau * x * x
        reward = 1e4 * (n * (price - s0) - penalty) / (self.X0 * s0)
        terminated = x == 0 or k >= self.n_steps
        self._done = terminated
        return StepResult(self._observation(), reward, terminated, False, self._info(n, price))

    def almgren_chriss_trajectory(self) -> NDArray[np.float64]:
        """Optimal holdings ``x_0 = X0, …, x_N = 0`` at ``t_j = j·tau`` (Almgren-Chriss)."""
        n_steps, tau, total = self.n_steps, self.tau, self.total_time
        eta_tilde = self.eta - self.gamma * tau / 2
        kappa_tilde_sq = self.risk_aversion * self.sigma * self.sigma / eta_tilde
        kappa = (2 / tau) * math.asinh(tau * math.sqrt(kappa_tilde_sq) / 2)
        times = np.arange(n_steps + 1, dtype=np.float64) * tau
        if kappa * total < LINEAR_KAPPA_T:
            holdings = self.X0 * (1.0 - times / total)
        else:
            # sinh(a)/sinh(b) = exp(a - b)·expm1(-2a)/expm1(-2b), finite for any a <= b.
            remaining = kappa * (total - times)
            holdings = (
                self.X0
                * np.exp(remaining - kappa * total)
                * np.expm1(-2 * remaining)
                / math.expm1(-2 * kappa * total)
            )
        holdings[0] = self.X0
        holdings[-1] = 0.0
        return holdings

    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The trajectory as actions ``(N, 1)``: the share of current holdings sold per step."""
        holdings = self.almgren_chriss_trajectory()
        current = holdings[:-1]
        held = current > 0
        fractions = np.divide(
            current - holdings[1:], current, out=np.ones_like(current), where=held
        )
        return np.clip(fractions, 0.0, 1.0).astype(np.float32)[:, None]

    def expected_shortfall(self, trades: ArrayLike) -> tuple[float, float]:
        """Mean and variance of the implementation shortfall of the static schedule ``trades``."""
        n = np.asarray(trades, dtype=np.float64).reshape(-1)
        eta_tilde = self.eta - self.gamma * self.tau / 2
        mean = (
            0.5 * self.gamma * self.X0 * self.X0
            + self.epsilon * float(np.abs(n).sum())
            + (eta_tilde / self.tau) * float(np.square(n).sum())
        )
        x_after = self.X0 - np.cumsum(n)
        variance = self.sigma * self.sigma * self.tau * float(np.square(x_after).sum())
        return mean, variance
