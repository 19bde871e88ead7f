"""gymnasium bridges: env checkers both ways, seeding, action masks, rendering, errors."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
import warnings
from typing import Any, ClassVar

import numpy as np
import pytest

import sekai
import sekai.compat
from sekai.compat import from_gymnasium, to_gymnasium
from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.spaces import Box, Dict, Discrete, MultiDiscrete
from sekai.testing import assert_trees_equal
from sekai.wrappers import TimeLimit

pytest.importorskip("gymnasium")
import gymnasium
from gymnasium.utils.env_checker import check_env as gym_check_env

from sekai.compat.gymnasium import (
    GymnasiumRenderer,
    GymnasiumToSekai,
    SekaiToGymnasium,
)

SEKAI_IDS = [spec.id for spec in sekai.all_specs()]
GYMNASIUM_IDS = ["CartPole-v1", "Pendulum-v1", "Acrobot-v1", "MountainCarContinuous-v0"]

# Checker warnings that are advice, not defects:
# * infinite Box bounds are part of the env's definition (gymnasium's own CartPole has them);
# * sekai envs render through renderer objects and the bridge has no gymnasium spec, so the
#   checker cannot build the env again in other render modes;
# * a Box action range other than [-1, 1] / [0, 1] is a recommendation for learners
#   (Pendulum's [-2, 2] is gymnasium's own).
TOLERATED = [
    r"A Box observation space (minimum|maximum) value is -?infinity",
    r"Not able to test alternative render modes due to the environment not having a spec",
    r"For Box action spaces, we recommend using a symmetric and normalized space",
]


def _run_gymnasium_checker(env: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym_check_env(env)
    problems = [
        str(w.message) for w in caught if not any(re.search(p, str(w.message)) for p in TOLERATED)
    ]
    assert problems == []


class Toy(Env[np.ndarray, int]):
    """Counts steps; three actions; ends after five steps."""

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 7, "author": "test"}

    def __init__(self) -> None:
        self.observation_space = Box(0.0, 10.0, (2,), np.float32)
        self.action_space = Discrete(3)
        self.t = 0
        self.log: list[str] = []

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self._obs(), {"options": options})

    def _obs(self) -> np.ndarray:
        return np.array([self.t, self.rng.uniform(0, 1)], dtype=np.float32)

    def step(self, action: int) -> Any:
        self.t += 1
        # numpy bool and int flags: the bridge hands gymnasium plain bools
        return StepResult(self._obs(), 0.5, np.bool_(self.t >= 5), 0, {"t": self.t})  # type: ignore[arg-type]

    def close(self) -> None:
        self.log.append("env closed")


class MaskedToy(Toy):
    def action_mask(self) -> np.ndarray:
        return np.array([1, 0, 1], dtype=np.int8)


class MultiMaskedToy(Toy):
    def __init__(self) -> None:
        super().__init__()
        self.action_space = MultiDiscrete([2, 3])

    def action_mask(self) -> Any:
        return (np.array([1, 1], np.int8), np.array([0, 1, 0], np.int8))


class FrameRenderer:
    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.seen: list[Any] = []

    def render(self, env: Any) -> np.ndarray:
        self.seen.append(env)
        return np.full((2, 2, 3), env.t, dtype=np.uint8)

    def close(self) -> None:
        self.log.append("renderer closed")


class Passthrough(Wrapper[Any, Any, Any, Any]):
    pass


# ---------------------------------------------------------------------------------------------
# sekai -> gymnasium


@pytest.mark.parametrize("env_id", SEKAI_IDS)
def test_gymnasium_checker_passes_for_every_registered_env(env_id: str) -> None:
    env = to_gymnasium(sekai.make(env_id))
    _run_gymnasium_checker(env)
    env.close()


@pytest.mark.parametrize("env_id", SEKAI_IDS)
def test_seeded_reset_matches_sekai(env_id: str) -> None:
    for seed in (0, 123):
        bridged = to_gymnasium(sekai.make(env_id))
        obs, info = bridged.reset(seed=seed)
        expected = sekai.make(env_id).reset(seed=seed)
        assert_trees_equal(obs, expected.observation)
        assert_trees_equal(info, expected.info)
        assert bridged.np_random_seed == seed


def test_reset_seeds_gymnasium_np_random() -> None:
    env = to_gymnasium(Toy())
    env.reset(seed=9)
    first = env.np_random.random()
    env.reset(seed=9)
    assert env.np_random.random() == first
    assert env.sekai_env._rng_seed == 9


def test_from_gymnasium_seeds_follow_the_int_rule() -> None:
    env = from_gymnasium(gymnasium.make("CartPole-v1"))
    first = env.reset(seed=4).observation
    np.testing.assert_array_equal(env.reset(seed=4.0).observation, first)
    assert env._rng_seed == 4 and type(env._rng_seed) is int
    for bad in (2.5, True, float("inf"), (1,)):
        with pytest.raises(TypeError, match="seed must be"):
            env.reset(seed=bad)
    with pytest.raises(ValueError, match="non-negative"):
        env.reset(seed=-1)


def test_to_gymnasium_attributes_and_step() -> None:
    toy = Toy()
    env = to_gymnasium(toy)
    assert isinstance(env, SekaiToGymnasium) and isinstance(env, gymnasium.Env)
    assert env.sekai_env is toy and env.renderer is None and env.render_mode is None
    assert env.observation_space == gymnasium.spaces.Box(0.0, 10.0, (2,), np.float32)
    assert env.action_space == gymnasium.spaces.Discrete(3)
    assert env.metadata == {"render_modes": [], "render_fps": 7}
    _, info = env.reset(seed=0, options={"x": 1})
    assert info == {"options": {"x": 1}}
    _, reward, terminated, truncated, info = env.step(1)
    assert reward == 0.5 and info == {"t": 1}
    assert type(terminated) is bool and type(truncated) is bool
    assert env.render() is None
    assert str(env) == "<SekaiToGymnasium<Toy>>"
    assert str(to_gymnasium(sekai.make("CartPole-v1"))) == (
        "<SekaiToGymnasium<TimeLimit(<CartPole-v1>)>>"
    )


def test_metadata_without_render_fps() -> None:
    class NoFps(Toy):
        metadata: ClassVar[dict[str, Any]] = {}

    assert to_gymnasium(NoFps()).metadata == {"render_modes": []}


def test_rendering_and_close_order() -> None:
    toy = Toy()
    renderer = FrameRenderer(toy.log)
    env = to_gymnasium(toy, renderer=renderer)
    assert env.render_mode == "rgb_array" and env.renderer is renderer
    assert env.metadata["render_modes"] == ["rgb_array"]
    env.reset(seed=0)
    env.step(0)
    np.testing.assert_array_equal(env.render(), np.ones((2, 2, 3), np.uint8))
    assert renderer.seen == [toy]
    env.close()
    assert toy.log == ["renderer closed", "env closed"]


def test_ansi_mode_and_renderer_without_close() -> None:
    class Text:
        def render(self, env: Any) -> str:
            return f"t={env.t}"

    toy = Toy()
    env = to_gymnasium(toy, renderer=Text(), render_mode="ansi")
    assert env.render_mode == "ansi" and env.metadata["render_modes"] == ["ansi"]
    env.reset(seed=0)
    assert env.render() == "t=0"
    env.close()
    assert toy.log == ["env closed"]


def test_render_mode_validation_order() -> None:
    assert SekaiToGymnasium.RENDER_MODES == ("rgb_array", "ansi")
    for mode in ("rgb_array", "human", "bogus"):
        with pytest.raises(ValueError, match="needs a renderer"):
            to_gymnasium(Toy(), render_mode=mode)
    renderer = FrameRenderer([])
    with pytest.raises(ValueError, match="HumanRendering"):
        to_gymnasium(Toy(), renderer=renderer, render_mode="human")
    with pytest.raises(ValueError, match=r"^Unsupported render_mode 'bogus'"):
        to_gymnasium(Toy(), renderer=renderer, render_mode="bogus")


def test_to_gymnasium_rejects_non_sekai_envs() -> None:
    with pytest.raises(TypeError, match=r"sekai\.Env"):
        to_gymnasium(gymnasium.make("CartPole-v1"))  # type: ignore[arg-type]


def test_action_masks_only_when_the_env_has_action_mask() -> None:
    assert not hasattr(to_gymnasium(Toy()), "action_masks")
    assert not hasattr(to_gymnasium(sekai.make("CartPole-v1")), "action_masks")
    env = to_gymnasium(MaskedToy())
    assert "action_masks" in vars(env)
    mask = env.action_masks()
    assert mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, [True, False, True])
    wrapped = to_gymnasium(Passthrough(MaskedToy()))
    np.testing.assert_array_equal(wrapped.action_masks(), [True, False, True])
    multi = to_gymnasium(MultiMaskedToy())
    np.testing.assert_array_equal(multi.action_masks(), [True, True, False, True, False])


def test_action_masks_when_the_env_returns_none() -> None:
    class Unmasked(Toy):
        def action_mask(self) -> None:
            return None

    np.testing.assert_array_equal(to_gymnasium(Unmasked()).action_masks(), [True] * 3)


def test_gymnasium_checker_passes_for_a_masked_env() -> None:
    _run_gymnasium_checker(to_gymnasium(MaskedToy()))


# ---------------------------------------------------------------------------------------------
# gymnasium -> sekai


@pytest.mark.parametrize("env_id", [*GYMNASIUM_IDS, "MountainCar-v0"])
def test_sekai_checker_passes_for_gymnasium_envs(env_id: str) -> None:
    env = from_gymnasium(gymnasium.make(env_id))
    assert sekai.check_env(env) == []
    env.close()


def test_sekai_checker_passes_for_a_gymnasium_env_with_dict_spaces() -> None:
    env = from_gymnasium(CountingGym())
    assert env.observation_space == Dict(
        {"count": Discrete(100), "noise": Box(0.0, 1.0, (2,), np.float64)}
    )
    assert sekai.check_env(env, check_determinism=True) == []


class CountingGym(gymnasium.Env):
    """A gymnasium env with Dict observations, an rgb_array renderer and close tracking."""

    def __init__(self, render_mode: str | None = None) -> None:
        self.metadata = {"render_modes": ["rgb_array"], "render_fps": 4}
        self.observation_space = gymnasium.spaces.Dict(
            [
                ("count", gymnasium.spaces.Discrete(100)),
                ("noise", gymnasium.spaces.Box(0.0, 1.0, (2,), np.float64)),
            ]
        )
        self.action_space = gymnasium.spaces.Discrete(2)
        self.render_mode = render_mode
        self.count = 0
        self.closed = False

    def _obs(self) -> dict[str, Any]:
        return {"count": self.count, "noise": self.np_random.random(2)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.count = 0
        return self._obs(), {"seeded": seed is not None}

    def step(self, action: int) -> Any:
        self.count += int(action)
        return self._obs(), np.float32(1), np.bool_(self.count >= 9), 0, {"count": self.count}

    def render(self) -> np.ndarray:
        return np.full((3, 3, 3), self.count, dtype=np.uint8)

    def close(self) -> None:
        self.closed = True


def test_from_gymnasium_attributes_and_results() -> None:
    gym_env = CountingGym()
    env = from_gymnasium(gym_env)
    assert isinstance(env, GymnasiumToSekai) and isinstance(env, Env)
    assert env.gym_env is gym_env
    assert env.action_space == Discrete(2)
    assert env.metadata == gym_env.metadata and env.metadata is not gym_env.metadata
    reset = env.reset(seed=1)
    assert isinstance(reset, ResetResult) and reset.info == {"seeded": True}
    result = env.step(1)
    assert isinstance(result, StepResult)
    assert type(result.reward) is float and result.reward == 1.0
    assert type(result.terminated) is bool and type(result.truncated) is bool
    assert type(result.info) is dict and result.info == {"count": 1}
    assert str(env) == repr(env) == f"<GymnasiumToSekai{gym_env}>"
    env.close()
    assert gym_env.closed


def test_from_gymnasium_seeding_matches_gymnasium() -> None:
    env, gym_env = from_gymnasium(gymnasium.make("CartPole-v1")), gymnasium.make("CartPole-v1")
    np.testing.assert_array_equal(env.reset(seed=5).observation, gym_env.reset(seed=5)[0])
    assert env._rng_seed == 5
    np.testing.assert_array_equal(env.reset().observation, gym_env.reset()[0])
    assert env._rng_seed == 5
    env.reset(seed=np.int64(8))
    assert env._rng_seed == 8 and type(env._rng_seed) is int
    np.testing.assert_array_equal(
        env.reset(seed=np.uint32(8)).observation, gym_env.reset(seed=8)[0]
    )


def test_from_gymnasium_rng_is_the_gymnasium_np_random() -> None:
    env = from_gymnasium(gymnasium.make("CartPole-v1"))
    env.reset(seed=0)
    assert env.rng is env.gym_env.np_random
    generator = np.random.default_rng(4)
    env.rng = generator
    assert env.gym_env.unwrapped.np_random is generator and env._rng_seed == -1


def test_from_gymnasium_generator_seed() -> None:
    env, twin = from_gymnasium(CountingGym()), from_gymnasium(CountingGym())
    env.reset(seed=3)
    generator = np.random.default_rng(21)
    first = env.reset(seed=generator)
    assert env.gym_env.np_random is generator and env._rng_seed == -1
    assert first.info == {"seeded": False}
    second = env.reset()
    twin_first = twin.reset(seed=np.random.default_rng(21))
    np.testing.assert_array_equal(first.observation["noise"], twin_first.observation["noise"])
    np.testing.assert_array_equal(second.observation["noise"], twin.reset().observation["noise"])
    assert not np.array_equal(first.observation["noise"], second.observation["noise"])


def test_from_gymnasium_rejects_other_envs() -> None:
    with pytest.raises(TypeError, match=r"gymnasium\.Env"):
        from_gymnasium(Toy())


def test_gymnasium_renderer() -> None:
    env = TimeLimit(from_gymnasium(CountingGym(render_mode="rgb_array")), 10)
    env.reset(seed=0)
    env.step(1)
    with GymnasiumRenderer() as renderer:
        np.testing.assert_array_equal(renderer.render(env), np.ones((3, 3, 3), np.uint8))
    with pytest.raises(TypeError, match="from_gymnasium"):
        GymnasiumRenderer().render(Toy())


def test_round_trip_sekai_gymnasium_sekai() -> None:
    env = from_gymnasium(to_gymnasium(sekai.make("Pendulum-v1")))
    direct = sekai.make("Pendulum-v1")
    assert env.observation_space == direct.observation_space
    assert env.action_space == direct.action_space
    np.testing.assert_array_equal(env.reset(seed=2).observation, direct.reset(seed=2).observation)
    action = np.array([0.5], dtype=np.float32)
    a, b = env.step(action), direct.step(action)
    np.testing.assert_array_equal(a.observation, b.observation)
    assert a.reward == b.reward and a.info == b.info
    assert sekai.check_env(env) == []


# ---------------------------------------------------------------------------------------------
# the sekai.compat package


@pytest.mark.sb3  # CI's sb3 run selects it: SekaiToSB3VecEnv is built there
def test_compat_all_and_lazy_classes() -> None:
    assert sekai.compat.__all__ == [
        "to_gymnasium",
        "from_gymnasium",
        "to_gymnasium_vector",
        "from_gymnasium_vector",
        "register_gymnasium",
        "to_sb3",
        "to_pettingzoo",
        "from_pettingzoo",
        "space_to_gymnasium",
        "space_from_gymnasium",
        "SekaiToGymnasium",
        "GymnasiumToSekai",
        "GymnasiumRenderer",
        "SekaiToGymnasiumVector",
        "GymnasiumVectorToSekai",
        "SekaiToSB3VecEnv",
        "SekaiToPettingZoo",
        "PettingZooToSekai",
    ]
    for name in sekai.compat.__all__:
        if name == "SekaiToSB3VecEnv" and importlib.util.find_spec("stable_baselines3") is None:
            with pytest.raises(ImportError, match="stable-baselines3"):  # the sb3 extra
                getattr(sekai.compat, name)
        else:
            assert getattr(sekai.compat, name) is not None
    assert sekai.compat.SekaiToGymnasium is SekaiToGymnasium
    assert sekai.compat.GymnasiumRenderer is GymnasiumRenderer
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        sekai.compat.Nope  # noqa: B018


def test_missing_gymnasium_raises_import_error_with_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    hint = re.escape(
        'pip install gymnasium (or, in a sekai checkout, pip install -e ".[gymnasium]")'
    )
    calls = [
        lambda: sekai.compat.to_gymnasium(Toy()),
        lambda: sekai.compat.from_gymnasium(object()),
        lambda: sekai.compat.space_to_gymnasium(Discrete(2)),
        lambda: sekai.compat.space_from_gymnasium(object()),
        lambda: sekai.compat.GymnasiumToSekai,
    ]
    for call in calls:
        with pytest.raises(ImportError, match=hint):
            call()


def test_missing_pettingzoo_raises_import_error_with_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    hint = re.escape(
        'pip install pettingzoo (or, in a sekai checkout, pip install -e ".[pettingzoo]")'
    )
    for call in (
        lambda: sekai.compat.to_pettingzoo(object()),  # type: ignore[arg-type]
        lambda: sekai.compat.from_pettingzoo(object()),
        lambda: sekai.compat.SekaiToPettingZoo,
    ):
        with pytest.raises(ImportError, match=hint):
            call()


def test_compat_imports_without_the_optional_dependencies() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["gymnasium"] = None
        sys.modules["pettingzoo"] = None
        import sekai
        from sekai.compat import from_gymnasium, to_gymnasium, to_pettingzoo
        for fn, extra in ((to_gymnasium, "gymnasium"), (to_pettingzoo, "pettingzoo")):
            try:
                fn(sekai.make("CartPole-v1"))
            except ImportError as exc:
                assert f'pip install -e ".[{extra}]"' in str(exc), exc
            else:
                raise AssertionError("no ImportError")
        try:
            import sekai.compat.gymnasium
        except ImportError as exc:
            assert 'pip install -e ".[gymnasium]"' in str(exc), exc
        else:
            raise AssertionError("no ImportError")
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
