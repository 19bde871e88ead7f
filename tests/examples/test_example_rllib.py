"""The RLlib example names a sekai env through gymnasium's registry and trains on it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="needs RLlib (pip install 'ray[rllib]')")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"


def test_quick_run_trains_two_iterations_in_env_runner_processes() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    lines = re.findall(
        r"^iteration (\d)/2: +([\d,]+) env steps, mean episode return +(\d+\.\d)",
        completed.stdout,
        re.MULTILINE,
    )
    assert [line[0] for line in lines] == ["1", "2"]
    assert all(float(mean) > 0 for *_, mean in lines)  # CartPole pays +1 per step
