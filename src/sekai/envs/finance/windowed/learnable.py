"""``LearnableWindowedEnv``: the base of Trading and Portfolio with their learnable settings
(observations, rewards and random starts, checked by ``windowed.learning``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.windowed.env import WindowedEnv, simulated_prices
from sekai.envs.finance.windowed.learning import LearningOptions
from sekai.finance.simulators import GBM

__all__ = ["LEARNABLE_RESET_OPTIONS", "LearnableWindowedEnv"]

LEARNABLE_RESET_OPTIONS = ("start", "random_start", "end")
"""The reset options of Trading and Portfolio: the windowed envs' ``start`` and ``end``, and
``random_start``, which decides it for one reset."""

_SCALE_SEED = 0
_SCALE_WINDOWS = 32
"""Seed and count of the simulated windows that estimate a model's return scales."""


class LearnableWindowedEnv(WindowedEnv):
    """A ``WindowedEnv`` with the learnable settings of ``windowed.learning`` (Trading and
    Portfolio): subclasses call ``_setup_learning`` after ``_setup``, give ``_own_gbm`` and
    name the benchmark of their relative rewards."""

    _benchmark: str
    """The benchmark of the relative and expected rewards, in words."""

    def _setup_learning(
        self, *, observation: Any, reward_mode: Any, random_start: Any, reward: Any
    ) -> None:
        """Check and resolve the learnable settings (see ``windowed.learning``)."""
        self._learning = LearningOptions(
            observation,
            reward_mode,
            random_start,
            simulated=self._history is None,
            known=self._gbm_parameters() is not None,
            custom_reward=reward is not None,
        )

    @property
    def observation_mode(self) -> str:
        """What an observation holds: ``"returns"``, ``"state"`` or ``"scaled"`` (read-only)."""
        return self._learning.observation

    @property
    def reward_mode(self) -> str:
        """The reward: ``"realised"``, ``"relative"`` or ``"expected"`` (read-only)."""
        return self._learning.reward_mode

    @property
    def reward_description(self) -> str:
        """The reward in one line, with this env's settings (``sekai info`` shows it)."""
        mode, benchmark = self._learning.reward_mode, self._benchmark
        if mode == "relative":
            return f"the step's log return minus that of {benchmark}, over its per-step volatility"
        if mode == "expected":
            return (
                "the step's expected log return given the state and the action, costs "
                f"included, minus that of {benchmark}, over its per-step variance"
            )
        return repr(self.reward_fn)

    @property
    def random_start(self) -> bool:
        """Whether episodes start from a random account instead of cash (read-only)."""
        return self._learning.random_start

    def _gbm_parameters(self) -> tuple[Any, Any, Any, float] | None:
        """``(mu, sigma, corr, dt)`` of the simulating GBM, or None (a history or another
        model). The env's own GBM unless ``model`` is a ``GBM``."""
        if self._history is not None:
            return None
        model = self.model
        if model is None:
            return self._own_gbm()
        if isinstance(model, GBM):
            return model.mu, model.sigma, model.corr, float(model.dt)
        return None

    def _own_gbm(self) -> tuple[Any, Any, Any, float]:
        """``(mu, sigma, corr, dt)`` of the env's own GBM."""
        raise NotImplementedError

    def _log_return_sample(self) -> NDArray[np.float64]:
        """Log returns ``(rows, n)`` that show the market's scales: the history's, or those of
        32 windows simulated by ``model`` from a fixed seed."""
        if self._history is not None:
            return self._history.log_returns
        assert self.model is not None
        rng = np.random.default_rng(_SCALE_SEED)
        prices = simulated_prices(self.model, rng, self._window - 1, _SCALE_WINDOWS)
        log_returns: NDArray[np.float64] = np.diff(np.log(prices), axis=1)
        return log_returns.reshape(-1, log_returns.shape[-1])

    def _time_left(self) -> float:
        """The fraction of the episode's steps still to take."""
        return (self._steps - self.elapsed_steps) / self._steps
