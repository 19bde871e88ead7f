"""MarketMakingVecEnv / OptimalExecutionVecEnv: exact dynamics, the template parameters,
frozen sub-envs, errors, and statistical agreement with the single envs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import MarketMakingEnv, OptimalExecutionEnv
from sekai.envs.finance.vector import MarketMakingVecEnv, OptimalExecutionVecEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.vector import Param, SyncVecEnv
from sekai.vector.native import NativeVecEnv

MM_PARAMS = [
    "s0",
    "sigma",
    "total_time",
    "n_steps",
    "dt",
    "A",
    "k",
    "risk_aversion",
    "max_inventory",
    "order_size",
    "max_offset",
]
OE_PARAMS = [
    "X0",
    "s0",
    "sigma",
    "total_time",
    "n_steps",
    "tau",
    "gamma",
    "eta",
    "epsilon",
    "risk_aversion",
    "centred_action",
    "expected_reward",
    "reward_scale",
    "observe_price",
]
VEC_CASES = [
    (MarketMakingVecEnv, MarketMakingEnv, MM_PARAMS),
    (OptimalExecutionVecEnv, OptimalExecutionEnv, OE_PARAMS),
]


def _constant_actions(vec: NativeVecEnv, value: float) -> np.ndarray:
    return np.full((vec.num_envs, *vec.action_space.shape), value, np.float32)


# --- construction, spaces, parameters --------------------------------------------------------


@pytest.mark.parametrize(("vec_cls", "env_cls", "params"), VEC_CASES)
def test_template_spaces_and_repr(vec_cls: Any, env_cls: Any, params: list[str]) -> None:
    vec = vec_cls(3, sigma=0.5)
    assert isinstance(vec.template, env_cls) and vec.template.sigma == 0.5
    assert vec.observation_space == vec.template.observation_space
    assert vec.action_space == vec.template.action_space
    assert vec.batch_action_space.shape == (3, *vec.action_space.shape)
    assert repr(vec) == f"{vec_cls.__name__}(num_envs=3)"
    for name in params:
        assert vec.get_attr(name) == [getattr(vec.template, name)] * 3
        assert getattr(vec, name) == getattr(vec.template, name)
    assert vec.get_attr("metadata") == [env_cls.metadata] * 3
    assert vec_cls.metadata == env_cls.metadata and vec.metadata is env_cls.metadata
    assert all(isinstance(vec_cls.__dict__[name], Param) for name in params)


@pytest.mark.parametrize(
    ("vec_cls", "name", "value"),
    [
        (MarketMakingVecEnv, "fill_decay", 0.0),
        (MarketMakingVecEnv, "n_steps", 0),
        (OptimalExecutionVecEnv, "temporary_impact", -1.0),
        (OptimalExecutionVecEnv, "initial_inventory", math.nan),
    ],
)
def test_kwargs_are_validated_by_the_single_env(vec_cls: Any, name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=name):
        vec_cls(2, **{name: value})
    with pytest.raises(TypeError):
        vec_cls(2, no_such_parameter=1)
    with pytest.raises(ValueError, match="num_envs"):
        vec_cls(0)


@pytest.mark.parametrize(("vec_cls", "env_cls", "params"), VEC_CASES)
def test_set_attr_of_parameters(vec_cls: Any, env_cls: Any, params: list[str]) -> None:
    vec = vec_cls(3)
    vec.set_attr("sigma", 0.25)
    assert vec.template.sigma == 0.25 and vec.get_attr("sigma") == [0.25] * 3
    vec.set_attr("sigma", [0.5, 0.5, 0.5])
    assert vec.template.sigma == 0.5
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        vec.set_attr("sigma", [0.5, 0.6, 0.5])
    with pytest.raises(ValueError, match="num_envs=3"):
        vec.set_attr("sigma", [0.5, 0.5])
    assert vec.template.sigma == 0.5
    for target in (lambda: vec.set_attr("metadata", {}), lambda: setattr(vec, "metadata", {})):
        with pytest.raises(AttributeError, match="metadata"):
            target()
    assert env_cls.metadata["render_fps"] in (5, 20)
    with pytest.raises(AttributeError, match="no_such_attribute"):
        vec.set_attr("no_such_attribute", 1)
    assert not hasattr(vec, "no_such_attribute")
    # derived values are not recomputed
    step = vec.template.dt if vec_cls is MarketMakingVecEnv else vec.template.tau
    vec.set_attr("n_steps", 7)
    assert vec.n_steps == 7 and step == (vec.dt if vec_cls is MarketMakingVecEnv else vec.tau)
    # state arrays go through the base class: a list is stored as an array
    vec.set_attr("mid", [1.0, 2.0, 3.0])
    assert vec.mid.tolist() == [1.0, 2.0, 3.0] and vec.get_attr("mid") == [1.0, 2.0, 3.0]


def test_set_parameter_changes_the_simulation() -> None:
    vec = MarketMakingVecEnv(4)
    vec.set_attr("sigma", 0.0)
    vec.reset(seed=0)
    for _ in range(20):
        vec.step(_constant_actions(vec, 1.0))
    assert np.all(vec.mid == 100.0)
    oe = OptimalExecutionVecEnv(4)
    oe.set_attr("epsilon", [0.0] * 4)
    oe.set_attr("eta", 0.0)
    oe.set_attr("gamma", 0.0)
    oe.reset(seed=0)
    result = oe.step(_constant_actions(oe, 0.5))
    assert [info["execution_price"] for info in result.infos] == [50.0] * 4


def test_shared_schedule_and_per_env_baseline() -> None:
    oe = OptimalExecutionVecEnv(25)  # n_steps == num_envs: the schedule must not be split
    schedules = oe.call("almgren_chriss_actions")
    assert len(schedules) == 25
    assert all(np.array_equal(s, oe.template.almgren_chriss_actions()) for s in schedules)
    assert schedules[0].shape == (25, 1) and schedules[0].dtype == np.float32
    mm = MarketMakingVecEnv(3)
    mm.reset(seed=0)
    mm.inventory = np.array([-2, 0, 3])
    quotes = mm.avellaneda_stoikov_action()
    assert quotes.shape == (3, 2) and quotes.dtype == np.float32
    single = MarketMakingEnv()
    single.reset(seed=0)
    for i, q in enumerate([-2, 0, 3]):
        single.inventory = q
        np.testing.assert_allclose(quotes[i], single.avellaneda_stoikov_action(), rtol=1e-6)
    rows = mm.call("avellaneda_stoikov_action")
    assert [r.tolist() for r in rows] == quotes.tolist()
    np.testing.assert_allclose(mm.time_remaining, [1.0] * 3)
    np.testing.assert_array_equal(mm.wealth, [-200.0, 0.0, 300.0])


# --- exact dynamics ---------------------------------------------------------------------------


def test_market_making_step_follows_the_stated_draw_order() -> None:
    n, seed = 5, 11
    vec = MarketMakingVecEnv(n, fill_intensity=300.0)
    vec.reset(seed=seed)
    offsets = np.array([[0.0, 0.0], [0.5, 1.0], [2.0, 0.1], [-1.0, 9.0], [1.0, 1.0]], np.float32)
    result = vec.step(offsets)
    rng = np.random.default_rng(seed)
    uniforms = rng.random((n, 2))
    z = rng.standard_normal(n)
    delta = np.clip(offsets.astype(np.float64), 0.0, 5.0)
    fills = uniforms < 1.0 - np.exp(-(300.0 * np.exp(-1.5 * delta)) * 0.005)
    q = fills[:, 0].astype(int) - fills[:, 1].astype(int)
    cash = -(100.0 - delta[:, 0]) * fills[:, 0] + (100.0 + delta[:, 1]) * fills[:, 1]
    mid = 100.0 + 2.0 * math.sqrt(0.005) * z
    np.testing.assert_array_equal(vec.bid_filled, fills[:, 0])
    np.testing.assert_array_equal(vec.ask_filled, fills[:, 1])
    np.testing.assert_array_equal(vec.inventory, q)
    np.testing.assert_array_equal(vec.mid, mid)
    np.testing.assert_allclose(vec.cash, cash, atol=1e-12)
    np.testing.assert_allclose(
        result.rewards, cash + q * mid - 0.5 * 0.1 * 4.0 * 0.005 * q * q, atol=1e-10
    )
    assert vec.inventory.dtype == np.int64
    assert result.observations.dtype == np.float32
    np.testing.assert_array_equal(
        result.observations, np.stack([q / 50, np.full(n, 199 / 200)], 1).astype(np.float32)
    )


def _replay_single(env: Any, vec: Any, seed: int, actions: list[np.ndarray]) -> None:
    """Step a 1-sub-env vec and a single env with the same seed; every output must agree.

    With one sub-env the batched draws are exactly the single env's draws.
    """
    first, single = vec.reset(seed=seed), env.reset(seed=seed)
    np.testing.assert_array_equal(first.observations[0], single.observation)
    assert first.infos[0].keys() == single.info.keys()
    np.testing.assert_array_equal(list(first.infos[0].values()), list(single.info.values()))
    for action in actions:
        batch = vec.step(action[None])
        step = env.step(action)
        assert batch.rewards[0] == pytest.approx(step.reward, rel=1e-13, abs=1e-12)
        assert bool(batch.terminated[0]) is step.terminated and not batch.truncated[0]
        info = batch.infos[0]
        if step.terminated:
            np.testing.assert_array_equal(info["final_observation"], step.observation)
            info = info["final_info"]
            reset = env.reset()
            np.testing.assert_array_equal(batch.observations[0], reset.observation)
        else:
            np.testing.assert_array_equal(batch.observations[0], step.observation)
        assert list(info) == list(step.info)
        for key, value in step.info.items():
            assert type(info[key]) is type(value), key
            assert info[key] == pytest.approx(value, rel=1e-13, nan_ok=True), key


def test_one_sub_env_reproduces_the_single_market_making_env() -> None:
    rng = np.random.default_rng(0)
    actions = list(rng.uniform(-0.5, 3.0, (130, 2)).astype(np.float32))
    _replay_single(MarketMakingEnv(n_steps=60), MarketMakingVecEnv(1, n_steps=60), 7, actions)


@pytest.mark.parametrize("random_start", [False, True])
def test_one_sub_env_reproduces_the_single_env_under_the_learnable_options(
    random_start: bool,
) -> None:
    """Centred actions, expected reward, scaled inventory (and random starts, drawn at every
    autoreset): still the single env's outputs, episode after episode."""
    rng = np.random.default_rng(2)
    actions = list(rng.uniform(-1.5, 1.5, (200, 2)).astype(np.float32))
    options = {
        "centred_actions": True,
        "expected_reward": True,
        "inventory_scale": 8.0,
        "random_start": random_start,
        "n_steps": 60,
        "max_inventory": 6,
    }
    _replay_single(MarketMakingEnv(**options), MarketMakingVecEnv(1, **options), 9, actions)


def test_one_sub_env_reproduces_the_single_optimal_execution_env() -> None:
    rng = np.random.default_rng(1)
    actions = list(rng.uniform(-0.1, 0.4, (120, 1)).astype(np.float32))
    _replay_single(OptimalExecutionEnv(), OptimalExecutionVecEnv(1), 3, actions)


def test_info_keys_and_reset_infos_match_the_single_envs() -> None:
    for vec, env in (
        (MarketMakingVecEnv(2), MarketMakingEnv()),
        (OptimalExecutionVecEnv(2), OptimalExecutionEnv()),
    ):
        reset = vec.reset(seed=0)
        single = env.reset(seed=0)
        for info in reset.infos:
            assert list(info) == list(single.info)
            assert info == pytest.approx(single.info, nan_ok=True)
        step = vec.step(_constant_actions(vec, 0.5))
        assert [list(info) for info in step.infos] == [
            list(env.step(np.full(env.action_space.shape, 0.5, np.float32)).info)
        ] * 2


def test_autoreset_and_time_limit() -> None:
    vec = OptimalExecutionVecEnv(3, n_steps=4, max_episode_steps=3)
    vec.reset(seed=0)
    sell = np.array([[1.0], [0.1], [0.1]], np.float32)
    result = vec.step(sell)
    assert result.terminated.tolist() == [True, False, False]
    info = result.infos[0]
    assert info["final_info"]["shares_sold"] == 1e6 and info["final_info"]["elapsed_steps"] == 1
    assert info["reset_info"]["inventory"] == 1e6 and "elapsed_steps" not in info["reset_info"]
    assert result.observations[0].tolist() == [1.0, 1.0, 0.0]
    assert vec.inventory[0] == 1e6 and vec.shortfall[0] == 0.0 and vec.mid[0] == 50.0
    # the info handed out keeps the terminal values although the state was reset
    assert result.infos[0]["final_info"]["inventory"] == 0.0
    keep = np.full((3, 1), 0.1, np.float32)
    vec.step(keep)
    result = vec.step(keep)
    assert result.truncated.tolist() == [False, True, True]
    assert not result.terminated[1:].any()
    assert vec.elapsed_steps.tolist() == [2, 0, 0]


def test_market_making_episode_end_and_reset() -> None:
    vec = MarketMakingVecEnv(2, n_steps=3)
    with pytest.raises(ResetRequired):
        vec.step(_constant_actions(vec, 1.0))
    vec.reset(seed=0)
    for _ in range(2):
        assert not vec.step(_constant_actions(vec, 1.0)).dones.any()
    result = vec.step(_constant_actions(vec, 1.0))
    assert result.terminated.all() and not result.truncated.any()
    assert result.infos[1]["final_info"]["timestamp"] == pytest.approx(1.0)
    assert result.infos[1]["reset_info"]["timestamp"] == 0.0
    assert math.isnan(result.infos[1]["reset_info"]["bid"])
    assert vec.inventory.tolist() == [0, 0] and np.isnan(vec.bid).all()
    assert result.observations.tolist() == [[0.0, 1.0]] * 2


# --- frozen sub-envs --------------------------------------------------------------------------


def test_frozen_sub_envs_are_left_untouched_and_others_unaffected() -> None:
    def run(autoreset: bool) -> tuple[list[Any], OptimalExecutionVecEnv]:
        vec = OptimalExecutionVecEnv(4, autoreset=autoreset)
        vec.reset(seed=5)
        actions = np.array([[1.0], [0.3], [0.2], [0.1]], np.float32)
        out = []
        for _ in range(6):
            result = vec.step(actions)
            out.append((result.rewards.copy(), result.observations.copy(), result.infos))
        return out, vec

    free, _ = run(True)
    held, vec = run(False)
    assert vec.frozen.tolist() == [True, False, False, False]
    for (r_free, o_free, i_free), (r_held, o_held, i_held) in zip(free, held, strict=True):
        np.testing.assert_array_equal(r_free[1:], r_held[1:])
        np.testing.assert_array_equal(o_free[1:], o_held[1:])
        assert i_free[1:] == i_held[1:]
    assert held[1][0][0] == 0.0 and held[1][2][0] == {}
    # the frozen sub-env kept its terminal state
    assert vec.inventory[0] == 0.0 and vec.elapsed_steps.tolist() == [1, 6, 6, 6]
    final = held[0][2][0]
    assert (
        vec.mid[0] == final["mid_price"] and vec.shortfall[0] == final["implementation_shortfall"]
    )
    assert vec._k[0] == 1


def test_frozen_market_making_state_stays_put() -> None:
    vec = MarketMakingVecEnv(3, n_steps=5, autoreset=False)
    vec.reset(seed=0)
    for _ in range(5):
        last = vec.step(_constant_actions(vec, 0.2))
    state = [
        getattr(vec, a).copy()
        for a in ("mid", "inventory", "cash", "bid", "ask", "bid_filled", "ask_filled", "_t")
    ]
    for _ in range(3):
        again = vec.step(_constant_actions(vec, 0.0))
        assert again.rewards.tolist() == [0.0] * 3 and again.infos == [{}] * 3
        np.testing.assert_array_equal(again.observations, last.observations)
    for before, name in zip(
        state,
        ("mid", "inventory", "cash", "bid", "ask", "bid_filled", "ask_filled", "_t"),
        strict=True,
    ):
        np.testing.assert_array_equal(getattr(vec, name), before, err_msg=name)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros((3, 3), np.float32),
        np.zeros(3, np.float32),
        np.zeros((2, 2), np.float32),
        np.array([[0.0, np.nan]] * 3),
        np.array([[np.inf, 0.0]] * 3),
        [["a", "b"]] * 3,
        [[1.0, 1.0], [1.0], [1.0, 1.0]],
    ],
)
def test_invalid_market_making_actions(actions: Any) -> None:
    vec = MarketMakingVecEnv(3)
    vec.reset(seed=0)
    with pytest.raises(InvalidAction):
        vec.step(actions)
    assert vec.mid.tolist() == [100.0] * 3
    vec.step([[1.0, 1.0]] * 3)  # a nested list is a valid batch


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros(3, np.float32),
        np.zeros((3, 2)),
        np.zeros((4, 1)),
        np.array([[0.1], [np.nan], [0.2]]),
    ],
)
def test_invalid_optimal_execution_actions(actions: Any) -> None:
    vec = OptimalExecutionVecEnv(3)
    vec.reset(seed=0)
    with pytest.raises(InvalidAction):
        vec.step(actions)
    assert vec.inventory.tolist() == [1e6] * 3


# --- fidelity and statistics ------------------------------------------------------------------


def _executed_schedule(env: OptimalExecutionEnv, actions: np.ndarray) -> np.ndarray:
    x, trades = env.X0, []
    for k, fraction in enumerate(actions[:, 0].astype(np.float64)):
        n = x if k == env.n_steps - 1 else fraction * x
        trades.append(n)
        x = 0.0 if x - n < 1e-9 * env.X0 else x - n
    return np.array(trades)


def _shortfalls(vec: OptimalExecutionVecEnv, schedule: np.ndarray, seed: int) -> np.ndarray:
    vec.reset(seed=seed)
    for action in schedule:
        result = vec.step(np.broadcast_to(action, (vec.num_envs, 1)))
    assert result.dones.all()
    return vec.shortfall.copy()


PATHS = 100_000


def test_almgren_chriss_monte_carlo_matches_expected_shortfall() -> None:
    """100,000 paths: mean and variance of the shortfall within 3 standard errors."""
    vec = OptimalExecutionVecEnv(PATHS, autoreset=False)
    actions = vec.almgren_chriss_actions()
    mean, variance = vec.template.expected_shortfall(_executed_schedule(vec.template, actions))
    shortfall = _shortfalls(vec, actions, seed=7)
    assert abs(shortfall.mean() - mean) < 3 * math.sqrt(variance / PATHS)
    assert abs(shortfall.var(ddof=1) - variance) < 3 * variance * math.sqrt(2 / (PATHS - 1))


def test_almgren_chriss_beats_twap_in_simulation() -> None:
    vec = OptimalExecutionVecEnv(PATHS, autoreset=False)
    lam = vec.template.risk_aversion
    ac = _shortfalls(vec, vec.almgren_chriss_actions(), seed=8)
    twap = _shortfalls(vec, OptimalExecutionEnv(risk_aversion=0.0).almgren_chriss_actions(), seed=9)
    assert ac.mean() + lam * ac.var() < twap.mean() + lam * twap.var()
    assert ac.var() < twap.var()


def _episode_totals(vec: MarketMakingVecEnv, policy: Any, seed: int) -> np.ndarray:
    vec.reset(seed=seed)
    total = np.zeros(vec.num_envs)
    while True:
        result = vec.step(policy(vec))
        total += result.rewards
        if result.dones.all():
            return total


def test_avellaneda_stoikov_beats_symmetric_fixed_quotes() -> None:
    """4000 episodes with common random numbers; fixed quotes at the AS half-spread at t=0."""
    vec = MarketMakingVecEnv(4000, autoreset=False)
    vec.reset(seed=0)
    half = float(vec.avellaneda_stoikov_action()[0, 0])
    as_totals = _episode_totals(vec, MarketMakingVecEnv.avellaneda_stoikov_action, seed=1)
    for offset in (0.75 * half, half, 1.25 * half):
        fixed = _episode_totals(vec, lambda v, o=offset: _constant_actions(v, o), seed=1)
        diff = as_totals - fixed
        assert diff.mean() > 3 * diff.std(ddof=1) / math.sqrt(len(diff)), offset


def _sync_totals(env_fn: Any, n: int, episodes: int, action: np.ndarray, seed: int) -> np.ndarray:
    """Per-episode total rewards of ``episodes`` episodes on a SyncVecEnv of ``n`` sub-envs."""
    vec = SyncVecEnv([env_fn] * n, autoreset=False)
    totals = []
    for round_ in range(episodes // n):
        vec.reset(seed=seed + round_)
        total = np.zeros(n)
        while True:
            result = vec.step(np.broadcast_to(action, (n, *action.shape)))
            total += result.rewards
            if result.dones.all():
                break
        totals.append(total)
    return np.concatenate(totals)


@pytest.mark.parametrize(
    ("vec_cls", "env_cls", "action"),
    [
        (MarketMakingVecEnv, MarketMakingEnv, np.array([0.7, 1.1], np.float32)),
        (OptimalExecutionVecEnv, OptimalExecutionEnv, np.array([0.15], np.float32)),
    ],
)
def test_native_and_sync_agree_in_distribution(vec_cls: Any, env_cls: Any, action: Any) -> None:
    """2000 episodes each: means of the per-episode totals within 4 standard errors of the
    difference, standard deviations within 10%."""
    episodes = 2000
    native = vec_cls(episodes, autoreset=False)
    native_totals = _episode_totals(
        native, lambda v: np.broadcast_to(action, (v.num_envs, *action.shape)), seed=3
    )
    sync_totals = _sync_totals(env_cls, 50, episodes, action, seed=100)
    se = math.sqrt(native_totals.var(ddof=1) / episodes + sync_totals.var(ddof=1) / episodes)
    assert abs(native_totals.mean() - sync_totals.mean()) < 4 * se
    assert native_totals.std() == pytest.approx(sync_totals.std(), rel=0.1)
