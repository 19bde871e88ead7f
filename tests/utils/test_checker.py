"""check_env: one toy env per failure mode, each with the exact report."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box, Dict, Discrete, MultiDiscrete, Space
from sekai.testing.env_checker import _equal
from sekai.utils.checker import check_env

FLOAT64_DTYPE = "Observation from reset() has dtype float64, space has float32."


class ToyEnv(Env[np.ndarray, np.intp]):
    """Float32 observations in [-1, 1]^2, two actions, episodes of ``length`` steps."""

    def __init__(self, length: int = 5) -> None:
        self.observation_space = Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = Discrete(2)
        self.length = length
        self.t = 0

    def _obs(self) -> Any:
        return self.rng.uniform(-1.0, 1.0, 2).astype(np.float32)

    def _reward(self) -> Any:
        return 1.0

    def _flags(self) -> tuple[Any, Any]:
        return self.t >= self.length, False

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self._obs(), {})

    def step(self, action: Any) -> Any:
        if not self.action_space.contains(action):
            raise InvalidAction(action, self.action_space)
        self.t += 1
        terminated, truncated = self._flags()
        return StepResult(self._obs(), self._reward(), terminated, truncated, {"t": self.t})


def test_well_behaved_toy_env_passes() -> None:
    assert check_env(ToyEnv(), check_determinism=True) == []
    assert check_env(ToyEnv(), n_steps=400) == []


def test_wrapped_env_passes() -> None:
    class Passthrough(Wrapper[Any, Any, Any, Any]):
        pass

    assert check_env(Passthrough(ToyEnv()), check_determinism=True) == []


# --- spaces ---------------------------------------------------------------------------------


class NoSpacesEnv(Env[Any, Any]):
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return ResetResult(0, {})

    def step(self, action: Any) -> Any:
        return StepResult(0, 0.0, True, False, {})


def test_missing_spaces() -> None:
    assert check_env(NoSpacesEnv()) == [
        "ERROR: observation_space is not defined; set self.observation_space in __init__.",
        "ERROR: action_space is not defined; set self.action_space in __init__.",
    ]


def test_spaces_that_are_not_sekai_spaces() -> None:
    env = NoSpacesEnv()
    env.observation_space = "obs"  # type: ignore[assignment]
    env.action_space = Discrete(2)
    assert check_env(env) == ["ERROR: observation_space must be a sekai.Space, got builtins.str."]


class BadSampleSpace(Discrete):
    """A space whose samples fall outside it."""

    def sample(self, mask: Any = None) -> np.intp:
        return np.intp(self.n)


def test_space_samples_outside_the_space() -> None:
    env = ToyEnv()
    env.action_space = BadSampleSpace(2)
    issues = check_env(env, check_async=False, check_reset_seed=False, n_steps=1)
    assert issues == [
        "ERROR: action_space.sample() returned np.int64(2), which is not in Discrete(2).",
        "ERROR: step() raised InvalidAction at step 0: "
        + str(InvalidAction(np.intp(2), env.action_space)),
    ]
    env = ToyEnv()
    env.observation_space = BadSampleSpace(3)
    issues = check_env(env, check_action_space=False, warn_on_anomaly=False)
    assert issues == [
        "ERROR: observation_space.sample() returned np.int64(3), which is not in Discrete(3)."
    ]
    assert check_env(env, check_action_space=False, check_obs_space=False) == []


# --- reset ----------------------------------------------------------------------------------


class ResetRaisesEnv(ToyEnv):
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        raise RuntimeError("boom")


def test_reset_raising_is_reported_not_raised() -> None:
    assert check_env(ResetRaisesEnv()) == ["ERROR: reset(seed=42) raised RuntimeError: boom"]


class TupleResetEnv(ToyEnv):
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return (np.zeros(2, np.float32), {})


def test_reset_returning_a_tuple() -> None:
    assert check_env(TupleResetEnv()) == [
        "ERROR: reset(seed=42) returned tuple, which lacks observation, info; "
        "return a sekai.ResetResult."
    ]


class BadInfoEnv(ToyEnv):
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        result = super().reset(seed=seed, options=options)
        return ResetResult(result.observation, [])  # type: ignore[arg-type]

    def step(self, action: Any) -> Any:
        result = super().step(action)
        return StepResult(result.observation, 1.0, result.terminated, False, None)  # type: ignore[arg-type]


def test_bad_info() -> None:
    assert check_env(BadInfoEnv(), check_async=False) == [
        "ERROR: reset() returned info of type list; info must be a dict.",
        "WARNING: info from step() at step 0 has type NoneType; return a dict. "
        "(seen at 100 steps; first shown)",
        "WARNING: info from reset() after the episode ended at step 4 has type list; "
        "return a dict. (seen at 21 resets; first shown)",
    ]


def test_bad_info_from_async_methods_is_an_error() -> None:
    issues = check_env(BadInfoEnv())
    assert issues[-2:] == [
        "ERROR: async_reset() returned info of type list; info must be a dict.",
        "ERROR: async_step() returned info of type NoneType; info must be a dict.",
    ]


# --- observations ---------------------------------------------------------------------------


class Float64Env(ToyEnv):
    """CartPole-like: float64 observations in a float32 Box."""

    def _obs(self) -> Any:
        return self.rng.uniform(-1.0, 1.0, 2)


def test_float64_observations_grouped_across_resets() -> None:
    # 20 episodes end within 100 steps: 1 + 20 + 1 (reset(seed=0)) = 22 resets.
    assert check_env(Float64Env()) == [
        f"WARNING: {FLOAT64_DTYPE} (seen at 22 resets; first shown)",
        "WARNING: Observation from step() at step 0 has dtype float64, space has float32. "
        "(seen at 100 steps; first shown)",
        "WARNING: Observation from async_reset() has dtype float64, space has float32.",
        "WARNING: Observation from async_step() has dtype float64, space has float32.",
    ]


def test_single_occurrence_has_no_suffix() -> None:
    issues = check_env(Float64Env(length=1000), n_steps=1, check_reset_seed=False)
    assert issues[:2] == [
        f"WARNING: {FLOAT64_DTYPE}",
        "WARNING: Observation from step() at step 0 has dtype float64, space has float32.",
    ]


def test_warnings_and_obs_checks_can_be_disabled() -> None:
    assert check_env(Float64Env(), warn_on_anomaly=False) == []
    assert check_env(Float64Env(), check_obs_space=False) == []


class OutOfSpaceEnv(ToyEnv):
    def _obs(self) -> Any:
        return np.full(2, 2.0, dtype=np.float32)


def test_out_of_space_observations_grouped() -> None:
    obs = "obs=array([2., 2.], dtype=float32)"
    assert check_env(OutOfSpaceEnv(), check_async=False) == [
        f"WARNING: Observation from reset() is not within observation_space. {obs} "
        "(seen at 22 resets; first shown)",
        f"WARNING: Observation from step() at step 0 is not within observation_space. {obs} "
        "(seen at 100 steps; first shown)",
    ]


class OutOfSpaceAfterEpisodeEnv(ToyEnv):
    """Only the resets that start a new episode return a bad observation."""

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        result = super().reset(seed=seed, options=options)
        return result if seed is not None else ResetResult(np.ones(3, np.float32), {})


def test_reset_groups_are_shared_and_first_seen_is_shown() -> None:
    assert check_env(OutOfSpaceAfterEpisodeEnv(), n_steps=10) == [
        "WARNING: Observation from reset() after the episode ended at step 4 is not within "
        "observation_space. obs=array([1., 1., 1.], dtype=float32) "
        "(seen at 2 resets; first shown)"
    ]


class MutatingEnv(ToyEnv):
    """Steps modify the previously returned array in place."""

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        result = super().reset(seed=seed, options=options)
        self.obs = result.observation
        return result

    def step(self, action: Any) -> Any:
        result = super().step(action)
        self.obs[:] = result.observation
        return StepResult(self.obs, 1.0, result.terminated, False, {})


def test_mutated_observation_warned_once() -> None:
    assert check_env(MutatingEnv()) == [
        "WARNING: step() at step 0 mutated a previously returned observation in place; "
        "return a new object every step (buffers may still hold the old one)."
    ]


class OverwritingResetEnv(ToyEnv):
    """reset() writes the new first observation into the last one returned."""

    last: Any = None

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        result = super().reset(seed=seed, options=options)
        if self.last is None:
            self.last = result.observation
        else:
            self.last[:] = result.observation
        return ResetResult(self.last, {})

    def step(self, action: Any) -> Any:
        result = super().step(action)
        self.last = result.observation
        return result


def test_reset_overwriting_terminal_observation() -> None:
    issues = check_env(OverwritingResetEnv())
    assert issues == [
        "WARNING: reset() overwrote, in place, the terminal observation of the episode that "
        "ended at step 4; vector envs keep it as final_observation, so return a new object "
        "from reset()."
    ]


# --- rewards and flags ----------------------------------------------------------------------


class RewardEnv(ToyEnv):
    def __init__(self, reward: Any) -> None:
        super().__init__()
        self.reward = reward

    def _reward(self) -> Any:
        return self.reward


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("1", "ERROR: Reward from step() at step 0 has type str; return a float."),
        (True, "ERROR: Reward from step() at step 0 has type bool; return a float."),
        (np.array(1.0), "ERROR: Reward from step() at step 0 has type ndarray; return a float."),
        (math.nan, "WARNING: Reward from step() at step 0 is NaN."),
    ],
)
def test_bad_rewards_grouped(reward: Any, expected: str) -> None:
    issues = check_env(RewardEnv(reward), check_determinism=True)
    assert issues == [f"{expected} (seen at 100 steps; first shown)"]


def test_infinite_rewards_counted() -> None:
    assert check_env(RewardEnv(-math.inf), n_steps=37) == [
        "WARNING: Encountered 37 infinite reward(s) during 37 steps."
    ]


@pytest.mark.parametrize("reward", [1, np.int64(2), np.float32(0.5), 0.0])
def test_real_rewards_accepted(reward: Any) -> None:
    assert check_env(RewardEnv(reward)) == []


class FlagEnv(ToyEnv):
    def _flags(self) -> tuple[Any, Any]:
        return int(self.t >= self.length), np.bool_(False)


def test_non_bool_flags() -> None:
    assert check_env(FlagEnv()) == [
        "WARNING: terminated from step() at step 0 has type int; return a bool. "
        "(seen at 100 steps; first shown)"
    ]


class TupleStepEnv(ToyEnv):
    def step(self, action: Any) -> Any:
        return (np.zeros(2, np.float32), 1.0, False, False, {})


def test_step_returning_a_tuple() -> None:
    issues = check_env(TupleStepEnv(), check_async=False)
    assert issues == [
        "ERROR: step() at step 0 returned tuple, which lacks observation, reward, terminated, "
        "truncated, info; return a sekai.StepResult."
    ]


# --- exceptions during the rollout ----------------------------------------------------------


class StepRaisesEnv(ToyEnv):
    def step(self, action: Any) -> Any:
        if self.t == 3:
            raise RuntimeError("boom")
        return super().step(action)


def test_step_raising_at_step_i() -> None:
    assert check_env(StepRaisesEnv(length=10)) == [
        "ERROR: step() raised RuntimeError at step 3: boom"
    ]


class OneEpisodeEnv(ToyEnv):
    episodes = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self.episodes += 1
        if self.episodes > 1:
            raise ResetRequired("only one episode")
        return super().reset(seed=seed, options=options)


def test_reset_after_episode_raising_skips_later_checks() -> None:
    assert check_env(OneEpisodeEnv(), check_determinism=True) == [
        "ERROR: reset() after the episode ended at step 4 raised ResetRequired: only one episode"
    ]


class SeedZeroRaisesEnv(ToyEnv):
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        if seed == 0:
            raise ValueError("seed 0 is reserved")
        return super().reset(seed=seed, options=options)


def test_reset_seed_zero_raising() -> None:
    assert check_env(SeedZeroRaisesEnv()) == [
        "ERROR: reset(seed=0) raised ValueError: seed 0 is reserved"
    ]


class UnseededResetEnv(ToyEnv):
    """reset() ignores its seed."""

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self.t = 0
        return ResetResult(np.random.default_rng().uniform(-1, 1, 2).astype(np.float32), {})


def test_reset_seed_zero_not_reproducible() -> None:
    assert check_env(UnseededResetEnv()) == [
        "WARNING: reset(seed=0) returned different observations on two calls; call "
        "self._set_rng(seed) first in reset() and draw all randomness from self.rng."
    ]


class NoisyStepEnv(ToyEnv):
    """step() draws from a generator that reset(seed) does not touch."""

    def __init__(self) -> None:
        super().__init__()
        self.noise = np.random.default_rng()

    def _obs(self) -> Any:
        return self.noise.uniform(-1, 1, 2).astype(np.float32) if self.t else np.zeros(2, "f4")


def test_nondeterministic_env() -> None:
    assert check_env(NoisyStepEnv()) == []
    assert check_env(NoisyStepEnv(), check_determinism=True) == [
        "WARNING: Two rollouts with reset(seed=123) and the same actions differed; if the env "
        "is stochastic beyond its seed, register it with nondeterministic=True."
    ]


def test_nan_observations_compare_equal_in_determinism() -> None:
    class NanEnv(ToyEnv):
        def __init__(self) -> None:
            super().__init__()
            self.observation_space = Box(-np.inf, np.inf, (2,), np.float32)

        def _obs(self) -> Any:
            return np.array([math.nan, self.t], dtype=np.float32)

    issues = check_env(NanEnv(), check_determinism=True)
    assert all("different" not in i and "differed" not in i for i in issues)


# --- action masks ---------------------------------------------------------------------------


class MaskedEnv(ToyEnv):
    """Discrete(3); action 2 is never allowed; the mask follows ``masks(t)``."""

    def __init__(self, length: int = 5) -> None:
        super().__init__(length)
        self.action_space = Discrete(3)

    def mask_at(self, t: int) -> Any:
        return np.array([1, 1, 0], dtype=np.int8)

    def action_mask(self) -> Any:
        return self.mask_at(self.t)

    def step(self, action: Any) -> Any:
        if self.action_mask()[action] != 1:
            raise InvalidAction(action, self.action_space)
        return super().step(action)


def test_valid_masked_env_passes() -> None:
    assert check_env(MaskedEnv(), check_determinism=True, n_steps=400) == []

    class Passthrough(Wrapper[Any, Any, Any, Any]):
        pass

    assert check_env(Passthrough(MaskedEnv()), check_determinism=True) == []


class AllMaskedAtThreeEnv(MaskedEnv):
    def mask_at(self, t: int) -> Any:
        return np.zeros(3, np.int8) if t == 3 else super().mask_at(t)


def test_all_actions_masked_at_step_3() -> None:
    issues = check_env(AllMaskedAtThreeEnv(length=10), check_async=False)
    assert len(issues) == 1
    (issue,) = issues
    assert issue.startswith("ERROR: action_space.sample(mask=env.action_mask()) raised ValueError")
    assert "at step 3" in issue
    assert "All actions masked" in issue
    assert "valid mask" in issue


class WrongShapeAtThreeEnv(MaskedEnv):
    def mask_at(self, t: int) -> Any:
        return np.ones(4, np.int8) if t == 3 else super().mask_at(t)


def test_wrong_mask_shape_at_step_3() -> None:
    assert check_env(WrongShapeAtThreeEnv(length=10), check_async=False) == [
        "ERROR: action_space.sample(mask=env.action_mask()) raised ValueError at step 3: "
        "mask.shape is (4,); an action mask for Discrete(3) must have shape (3,). "
        "(action_mask() must return a valid mask with at least one allowed action)"
    ]


class WrongShapeEnv(MaskedEnv):
    def mask_at(self, t: int) -> Any:
        return np.ones((3, 1), np.int8)


def test_wrong_mask_shape_right_after_reset() -> None:
    # flatten_action_mask accepts (3, 1); Discrete.sample does not.
    issues = check_env(WrongShapeEnv())
    assert len(issues) == 1
    assert issues[0].startswith(
        "ERROR: action_space.sample(mask=env.action_mask()) right after reset() raised ValueError: "
    )


class MaskRaisesEnv(MaskedEnv):
    def action_mask(self) -> Any:
        raise RuntimeError("no mask today")


def test_action_mask_raising() -> None:
    assert check_env(MaskRaisesEnv()) == [
        "ERROR: action_space.sample(mask=env.action_mask()) right after reset() raised "
        "RuntimeError: no mask today"
    ]


class MultiMaskedEnv(ToyEnv):
    def __init__(self, short: bool) -> None:
        super().__init__()
        self.action_space = MultiDiscrete([2, 3])
        self.short = short

    def action_mask(self) -> Any:
        second = np.array([1, 0] if self.short else [1, 0, 1], np.int8)
        return (np.array([0, 1], np.int8), second)

    def step(self, action: Any) -> Any:
        if action[0] != 1 or action[1] == 1:
            raise InvalidAction(action, self.action_space)
        self.t += 1
        return StepResult(self._obs(), 0.0, self.t >= self.length, False, {})


def test_multidiscrete_masks() -> None:
    assert check_env(MultiMaskedEnv(short=False), check_determinism=True) == []
    (issue,) = check_env(MultiMaskedEnv(short=True))
    assert issue.startswith(
        "ERROR: action_space.sample(mask=env.action_mask()) right after reset() raised ValueError"
    )
    assert "dimension (1,) must have shape (3,)" in issue


# --- async ----------------------------------------------------------------------------------


class MalformedAsyncEnv(ToyEnv):
    async def async_reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return self.reset(seed=seed, options=options)

    async def async_step(self, action: Any) -> Any:
        return {"observation": np.zeros(2, np.float32)}


class TupleAsyncResetEnv(ToyEnv):
    async def async_reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return (np.zeros(2, np.float32), {})


class RaisingAsyncStepEnv(ToyEnv):
    async def async_step(self, action: Any) -> Any:
        raise ConnectionError("socket closed")


class SyncAsyncResetEnv(ToyEnv):
    def async_reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return self.reset(seed=seed, options=options)


class OutOfSpaceAsyncEnv(ToyEnv):
    async def async_reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return ResetResult(np.full(2, 5.0, np.float32), {})


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            MalformedAsyncEnv(),
            "ERROR: async_step() returned dict, which lacks observation, reward, terminated, "
            "truncated, info; return a sekai.StepResult.",
        ),
        (
            TupleAsyncResetEnv(),
            "ERROR: async_reset() returned tuple, which lacks observation, info; "
            "return a sekai.ResetResult.",
        ),
        (RaisingAsyncStepEnv(), "ERROR: async_step() raised ConnectionError: socket closed"),
        (
            SyncAsyncResetEnv(),
            "ERROR: async_reset() raised TypeError: object ResetResult can't be used in "
            "'await' expression",
        ),
        (
            OutOfSpaceAsyncEnv(),
            "WARNING: Observation from async_reset() is not within observation_space. "
            "obs=array([5., 5.], dtype=float32)",
        ),
    ],
)
def test_async_overrides(env: Env[Any, Any], expected: str) -> None:
    assert check_env(env) == [expected]
    assert check_env(env, check_async=False) == []


def test_async_checks_skipped_inside_a_running_loop() -> None:
    async def main() -> list[str]:
        return check_env(RaisingAsyncStepEnv())

    assert asyncio.run(main()) == []


# --- the InventoryEnv of the environments guide --------------------------------------------


class InventoryEnv(Env[dict, np.intp]):
    """Order stock each day to meet Poisson demand over a season."""

    metadata = {"render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        capacity: int = 20,
        mean_demand: float = 4.0,
        days: int = 30,
        price: float = 2.0,
        unit_cost: float = 1.0,
        holding_cost: float = 0.1,
    ) -> None:
        self.capacity, self.mean_demand, self.days = capacity, mean_demand, days
        self.price, self.unit_cost, self.holding_cost = price, unit_cost, holding_cost
        self.observation_space = Dict(
            {
                "stock": Box(0, capacity, shape=(1,), dtype=np.int64),
                "days_left": Discrete(days + 1),
            }
        )
        self.action_space = Discrete(capacity + 1)
        self.stock: int | None = None

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        options = options or {}
        self.stock = int(options.get("initial_stock", 0))
        self.day = 0
        return ResetResult(self._obs(), info={})

    def step(self, action: Any) -> Any:
        if self.stock is None:
            raise ResetRequired()
        if not self.action_space.contains(action):
            raise InvalidAction(action, self.action_space)
        ordered = min(int(action), self.capacity - self.stock)
        self.stock += ordered
        demand = int(self.rng.poisson(self.mean_demand))
        sold = min(demand, self.stock)
        self.stock -= sold
        self.day += 1
        reward = self.price * sold - self.unit_cost * ordered - self.holding_cost * self.stock
        return StepResult(
            observation=self._obs(),
            reward=float(reward),
            terminated=self.day >= self.days,
            truncated=False,
            info={"demand": demand, "sold": sold, "lost_sales": demand - sold},
        )

    def _obs(self) -> dict[str, Any]:
        return {
            "stock": np.array([self.stock], dtype=np.int64),
            "days_left": np.intp(self.days - self.day),
        }


def test_inventory_env_passes() -> None:
    assert check_env(InventoryEnv(), check_determinism=True) == []
    assert check_env(InventoryEnv(), n_steps=400, check_determinism=True) == []


def test_custom_space_without_dtype_checks() -> None:
    class Anything(Space[Any]):
        def sample(self, mask: Any = None) -> Any:
            return "x"

        def contains(self, x: Any) -> bool:
            return True

        @property
        def is_flattenable(self) -> bool:
            return False

    class StringEnv(ToyEnv):
        def __init__(self) -> None:
            super().__init__()
            self.observation_space = Anything()

        def _obs(self) -> Any:
            return "obs"

    assert check_env(StringEnv(), check_determinism=True) == []


# --- _equal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), True),
        (np.array([np.nan, 1.0]), np.array([np.nan, 2.0]), False),
        (math.nan, math.nan, True),
        ({"a": np.zeros(2), "b": (1, [2.0])}, {"a": np.zeros(2), "b": (1, [2.0])}, True),
        ({"a": 1}, {"b": 1}, False),
        ({"a": 1}, [1], False),
        ((1, 2), (1, 2, 3), False),
        ((1, 2), np.array([1, 2]), False),
        (np.zeros(2), np.zeros(3), False),
        ("abc", "abc", True),
        ("abc", "abd", False),
        (np.array(["a", "b"]), np.array(["a", "b"]), True),
        (None, None, True),
        (np.array([True, False]), np.array([True, False]), True),
    ],
)
def test_equal(a: Any, b: Any, expected: bool) -> None:
    assert _equal(a, b) is expected


def test_equal_falls_back_to_identity() -> None:
    class Weird:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no")

        __hash__ = object.__hash__

    w = Weird()
    assert _equal(w, w) is True
    assert _equal(w, Weird()) is False


def test_async_check_leaves_the_current_event_loop_alone() -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        assert check_env(RaisingAsyncStepEnv()) == [
            "ERROR: async_step() raised ConnectionError: socket closed"
        ]
        assert asyncio.get_event_loop_policy().get_event_loop() is loop
    finally:
        asyncio.set_event_loop(None)
        loop.close()
