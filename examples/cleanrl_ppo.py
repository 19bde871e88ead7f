"""PPO in one file of plain PyTorch, CleanRL-style, on a native sekai finance env.

The env is ``sekai.make_vec("Trading-v0", N)`` (one array step for all N sub-envs) seen as a
``gymnasium.vector.VectorEnv`` through ``sekai.compat.to_gymnasium_vector`` and recorded by
gymnasium's own ``RecordEpisodeStatistics``. The bridge resets finished sub-envs in the same
step (``AutoresetMode.SAME_STEP``): the terminal observation is in ``infos["final_obs"]``, which
the rollout uses to bootstrap the value of episodes cut off by the time limit.

After training, the greedy policy and a uniformly random one each play one episode on every
one of 100 held-out seeds. Needs ``torch`` and ``gymnasium``.

Usage: ``python examples/cleanrl_ppo.py [--total-timesteps N] [--num-envs N] [--quick]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import sekai
from sekai.compat import to_gymnasium_vector

HELD_OUT_SEEDS = range(10_000, 10_100)


def make_envs(env_id: str, num_envs: int) -> gymnasium.vector.VectorEnv:
    """The native sekai vector env as a gymnasium one, with episode statistics."""
    bridge = to_gymnasium_vector(sekai.make_vec(env_id, num_envs))
    return gymnasium.wrappers.vector.RecordEpisodeStatistics(bridge)


def layer(inputs: int, outputs: int, gain: float = float(np.sqrt(2))) -> nn.Linear:
    """A linear layer with orthogonal weights and zero bias."""
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


class Agent(nn.Module):
    """Separate actor and critic MLPs over the flat observation."""

    def __init__(self, observations: int, actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer(observations, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, 1, 1.0)
        )
        self.actor = nn.Sequential(
            layer(observations, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, actions, 0.01)
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(
        self, obs: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """An action (sampled unless given), its log-probability, the entropy and the value."""
        dist = Categorical(logits=self.actor(obs))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def train(args: argparse.Namespace) -> Agent:
    """PPO with GAE, clipped surrogate and value losses, minibatch epochs and lr annealing."""
    torch.manual_seed(args.seed)
    envs = make_envs(args.env_id, args.num_envs)
    obs_size = int(np.prod(envs.single_observation_space.shape))
    agent = Agent(obs_size, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    n, steps = args.num_envs, args.num_steps
    batch = n * steps
    iterations = max(1, args.total_timesteps // batch)
    obs_buf = torch.zeros((steps, n, obs_size))
    act_buf = torch.zeros((steps, n), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((steps, n)) for _ in range(4))

    obs_np, _ = envs.reset(seed=args.seed)
    obs = torch.as_tensor(obs_np, dtype=torch.float32)
    done = torch.zeros(n)
    recent: list[float] = []
    began = time.perf_counter()
    for iteration in range(1, iterations + 1):
        for group in optimizer.param_groups:
            group["lr"] = args.learning_rate * (1.0 - (iteration - 1) / iterations)
        for t in range(steps):
            obs_buf[t], done_buf[t] = obs, done
            with torch.no_grad():
                action, logp, _, value = agent.act(obs)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs_np, reward, terminated, truncated, infos = envs.step(action.numpy())
            reward = torch.as_tensor(reward, dtype=torch.float32)
            # An episode cut off by the time limit is worth its final observation's value.
            cut = np.flatnonzero(truncated & ~terminated)
            if len(cut):
                final = torch.as_tensor(np.stack(infos["final_obs"][cut]), dtype=torch.float32)
                with torch.no_grad():
                    reward[cut] += args.gamma * agent.value(final)
            rew_buf[t] = reward
            obs = torch.as_tensor(obs_np, dtype=torch.float32)
            done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            if "episode" in infos:
                recent.extend(infos["episode"]["r"][infos["_episode"]].tolist())
        with torch.no_grad():
            advantages = torch.zeros((steps, n))
            last = torch.zeros(n)
            next_value, next_done = agent.value(obs), done
            for t in reversed(range(steps)):
                if t < steps - 1:
                    next_value, next_done = val_buf[t + 1], done_buf[t + 1]
                delta = rew_buf[t] + args.gamma * next_value * (1 - next_done) - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * (1 - next_done) * last
                advantages[t] = last
            returns = advantages + val_buf
        flat = (
            obs_buf.reshape(batch, obs_size),
            act_buf.reshape(batch),
            logp_buf.reshape(batch),
            advantages.reshape(batch),
            returns.reshape(batch),
        )
        minibatch = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            order = torch.randperm(batch)
            for start in range(0, batch, minibatch):
                idx = order[start : start + minibatch]
                b_obs, b_act, b_logp, b_adv, b_ret = (part[idx] for part in flat)
                _, logp, entropy, value = agent.act(b_obs, b_act)
                ratio = (logp - b_logp).exp()
                b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
                policy_loss = torch.max(
                    -b_adv * ratio, -b_adv * ratio.clamp(1 - args.clip, 1 + args.clip)
                ).mean()
                value_loss = 0.5 * ((value - b_ret) ** 2).mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        if recent and (iteration % max(1, iterations // 10) == 0 or iteration == iterations):
            print(
                f"iteration {iteration}/{iterations}: {iteration * batch:,} env steps, "
                f"mean episodic return {np.mean(recent[-200:]):+.4f} "
                f"({time.perf_counter() - began:.0f}s)",
                flush=True,
            )
    envs.close()
    return agent


def evaluate(env_id: str, policy: Any) -> np.ndarray:
    """One episode's return on each held-out seed; ``policy(obs)`` gives the batch's actions."""
    seeds = list(HELD_OUT_SEEDS)
    envs = to_gymnasium_vector(sekai.make_vec(env_id, len(seeds)))
    obs, _ = envs.reset(seed=seeds)
    totals = np.zeros(len(seeds))
    running = np.ones(len(seeds), dtype=bool)
    while running.any():
        obs, reward, terminated, truncated, _ = envs.step(policy(obs))
        totals += np.where(running, reward, 0.0)
        running &= ~(terminated | truncated)
    envs.close()
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="Trading-v0")
    parser.add_argument("--total-timesteps", type=int, default=400_000)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--num-steps", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a tiny run, to check it works")
    args = parser.parse_args()
    if args.quick:
        args.total_timesteps, args.num_envs, args.num_steps = 4096, 16, 128
    torch.set_num_threads(1)
    agent = train(args)

    def greedy(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = agent.actor(torch.as_tensor(obs, dtype=torch.float32))
        return logits.argmax(-1).numpy()

    rng = np.random.default_rng(0)
    actions = int(sekai.make(args.env_id).action_space.n)
    trained = evaluate(args.env_id, greedy)
    random = evaluate(args.env_id, lambda obs: rng.integers(0, actions, size=len(obs)))
    print(f"held-out seeds {HELD_OUT_SEEDS.start}-{HELD_OUT_SEEDS.stop - 1}, one episode each:")
    print(f"  PPO (greedy)  {trained.mean():+.4f} ± {trained.std():.4f}")
    print(f"  random        {random.mean():+.4f} ± {random.std():.4f}")
    print(f"PPO beats random: {'yes' if trained.mean() > random.mean() else 'no'}")


if __name__ == "__main__":
    main()
