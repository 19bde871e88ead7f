"""Train sb3-contrib's MaskablePPO on LimitOrderBook-v0 and compare it with a random masked policy.

The training env is ``to_sb3(VecNormalizeObservation(sekai.make_vec("LimitOrderBook-v0", 8)))``:
``to_sb3`` flattens the nested ``Dict`` observation (book, the ``MaskedBox`` of recent trades,
the agent's state) into a flat ``Dict`` for ``MultiInputPolicy`` and stacks the env's
``action_mask()`` for ``MaskablePPO``. Normalising the observations matters: on the raw ones
(queue sizes in lots, prices in ticks) the same budget learns little; the rewards are left as
they are.

Both policies then play one session on each of the held-out seeds 10_000, 10_001, ... (training
resets its 8 sub-envs with ``--seed`` + 0..7 once, and they autoreset from there):

* the trained policy with its action masks, deterministically (the most likely allowed action);
* a random masked policy, drawing each of the three action entries uniformly among the values
  its mask allows.

The agent *beats random* when its mean return exceeds the random policy's by more than twice
the standard error of the difference. Needs the ``sb3`` extra. Run
``python examples/maskable_ppo_lob.py`` (200_000 steps, about two minutes on one CPU core);
``--quick`` trains for one rollout only, to check that the script runs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

import sekai
from sekai.compat import to_sb3

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
except ImportError as exc:
    raise SystemExit(
        f"This example needs stable-baselines3 and sb3-contrib: pip install sb3-contrib ({exc})"
    ) from exc

ENV_ID = "LimitOrderBook-v0"
N_ENVS = 8
N_STEPS = 256
EVAL_SEED = 10_000
DEFAULT_TIMESTEPS = 200_000
DEFAULT_EPISODES = 30

Policy = Callable[[Any, NDArray[np.bool_]], NDArray[np.int64]]


class PrintProgress(BaseCallback):
    """Prints the steps done and the mean return of recent training episodes every few rollouts."""

    def __init__(self, every: int = 10) -> None:
        super().__init__()
        self.every = every
        self.rollouts = 0
        self.start = time.perf_counter()

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        if self.rollouts % self.every:
            return
        episodes = self.model.ep_info_buffer
        mean = np.mean([e["r"] for e in episodes]) if episodes else float("nan")
        print(
            f"  {self.num_timesteps:>8} steps, {time.perf_counter() - self.start:6.1f}s, "
            f"mean return of the last {len(episodes)} training episodes {mean:8.2f}",
            flush=True,
        )


def train(timesteps: int, seed: int) -> tuple[MaskablePPO, sekai.VecNormalizeObservation]:
    """MaskablePPO trained for ``timesteps`` steps; also returns the observation normaliser."""
    normalized = sekai.VecNormalizeObservation(sekai.make_vec(ENV_ID, N_ENVS))
    model = MaskablePPO(
        "MultiInputPolicy",
        to_sb3(normalized),
        n_steps=N_STEPS,
        batch_size=256,
        learning_rate=3e-4,
        gamma=0.99,
        seed=seed,  # sub-env i resets with seed + i
        device="cpu",
    )
    model.learn(total_timesteps=timesteps, callback=PrintProgress())
    model.get_env().close()
    return model, normalized


def evaluate(policy: Policy, seeds: list[int], normalizer_state: Any) -> NDArray[np.float64]:
    """The return of one session per seed of ``seeds`` (consecutive), played by ``policy``.

    One sub-env per seed; observations are normalised with ``normalizer_state``, frozen.
    """
    normalized = sekai.VecNormalizeObservation(sekai.make_vec(ENV_ID, len(seeds)))
    normalized.load_state_dict(normalizer_state)
    normalized.update_running_mean = False
    env = to_sb3(normalized)
    env.seed(seeds[0])  # sub-env i resets with seeds[0] + i
    returns = np.full(len(seeds), np.nan)
    observations = env.reset()
    while np.isnan(returns).any():
        actions = policy(observations, env.action_masks())
        observations, _, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            if np.isnan(returns[i]):  # the first session of sub-env i
                returns[i] = infos[i]["episode"]["r"]
    env.close()
    return returns


def trained_policy(model: MaskablePPO) -> Policy:
    """The model's most likely allowed action."""

    def act(observations: Any, masks: NDArray[np.bool_]) -> NDArray[np.int64]:
        actions, _ = model.predict(observations, action_masks=masks, deterministic=True)
        return np.asarray(actions, dtype=np.int64)

    return act


def random_masked_policy(nvec: NDArray[np.int64], seed: int) -> Policy:
    """Each ``MultiDiscrete(nvec)`` entry drawn uniformly among the values its mask allows."""
    rng = np.random.default_rng(seed)
    bounds = np.cumsum(nvec)[:-1]

    def act(observations: Any, masks: NDArray[np.bool_]) -> NDArray[np.int64]:
        return np.array(
            [[rng.choice(np.flatnonzero(part)) for part in np.split(row, bounds)] for row in masks],
            dtype=np.int64,
        )

    return act


def beats(trained: NDArray[np.float64], random: NDArray[np.float64]) -> bool:
    """Whether ``trained``'s mean exceeds ``random``'s by over two standard errors."""
    error = np.sqrt(trained.var(ddof=1) / len(trained) + random.var(ddof=1) / len(random))
    return bool(trained.mean() - random.mean() > 2.0 * error)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one rollout and 4 sessions only")
    parser.add_argument("--timesteps", type=int, default=None, help="training steps")
    parser.add_argument("--seed", type=int, default=0, help="training seed")
    parser.add_argument("--episodes", type=int, default=None, help="held-out sessions")
    args = parser.parse_args()
    timesteps = args.timesteps or (N_ENVS * N_STEPS if args.quick else DEFAULT_TIMESTEPS)
    episodes = args.episodes or (4 if args.quick else DEFAULT_EPISODES)
    if episodes < 2:
        parser.error("--episodes must be at least 2")
    seeds = list(range(EVAL_SEED, EVAL_SEED + episodes))
    if args.seed + N_ENVS > EVAL_SEED and args.seed < EVAL_SEED + episodes:
        parser.error(f"--seed {args.seed} overlaps the held-out seeds {seeds[0]}..{seeds[-1]}")
    torch.set_num_threads(1)

    print(f"MaskablePPO on {ENV_ID}: {timesteps} steps, {N_ENVS} sub-envs, seed {args.seed}")
    start = time.perf_counter()
    model, normalized = train(timesteps, args.seed)
    print(f"trained in {time.perf_counter() - start:.1f}s")

    state = normalized.state_dict()
    nvec = np.asarray(model.action_space.nvec, dtype=np.int64)
    trained = evaluate(trained_policy(model), seeds, state)
    random = evaluate(random_masked_policy(nvec, args.seed), seeds, state)
    print(f"held-out seeds {seeds[0]}..{seeds[-1]}, one session each:")
    print(f"  MaskablePPO (deterministic, masked) {trained.mean():8.2f} ± {trained.std():.2f}")
    print(f"  random masked policy                {random.mean():8.2f} ± {random.std():.2f}")
    print(f"beats random: {'yes' if beats(trained, random) else 'no'}")


if __name__ == "__main__":
    main()
