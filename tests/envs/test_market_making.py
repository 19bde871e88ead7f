"""MarketMakingEnv: parameters, spaces, exact dynamics, errors, Avellaneda-Stoikov baseline."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai import check_env
from sekai.envs.finance import MarketMakingEnv
from sekai.envs.finance._checks import EPISODE_ENDED
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box

INFO_KEYS = [
    "mid_price",
    "inventory",
    "cash",
    "wealth",
    "bid",
    "ask",
    "bid_filled",
    "ask_filled",
    "timestamp",
    "dt",
]


def test_defaults_and_stored_parameters() -> None:
    env = MarketMakingEnv()
    assert MarketMakingEnv.metadata == {"render_fps": 20}
    assert (env.s0, env.sigma, env.total_time, env.n_steps) == (100.0, 2.0, 1.0, 200)
    assert env.dt == 1.0 / 200
    assert (env.A, env.k, env.risk_aversion) == (140.0, 1.5, 0.1)
    assert (env.max_inventory, env.order_size, env.max_offset) == (50, 1, 5.0)
    assert env.observation_space == Box(
        np.array([-1.0, 0.0], np.float32), np.array([1.0, 1.0], np.float32), dtype=np.float32
    )
    assert env.action_space == Box(0.0, 5.0, shape=(2,), dtype=np.float32)
    custom = MarketMakingEnv(total_time=2.0, n_steps=8, max_offset=2.5)
    assert custom.dt == 0.25
    assert custom.action_space == Box(0.0, 2.5, shape=(2,), dtype=np.float32)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("n_steps", 0),
        ("n_steps", 2.5),
        ("n_steps", 0.0),
        ("n_steps", True),
        ("max_inventory", 0),
        ("order_size", 0),
        ("order_size", 1.5),
        ("total_time", 0.0),
        ("total_time", math.inf),
        ("fill_intensity", 0.0),
        ("fill_intensity", -1.0),
        ("fill_decay", 0.0),
        ("sigma", -0.1),
        ("sigma", math.nan),
        ("risk_aversion", -1e-9),
        ("max_offset", -1.0),
        ("s0", math.inf),
        ("s0", math.nan),
        ("s0", "100"),
    ],
)
def test_invalid_parameter_names_it(name: str, value: Any) -> None:
    # the wrong kind (a bool, a string, None, a float with a fraction for an int parameter) is
    # a TypeError; a wrong value a ValueError
    ints = {"n_steps", "max_inventory", "order_size"}
    fraction = name in ints and isinstance(value, float) and not value.is_integer()
    error = TypeError if fraction or isinstance(value, (bool, str, type(None))) else ValueError
    with pytest.raises(error, match=name):
        MarketMakingEnv(**{name: value})


def test_boundary_parameters_are_accepted() -> None:
    env = MarketMakingEnv(sigma=0.0, risk_aversion=0.0, max_offset=0.0, s0=1e-9, n_steps=1)
    assert env.sigma == 0.0 and env.max_offset == 0.0 and env.s0 == 1e-9
    assert isinstance(MarketMakingEnv(n_steps=np.int64(3)).n_steps, int)


def test_reset_state_info_and_observation() -> None:
    env = MarketMakingEnv()
    result = env.reset(seed=1, options={})
    obs, info = result.observation, result.info
    assert obs.dtype == np.float32 and obs.tolist() == [0.0, 1.0]
    assert list(info) == INFO_KEYS
    assert info["mid_price"] == 100.0 and info["inventory"] == 0 and info["cash"] == 0.0
    assert info["wealth"] == 0.0 and math.isnan(info["bid"]) and math.isnan(info["ask"])
    assert info["bid_filled"] is False and info["ask_filled"] is False
    assert info["timestamp"] == 0.0 and info["dt"] == 0.005
    assert env.mid == 100.0 and env.inventory == 0 and env.cash == 0.0
    assert math.isnan(env.bid) and math.isnan(env.ask)
    assert env.elapsed_steps == 0 and env.time_remaining == 200 * 0.005


def _expected_step(env: MarketMakingEnv, seed: int, offsets: tuple[float, float]) -> dict[str, Any]:
    """One step computed by hand from the draw order random(2), standard_normal()."""
    rng = np.random.default_rng(seed)
    u_bid, u_ask = rng.random(2)
    z = rng.standard_normal()
    bid_offset, ask_offset = (min(max(o, 0.0), env.max_offset) for o in offsets)
    mid = env.s0
    p_bid = 1 - math.exp(-env.A * math.exp(-env.k * bid_offset) * env.dt)
    p_ask = 1 - math.exp(-env.A * math.exp(-env.k * ask_offset) * env.dt)
    bid_filled, ask_filled = bool(u_bid < p_bid), bool(u_ask < p_ask)
    q = int(bid_filled) - int(ask_filled)
    cash = -(mid - bid_offset) * bid_filled + (mid + ask_offset) * ask_filled
    new_mid = mid + env.sigma * math.sqrt(env.dt) * z
    reward = cash + q * new_mid - 0.5 * env.risk_aversion * env.sigma**2 * env.dt * q * q
    return {
        "q": q,
        "cash": cash,
        "mid": new_mid,
        "reward": reward,
        "bid_filled": bid_filled,
        "ask_filled": ask_filled,
    }


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("offsets", [(0.0, 0.0), (0.3, 1.2), (-2.0, 9.0)])
def test_first_step_matches_hand_computation(seed: int, offsets: tuple[float, float]) -> None:
    env = MarketMakingEnv()
    env.reset(seed=seed)
    result = env.step(np.array(offsets, np.float32))
    obs, reward, info = result.observation, result.reward, result.info
    terminated, truncated = result.terminated, result.truncated
    expected = _expected_step(env, seed, tuple(float(np.float32(o)) for o in offsets))
    assert info["bid_filled"] is expected["bid_filled"]
    assert info["ask_filled"] is expected["ask_filled"]
    assert env.inventory == expected["q"] and isinstance(env.inventory, int)
    assert env.cash == pytest.approx(expected["cash"], abs=1e-12)
    assert env.mid == pytest.approx(expected["mid"], rel=1e-15)
    assert reward == pytest.approx(expected["reward"], abs=1e-10)
    assert not terminated and truncated is False
    assert obs.tolist() == [
        np.float32(expected["q"] / 50),
        np.float32(199 / 200),
    ]
    bid_offset = min(max(float(np.float32(offsets[0])), 0.0), 5.0)
    ask_offset = min(max(float(np.float32(offsets[1])), 0.0), 5.0)
    assert info["bid"] == 100.0 - bid_offset and info["ask"] == 100.0 + ask_offset
    assert info["timestamp"] == 0.005 and info["wealth"] == env.wealth


def test_zero_offsets_fill_almost_surely_and_inventory_limits_hold() -> None:
    env = MarketMakingEnv(
        fill_intensity=1e6, fill_decay=20.0, max_inventory=2, order_size=2, sigma=0.0
    )
    env.reset(seed=0)
    result = env.step(np.array([0.0, 5.0], np.float32))
    obs, info = result.observation, result.info
    assert info["bid_filled"] and not info["ask_filled"]
    assert env.inventory == 2 and env.cash == -200.0 and obs[0] == 1.0
    # at +max_inventory no further buy is allowed
    info = env.step(np.array([0.0, 5.0], np.float32)).info
    assert not info["bid_filled"] and env.inventory == 2
    # both sides at the mid: only the sell is allowed, then both fill from 0
    result = env.step(np.zeros(2, np.float32))
    reward, info = result.reward, result.info
    assert not info["bid_filled"] and info["ask_filled"] and env.inventory == 0
    assert env.cash == 0.0 and reward == 0.0
    result = env.step(np.zeros(2, np.float32))
    reward, info = result.reward, result.info
    assert info["bid_filled"] and info["ask_filled"] and env.inventory == 0 and reward == 0.0


def test_reward_is_wealth_change_minus_inventory_penalty() -> None:
    env = MarketMakingEnv(fill_intensity=50.0)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        before = env.wealth
        reward = env.step(rng.uniform(0, 2, 2).astype(np.float32)).reward
        penalty = 0.5 * 0.1 * 4.0 * 0.005 * env.inventory**2
        assert reward == pytest.approx(env.wealth - before - penalty, abs=1e-9)


def test_episode_terminates_after_n_steps_and_refuses_more() -> None:
    env = MarketMakingEnv(n_steps=5)
    with pytest.raises(ResetRequired) as before_reset:
        env.step(np.ones(2, np.float32))
    env.reset(seed=0)
    flags = []
    for _ in range(5):
        result = env.step(np.ones(2, np.float32))
        flags.append((result.terminated, result.truncated))
    assert flags == [(False, False)] * 4 + [(True, False)]
    assert result.observation[1] == 0.0 and env.time_remaining == 0.0
    assert result.info["timestamp"] == pytest.approx(1.0)
    with pytest.raises(ResetRequired) as after_done:
        env.step(np.ones(2, np.float32))
    assert str(after_done.value) == EPISODE_ENDED != str(before_reset.value)
    env.reset()
    assert not env.step(np.ones(2, np.float32)).done


@pytest.mark.parametrize(
    "action",
    [
        np.zeros(3, np.float32),
        np.zeros((1, 2), np.float32),
        np.float32(1.0),
        [1.0],
        np.array([np.nan, 1.0]),
        np.array([1.0, np.inf]),
        np.array(["a", "b"]),
        None,
    ],
)
def test_invalid_actions(action: Any) -> None:
    env = MarketMakingEnv()
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(action)
    assert env.elapsed_steps == 0


def test_actions_are_clipped_and_lists_accepted() -> None:
    env = MarketMakingEnv(max_offset=2.0)
    env.reset(seed=0)
    info = env.step([-3, 7]).info
    assert info["bid"] == 100.0 and info["ask"] == 102.0


def test_fill_probability_and_baseline() -> None:
    env = MarketMakingEnv()
    assert env.fill_probability(0.0) == pytest.approx(1 - math.exp(-140 * 0.005))
    offsets = np.array([0.0, 1.0, 3.0])
    np.testing.assert_allclose(
        env.fill_probability(offsets), 1 - np.exp(-140 * np.exp(-1.5 * offsets) * 0.005)
    )
    env.reset(seed=0)
    spread = 0.1 * 4.0 * 1.0 + (2 / 0.1) * math.log(1 + 0.1 / 1.5)
    action = env.avellaneda_stoikov_action()
    assert action.dtype == np.float32 and action.shape == (2,)
    np.testing.assert_allclose(action, [spread / 2, spread / 2], rtol=1e-6)
    env.inventory = 1
    skew = 1 * 0.1 * 4.0 * 1.0
    np.testing.assert_allclose(
        env.avellaneda_stoikov_action(), [spread / 2 + skew, spread / 2 - skew], rtol=1e-6
    )
    env.inventory = 20  # ask side clipped at 0, bid side at max_offset
    assert env.avellaneda_stoikov_action().tolist() == [5.0, 0.0]
    neutral = MarketMakingEnv(risk_aversion=0.0)
    neutral.reset(seed=0)
    neutral.inventory = 7
    np.testing.assert_allclose(neutral.avellaneda_stoikov_action(), [1 / 1.5, 1 / 1.5], rtol=1e-6)


def test_same_seed_same_episode() -> None:
    def rollout(seed: int) -> list[float]:
        env = MarketMakingEnv(n_steps=50)
        env.reset(seed=seed)
        return [env.step(env.avellaneda_stoikov_action()).reward for _ in range(50)]

    assert rollout(5) == rollout(5) != rollout(6)


def test_check_env_is_clean() -> None:
    assert check_env(MarketMakingEnv(), n_steps=400, check_determinism=True) == []
