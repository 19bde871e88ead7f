"""MarketMaking for learners: the exact dynamic programme, the reference policies, and the
learnable options of ``MarketMaking-v1`` (centred actions, expected reward, inventory scale,
random start)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import sekai
from sekai import check_env
from sekai.envs.finance import MarketMakingEnv
from sekai.envs.finance.market_making.actions import actions_to_offsets, offsets_to_actions
from sekai.envs.finance.market_making.dynamic_programme import (
    QuoteProblem,
    evaluate_quotes,
    solve_quotes,
)
from sekai.envs.finance.market_making.reference import avellaneda_stoikov_offsets
from sekai.envs.finance.vector import MarketMakingVecEnv
from sekai.spaces import Box

V1 = {"centred_actions": True, "expected_reward": True, "inventory_scale": 8.0}
# the exact optimum from a flat start at the default parameters
DP_VALUE = 59.10785149124712
HALF_SPREAD = 0.1 * 4.0 * 1.0 / 2 + (1 / 0.1) * math.log(1 + 0.1 / 1.5)


def _episode_totals(vec: MarketMakingVecEnv, policy: Any, seed: int) -> np.ndarray:
    """Per-sub-env returns of one episode (``vec`` built with ``autoreset=False``)."""
    obs = vec.reset(seed=seed).observations
    total = np.zeros(vec.num_envs)
    while True:
        result = vec.step(policy(obs))
        total += result.rewards
        obs = result.observations
        if result.dones.all():
            return total


def _within(sample: np.ndarray, value: float, z: float = 4.0) -> bool:
    se = sample.std(ddof=1) / math.sqrt(len(sample))
    return abs(sample.mean() - value) < z * se


def _all_states(env: MarketMakingEnv) -> tuple[np.ndarray, np.ndarray]:
    """The step and inventory grids ``(n_steps, 2M + 1)`` of the DP tables."""
    t = np.arange(env.n_steps)[:, None]
    q = np.arange(-env.max_inventory, env.max_inventory + 1)[None, :]
    return np.broadcast_arrays(t, q)  # type: ignore[return-value]


# --- the dynamic programme --------------------------------------------------------------------


TINY = {
    "n_steps": 3,
    "total_time": 3.0,
    "fill_intensity": 1.2,
    "fill_decay": 1.5,
    "sigma": 1.0,
    "risk_aversion": 0.5,
    "max_inventory": 2,
    "max_offset": 3.0,
}


def _tree_value(env: MarketMakingEnv, grid: np.ndarray) -> tuple[float, tuple[float, float]]:
    """Brute force: the best expected return over every history, each node choosing the best
    pair of quotes on ``grid``; the expected reward of an outcome drops the zero-mean mid
    move. Returns the value and the best quotes at the root."""
    c = 0.5 * env.risk_aversion * env.sigma**2 * env.dt
    p = env.fill_probability(grid)
    bid, ask = np.meshgrid(grid, grid, indexing="ij")
    p_bid, p_ask = np.meshgrid(p, p, indexing="ij")

    def node(t: int, q: int) -> tuple[float, tuple[float, float]]:
        if t == env.n_steps:
            return 0.0, (math.nan, math.nan)
        pb = p_bid if q + 1 <= env.max_inventory else np.zeros_like(p_bid)
        pa = p_ask if q - 1 >= -env.max_inventory else np.zeros_like(p_ask)
        total = np.zeros_like(bid)
        for b, a in itertools.product((0, 1), (0, 1)):  # the four fill outcomes of the step
            chance = (pb if b else 1 - pb) * (pa if a else 1 - pa)
            after = q + b - a
            reward = b * bid + a * ask - c * after * after
            total += chance * (reward + node(t + 1, after)[0])
        best = np.unravel_index(np.argmax(total), total.shape)
        return float(total[best]), (float(bid[best]), float(ask[best]))

    return node(0, 0)


def test_dp_agrees_with_brute_force_search_on_a_tiny_instance() -> None:
    env = MarketMakingEnv(**TINY)
    solution = solve_quotes(QuoteProblem.of(env))
    step = 0.01
    brute, (bid, ask) = _tree_value(env, np.arange(0.0, 3.0 + step / 2, step))
    exact = float(solution.value(0, 0))
    assert 0.0 <= exact - brute < 1e-4  # the grid can only lose, and only second-order
    assert abs(bid - solution.bid[0, 2]) <= step and abs(ask - solution.ask[0, 2]) <= step
    # the DP's own quotes, put on the tree (as a one-point grid per state), give its value
    tables = evaluate_quotes(QuoteProblem.of(env), solution.bid, solution.ask)
    np.testing.assert_allclose(tables, solution.values, rtol=0, atol=1e-12)


def test_each_state_beats_every_pair_of_quotes_on_a_grid_even_when_not_concave() -> None:
    """Extreme risk aversion: some states fail the concavity certificate (|S| >= 2(e-1)/k)
    and take the grid-then-refine path; none may lose to a 401 x 401 grid of quotes."""
    env = MarketMakingEnv(
        n_steps=20, fill_decay=10.0, risk_aversion=5.0, max_inventory=10, sigma=2.0
    )
    problem = QuoteProblem.of(env)
    solution = solve_quotes(problem)
    c = problem.penalty
    q = np.arange(-10, 11)
    grid = np.linspace(0.0, 5.0, 401)
    p = problem.fill_probability(grid)
    uncertified = 0
    for t in range(env.n_steps):
        w = solution.values[t + 1] - c * q * q
        curvature = w[2:] + w[:-2] - 2 * w[1:-1]
        uncertified += int(np.sum(np.abs(curvature) >= 2 * (math.e - 1) / env.k))
        for i, inventory in enumerate(q):
            pb = p[:, None] if inventory < 10 else np.zeros((401, 1))
            pa = p[None, :] if inventory > -10 else np.zeros((1, 401))
            up = w[min(i + 1, 20)] - w[i]
            down = w[max(i - 1, 0)] - w[i]
            value = (
                pb * grid[:, None]
                + pa * grid[None, :]
                + w[i]
                + pb * (1 - pa) * up
                + pa * (1 - pb) * down
            )
            assert value.max() <= solution.values[t, i] + 1e-12, (t, inventory)
    assert uncertified > 0


def test_registered_parameters_are_certified_in_every_state() -> None:
    """The module text's claim: |S| <= 0.21 everywhere against the bound 2(e-1)/k = 2.29."""
    env = MarketMakingEnv()
    solution = solve_quotes(QuoteProblem.of(env))
    q = np.arange(-50, 51)
    w = solution.values[1:] - QuoteProblem.of(env).penalty * q * q
    curvature = w[:, 2:] + w[:, :-2] - 2 * w[:, 1:-1]
    assert np.abs(curvature).max() <= 0.21 < 2 * (math.e - 1) / 1.5


@pytest.mark.parametrize("kwargs", [{}, {"centred_actions": True}], ids=["v0", "centred"])
def test_float32_actions_cost_nothing_measurable(kwargs: dict[str, Any]) -> None:
    env = MarketMakingEnv(**kwargs)
    problem = QuoteProblem.of(env)
    solution = solve_quotes(problem)
    centre = env.default_offset if env.centred_actions else None
    bid = actions_to_offsets(env.action_from_offsets(solution.bid), centre, env.max_offset)
    ask = actions_to_offsets(env.action_from_offsets(solution.ask), centre, env.max_offset)
    assert bid.dtype == np.float64 and not np.array_equal(bid, solution.bid)
    np.testing.assert_allclose(evaluate_quotes(problem, bid, ask), solution.values, atol=1e-12)


@pytest.mark.parametrize(("intensity", "decay"), [(0.7, 1.5), (5.0, 0.3), (0.01, 10.0)])
def test_curvature_bound_of_the_certificate(intensity: float, decay: float) -> None:
    """h(p) = p·δ(p) has h'' <= -2(e-1)/k: finite differences over the fill probabilities."""
    p = np.linspace(1e-3, 1 - math.exp(-intensity) - 1e-3, 4001)

    def h(prob: np.ndarray) -> np.ndarray:
        return prob * np.log(intensity / -np.log1p(-prob)) / decay

    step = 1e-5
    second = (h(p + step) - 2 * h(p) + h(p - step)) / step**2
    assert second.max() <= -2 * (math.e - 1) / decay


def test_solution_layout_cache_and_read_only_tables() -> None:
    env = MarketMakingEnv()
    problem = QuoteProblem.of(env)
    solution = solve_quotes(problem)
    assert solve_quotes(QuoteProblem.of(MarketMakingEnv())) is solution
    assert solution.values.shape == (201, 101) and solution.bid.shape == (200, 101)
    assert np.all(solution.values[-1] == 0.0)
    assert solution.value(0, 0) == pytest.approx(DP_VALUE, abs=1e-9)
    for array in (solution.values, solution.bid, solution.ask):
        with pytest.raises(ValueError, match="read-only"):
            array[0, 0] = 1.0
    # symmetric problem: the bid at q is the ask at -q
    np.testing.assert_allclose(solution.bid[:, 1:-1], solution.ask[:, -2:0:-1], atol=1e-9)
    assert np.all(np.diff(solution.bid[0, 40:61]) > 0)  # skew: long inventory bids lower
    assert problem.min_offset == 0.0 and problem.max_offset == 5.0
    centred = QuoteProblem.of(MarketMakingEnv(centred_actions=True))
    assert centred.max_offset == pytest.approx(2 * HALF_SPREAD)
    # the narrower quote range of centred actions costs nothing from a flat start
    assert solve_quotes(centred).value(0, 0) == pytest.approx(DP_VALUE, abs=1e-9)


def test_exact_values_order_dp_above_avellaneda_stoikov_above_symmetric() -> None:
    env = MarketMakingEnv()
    problem = QuoteProblem.of(env)
    t, q = _all_states(env)
    quotes = avellaneda_stoikov_offsets(
        q, (env.n_steps - t) * env.dt, sigma=2.0, risk_aversion=0.1, fill_decay=1.5, max_offset=5
    )
    stoikov = evaluate_quotes(problem, quotes[..., 0], quotes[..., 1])[0, 50]
    symmetric = evaluate_quotes(problem, env.default_offset, env.default_offset)[0, 50]
    assert stoikov == pytest.approx(56.75953891095835, abs=1e-9)
    assert symmetric == pytest.approx(54.55212156973873, abs=1e-9)
    assert DP_VALUE > stoikov > symmetric
    # the DP is optimal from every state, not only from the start
    values = solve_quotes(problem).values
    assert np.all(values[:-1] >= evaluate_quotes(problem, quotes[..., 0], quotes[..., 1])[:-1])


@pytest.mark.parametrize("kwargs", [{}, V1], ids=["realised", "v1"])
def test_dp_value_matches_monte_carlo_of_its_policy(kwargs: dict[str, Any]) -> None:
    vec = MarketMakingVecEnv(3000, autoreset=False, **kwargs)
    totals = _episode_totals(vec, vec.reference_policies()["dp_optimal"], seed=4)
    assert _within(totals, DP_VALUE)
    if kwargs:  # the expected reward leaves far less noise
        assert totals.std() < 1.5
    else:
        assert totals.std() > 5.0


def test_policy_evaluation_matches_monte_carlo_of_avellaneda_stoikov() -> None:
    vec = MarketMakingVecEnv(3000, autoreset=False, expected_reward=True)
    totals = _episode_totals(vec, vec.reference_policies()["avellaneda_stoikov"], seed=5)
    assert _within(totals, 56.75953891095835)


def test_dp_beats_avellaneda_stoikov_and_symmetric_in_simulation() -> None:
    """Common random numbers on the v1 options; each difference over 4 standard errors."""
    vec = sekai.make_vec("MarketMaking-v1", 2000, autoreset=False)
    policies = vec.reference_policies()
    dp = _episode_totals(vec, policies["dp_optimal"], seed=6)
    stoikov = _episode_totals(vec, policies["avellaneda_stoikov"], seed=6)
    symmetric = _episode_totals(vec, policies["symmetric"], seed=6)
    for better, worse in ((dp, stoikov), (stoikov, symmetric)):
        diff = better - worse
        assert diff.mean() > 4 * diff.std(ddof=1) / math.sqrt(len(diff))


# --- reference policies -----------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, V1, {**V1, "random_start": True}])
def test_avellaneda_stoikov_policy_is_the_env_method(kwargs: dict[str, Any]) -> None:
    env = MarketMakingEnv(**kwargs)
    policy = env.reference_policies()["avellaneda_stoikov"]
    obs = env.reset(seed=3).observation
    for _ in range(env.n_steps):
        action = policy(obs)
        assert action.dtype == np.float32 and action.shape == (2,)
        np.testing.assert_array_equal(action, env.avellaneda_stoikov_action())
        assert env.action_space.contains(action)
        result = env.step(action)
        obs = result.observation
    assert result.terminated


def test_policies_batch_equals_single_and_read_the_observation() -> None:
    env = MarketMakingEnv(**V1)
    vec = MarketMakingVecEnv(5, **V1)
    single, batch = env.reference_policies(), vec.reference_policies()
    rng = np.random.default_rng(0)
    q = rng.integers(-50, 51, 64)
    left = rng.integers(1, 201, 64)
    obs = np.stack([q / 8.0, left / 200.0], axis=1).astype(np.float32)
    solution = solve_quotes(QuoteProblem.of(env))
    for name in ("dp_optimal", "avellaneda_stoikov", "symmetric"):
        actions = batch[name](obs)
        assert actions.dtype == np.float32 and actions.shape == (64, 2)
        expected = np.stack([single[name](row) for row in obs])
        np.testing.assert_array_equal(actions, expected)
        np.testing.assert_array_equal(batch[name](obs), actions)  # deterministic
    dp = actions_to_offsets(batch["dp_optimal"](obs), env.default_offset, env.max_offset)
    t = 200 - left
    np.testing.assert_allclose(dp[:, 0], solution.bid[t, q + 50], atol=1e-6)
    np.testing.assert_allclose(dp[:, 1], solution.ask[t, q + 50], atol=1e-6)
    np.testing.assert_array_equal(batch["symmetric"](obs), np.zeros((64, 2), np.float32))


def test_policies_quote_the_same_on_v0_and_v1() -> None:
    v0, v1 = MarketMakingEnv(), MarketMakingEnv(**V1)
    policies0, policies1 = v0.reference_policies(), v1.reference_policies()
    for q, left in [(0, 200), (3, 150), (-6, 20), (1, 1)]:
        obs0 = np.array([q / 50, left / 200], np.float32)
        obs1 = np.array([q / 8, left / 200], np.float32)
        for name in ("dp_optimal", "symmetric"):
            quotes0 = actions_to_offsets(policies0[name](obs0), None, 5.0)
            quotes1 = actions_to_offsets(policies1[name](obs1), v1.default_offset, 5.0)
            np.testing.assert_allclose(quotes0, quotes1, rtol=1e-6)
    np.testing.assert_array_equal(
        policies0["symmetric"](np.zeros(2, np.float32)), np.float32([HALF_SPREAD] * 2)
    )


# --- the learnable options --------------------------------------------------------------------


def test_v1_registration_and_spaces() -> None:
    spec = sekai.spec("MarketMaking-v1")
    assert spec.kwargs == V1 and spec.max_episode_steps is None
    assert spec.entry_point == "sekai.envs.finance.market_making:MarketMakingEnv"
    assert spec.vector_entry_point == "sekai.envs.finance.vector:MarketMakingVecEnv"
    assert sekai.spec("MarketMaking-v0").kwargs == {}
    env = sekai.make("MarketMaking-v1").unwrapped
    assert isinstance(env, MarketMakingEnv)
    assert env.action_space == Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
    assert env.observation_space == Box(
        np.array([-6.25, 0.0], np.float32), np.array([6.25, 1.0], np.float32), dtype=np.float32
    )
    assert env.default_offset == pytest.approx(HALF_SPREAD, rel=1e-15)
    assert (env.centred_actions, env.expected_reward, env.random_start) == (True, True, False)
    vec = sekai.make_vec("MarketMaking-v1", 3)
    assert isinstance(vec, MarketMakingVecEnv) and vec.inventory_scale == 8.0
    assert vec.action_space == env.action_space
    v0 = MarketMakingEnv()
    assert (v0.centred_actions, v0.expected_reward, v0.random_start) == (False, False, False)
    assert v0.inventory_scale == 50 and v0.offset_range == (0.0, 5.0)


def test_check_env_is_clean_on_v1() -> None:
    env = MarketMakingEnv(**V1, random_start=True)
    assert check_env(env, n_steps=400, check_determinism=True) == []


def test_v0_trajectories_are_those_of_the_release_before_the_options() -> None:
    env = MarketMakingEnv()
    golden = [
        (37.60233595799921, [0.019999999552965164, 0.0], 1, -62.112323793565125, 99.92565975156431),
        (43.32720731014647, [0.07999999821186066, 0.0], 4, -351.92541001160123, 99.02090433043692),
    ]
    for seed, expected in zip((0, 1), golden, strict=True):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = 0.0
        for i in range(200):
            if i % 2:
                action = env.avellaneda_stoikov_action()
            else:
                action = rng.uniform(-0.5, 3.0, 2).astype(np.float32)
            result = env.step(action)
            total += result.reward
        assert (total, result.observation.tolist(), env.inventory, env.cash, env.mid) == expected
    vec = MarketMakingVecEnv(3)
    vec.reset(seed=5)
    totals = np.zeros(3)
    for _ in range(250):
        batch = vec.step(vec.avellaneda_stoikov_action())
        totals += batch.rewards
    assert totals.tolist() == [65.59395619042847, 66.97938822585992, 76.02253768783804]
    assert vec.inventory.tolist() == [0, 1, 0]


@pytest.mark.parametrize("action", [(0.0, 0.0), (-1.0, 1.0), (0.5, -0.25), (-3.0, 7.0)])
def test_centred_action_quotes_around_the_default_offset(action: tuple[float, float]) -> None:
    env = MarketMakingEnv(centred_actions=True)
    env.reset(seed=0)
    info = env.step(np.array(action, np.float32)).info
    a = np.clip(np.float32(action).astype(np.float64), -1, 1)
    assert info["bid"] == 100.0 - HALF_SPREAD * (1 + a[0])
    assert info["ask"] == 100.0 + HALF_SPREAD * (1 + a[1])
    assert env.offset_range == (0.0, 2 * env.default_offset)


def test_centred_quotes_are_clipped_to_max_offset_and_encodings_round_trip() -> None:
    env = MarketMakingEnv(centred_actions=True, max_offset=1.0)
    assert env.offset_range == (0.0, 1.0)
    env.reset(seed=0)
    info = env.step(np.ones(2, np.float32)).info
    assert (info["bid"], info["ask"]) == (99.0, 101.0)
    offsets = np.array([[0.0, 0.3], [0.845, 1.6], [2.0, 9.0]])
    centre = HALF_SPREAD
    actions = offsets_to_actions(offsets, centre, 5.0)
    assert actions.dtype == np.float32 and actions.min() == -1.0 and actions.max() == 1.0
    np.testing.assert_allclose(
        actions_to_offsets(actions, centre, 5.0), np.minimum(offsets, 2 * centre), rtol=1e-6
    )
    np.testing.assert_array_equal(
        offsets_to_actions(offsets, None, 5.0), np.float32(np.minimum(offsets, 5.0))
    )
    np.testing.assert_array_equal(actions_to_offsets([[-1, 7]], None, 5.0), [[0.0, 5.0]])
    assert offsets_to_actions([0.5, 1.0], 0.0, 0.0).tolist() == [0.0, 0.0]
    # AS quotes beyond the centred range become the extreme actions
    far = MarketMakingEnv(centred_actions=True)
    far.reset(seed=0)
    far.inventory = 10
    assert far.avellaneda_stoikov_action().tolist() == [1.0, -1.0]


def test_inventory_scale_sets_the_observation() -> None:
    env = MarketMakingEnv(inventory_scale=8.0)
    env.reset(seed=0)
    env.inventory = 6
    assert env._observation().tolist() == [0.75, 1.0]
    assert env.observation_space.high.tolist() == [6.25, 1.0]
    vec = MarketMakingVecEnv(2, inventory_scale=8.0)
    vec.reset(seed=0)
    vec.inventory = np.array([-6, 3])
    np.testing.assert_array_equal(vec._observe(), np.float32([[-0.75, 1.0], [0.375, 1.0]]))


def test_random_start_draws_the_inventory_after_seeding() -> None:
    env = MarketMakingEnv(random_start=True, inventory_scale=8.0)
    seen = set()
    for seed in range(300):
        result = env.reset(seed=seed)
        expected = int(np.random.default_rng(seed).integers(-8, 9))
        assert env.inventory == expected and env.cash == -expected * 100.0
        assert result.info["wealth"] == 0.0 and result.observation[0] == np.float32(expected / 8)
        seen.add(env.inventory)
    assert seen == set(range(-8, 9))
    small = MarketMakingEnv(random_start=True, max_inventory=3, inventory_scale=8.0)
    assert {small.reset(seed=s).info["inventory"] for s in range(100)} == set(range(-3, 4))


def test_expected_reward_by_hand() -> None:
    env = MarketMakingEnv(expected_reward=True, max_inventory=3)
    c = 0.5 * 0.1 * 4.0 * 0.005
    for q, action in [(0, (0.5, 1.2)), (2, (0.0, 3.0)), (3, (0.4, 0.4)), (-3, (1.0, 0.2))]:
        env.reset(seed=q + 10)
        env.inventory = q
        p_bid = env.fill_probability(action[0]) if q < 3 else 0.0
        p_ask = env.fill_probability(action[1]) if q > -3 else 0.0
        mean_square = (
            p_bid * (1 - p_ask) * (q + 1) ** 2
            + p_ask * (1 - p_bid) * (q - 1) ** 2
            + (1 - p_bid * (1 - p_ask) - p_ask * (1 - p_bid)) * q * q
        )
        expected = p_bid * action[0] + p_ask * action[1] - c * mean_square
        reward = env.step(np.array(action, np.float32)).reward
        assert reward == pytest.approx(expected, abs=1e-7)  # float32 quotes


@pytest.mark.parametrize(("q", "action"), [(0, (0.6, 0.9)), (5, (1.4, 0.2)), (50, (0.0, 0.3))])
def test_expected_reward_is_the_conditional_mean_of_the_realised_one(
    q: int, action: tuple[float, float]
) -> None:
    """20000 sub-envs in the same state with the same quotes: same draws, two rewards."""
    n = 20000
    realised, expected = MarketMakingVecEnv(n), MarketMakingVecEnv(n, expected_reward=True)
    for vec in (realised, expected):
        vec.reset(seed=7)
        vec.inventory = np.full(n, q)
    actions = np.broadcast_to(np.float32(action), (n, 2))
    r = realised.step(actions).rewards
    e = expected.step(actions).rewards
    np.testing.assert_array_equal(realised.inventory, expected.inventory)  # same dynamics
    assert np.all(e == e[0])
    assert _within(r, e[0])


def test_expected_reward_has_the_mean_of_the_realised_one_over_episodes() -> None:
    """Same seeds, same trajectories: per-step rewards differ by a zero-mean noise, which is
    most of the realised reward's variance."""
    n = 500
    realised = MarketMakingVecEnv(n, autoreset=False, random_start=True, inventory_scale=8.0)
    expected = MarketMakingVecEnv(
        n, autoreset=False, random_start=True, inventory_scale=8.0, expected_reward=True
    )
    policy = realised.reference_policies()["avellaneda_stoikov"]
    obs_r, obs_e = realised.reset(seed=8).observations, expected.reset(seed=8).observations
    steps_r, steps_e = [], []
    while True:
        result_r, result_e = realised.step(policy(obs_r)), expected.step(policy(obs_e))
        np.testing.assert_array_equal(result_r.observations, result_e.observations)
        steps_r.append(result_r.rewards)
        steps_e.append(result_e.rewards)
        obs_r, obs_e = result_r.observations, result_e.observations
        if result_r.dones.all():
            break
    per_step_r, per_step_e = np.array(steps_r), np.array(steps_e)
    assert _within(per_step_r.sum(0) - per_step_e.sum(0), 0.0)
    assert per_step_e.std() < 0.2 < 0.4 < per_step_r.std()


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("inventory_scale", 0.0, ValueError),
        ("inventory_scale", -2.0, ValueError),
        ("inventory_scale", math.inf, ValueError),
        ("inventory_scale", "8", TypeError),
        ("centred_actions", 1, TypeError),
        ("expected_reward", "yes", TypeError),
        ("random_start", None, TypeError),
    ],
)
def test_invalid_options_name_the_parameter(name: str, value: Any, error: type) -> None:
    with pytest.raises(error, match=name):
        MarketMakingEnv(**{name: value})


def test_vector_options_that_fix_the_spaces_are_read_only() -> None:
    vec = MarketMakingVecEnv(2, **V1)
    for name in ("centred_actions", "inventory_scale"):
        with pytest.raises(AttributeError, match=name):
            vec.set_attr(name, 1.0)
    vec.set_attr("expected_reward", False)
    assert vec.template.expected_reward is False and vec.get_attr("random_start") == [False] * 2
