"""One-file PPO in plain PyTorch, trained on a native sekai finance env through gymnasium's API.

``sekai.make_vec("Trading-v0", N)`` steps all N sub-envs with one set of array operations;
``sekai.compat.to_gymnasium_vector`` presents it as a ``gymnasium.vector.VectorEnv`` and
gymnasium's own ``RecordEpisodeStatistics`` records the episodes, as in a CleanRL script.
Finished sub-envs reset in the same step (``AutoresetMode.SAME_STEP``): the observation an
episode ended on is in ``infos["final_obs"]``, used here to bootstrap the value of episodes
cut off by the time limit.

Trading-v0 picks a position (short, flat or long) in one simulated asset each step and pays a
transaction cost on every change; the reward is the log growth of equity. After training, the
greedy policy and a uniformly random one each play the first episode of 100 held-out seeds.

Usage: ``python examples/cleanrl_ppo.py [--total-timesteps N] [--num-envs N] [--quick]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium
import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from torch.distributions import Categorical

import sekai
from sekai.compat import to_gymnasium_vector

EVAL_SEEDS = list(range(50_000, 50_100))
"""Seeds of the evaluation episodes; training uses ``--seed`` and draws from it."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``--quick`` shrinks the run to a few iterations."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="Trading-v0", help="a sekai id with Discrete actions")
    parser.add_argument("--total-timesteps", type=int, default=300_000)
    parser.add_argument("--num-envs", type=int, default=32)
    parser.add_argument("--num-steps", type=int, default=128, help="rollout length per sub-env")
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a short run that checks it works")
    args = parser.parse_args(argv)
    if args.quick:
        args.total_timesteps, args.num_envs, args.num_steps = 3 * 8 * 128, 8, 128
    return args


def make_envs(env_id: str, num_envs: int) -> gymnasium.vector.VectorEnv:
    """The native sekai vector env as a gymnasium one that records episode statistics."""
    envs = to_gymnasium_vector(sekai.make_vec(env_id, num_envs))
    return gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)


def _linear(inputs: int, outputs: int, gain: float) -> nn.Linear:
    """A linear layer with orthogonal weights scaled by ``gain`` and zero biases."""
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.constant_(layer.bias, 0.0)
    return layer


def _mlp(inputs: int, outputs: int, last_gain: float) -> nn.Sequential:
    hidden = 64
    gain = float(np.sqrt(2.0))
    return nn.Sequential(
        _linear(inputs, hidden, gain),
        nn.Tanh(),
        _linear(hidden, hidden, gain),
        nn.Tanh(),
        _linear(hidden, outputs, last_gain),
    )


class ActorCritic(nn.Module):
    """A categorical policy and a state-value function, as two separate MLPs."""

    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.policy = _mlp(obs_size, num_actions, 0.01)
        self.critic = _mlp(obs_size, 1, 1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """V(obs), one value per row."""
        out: torch.Tensor = self.critic(obs).squeeze(-1)
        return out

    def distribution(self, obs: torch.Tensor) -> Categorical:
        """The policy's action distribution at each row of ``obs``."""
        return Categorical(logits=self.policy(obs))


@dataclass
class Rollout:
    """``num_steps`` steps of every sub-env, the arrays indexed ``[step, sub-env]``."""

    obs: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    rewards: torch.Tensor
    starts: torch.Tensor  # 1.0 where the step's observation begins a new episode
    values: torch.Tensor

    @classmethod
    def empty(cls, steps: int, envs: int, obs_size: int) -> Rollout:
        def zeros(*shape: int) -> torch.Tensor:
            return torch.zeros(shape)

        return cls(
            zeros(steps, envs, obs_size),
            torch.zeros((steps, envs), dtype=torch.long),
            zeros(steps, envs),
            zeros(steps, envs),
            zeros(steps, envs),
            zeros(steps, envs),
        )


def advantages_and_returns(
    rollout: Rollout,
    last_value: torch.Tensor,
    last_start: torch.Tensor,
    gamma: float,
    lam: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates and the value targets ``advantage + value``."""
    steps = rollout.rewards.shape[0]
    advantages = torch.zeros_like(rollout.rewards)
    running = torch.zeros_like(last_value)
    for t in range(steps - 1, -1, -1):
        if t == steps - 1:
            next_value, next_start = last_value, last_start
        else:
            next_value, next_start = rollout.values[t + 1], rollout.starts[t + 1]
        carry = 1.0 - next_start  # no bootstrapping across an episode boundary
        delta = rollout.rewards[t] + gamma * next_value * carry - rollout.values[t]
        running = delta + gamma * lam * carry * running
        advantages[t] = running
    return advantages, advantages + rollout.values


def ppo_update(
    agent: ActorCritic,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    advantages: torch.Tensor,
    returns: torch.Tensor,
    args: argparse.Namespace,
) -> dict[str, float]:
    """Minibatch epochs of the clipped surrogate objective; the last minibatch's losses."""
    batch = advantages.numel()
    obs = rollout.obs.reshape(batch, -1)
    actions = rollout.actions.reshape(batch)
    old_log_probs = rollout.log_probs.reshape(batch)
    flat_advantages = advantages.reshape(batch)
    flat_returns = returns.reshape(batch)
    size = batch // args.num_minibatches
    stats: dict[str, float] = {}
    for _ in range(args.update_epochs):
        for chunk in torch.randperm(batch).split(size):
            dist = agent.distribution(obs[chunk])
            log_ratio = dist.log_prob(actions[chunk]) - old_log_probs[chunk]
            ratio = log_ratio.exp()
            adv = flat_advantages[chunk]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped = ratio.clamp(1.0 - args.clip_coef, 1.0 + args.clip_coef)
            policy_loss = -torch.min(ratio * adv, clipped * adv).mean()
            value_loss = 0.5 * (agent.value(obs[chunk]) - flat_returns[chunk]).pow(2).mean()
            entropy = dist.entropy().mean()
            loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1.0) - log_ratio).mean().item()
            stats = {
                "policy_loss": policy_loss.item(),
                "value_loss": value_loss.item(),
                "entropy": entropy.item(),
                "approx_kl": approx_kl,
            }
    return stats


def train(args: argparse.Namespace) -> ActorCritic:
    """Train with PPO, printing the mean episodic return as it goes."""
    torch.manual_seed(args.seed)
    envs = make_envs(args.env_id, args.num_envs)
    obs_size = int(np.prod(envs.single_observation_space.shape))
    agent = ActorCritic(obs_size, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    batch = args.num_envs * args.num_steps
    iterations = max(1, args.total_timesteps // batch)
    rollout = Rollout.empty(args.num_steps, args.num_envs, obs_size)
    obs_array, _ = envs.reset(seed=args.seed)
    obs = torch.as_tensor(obs_array, dtype=torch.float32)
    start = torch.ones(args.num_envs)
    returns_seen: list[float] = []
    began = time.perf_counter()
    report_every = max(1, iterations // 10)
    for iteration in range(1, iterations + 1):
        for group in optimizer.param_groups:  # linear learning-rate decay
            group["lr"] = args.learning_rate * (1.0 - (iteration - 1) / iterations)
        for t in range(args.num_steps):
            with torch.no_grad():
                dist = agent.distribution(obs)
                action = dist.sample()
                rollout.values[t] = agent.value(obs)
            rollout.obs[t], rollout.starts[t] = obs, start
            rollout.actions[t], rollout.log_probs[t] = action, dist.log_prob(action)
            obs_array, reward, terminated, truncated, infos = envs.step(action.numpy())
            reward_t = torch.as_tensor(reward, dtype=torch.float32)
            cut = np.flatnonzero(truncated & ~terminated)
            if len(cut):  # a time limit is not an end: add the discounted value of where it was
                final = torch.as_tensor(np.stack(infos["final_obs"][cut]), dtype=torch.float32)
                with torch.no_grad():
                    reward_t[cut] += args.gamma * agent.value(final)
            rollout.rewards[t] = reward_t
            obs = torch.as_tensor(obs_array, dtype=torch.float32)
            start = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            if "episode" in infos:
                returns_seen.extend(infos["episode"]["r"][infos["_episode"]].tolist())
        with torch.no_grad():
            advantages, targets = advantages_and_returns(
                rollout, agent.value(obs), start, args.gamma, args.gae_lambda
            )
        stats = ppo_update(agent, optimizer, rollout, advantages, targets, args)
        if iteration % report_every == 0 or iteration == iterations:
            recent = (
                f"mean episodic return {np.mean(returns_seen[-100:]):+.4f} "
                f"over the last {min(len(returns_seen), 100)} episodes"
                if returns_seen
                else "no episode finished yet"
            )
            print(
                f"iteration {iteration}/{iterations}  {iteration * batch:>9,} env steps  "
                f"{recent}  entropy {stats['entropy']:.3f}  "
                f"({time.perf_counter() - began:.0f}s)",
                flush=True,
            )
    envs.close()
    return agent


def evaluate(env_id: str, policy: Callable[[NDArray[np.float32]], NDArray[np.int64]]) -> NDArray:
    """The return of the first episode of each seed in ``EVAL_SEEDS`` under ``policy``."""
    envs = to_gymnasium_vector(sekai.make_vec(env_id, len(EVAL_SEEDS)))
    obs, _ = envs.reset(seed=EVAL_SEEDS)  # a list: sub-env i gets EVAL_SEEDS[i]
    totals = np.zeros(len(EVAL_SEEDS))
    playing = np.ones(len(EVAL_SEEDS), dtype=bool)
    while playing.any():
        obs, reward, terminated, truncated, _ = envs.step(policy(obs))
        totals[playing] += reward[playing]
        playing &= ~(terminated | truncated)
    envs.close()
    return totals


def main(argv: list[str] | None = None) -> None:
    """Train, then compare the greedy policy with a random one on the evaluation seeds."""
    args = parse_args(argv)
    torch.set_num_threads(1)
    print(
        f"PPO on {args.env_id}: {args.num_envs} sub-envs x {args.num_steps} steps per rollout, "
        f"{args.total_timesteps:,} env steps"
    )
    agent = train(args)

    def greedy(obs: NDArray[np.float32]) -> NDArray[np.int64]:
        with torch.no_grad():
            logits = agent.policy(torch.as_tensor(obs, dtype=torch.float32))
        return logits.argmax(dim=-1).numpy()

    rng = np.random.default_rng(args.seed)
    num_actions = int(agent.policy[-1].out_features)

    def uniform(obs: NDArray[np.float32]) -> NDArray[np.int64]:
        return rng.integers(0, num_actions, size=len(obs))

    trained, random = evaluate(args.env_id, greedy), evaluate(args.env_id, uniform)
    print(f"evaluation: first episode of seeds {EVAL_SEEDS[0]}-{EVAL_SEEDS[-1]} (held out)")
    print(f"  PPO (greedy)   mean return {trained.mean():+.4f}  std {trained.std():.4f}")
    print(f"  random policy  mean return {random.mean():+.4f}  std {random.std():.4f}")
    print(f"PPO - random: {trained.mean() - random.mean():+.4f}")


if __name__ == "__main__":
    main()
