"""The quick recipes of ``benchmarks/learning.py``: each learnable id trains and beats random."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import sekai

pytestmark = pytest.mark.sb3

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = ROOT / "benchmarks" / "learning.py"

#: The learnable ids with a recipe, one line each.
LEARNABLE_IDS = [
    "OptimalExecution-v1",
    "MarketMaking-v1",
    "Portfolio-v1",
    "Trading-v1",
]

needs_sb3 = pytest.mark.skipif(
    importlib.util.find_spec("stable_baselines3") is None
    or importlib.util.find_spec("torch") is None,
    reason="stable-baselines3 / torch are not installed (the sb3 extra)",
)


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``benchmarks/learning.py ARGS`` with this interpreter, from the repository root."""
    return subprocess.run(
        [sys.executable, str(BENCHMARK), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT,
    )


@needs_sb3
@pytest.mark.parametrize("env_id", LEARNABLE_IDS)
def test_the_quick_recipe_beats_random(env_id: str, tmp_path: Path) -> None:
    completed = _run(env_id, "--quick", "--seed", "0", "--out", str(tmp_path), "--quiet")
    assert completed.returncode == 0, completed.stderr
    assert {"model.zip", "curve.json", "evaluation.json"} <= {p.name for p in tmp_path.iterdir()}
    evaluation = json.loads((tmp_path / "evaluation.json").read_text())
    rows = {row["name"]: row for row in evaluation["policies"]}
    algo = evaluation["algo"]
    vec = sekai.make_vec(env_id, 2)
    references = list(vec.reference_policies())
    vec.close()
    assert list(rows) == [f"{algo} (trained)", *references, "random"]
    assert evaluation["optimum"] in references
    assert rows[evaluation["optimum"]]["gap"] == 0.0 and rows["random"]["gap"] == 1.0
    assert evaluation["episodes"] == 200 and evaluation["eval_seeds"] == [10_000, 10_199]

    trained, random = rows[f"{algo} (trained)"], rows["random"]
    margin = 3 * math.hypot(trained["se"], random["se"])
    assert trained["mean"] > random["mean"] + margin, (trained, random)

    curve = json.loads((tmp_path / "curve.json").read_text())
    points = curve["points"]
    assert points[0]["steps"] == 0 and points[-1]["steps"] == evaluation["num_timesteps"]
    assert evaluation["num_timesteps"] >= evaluation["steps"]
    assert len(points) >= 3
    assert [p["steps"] for p in points] == sorted({p["steps"] for p in points})
    # the curve's last point is the final policy on the same seeds
    assert points[-1]["mean"] == trained["mean"] and points[-1]["gap"] == trained["gap"]

    lines = completed.stdout.splitlines()
    assert lines[0].startswith(f"{env_id}, {algo}, seed 0: {evaluation['num_timesteps']:,} steps")
    assert lines[1].split() == ["policy", "mean", "return", "std", "err", "gap"]
    assert lines[-1].startswith(
        f"gap = (optimum - policy) / (optimum - random); optimum: {evaluation['optimum']}"
    )


def test_an_id_without_a_recipe_is_refused() -> None:
    completed = _run("CartPole-v1", timeout=60)
    assert completed.returncode == 2
    assert completed.stdout.startswith("error: no recipe for 'CartPole-v1': recipes exist for ")
    assert "OptimalExecution-v1" in completed.stdout


def test_an_algorithm_without_a_recipe_is_refused() -> None:
    completed = _run("OptimalExecution-v1", "--algo", "sac", timeout=60)
    assert completed.returncode == 2
    assert completed.stdout == (
        "error: OptimalExecution-v1 has no sac recipe: its recipes are for ppo.\n"
    )
