"""Train Stable-Baselines3 PPO on normalised observations, save it, load it and evaluate.

The training stack is ``to_sb3(sekai.VecNormalizeObservation(sekai.make_vec(env_id, 4)))``.
After training, the model is saved with ``model.save`` and, next to it, the normaliser's
``state_dict()`` as JSON (a data format: loading it runs no code, unlike a pickle). A fresh
stack then loads both, with the statistics frozen (``update_running_mean = False``), gives the
same normalised observations as the trained stack, and is evaluated on the episodes the
adapter reports in ``info["episode"]``.

Needs the ``sb3`` extra (``pip install -e ".[sb3]"`` in a sekai checkout). Run
``python examples/sb3_normalization.py`` (about a minute on two CPU cores; ``--quick`` for a
short smoke run, ``--out DIR`` to keep the files).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import sekai
from sekai.compat import to_sb3
from sekai.spaces.utils import batch_space

try:
    import torch
    from stable_baselines3 import PPO
except ImportError as exc:
    raise SystemExit(
        f"This example needs stable-baselines3: pip install stable-baselines3 ({exc})"
    ) from exc

NUM_ENVS = 4


def jsonable(state: Any) -> Any:
    """A normaliser ``state_dict()`` as plain JSON values (arrays become lists)."""
    if isinstance(state, dict):
        return {str(key): jsonable(value) for key, value in state.items()}
    if isinstance(state, list | tuple):
        return [jsonable(value) for value in state]
    if isinstance(state, np.ndarray):
        return state.tolist()
    if isinstance(state, np.generic):
        return state.item()
    if state is None or isinstance(state, bool | int | float | str):
        return state
    raise TypeError(f"Cannot write {type(state).__name__} to JSON: expected arrays and numbers.")


def normalized_stack(env_id: str) -> sekai.VecNormalizeObservation[Any, Any]:
    """``VecNormalizeObservation`` over ``NUM_ENVS`` sub-envs of ``env_id``."""
    return sekai.VecNormalizeObservation(sekai.make_vec(env_id, NUM_ENVS))


def same_observations(
    a: sekai.VecNormalizeObservation[Any, Any], b: sekai.VecNormalizeObservation[Any, Any]
) -> bool:
    """Whether ``a`` and ``b`` normalise the same seeded episodes identically (30 steps)."""
    equal = np.array_equal(a.reset(seed=7).observations, b.reset(seed=7).observations)
    actions = batch_space(a.action_space, NUM_ENVS)
    actions.seed(0)
    for _ in range(30):
        batch = actions.sample()
        equal &= np.array_equal(a.step(batch).observations, b.step(batch).observations)
    return bool(equal)


def evaluate(model: PPO, env_id: str, stats: Any, episodes: int) -> list[float]:
    """Returns of ``episodes`` deterministic episodes on a fresh stack with ``stats`` loaded."""
    venv = normalized_stack(env_id)
    venv.load_state_dict(stats)
    venv.update_running_mean = False
    vec = to_sb3(venv)
    vec.seed(123)
    obs = vec.reset()
    returns: list[float] = []
    while len(returns) < episodes:
        actions, _ = model.predict(obs, deterministic=True)
        obs, _, dones, infos = vec.step(actions)
        returns.extend(infos[i]["episode"]["r"] for i in np.flatnonzero(dones))
    vec.close()
    return returns[:episodes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a very short training run")
    parser.add_argument("--env", default="CartPole-v1", help="a sekai env id (default CartPole-v1)")
    parser.add_argument("--out", type=Path, default=None, help="where to save (default: temp)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    timesteps = 1_024 if args.quick else 50_000
    out = args.out or Path(tempfile.mkdtemp(prefix="sekai_sb3_"))
    out.mkdir(parents=True, exist_ok=True)

    train_venv = normalized_stack(args.env)
    start = time.perf_counter()
    model = PPO(
        "MlpPolicy",
        to_sb3(train_venv),
        n_steps=128,
        batch_size=128,
        n_epochs=10,
        gamma=0.98,
        seed=args.seed,
        device="cpu",
    )
    model.learn(total_timesteps=timesteps)
    name = f"to_sb3(VecNormalizeObservation(make_vec({args.env!r}, {NUM_ENVS})))"
    print(f"trained PPO on {name}: {timesteps} steps in {time.perf_counter() - start:.1f}s")

    model_path, stats_path = out / "ppo_model.zip", out / "observation_statistics.json"
    model.save(model_path)
    train_venv.update_running_mean = False  # the statistics as saved, from now on
    stats_path.write_text(json.dumps(jsonable(train_venv.state_dict())))
    count = train_venv.state_dict()["count"]
    print(f"saved {model_path.name} and {stats_path.name} ({count:.0f} samples) in {out}")

    loaded_stats = json.loads(stats_path.read_text())
    fresh = normalized_stack(args.env)
    fresh.load_state_dict(loaded_stats)
    fresh.update_running_mean = False
    unloaded = normalized_stack(args.env)
    unloaded.update_running_mean = False
    print(
        "fresh stack with the loaded statistics: same normalised observations: "
        f"{'yes' if same_observations(train_venv, fresh) else 'no'} "
        f"(without them: {'yes' if same_observations(train_venv, unloaded) else 'no'})"
    )

    loaded_model = PPO.load(model_path, device="cpu")
    returns = evaluate(loaded_model, args.env, loaded_stats, episodes=10)
    print(f"loaded model, mean return over {len(returns)} episodes: {np.mean(returns):.1f}")


if __name__ == "__main__":
    main()
