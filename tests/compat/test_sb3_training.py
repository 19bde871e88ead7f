"""Stable-Baselines3 / sb3-contrib learning on sekai envs, and the runnable examples."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete

pytestmark = pytest.mark.sb3  # CI's sb3 run selects them

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

needs_sb3 = pytest.mark.skipif(
    importlib.util.find_spec("stable_baselines3") is None
    or importlib.util.find_spec("torch") is None,
    reason="stable-baselines3 / torch are not installed (the sb3 extra)",
)
needs_contrib = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None,
    reason="sb3-contrib is not installed (the sb3 extra)",
)


def _run_example(name: str, *args: str, timeout: float = 120) -> str:
    """Run ``examples/<name>`` with this interpreter; returns its stdout."""
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


@pytest.fixture
def one_torch_thread() -> Any:
    """Train with one torch thread (fast and repeatable on small CPUs)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class MaskedChoice(Env[np.ndarray, int]):
    """Pick the one allowed action out of 5 each step; a masked action raises.

    The observation one-hot encodes the allowed action; reward 1 per step, 10-step episodes.
    """

    def __init__(self) -> None:
        self.observation_space = Box(0.0, 1.0, (5,), np.float32)
        self.action_space = Discrete(5)
        self.allowed = 0
        self.steps = 0

    def _obs(self) -> np.ndarray:
        return np.eye(5, dtype=np.float32)[self.allowed]

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.allowed = int(self.rng.integers(5))
        self.steps = 0
        return ResetResult(self._obs(), {})

    def step(self, action: int) -> StepResult[Any]:
        if int(action) != self.allowed:
            raise ValueError(f"masked action {action} taken (allowed: {self.allowed})")
        self.allowed = int(self.rng.integers(5))
        self.steps += 1
        return StepResult(self._obs(), 1.0, False, self.steps >= 10, {})

    def action_mask(self) -> np.ndarray:
        return np.arange(5) == self.allowed


# ---------------------------------------------------------------------------- learning


@pytest.mark.slow
@needs_sb3
def test_ppo_solves_cartpole_through_to_gymnasium(one_torch_thread: None) -> None:
    """PPO, seed 0, 100k steps on one ``to_gymnasium`` env: about a minute on two cores."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    from sekai.compat import to_gymnasium

    model = PPO(
        "MlpPolicy",
        to_gymnasium(sekai.make("CartPole-v1")),
        n_steps=256,
        batch_size=64,
        n_epochs=10,
        gamma=0.98,
        gae_lambda=0.8,
        learning_rate=lambda progress: 1e-3 * progress,
        clip_range=lambda progress: 0.2 * progress,
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=100_000)
    eval_env = Monitor(to_gymnasium(sekai.make("CartPole-v1")))
    eval_env.reset(seed=123)
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    assert mean >= 450


@needs_sb3
@needs_contrib
def test_maskable_ppo_on_to_gymnasium(one_torch_thread: None) -> None:
    from sb3_contrib import MaskablePPO

    from sekai.compat import to_gymnasium

    env = to_gymnasium(MaskedChoice())
    assert env.action_masks().sum() == 1
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    model.learn(total_timesteps=256)  # any masked action would raise in the env
    assert model.num_timesteps == 256
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert int(action) == int(obs.argmax())


@needs_sb3
@needs_contrib
def test_maskable_ppo_on_to_sb3(one_torch_thread: None) -> None:
    from sb3_contrib import MaskablePPO

    from sekai.compat import to_sb3
    from sekai.vector import SyncVecEnv

    vec = to_sb3(SyncVecEnv([MaskedChoice for _ in range(4)]))
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=64, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256
    obs = vec.reset()
    actions, _ = model.predict(obs, action_masks=vec.action_masks(), deterministic=True)
    np.testing.assert_array_equal(actions, obs.argmax(axis=1))
    vec.close()


@needs_sb3
@pytest.mark.parametrize("with_statistics", [False, True])
def test_ppo_logs_ep_rew_mean_through_to_sb3(one_torch_thread: None, with_statistics: bool) -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import KVWriter, Logger

    from sekai.compat import to_sb3

    class Capture(KVWriter):
        """Keeps every dump's values."""

        def __init__(self) -> None:
            self.rows: list[dict[str, Any]] = []

        def write(self, key_values: dict[str, Any], key_excluded: Any, step: int = 0) -> None:
            self.rows.append(dict(key_values))

    class Episodes(BaseCallback):
        """Finished episodes, counted from the rewards and dones PPO sees."""

        def _on_training_start(self) -> None:
            self.returns = np.zeros(4)
            self.lengths = np.zeros(4, dtype=int)
            self.done: list[tuple[float, int]] = []

        def _on_step(self) -> bool:
            self.returns += self.locals["rewards"]
            self.lengths += 1
            for i in np.flatnonzero(self.locals["dones"]):
                self.done.append((float(self.returns[i]), int(self.lengths[i])))
                self.returns[i], self.lengths[i] = 0.0, 0
            return True

    venv = sekai.make_vec("CartPole-v1", 4)
    if with_statistics:
        venv = sekai.VecRecordEpisodeStatistics(venv)
    model = PPO(
        "MlpPolicy", to_sb3(venv), n_steps=128, batch_size=128, n_epochs=2, seed=0, device="cpu"
    )
    capture = Capture()
    model.set_logger(Logger(folder=None, output_formats=[capture]))
    callback = Episodes()
    model.learn(total_timesteps=2048, callback=callback)
    assert model.num_timesteps == 2048
    logged = [row for row in capture.rows if "rollout/ep_rew_mean" in row]
    assert len(logged) == len(capture.rows) == 4  # one dump per rollout of 512 steps
    last = callback.done[-100:]
    assert len(callback.done) > 60
    mean_return = logged[-1]["rollout/ep_rew_mean"]
    assert np.isfinite(mean_return) and mean_return > 0
    assert mean_return == pytest.approx(np.mean([r for r, _ in last]), rel=1e-12)
    assert logged[-1]["rollout/ep_len_mean"] == pytest.approx(np.mean([n for _, n in last]))
    if with_statistics:
        tracker = venv.tracker  # type: ignore[attr-defined]
        assert [(e.episode_return, e.episode_length) for e in tracker.episodes] == last


@needs_sb3
@needs_contrib
def test_maskable_ppo_on_limit_order_book_without_wrappers(one_torch_thread: None) -> None:
    from sb3_contrib import MaskablePPO

    from sekai.compat import to_sb3

    vec = to_sb3(sekai.make_vec("LimitOrderBook-v0", 4))
    assert list(vec.observation_space.spaces) == ["book", "trades/values", "trades/mask", "agent"]
    obs = vec.reset()
    masks = vec.action_masks()
    assert masks.shape == (4, 6 + 6 + 3) and masks.dtype == np.bool_
    assert obs["trades/values"].shape == (4, 16, 3) and obs["trades/mask"].shape == (4, 16)
    model = MaskablePPO(
        "MultiInputPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256
    actions, _ = model.predict(vec.reset(), action_masks=vec.action_masks(), deterministic=True)
    assert actions.shape == (4, 3)
    vec.close()


# ---------------------------------------------------------------------------- examples


def test_numpy_agent_example_quick() -> None:
    out = _run_example("numpy_agent_cartpole.py", "--quick")
    lines = out.strip().splitlines()
    assert re.fullmatch(r"generation +1: population mean .*", lines[0])
    assert lines[-2].startswith("policy w=")
    assert re.fullmatch(
        r"Final mean return over 10 episodes: \d+\.\d \(solved: (yes|no), \d+\.\ds\)", lines[-1]
    )


def test_finance_baselines_example_quick() -> None:
    out = _run_example("finance_baselines.py", "--quick")
    assert "OptimalExecution-v0: 200 episodes" in out
    assert "MarketMaking-v0: 200 episodes of 200 steps" in out
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    ac, twap = rows["Almgren-Chriss"].split()[1:], rows["TWAP"].split()[1:]
    assert len(ac) == len(twap) == 7
    # the Almgren-Chriss schedule has the better mean-variance objective, in the model too
    assert float(ac[4]) < float(twap[4]) and float(ac[5]) < float(twap[5])
    assert any(key.startswith("Avellaneda-Stoikov") for key in rows)
    assert re.search(r"^800 episodes in \d+\.\ds$", out, flags=re.MULTILINE)


@pytest.mark.slow
@needs_sb3
def test_train_ppo_example_quick() -> None:
    out = _run_example("train_ppo_cartpole.py", "--quick", timeout=300)
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("to_gymnasium(sekai.make('CartPole-v1')): 2048 steps")
    assert lines[1].startswith("to_sb3(sekai.make_vec('CartPole-v1', 8)): 2048 steps")
    assert all("mean return over 20 episodes" in line for line in lines)
