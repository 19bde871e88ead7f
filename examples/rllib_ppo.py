"""Train RLlib's PPO on a sekai env named through gymnasium's registry.

RLlib builds its environments with ``gymnasium.make_vec`` in its env-runner processes, so it
only needs the id: ``"sekai:sekai/CartPole-v1"`` makes gymnasium import sekai, which registers
every sekai id as ``sekai/<id>``. This script never imports sekai itself.

Needs RLlib (``pip install "ray[rllib]"``, which pins its own gymnasium version).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="sekai:sekai/CartPole-v1", help="a gymnasium id")
    parser.add_argument("--iterations", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="two short iterations")
    args = parser.parse_args()
    iterations = 2 if args.quick else args.iterations
    batch = 500 if args.quick else 4000

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        config = (
            PPOConfig()
            .environment(args.env)
            .env_runners(num_env_runners=1, num_envs_per_env_runner=4)
            .training(
                train_batch_size_per_learner=batch,
                minibatch_size=min(batch, 500),
                num_epochs=6,
                lr=3e-4,
            )
            .debugging(seed=args.seed)
        )
        algo = config.build_algo()
        began = time.perf_counter()
        for iteration in range(1, iterations + 1):
            result = algo.train()
            mean = result["env_runners"].get("episode_return_mean", float("nan"))
            steps = int(result["env_runners"].get("num_env_steps_sampled_lifetime", 0))
            print(
                f"iteration {iteration}/{iterations}: {steps:>7,} env steps, "
                f"mean episode return {mean:7.1f} ({time.perf_counter() - began:.0f}s)",
                flush=True,
            )
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
