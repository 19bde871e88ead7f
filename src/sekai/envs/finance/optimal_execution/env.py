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
from sekai.envs.finance._checks import (
    action_floats,
    check_float,
    check_int,
    episode_ended,
    random_start_option,
)
from sekai.envs.finance._log import EpisodeLog
from sekai.envs.finance.optimal_execution.encoding import centred_fraction, fractions_to_centred
from sekai.envs.finance.optimal_execution.policies import ScheduledActions
from sekai.error import ResetRequired
from sekai.spaces import Box
from sekai.utils.validation import check_bool

__all__ = ["OptimalExecutionEnv"]

_array = np.array
_float32 = np.float32
_NAN = float("nan")
#: Holdings below ``SNAP * X0`` are treated as fully liquidated.
SNAP = 1e-9
#: Below this ``κT`` the Almgren-Chriss trajectory is the linear (TWAP) one.
LINEAR_KAPPA_T = 1e-8
#: The keys ``reset(options=...)`` reads.
RESET_OPTIONS = ("random_start",)


class OptimalExecutionEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """Sell ``X0`` shares over ``n_steps`` steps of length ``tau``.

    The action is the share of the still-held inventory to sell now (everything on the last
    step). Temporary impact lowers the execution price by ``epsilon + eta·n/tau``; permanent
    impact moves the mid by ``-gamma·n``. Reward (basis points of the arrival notional)
    ``1e4·(n(S̃ - s0) - λ·sigma²·τ·x²)/(X0·s0)``. Observation
    ``[x/X0, (N - k)/N, (mid - s0)/(sigma·√T)]``. One ``standard_normal()`` draw per step.

    Learnable settings (all off by default; ``OptimalExecution-v1`` turns them on):

    * ``centred_action``: the action is ``a`` in ``Box(-1, 1)``, a multiplier of the TWAP
      rate. With ``m = N - k`` steps left the share sold is ``(1 + a)/m`` for ``a <= 0`` and
      ``1/m + a·(1 - 1/m)`` for ``a > 0``: ``-1`` sells nothing, ``0`` sells at the TWAP rate
      ``1/m``, ``1`` sells everything (the last step sells everything whatever ``a``).
    * ``expected_reward``: the reward is the expectation of the realised one given the state
      and the action, ``-(n(epsilon + eta·n/tau) + gamma·n·x + λ·sigma²·τ·x²)/(X0·s0)`` (``x``
      the holdings after the trade), free of the price. Over a whole episode it differs from
      the realised return by ``sigma·√τ·Σ x·Z/(X0·s0)``, which has mean zero under every
      policy: the same expected return (and optimum) without the price noise.
    * ``reward_scale``: the multiplier of the reward's share of the arrival notional
      (``1e4``: basis points; ``100``: percent).
    * ``observe_price``: ``False`` drops the price entry, which neither the expected reward nor
      the optimal policy depends on: the observation is ``[x/X0, (N - k)/N]``.

    ``random_start``: every episode starts holding ``X0·U`` shares, ``U`` uniform on ``(0, 1]``
    (one ``random()`` draw after seeding); ``reset(options={"random_start": ...})`` decides it
    for one reset.
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
        centred_action: bool = False,
        expected_reward: bool = False,
        reward_scale: float = 1e4,
        observe_price: bool = True,
        random_start: bool = False,
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
        self._centred_action = check_bool(centred_action, "centred_action")
        self.expected_reward = check_bool(expected_reward, "expected_reward")
        self.reward_scale = check_float(reward_scale, "reward_scale", low=0.0, low_open=True)
        self._observe_price = check_bool(observe_price, "observe_price")
        self.random_start = check_bool(random_start, "random_start")
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
        if observe_price:
            self.observation_space = Box(
                np.array([0.0, 0.0, -np.inf], dtype=np.float32),
                np.array([1.0, 1.0, np.inf], dtype=np.float32),
                dtype=np.float32,
            )
        else:
            self.observation_space = Box(0.0, 1.0, shape=(2,), dtype=np.float32)
        low = -1.0 if centred_action else 0.0
        self.action_space = Box(low, 1.0, shape=(1,), dtype=np.float32)
        self._log = EpisodeLog()
        self._start_state(self.X0)
        self._started = False

    @property
    def reward_description(self) -> str:
        """The reward in one line, with this env's settings (``sekai info`` shows it)."""
        units = {1e4: "(basis points of the arrival notional) 1e4", 100.0: "(percent) 100"}
        scale = units.get(self.reward_scale, f"{self.reward_scale:g}")
        if self.expected_reward:
            return (
                f"{scale}·(-n(epsilon + eta·n/tau) - gamma·n·x - λ·sigma²·τ·x²)/(X0·s0), the "
                "expected step gain given the state and the action"
            )
        return f"{scale}·(n(S̃ - s0) - λ·sigma²·τ·x²)/(X0·s0)"

    @property
    def centred_action(self) -> bool:
        """Whether the action is the TWAP-centred ``a`` in ``[-1, 1]`` (read-only)."""
        return self._centred_action

    @property
    def observe_price(self) -> bool:
        """Whether the observation shows the price entry (read-only)."""
        return self._observe_price

    def _start_state(self, inventory: float) -> None:
        """Holding ``inventory`` shares at ``mid = s0``, no shortfall, step 0."""
        self.inventory = inventory
        self.mid = self.s0
        self.shortfall = 0.0
        self.elapsed_steps = 0
        self._done = False

    def _observation(self) -> NDArray[np.float32]:
        time_left = (self.n_steps - self.elapsed_steps) / self.n_steps
        if not self._observe_price:
            return _array([self.inventory / self.X0, time_left], dtype=_float32)
        scale = self.sigma * math.sqrt(self.total_time)
        return _array(
            [
                self.inventory / self.X0,
                time_left,
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
        """Start holding ``X0`` shares at ``mid = s0`` (``X0·U`` with ``random_start``)."""
        checked = check_reset_options(self, options, RESET_OPTIONS)
        random_start = random_start_option(checked, self.random_start)
        self._set_rng(seed)
        self._start_state(self.X0 * (1.0 - self.rng.random()) if random_start else self.X0)
        self._started = True
        return ResetResult(self._observation(), self._info(0.0, _NAN))

    def step(self, action: ArrayLike) -> StepResult[NDArray[np.float32]]:
        """Sell ``clip(action[0], 0, 1)`` of the inventory left (all of it on the last step);
        with ``centred_action`` the share ``centred_fraction(action[0], N - k)``."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        (value,) = action_floats(action, self.action_space, 1)
        k = self.elapsed_steps
        if self._centred_action:
            fraction = centred_fraction(value, self.n_steps - k)
        else:
            fraction = min(max(value, 0.0), 1.0)
        x = self.inventory
        mid = self.mid
        tau = self.tau
        s0 = self.s0
        n = x if k == self.n_steps - 1 else fraction * x
        price = mid - self.epsilon - self.eta * n / tau if n > 0 else mid
        x -= n
        if x < SNAP * self.X0:
            x = 0.0
        self.shortfall += n * (s0 - price)
        if self.expected_reward:  # the mean of the realised gain given the state
            gain = -n * (self.epsilon + self.eta * n / tau) - self.gamma * n * x
        else:
            gain = n * (price - s0)
        mid += self.sigma * math.sqrt(tau) * self.rng.standard_normal()
        mid -= self.gamma * n
        self.inventory = x
        self.mid = mid
        self.elapsed_steps = k = k + 1
        penalty = self.risk_aversion * self.sigma * self.sigma * tau * x * x
        reward = self.reward_scale * (gain - penalty) / (self.X0 * s0)
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

    def _almgren_chriss_fractions(self) -> NDArray[np.float64]:
        """The share of current holdings the trajectory sells per step, ``(N,)`` float64."""
        holdings = self.almgren_chriss_trajectory()
        current = holdings[:-1]
        held = current > 0
        fractions = np.divide(
            current - holdings[1:], current, out=np.ones_like(current), where=held
        )
        return np.clip(fractions, 0.0, 1.0)

    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The trajectory as actions ``(N, 1)``: the share of current holdings sold per step."""
        return self._almgren_chriss_fractions().astype(np.float32)[:, None]

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

    def reference_policies(self) -> dict[str, ScheduledActions]:
        """``"almgren_chriss"`` (the optimum of this env's reward) and ``"twap"``, as policies.

        Each maps an observation, or a batch of them (leading axis ``num_envs``), to the
        action(s) in this env's action space that sell, with ``m`` steps left, the share of
        the inventory the schedule sells then: Almgren-Chriss ``1 - sinh(κτ(m - 1))/sinh(κτm)``
        (``almgren_chriss_actions()``), TWAP ``1/m``. Both are built for the parameters at the
        time of the call.

        Why Almgren-Chriss is the optimum: with ``x_j`` the holdings after trade ``n_j``, the
        realised return of an episode, times ``X0·s0/reward_scale``, is
        ``-Σ [n_j(epsilon + eta·n_j/tau) + gamma·n_j·x_j + λ·sigma²·τ·x_j²]`` plus
        ``sigma·√τ·Σ x_j·Z_j``, and the last sum has mean zero (``x_j`` is fixed before ``Z_j``
        is drawn). The expected return is therefore the first sum (the reward of
        ``expected_reward``), which does not depend on the price: no policy that watches the
        price beats the best static schedule. As ``Σ n_j = X0``, the first sum is
        ``-(mean + λ·variance)`` of ``expected_shortfall``: ``epsilon·X0 + gamma·X0²/2`` is
        the same for all schedules and the rest, ``(eta/tau - gamma/2)·Σ n_j² +
        λ·sigma²·τ·Σ x_j²``, is strictly convex in the holdings. Its stationarity condition
        ``x_{j-1} - 2x_j + x_{j+1} = κ̃²τ²·x_j`` with ``x_0 = X0`` and ``x_N = 0`` gives
        ``x_j = X0·sinh(κ(T - t_j))/sinh(κT)``: the unique optimum. The share it sells
        depends on ``m`` only (the cost is quadratic in the inventory), so it stays optimal
        from any inventory. TWAP is the optimum without risk aversion (``λ = 0``).
        """
        fractions = self._almgren_chriss_fractions()
        steps_left = np.arange(self.n_steps, 0, -1)
        if self._centred_action:
            ac = fractions_to_centred(fractions, steps_left).astype(np.float32)
            twap = np.zeros(self.n_steps, np.float32)
        else:
            ac = fractions.astype(np.float32)
            twap = (1.0 / steps_left).astype(np.float32)
        return {
            "almgren_chriss": ScheduledActions(ac),
            "twap": ScheduledActions(twap),
        }
