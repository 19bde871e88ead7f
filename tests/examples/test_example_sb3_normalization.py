"""``examples/sb3_normalization.py`` trains, saves, reloads and evaluates (``--quick``)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.sb3  # CI's sb3 run selects them

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sb3_normalization.py"


@pytest.mark.skipif(
    importlib.util.find_spec("stable_baselines3") is None
    or importlib.util.find_spec("torch") is None,
    reason="stable-baselines3 / torch are not installed (the sb3 extra)",
)
def test_sb3_normalization_quick(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLE), "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert len(lines) == 4
    assert re.fullmatch(
        r"trained PPO on to_sb3\(VecNormalizeObservation\(make_vec\('CartPole-v1', 4\)\)\): "
        r"1024 steps in \d+\.\ds",
        lines[0],
    )
    # 256 vector steps of 4 sub-envs, plus the 4 first observations of the reset
    assert lines[1] == (
        f"saved ppo_model.zip and observation_statistics.json (1028 samples) in {tmp_path}"
    )
    assert lines[2] == (
        "fresh stack with the loaded statistics: same normalised observations: yes "
        "(without them: no)"
    )
    match = re.fullmatch(r"loaded model, mean return over 10 episodes: (\d+\.\d)", lines[3])
    assert match and 1.0 <= float(match.group(1)) <= 500.0
    assert (tmp_path / "ppo_model.zip").stat().st_size > 0
    stats = json.loads((tmp_path / "observation_statistics.json").read_text())
    assert set(stats) == {"mean", "var", "count"} and stats["count"] == pytest.approx(
        1028.0 + 1e-4
    )  # the prior
    assert len(stats["mean"]) == 4 and np.all(np.array(stats["var"]) > 0)
