"""sb3-contrib's MaskablePPO trains on MarketDiscrete-v0's native vector env through ``to_sb3``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai
from sekai.envs.finance.market import MarketVecEnv
from sekai.finance import GBM, ListingProcess

pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the sb3 extra)")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.sb3  # CI's sb3 run selects them

Policy = Callable[[Any, NDArray[np.bool_]], NDArray[np.int64]]


def _market(num_envs: int) -> Any:
    """MarketDiscrete-v0 on four assets that list and delist; only the first one rises."""
    model = ListingProcess(
        GBM(mu=[1.5, -1.5, -1.5, -1.5], sigma=0.1, n_assets=4),
        initial_listed=0.75,
        listing_rate=4.0,
        delisting_rate=4.0,
        min_listed=2,
    )
    return sekai.make_vec(
        "MarketDiscrete-v0", num_envs, model=model, lookback=5, episode_length=32, trade_size=0.25
    )


def _returns(policy: Policy, seed: int, episodes: int = 32) -> NDArray[np.float64]:
    """The return of the first episode of each of ``episodes`` sub-envs (seeds ``seed + i``)."""
    from sekai.compat import to_sb3

    env = to_sb3(_market(episodes))
    env.seed(seed)
    returns = np.full(episodes, np.nan)
    observations = env.reset()
    while np.isnan(returns).any():
        masks = env.action_masks()
        actions = policy(observations, masks)
        assert masks[np.arange(episodes), actions].all()  # only allowed actions
        observations, _, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones & np.isnan(returns)):
            returns[i] = infos[i]["episode"]["r"]
    env.close()
    return returns


def test_maskable_ppo_beats_a_random_masked_policy() -> None:
    from sb3_contrib import MaskablePPO

    from sekai.compat import to_sb3

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        venv = _market(16)
        assert isinstance(venv, MarketVecEnv)  # the native version
        env = to_sb3(venv)
        assert env.action_space.n == 9 and env.action_masks().shape == (16, 9)
        model = MaskablePPO(
            "MultiInputPolicy", env, n_steps=64, batch_size=256, n_epochs=4, seed=0, device="cpu"
        )

        def trained(observations: Any, masks: NDArray[np.bool_]) -> NDArray[np.int64]:
            actions, _ = model.predict(observations, action_masks=masks, deterministic=True)
            return np.asarray(actions, dtype=np.int64)

        rng = np.random.default_rng(0)

        def random(observations: Any, masks: NDArray[np.bool_]) -> NDArray[np.int64]:
            return np.array([rng.choice(np.flatnonzero(row)) for row in masks])

        untrained = _returns(trained, 1000)
        model.learn(total_timesteps=16 * 64 * 8)  # 8 rollouts, a few seconds
        env.close()
        learned, baseline = _returns(trained, 1000), _returns(random, 1000)
    finally:
        torch.set_num_threads(threads)
    error = np.sqrt(learned.var(ddof=1) / len(learned) + baseline.var(ddof=1) / len(baseline))
    assert learned.mean() - baseline.mean() > 3.0 * error
    assert learned.mean() > 0.0 > baseline.mean()
    assert learned.mean() > untrained.mean()  # training did it
