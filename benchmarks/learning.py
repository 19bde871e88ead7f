"""Train a Stable-Baselines3 learner on a learnable finance id with its recipe; measure the gap.

The recipe of ``ENV_ID`` (``RECIPES``: the algorithm, its hyperparameters, VecNormalize or
not, the number of steps) trains on ``sekai.compat.to_sb3(sekai.make_vec(ENV_ID, 16))``, the
native vector env, with one torch thread. Written to ``--out``: ``model.zip``,
``vecnormalize.pkl`` when the recipe normalises, ``curve.json`` (the deterministic policy
evaluated before training, every ``--eval-every`` steps and at the end) and
``evaluation.json`` (the final table).

Evaluation: one episode per seed ``10000, 10001, ...`` (``--eval-episodes`` of them), all at
once on the native vector env with autoreset off, each sub-env's rewards summed until every
episode is done. Evaluated are the trained policy (deterministic), every reference policy of
``reference_policies()`` and a uniformly random policy (its action space seeded with
``RANDOM_SEED``). The table gives each policy's mean return, its standard error and its gap
``(optimum - policy) / (optimum - random)``, the optimum being the best reference policy: 0 %
is as good as the optimum, 100 % as bad as random.

Usage: ``python benchmarks/learning.py ENV_ID [--algo ppo|sac] [--steps N] [--seed S]
[--out DIR] [--eval-episodes 200] [--eval-every N] [--quick] [--quiet]``. ``--quick`` trains
for the recipe's ``quick_steps`` (the smoke test of the test suite); ``--quiet`` hides the
progress bar. Plot the curves of several runs with ``benchmarks/learning_plots.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import sekai
from sekai.utils.progress import Progress

__all__ = [
    "EVAL_SEED",
    "RANDOM_SEED",
    "RECIPES",
    "Recipe",
    "evaluate",
    "evaluation_env",
    "gap",
    "main",
    "recipe_for",
]

#: The first evaluation seed: episode ``i`` is reset with ``EVAL_SEED + i``.
EVAL_SEED = 10_000
#: The seed of the random policy's action space (the same whatever the training seed).
RANDOM_SEED = 0

Policy = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class Recipe:
    """How to train on one id with one algorithm.

    ``hyperparameters`` go to the SB3 constructor as they are (``policy_kwargs`` included);
    ``normalize``: None for no normalisation, else the keyword arguments of SB3's
    ``VecNormalize`` wrapped around the training env; ``env_kwargs``: constructor options of
    the training env only (evaluation always uses the registered id as it is); ``steps``: the
    training steps of a full run, ``quick_steps`` those of ``--quick``.
    """

    algo: str
    steps: int
    quick_steps: int
    hyperparameters: Mapping[str, Any]
    normalize: Mapping[str, Any] | None = None
    env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    num_envs: int = 16
    policy: str = "MlpPolicy"


#: The recipes, by id and algorithm (the first algorithm of an id is its default).
RECIPES: dict[str, dict[str, Recipe]] = {
    "OptimalExecution-v1": {
        "ppo": Recipe(
            algo="ppo",
            steps=500_000,
            quick_steps=16_384,
            hyperparameters={
                "n_steps": 128,
                "batch_size": 256,
                "n_epochs": 10,
                "learning_rate": 3e-4,
                "gamma": 1.0,
                "gae_lambda": 0.95,
            },
        ),
    },
    "MarketMaking-v1": {
        "ppo": Recipe(
            algo="ppo",
            steps=1_000_000,
            quick_steps=16_384,
            hyperparameters={"n_steps": 128, "batch_size": 256, "gamma": 1.0},
        ),
    },
    "Portfolio-v1": {
        # gSDE keeps the exploration noise fixed over a rollout and the linear policy cannot
        # churn: per-step noise pays rebalancing costs every step and drives PPO to cash.
        "ppo": Recipe(
            algo="ppo",
            steps=150_000,
            quick_steps=16_384,
            hyperparameters={
                "n_steps": 128,
                "use_sde": True,
                "policy_kwargs": {"log_std_init": -3.0, "net_arch": []},
            },
            policy="MultiInputPolicy",
        ),
    },
    "Trading-v1": {
        "ppo": Recipe(
            algo="ppo",
            steps=300_000,
            quick_steps=16_384,
            hyperparameters={"n_steps": 128},
        ),
    },
}

ALGORITHMS = ("ppo", "sac")


def recipe_for(env_id: str, algo: str | None) -> Recipe:
    """The recipe of ``env_id`` for ``algo`` (None: the id's default); ``ValueError`` if none."""
    known = [name for name, recipes in RECIPES.items() if recipes]
    if env_id not in RECIPES:
        raise ValueError(f"no recipe for {env_id!r}: recipes exist for {', '.join(known)}.")
    recipes = RECIPES[env_id]
    if not recipes:
        raise ValueError(
            f"{env_id} has no recipe yet: fill its entry of RECIPES in benchmarks/learning.py "
            f"(recipes exist for {', '.join(known)})."
        )
    if algo is None:
        return next(iter(recipes.values()))
    if algo not in recipes:
        raise ValueError(
            f"{env_id} has no {algo} recipe: its recipes are for {', '.join(recipes)}."
        )
    return recipes[algo]


# --- evaluation ---------------------------------------------------------------------------------


def evaluation_env(env_id: str, episodes: int) -> Any:
    """The native vector env of ``episodes`` sub-envs, autoreset off, that evaluations use."""
    return sekai.make_vec(
        env_id, episodes, vectorization_mode="native", vector_kwargs={"autoreset": False}
    )


def evaluate(
    vec: Any, policy: Policy | None, *, first_seed: int = EVAL_SEED
) -> NDArray[np.float64]:
    """The return of one episode per sub-env of ``vec`` (from ``evaluation_env``) under
    ``policy``, sub-env ``i`` reset with the seed ``first_seed + i``.

    ``policy`` maps the batch of observations to a batch of actions; None plays uniformly
    random actions (the batch action space seeded with ``RANDOM_SEED`` first). A finished
    sub-env is frozen (its rewards 0) until every one is done.
    """
    space = vec.batch_action_space
    space.seed(RANDOM_SEED)
    result: Any = vec.reset(seed=list(range(first_seed, first_seed + vec.num_envs)))
    returns = np.zeros(vec.num_envs)
    while not result.dones.all():
        actions = space.sample() if policy is None else policy(result.observations)
        result = vec.step(actions)
        returns += result.rewards
    return returns


def gap(value: float, optimum: float, random: float) -> float:
    """``(optimum - value) / (optimum - random)``: 0 at the optimum, 1 at random."""
    return (optimum - value) / (optimum - random)


def _summary(returns: NDArray[np.float64]) -> tuple[float, float]:
    """Mean and its standard error."""
    n = len(returns)
    se = float(np.std(returns, ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return float(np.mean(returns)), se


# --- training -----------------------------------------------------------------------------------


def _algorithm_class(algo: str) -> Any:
    from stable_baselines3 import PPO, SAC

    return {"ppo": PPO, "sac": SAC}[algo]


def _trained_policy(model: Any, train_env: Any, num_envs: int) -> Policy:
    """The deterministic policy of ``model`` on batches of ``num_envs`` sekai observations.

    They go through the training adapter's observation flattener and, if ``train_env`` is a
    ``VecNormalize``, its observation normalisation (which never updates the statistics).
    """
    from stable_baselines3.common.vec_env import VecNormalize

    normalizer = train_env if isinstance(train_env, VecNormalize) else None
    flattener = (train_env.venv if normalizer is not None else train_env).observation_flattener

    def policy(observations: Any) -> Any:
        batch = observations if flattener is None else flattener.batch(observations, num_envs)
        if normalizer is not None:
            batch = normalizer.normalize_obs(batch)
        actions, _ = model.predict(batch, deterministic=True)
        return actions

    return policy


@dataclasses.dataclass
class Baselines:
    """The returns the gap is measured against, and the id's reference results."""

    references: dict[str, NDArray[np.float64]]
    random: NDArray[np.float64]

    @property
    def optimum_name(self) -> str:
        return max(self.references, key=lambda name: float(np.mean(self.references[name])))

    @property
    def optimum(self) -> float:
        return float(np.mean(self.references[self.optimum_name]))

    def gap(self, returns: NDArray[np.float64]) -> float:
        return gap(float(np.mean(returns)), self.optimum, float(np.mean(self.random)))


def _curve_callback(
    vec: Any, policy: Policy, every: int, baselines: Baselines, progress: Progress
) -> Any:
    """A callback that evaluates ``policy`` on ``vec`` before training, at the start of the
    first rollout after every ``every`` steps, and at the end; it counts the steps on
    ``progress``."""
    from stable_baselines3.common.callbacks import BaseCallback

    total = progress.total or 0

    class Curve(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.points: list[dict[str, float]] = []
            self.next_at = 0
            self.eval_seconds = 0.0

        def _evaluate(self) -> None:
            start = time.perf_counter()
            returns = evaluate(vec, policy)
            self.eval_seconds += time.perf_counter() - start
            mean, se = _summary(returns)
            self.points.append(
                {"steps": self.num_timesteps, "mean": mean, "se": se, "gap": baselines.gap(returns)}
            )
            self.next_at = self.num_timesteps + every

        def _on_training_start(self) -> None:
            self._evaluate()

        def _on_rollout_start(self) -> None:
            if self.num_timesteps >= self.next_at:
                self._evaluate()

        def _on_step(self) -> bool:
            progress.update(min(self.num_timesteps, total) - progress.done)
            return True

        def _on_training_end(self) -> None:
            if self.points[-1]["steps"] != self.num_timesteps:
                self._evaluate()

    return Curve()


def train(
    env_id: str,
    recipe: Recipe,
    *,
    steps: int,
    seed: int,
    out: Path,
    vec: Any,
    every: int,
    baselines: Baselines,
    quiet: bool = False,
) -> tuple[Policy, list[dict[str, float]], float]:
    """Train with ``recipe``; save the model (and the normalisation statistics) in ``out``.

    Returns the trained deterministic policy (for batches of observations of the evaluation
    env ``vec``), the learning curve and the training seconds (the curve's evaluations left out).
    """
    import torch

    from sekai.compat import to_sb3

    torch.set_num_threads(1)
    train_env: Any = to_sb3(sekai.make_vec(env_id, recipe.num_envs, **recipe.env_kwargs))
    if recipe.normalize is not None:
        from stable_baselines3.common.vec_env import VecNormalize

        train_env = VecNormalize(train_env, **recipe.normalize)
    model = _algorithm_class(recipe.algo)(
        recipe.policy, train_env, seed=seed, device="cpu", verbose=0, **recipe.hyperparameters
    )
    policy = _trained_policy(model, train_env, vec.num_envs)
    with Progress(steps, f"{env_id} {recipe.algo} seed {seed}", enabled=not quiet) as progress:
        callback = _curve_callback(vec, policy, every, baselines, progress)
        start = time.perf_counter()
        model.learn(total_timesteps=steps, callback=callback)
        seconds = time.perf_counter() - start - callback.eval_seconds
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "model.zip")
    if recipe.normalize is not None:
        train_env.save(str(out / "vecnormalize.pkl"))
    train_env.close()
    return policy, callback.points, seconds


# --- the command ----------------------------------------------------------------------------


def _table(rows: Sequence[tuple[str, float, float, float]], optimum: str) -> str:
    """The results table: policy, mean return, standard error, gap."""
    lines = [f"{'policy':<24}{'mean return':>14}{'std err':>12}{'gap':>12}"]
    for name, mean, se, g in rows:
        mark = "  (optimum)" if name == optimum else ""
        # rounding noise of a return that is the same in every episode reads as 0
        error = "0" if se <= 1e-12 * max(1.0, abs(mean)) else f"{se:.3g}"
        lines.append(f"{name:<24}{mean:>14.6g}{error:>12}{100 * g:>11.3f}%{mark}")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("env_id", help="a learnable id with a recipe, e.g. OptimalExecution-v1")
    parser.add_argument("--algo", choices=ALGORITHMS, help="default: the id's first recipe")
    parser.add_argument("--steps", type=int, help="training steps (default: the recipe's)")
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    parser.add_argument("--out", type=Path, help="default: learning-runs/ID-ALGO-seedS")
    parser.add_argument("--eval-episodes", type=int, default=200, help="default 200")
    parser.add_argument(
        "--eval-every", type=int, help="steps between curve points (default: steps / 20)"
    )
    parser.add_argument("--quick", action="store_true", help="train for the recipe's quick_steps")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        recipe = recipe_for(args.env_id, args.algo)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    steps = args.steps
    if steps is None:
        steps = recipe.quick_steps if args.quick else recipe.steps
    every = args.eval_every
    if every is None:
        every = max(1, steps // (4 if args.quick else 20))
    if min(steps, every, args.eval_episodes) < 1:
        print("error: --steps, --eval-every and --eval-episodes must be positive.")
        return 2
    out = args.out or Path("learning-runs") / f"{args.env_id}-{recipe.algo}-seed{args.seed}"
    episodes = args.eval_episodes

    vec = evaluation_env(args.env_id, episodes)
    try:
        references = {
            name: evaluate(vec, policy) for name, policy in vec.reference_policies().items()
        }
        baselines = Baselines(references, evaluate(vec, None))
        policy, points, seconds = train(
            args.env_id,
            recipe,
            steps=steps,
            seed=args.seed,
            out=out,
            vec=vec,
            every=every,
            baselines=baselines,
            quiet=args.quiet,
        )
        trained = evaluate(vec, policy)
    finally:
        vec.close()

    optimum = baselines.optimum_name
    rows = [(f"{recipe.algo} (trained)", trained)]
    rows += list(references.items())
    rows.append(("random", baselines.random))
    table = [(name, *_summary(returns), baselines.gap(returns)) for name, returns in rows]
    meta = {
        "env_id": args.env_id,
        "algo": recipe.algo,
        "seed": args.seed,
        "steps": steps,
        "num_timesteps": int(points[-1]["steps"]),
        "train_seconds": round(seconds, 2),
        "episodes": episodes,
        "eval_seeds": [EVAL_SEED, EVAL_SEED + episodes - 1],
        "random_seed": RANDOM_SEED,
        "recipe": dataclasses.asdict(recipe),
        "optimum": optimum,
        "sekai": sekai.__version__,
    }
    evaluation = {
        **meta,
        "policies": [
            {"name": name, "mean": mean, "se": se, "gap": g} for name, mean, se, g in table
        ],
    }
    curve = {
        **meta,
        "references": {name: float(np.mean(r)) for name, r in references.items()},
        "random": float(np.mean(baselines.random)),
        "points": points,
    }
    (out / "evaluation.json").write_text(json.dumps(evaluation, indent=2) + "\n")
    (out / "curve.json").write_text(json.dumps(curve, indent=2) + "\n")

    print(
        f"{args.env_id}, {recipe.algo}, seed {args.seed}: {meta['num_timesteps']:,} steps, "
        f"trained in {seconds:.1f}s; {episodes} episodes (seeds {EVAL_SEED}-"
        f"{EVAL_SEED + episodes - 1})"
    )
    print(_table(table, optimum))
    print(
        f"gap = (optimum - policy) / (optimum - random); optimum: {optimum}, the best reference "
        f"policy. Saved in {out}."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
