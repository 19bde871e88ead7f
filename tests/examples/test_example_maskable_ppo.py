"""examples/maskable_ppo_lob.py: MaskablePPO on LimitOrderBook-v0 against a random masked policy."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the sb3 extra)")

pytestmark = pytest.mark.sb3  # CI's sb3 run selects them

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "maskable_ppo_lob.py"
RESULT = re.compile(r"^\s+(MaskablePPO|random masked policy).*?(-?\d+\.\d+) ± (\d+\.\d+)$")


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _results(stdout: str) -> dict[str, tuple[float, float]]:
    """``{"MaskablePPO": (mean, std), "random masked policy": (mean, std)}`` from the output."""
    found = {}
    for line in stdout.splitlines():
        match = RESULT.match(line)
        if match:
            found[match[1]] = (float(match[2]), float(match[3]))
    return found


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("maskable_ppo_lob", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_run_reports_both_policies_on_held_out_seeds() -> None:
    completed = _run("--quick")
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == "MaskablePPO on LimitOrderBook-v0: 2048 steps, 8 sub-envs, seed 0"
    assert "held-out seeds 10000..10003, one session each:" in lines
    results = _results(completed.stdout)
    assert set(results) == {"MaskablePPO", "random masked policy"}
    assert all(np.isfinite(mean) and std >= 0 for mean, std in results.values())
    assert lines[-1] in ("beats random: yes", "beats random: no")


def test_training_seeds_may_not_overlap_the_held_out_seeds() -> None:
    completed = _run("--seed", "9995")
    assert completed.returncode == 2
    assert "--seed 9995 overlaps the held-out seeds 10000..10029" in completed.stderr


def test_random_masked_policy_draws_only_allowed_values() -> None:
    example = _example()
    nvec = np.array([6, 6, 3])
    masks = np.zeros((2, 15), dtype=bool)
    masks[0, [0, 3, 6, 7, 13]] = True  # bid 0 or 3, ask 0 or 1, market order 1 only
    masks[1, [5, 11, 12, 14]] = True  # bid 5, ask 5, sell or buy
    act = example.random_masked_policy(nvec, seed=0)
    drawn = np.stack([act(None, masks) for _ in range(200)])
    assert drawn.shape == (200, 2, 3)
    assert set(drawn[:, 0, 0].tolist()) == {0, 3}
    assert set(drawn[:, 0, 1].tolist()) == {0, 1}
    assert set(drawn[:, 0, 2].tolist()) == {1}
    assert set(drawn[:, 1, 0].tolist()) == {5}
    assert set(drawn[:, 1, 1].tolist()) == {5}
    assert set(drawn[:, 1, 2].tolist()) == {0, 2}


def test_beats_needs_a_gap_of_two_standard_errors() -> None:
    example = _example()
    random = np.array([-10.0, 10.0, -10.0, 10.0])  # standard error of the mean 5.77
    assert example.beats(random + 20.0, random)  # gap 20 > 2 x 8.16
    assert not example.beats(random + 10.0, random)
    assert not example.beats(random - 20.0, random)


@pytest.mark.slow
def test_default_budget_beats_random_on_held_out_seeds() -> None:
    completed = _run(timeout=1800)
    assert completed.returncode == 0, completed.stderr
    results = _results(completed.stdout)
    assert results["MaskablePPO"][0] > results["random masked policy"][0]
    assert completed.stdout.splitlines()[-1] == "beats random: yes"
