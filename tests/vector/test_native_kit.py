"""The kit for native envs: ``NativeVecEnv.active`` and ``sekai.vector.template``."""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from drift_envs import DriftVecEnv

import sekai
import sekai.envs.finance
import sekai.vector
from sekai.error import InvalidAction
from sekai.vector import NativeVecEnv
from sekai.vector import template as kit


class Walk(sekai.Env):
    """A counter that moves by ``step_size`` per step and ends at ``goal``."""

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 4}

    def __init__(self, step_size: float = 1.0, goal: int = 3, label: str = "walk") -> None:
        if step_size <= 0:
            raise ValueError(f"step_size must be > 0, got {step_size}.")
        self.step_size = step_size
        self.goal = goal
        self.label = label
        self.observation_space = sekai.Box(-np.inf, np.inf, shape=(1,))
        self.action_space = sekai.Box(-1.0, 1.0, shape=(1,))

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.x, self.t = 0.0, 0
        return sekai.ResetResult(np.array([self.x], np.float32), {})

    def step(self, action: Any) -> Any:
        self.x += self.step_size * float(action[0])
        self.t += 1
        obs = np.array([self.x], np.float32)
        return sekai.StepResult(obs, self.x, self.t >= self.goal, False, {})


class WalkVecEnv(kit.TemplateVecEnv[Walk]):
    """``num_envs`` Walks; the moves of frozen sub-envs are dropped through ``active``."""

    env_class = Walk
    step_size = kit.Param()
    goal = kit.Param("it is fixed at build")

    def __init__(self, num_envs: int, *, autoreset: bool = True, **kwargs: Any) -> None:
        super().__init__(num_envs, autoreset=autoreset, **kwargs)
        self.x = np.zeros(self.num_envs)
        self.t = np.zeros(self.num_envs, np.int64)
        self.seen: list[Any] = []

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.x = kit.replace_rows(self.x, indices, 0.0)
        self.t = kit.replace_rows(self.t, indices, 0)

    def _observe(self) -> Any:
        return self.x[:, None].astype(np.float32)

    def _step(self, actions: Any) -> Any:
        moves = kit.float_actions(self, actions, (self.num_envs, 1))[:, 0] * self.step_size
        active = self.active
        self.seen.append(None if active is None else active.copy())
        if active is not None:
            moves *= active
            self.t = self.t + active
        else:
            self.t = self.t + 1
        self.x = self.x + moves
        return self.x.copy(), self.t >= self.goal, np.zeros(self.num_envs, bool), {}


# --- active: the freezing NativeVecEnv owns --------------------------------------------------


def test_active_is_none_until_a_sub_env_freezes() -> None:
    vec = WalkVecEnv(3, autoreset=False, goal=2)
    assert vec.active is None
    vec.reset(seed=0)
    vec.step(np.ones((3, 1)))
    assert vec.active is None and vec.seen == [None]
    vec.t = np.array([1, 0, 0])  # sub-env 0 finishes on the next step
    vec.step(np.ones((3, 1)))
    active = vec.active
    assert active is not None and active.tolist() == [False, True, True]
    assert not active.flags.writeable
    assert np.array_equal(active, ~vec.frozen)
    x_frozen = vec.x[0]
    vec.step(np.ones((3, 1)))
    assert vec.seen[-1].tolist() == [False, True, True]
    assert vec.x[0] == x_frozen and vec.t[0] == 2
    vec.reset()
    assert vec.active is None


def test_active_is_always_none_with_autoreset() -> None:
    vec = WalkVecEnv(2, goal=1)
    vec.reset(seed=0)
    for _ in range(3):
        result = vec.step(np.ones((2, 1)))
        assert result.terminated.all()
        assert vec.active is None
    assert vec.seen == [None, None, None]


def test_the_base_restores_what_a_frozen_sub_env_reports() -> None:
    vec = WalkVecEnv(2, autoreset=False, goal=1)
    vec.reset(seed=0)
    first = vec.step(np.array([[1.0], [0.5]]))
    later = vec.step(np.array([[-1.0], [-1.0]]))
    assert np.array_equal(later.observations, first.observations)
    assert later.rewards.tolist() == [0.0, 0.0]
    assert later.terminated.tolist() == [True, True]
    assert later.infos == [{}, {}]


def test_a_subclass_that_ignores_active_still_gets_its_frozen_rows_restored() -> None:
    vec = DriftVecEnv(2, autoreset=False)
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}])
    first = vec.step(np.array([1, 0]))
    assert vec.active is not None and vec.active.tolist() == [False, True]
    later = vec.step(np.array([1, 0]))
    assert np.array_equal(later.observations[0], first.observations[0])
    assert later.rewards[0] == 0.0 and later.infos[0] == {}


# --- TemplateVecEnv and Param ----------------------------------------------------------------


def test_the_template_is_built_from_the_keyword_arguments() -> None:
    vec = WalkVecEnv(3, step_size=0.5, label="a")
    assert isinstance(vec.template, Walk)
    assert vec.template.step_size == 0.5 and vec.template.label == "a"
    assert vec.observation_space == vec.template.observation_space
    assert vec.action_space == vec.template.action_space
    with pytest.raises(ValueError, match="step_size"):
        WalkVecEnv(2, step_size=0.0)


def test_params_read_and_write_the_template() -> None:
    vec = WalkVecEnv(3)
    assert vec.step_size == 1.0 and vec.get_attr("step_size") == [1.0] * 3
    vec.step_size = 2.0
    assert vec.template.step_size == 2.0
    vec.set_attr("step_size", [3.0, 3.0, 3.0])
    assert vec.template.step_size == 3.0
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        vec.set_attr("step_size", [1.0, 2.0, 1.0])
    vec.set_attr("step_size", [math.nan] * 3)  # NaN counts as equal to NaN
    assert math.isnan(vec.template.step_size)


def test_read_only_params_quote_their_reason() -> None:
    vec = WalkVecEnv(2)
    with pytest.raises(AttributeError, match="read-only: it is fixed at build"):
        vec.goal = 5
    with pytest.raises(AttributeError, match="read-only"):
        vec.set_attr("goal", 5)
    with pytest.raises(AttributeError, match="describes the environment class"):
        vec.set_attr("metadata", {})
    assert vec.template.goal == 3


def test_metadata_is_the_single_env_class_s() -> None:
    vec = WalkVecEnv(2)
    assert WalkVecEnv.metadata is Walk.metadata and vec.metadata is Walk.metadata
    assert vec.get_attr("metadata") == [Walk.metadata] * 2


def test_a_param_on_the_class_is_the_env_class_attribute_or_the_descriptor() -> None:
    assert isinstance(WalkVecEnv.__dict__["step_size"], kit.Param)
    assert isinstance(WalkVecEnv.step_size, kit.Param)  # Walk has no class attribute step_size


def test_other_names_follow_native_vec_env() -> None:
    vec = WalkVecEnv(3)
    vec.reset(seed=0)
    vec.step(np.array([[1.0], [0.0], [-1.0]]))
    assert [float(x) for x in vec.get_attr("x")] == [1.0, 0.0, -1.0]
    vec.set_attr("x", [5.0, 6.0, 7.0])
    assert vec.x.tolist() == [5.0, 6.0, 7.0]
    assert vec.call("step_size") == [1.0] * 3


# --- helpers ---------------------------------------------------------------------------------


def test_float_actions_checks_shape_kind_and_finiteness() -> None:
    vec = WalkVecEnv(2)
    actions = np.array([[1], [2]], dtype=np.int32)
    batch = kit.float_actions(vec, actions, (2, 1))
    assert batch.dtype == np.float64 and batch.tolist() == [[1.0], [2.0]]
    floats = np.zeros((2, 1))
    assert kit.float_actions(vec, floats, (2, 1)) is not floats
    for bad in (np.zeros((3, 1)), np.array([["a"], ["b"]]), np.array([[np.nan], [0.0]]), object()):
        with pytest.raises(InvalidAction) as info:
            kit.float_actions(vec, bad, (2, 1))
        assert repr(vec.batch_action_space) in str(info.value)


def test_replace_rows_leaves_the_array_intact() -> None:
    array = np.arange(4.0)
    result = kit.replace_rows(array, np.array([1, 3]), -1.0)
    assert result.tolist() == [0.0, -1.0, 2.0, -1.0]
    assert array.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_the_kit_is_importable_from_sekai_vector() -> None:
    for name in kit.__all__:
        assert getattr(sekai.vector, name) is getattr(kit, name)


# --- the finance envs read no private state of their template or of the base ----------------


class _Bare(NativeVecEnv):
    def _reset_envs(self, indices: Any, options: Any) -> None:
        pass

    def _observe(self) -> Any:
        return np.zeros((self.num_envs, 1), np.float32)

    def _step(self, actions: Any) -> Any:
        n = self.num_envs
        return np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), {}


def _private_reads(path: Path, base_private: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")):
            continue
        owner = node.value
        name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", None)
        if name == "template":
            found.append(f"template.{node.attr}")
        elif isinstance(owner, ast.Name) and name == "self" and node.attr in base_private:
            found.append(f"self.{node.attr}")
    return found


def test_finance_vector_envs_use_only_public_state_of_template_and_base() -> None:
    bare = _Bare(2, sekai.Box(0, 1), sekai.Discrete(2))
    base_private = {name for name in vars(bare) if name.startswith("_")}
    assert {"_frozen", "_active", "_all"} <= base_private
    root = Path(sekai.envs.finance.__file__).parent
    modules = sorted(root.glob("*/vector.py"))
    assert len(modules) == 6  # five envs and the windowed base
    reads = {str(p.relative_to(root)): _private_reads(p, base_private) for p in modules}
    assert reads == {name: [] for name in reads}
