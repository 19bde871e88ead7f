"""Train Stable-Baselines3 PPO on sekai's CartPole-v1, two ways.

1. A single env through the gymnasium bridge: ``to_gymnasium(sekai.make("CartPole-v1"))``
   (Stable-Baselines3 wraps it in its own ``DummyVecEnv``).
2. A sekai vector env through the Stable-Baselines3 adapter:
   ``to_sb3(sekai.make_vec("CartPole-v1", 8))``.

Each model is evaluated (deterministic actions) on a fresh ``to_gymnasium`` env. Needs the
``sb3`` extra (``pip install -e ".[sb3]"`` in a sekai checkout). Run
``python examples/train_ppo_cartpole.py`` (about a minute on two CPU cores per model;
``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import sekai
from sekai.compat import to_gymnasium, to_sb3

try:
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor
except ImportError as exc:
    raise SystemExit(
        f"This example needs stable-baselines3: pip install stable-baselines3 ({exc})"
    ) from exc


def linear(start: float) -> Any:
    """A schedule decaying linearly from ``start`` to 0 over training."""
    return lambda progress_remaining: progress_remaining * start


def train(name: str, env: Any, timesteps: int, seed: int, **ppo_kwargs: Any) -> PPO:
    """Train PPO on ``env`` for ``timesteps`` steps, then print its evaluation."""
    start = time.perf_counter()
    model = PPO(
        "MlpPolicy",
        env,
        gamma=0.98,
        gae_lambda=0.8,
        learning_rate=linear(1e-3),
        clip_range=linear(0.2),
        seed=seed,
        device="cpu",
        **ppo_kwargs,
    )
    model.learn(total_timesteps=timesteps)
    trained = time.perf_counter() - start
    eval_env = Monitor(to_gymnasium(sekai.make("CartPole-v1")))
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    eval_env.close()
    print(
        f"{name}: {timesteps} steps in {trained:.1f}s, "
        f"mean return over 20 episodes {mean:.1f} ± {std:.1f}"
    )
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few thousand steps only")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    single_steps, vec_steps = (2_048, 2_048) if args.quick else (100_000, 100_000)

    train(
        "to_gymnasium(sekai.make('CartPole-v1'))",
        to_gymnasium(sekai.make("CartPole-v1")),
        single_steps,
        args.seed,
        n_steps=256,
        batch_size=64,
        n_epochs=10,
    )
    vec = to_sb3(sekai.make_vec("CartPole-v1", 8))
    train(
        "to_sb3(sekai.make_vec('CartPole-v1', 8))",
        vec,
        vec_steps,
        args.seed,
        n_steps=32,
        batch_size=256,
        n_epochs=20,
    )
    vec.close()


if __name__ == "__main__":
    main()
