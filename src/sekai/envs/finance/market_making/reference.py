"""MarketMaking's reference policies: the exact optimum, Avellaneda-Stoikov, symmetric quotes.

Each policy maps an observation (or a batch of them, leading axis first) to the action(s) of
the env it was built for, in that env's encoding, so one policy drives the single env and
its native vector env alike. They read the step and the inventory from the observation:
``t = n_steps - round(n_steps · obs[1])`` and ``q = round(inventory_scale · obs[0])``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.envs.finance.market_making.dynamic_programme import QuoteProblem, solve_quotes

__all__ = ["avellaneda_stoikov_offsets", "reference_policies"]


def avellaneda_stoikov_offsets(
    inventory: ArrayLike,
    time_remaining: ArrayLike,
    *,
    sigma: float,
    risk_aversion: float,
    fill_decay: float,
    max_offset: float,
) -> NDArray[np.float64]:
    """Avellaneda-Stoikov quote distances ``(..., 2)`` (bid, ask), clipped to ``[0, max_offset]``.

    With ``g = risk_aversion`` and ``τ = time_remaining``: ``skew = q·g·σ²·τ``,
    ``spread = g·σ²·τ + (2/g)·ln(1 + g/k)`` (``2/k`` when ``g = 0``), quotes
    ``spread/2 ± skew``.
    """
    q = np.asarray(inventory)
    variance_left = sigma * sigma * np.asarray(time_remaining, dtype=np.float64)
    skew = q * risk_aversion * variance_left
    if risk_aversion > 0:
        log_term = (2.0 / risk_aversion) * math.log(1.0 + risk_aversion / fill_decay)
        spread = risk_aversion * variance_left + log_term
    else:
        spread = np.full(np.shape(skew), 2.0 / fill_decay)
    half = spread / 2.0
    return np.clip(np.stack([half + skew, half - skew], axis=-1), 0.0, max_offset)


def _observed_state(
    observation: ArrayLike, n_steps: int, limit: int, scale: float
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The step ``t`` (at most ``n_steps - 1``) and the inventory ``q`` an observation shows."""
    obs = np.asarray(observation, dtype=np.float64)
    q = np.clip(np.rint(obs[..., 0] * scale), -limit, limit).astype(np.int64)
    t = np.clip(n_steps - np.rint(obs[..., 1] * n_steps), 0, n_steps - 1).astype(np.int64)
    return t, q


def reference_policies(env: Any) -> dict[str, Callable[[Any], NDArray[np.float32]]]:
    """The reference policies for ``env``'s configuration now (a ``MarketMakingEnv``).

    The env's reward is the step's change in marked-to-mid wealth less
    ``½·risk_aversion·σ²·dt·q²``, the variance the inventory adds to wealth over the step
    times ``risk_aversion/2``: the return is the trading profit less a running
    mean-variance inventory penalty.

    * ``"dp_optimal"`` maximises the expected return exactly: the dynamic programme over
      (step, inventory) of ``dynamic_programme``, over the quotes the actions can express.
    * ``"avellaneda_stoikov"`` quotes ``env.avellaneda_stoikov_action()``: optimal for the
      continuous-time model with exponential utility of terminal wealth, an approximation
      of this reward (which penalises inventory at every step, with Bernoulli fills).
    * ``"symmetric"`` quotes ``env.default_offset`` on both sides whatever the state
      (action 0 under centred actions): no inventory skew.
    """
    solution = solve_quotes(QuoteProblem.of(env))
    limit, scale = env.max_inventory, env.inventory_scale
    sigma, gamma, decay = env.sigma, env.risk_aversion, env.k
    max_offset, n_steps, dt = env.max_offset, env.n_steps, env.dt
    symmetric = env.action_from_offsets(np.full(2, env.default_offset))
    encode = env.action_from_offsets

    def dp_optimal(observation: Any) -> NDArray[np.float32]:
        t, q = _observed_state(observation, n_steps, limit, scale)
        column = q + limit
        return encode(np.stack([solution.bid[t, column], solution.ask[t, column]], axis=-1))

    def avellaneda_stoikov(observation: Any) -> NDArray[np.float32]:
        t, q = _observed_state(observation, n_steps, limit, scale)
        offsets = avellaneda_stoikov_offsets(
            q,
            (n_steps - t) * dt,
            sigma=sigma,
            risk_aversion=gamma,
            fill_decay=decay,
            max_offset=max_offset,
        )
        return encode(offsets)

    def symmetric_quotes(observation: Any) -> NDArray[np.float32]:
        shape = np.shape(observation)[:-1]
        return np.broadcast_to(symmetric, (*shape, 2)).copy()

    return {
        "dp_optimal": dp_optimal,
        "avellaneda_stoikov": avellaneda_stoikov,
        "symmetric": symmetric_quotes,
    }
