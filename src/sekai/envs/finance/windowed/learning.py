"""The learnable settings of the windowed envs (Trading, Portfolio): their options and scales.

``observation`` chooses what an observation holds:

* ``"returns"``: the past ``lookback`` log returns and the account (the -v0 layout);
* ``"state"``: the account and the fraction of the episode left, no market features (in a
  simulated GBM market past returns say nothing about the next ones);
* ``"scaled"``: the past log returns divided by their per-step volatility, the account and
  the fraction of the episode left;
* ``"auto"``: ``"state"`` for a simulated market, ``"scaled"`` for a history.

``reward_mode`` chooses the reward:

* ``"realised"``: the ``reward`` function of the step (the -v0 reward, ``LogReturn`` by
  default);
* ``"relative"``: the step's log return minus the benchmark's, divided by the benchmark's
  per-step volatility; the benchmark's term does not depend on the agent, so the optimum is
  that of the log return;
* ``"expected"``: the expected log return of the step given the state and the action under
  the env's GBM (the cost of the rebalance is known), minus the benchmark's expected log
  return, divided by the benchmark's per-step variance: an affine map of the realised log
  return with the same optimum and (almost) no noise; a GBM market with known parameters only;
* ``"auto"``: ``"expected"`` where the market is a GBM with known parameters, else
  ``"relative"``.

``random_start`` starts every episode from a random account (a random position or random
weights) instead of cash; a reset's ``options={"random_start": ...}`` decides it for that
reset.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_bool, check_choice

__all__ = [
    "OBSERVATIONS",
    "REWARD_MODES",
    "LearningOptions",
    "sample_std",
]

OBSERVATIONS = ("returns", "state", "scaled", "auto")
REWARD_MODES = ("realised", "relative", "expected", "auto")


class LearningOptions:
    """The checked and resolved ``observation``, ``reward_mode`` and ``random_start``.

    ``simulated``: the market is simulated (no history); ``known``: it is a GBM with known
    parameters; ``custom_reward``: a ``reward`` function was given, which only the
    ``"realised"`` mode uses.
    """

    __slots__ = ("observation", "random_start", "reward_mode")

    def __init__(
        self,
        observation: Any,
        reward_mode: Any,
        random_start: Any,
        *,
        simulated: bool,
        known: bool,
        custom_reward: bool,
    ) -> None:
        observation = check_choice(observation, "observation", OBSERVATIONS)
        reward_mode = check_choice(reward_mode, "reward_mode", REWARD_MODES)
        self.random_start = check_bool(random_start, "random_start")
        if observation == "auto":
            observation = "state" if simulated else "scaled"
        if reward_mode == "auto":
            reward_mode = "expected" if known else "relative"
        if reward_mode == "expected" and not known:
            raise ValueError(
                "reward_mode='expected' needs a simulated GBM market with known parameters "
                "(no prices, data or a model other than GBM); use 'relative'."
            )
        if custom_reward and reward_mode != "realised":
            raise ValueError(
                f"reward= is the reward of reward_mode='realised', got reward_mode="
                f"{reward_mode!r}; leave reward out or use reward_mode='realised'."
            )
        self.observation: str = observation
        self.reward_mode: str = reward_mode


def sample_std(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per-column population std of ``values (T, ...)``, with 1.0 where it is 0 or not finite."""
    std = np.asarray(values.std(axis=0), dtype=np.float64)
    return np.where(np.isfinite(std) & (std > 0.0), std, 1.0)
