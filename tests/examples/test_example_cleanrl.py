"""The CleanRL-style PPO example trains through ``to_gymnasium_vector``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("gymnasium")

pytestmark = pytest.mark.sb3  # CI's sb3 run selects them

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "cleanrl_ppo.py"
RESULT = re.compile(r"^  (PPO \(greedy\)|random)\s+([+-]\d+\.\d+) ± (\d+\.\d+)$", re.MULTILINE)


def _run(*args: str) -> tuple[str, dict[str, float]]:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )
    assert completed.returncode == 0, completed.stderr
    means = {name: float(mean) for name, mean, _ in RESULT.findall(completed.stdout)}
    return completed.stdout, means


def test_quick_run_trains_and_evaluates_both_policies() -> None:
    out, means = _run("--quick")
    assert "iteration 2/2: 4,096 env steps, mean episodic return" in out
    assert means.keys() == {"PPO (greedy)", "random"}
    assert re.search(r"^PPO beats random: (yes|no)$", out, re.MULTILINE)


@pytest.mark.slow
def test_default_run_beats_the_random_policy_on_held_out_seeds() -> None:
    out, means = _run()
    assert means["PPO (greedy)"] > means["random"] + 0.1, out
    assert "PPO beats random: yes" in out
