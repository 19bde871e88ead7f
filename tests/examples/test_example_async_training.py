"""examples/async_training.py: a learner on send / recv that survives killed workers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "async_training.py"


def test_quick_run_keeps_training_through_killed_workers() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    done = re.search(r"^done: ([\d,]+) env steps, (\d+) episodes, (\d+) updates", out, re.M)
    assert done is not None, out
    assert int(done[1].replace(",", "")) > 0 and int(done[3]) >= 1
    healed = re.search(r"^workers killed (\d+), restarts (\d+), episodes truncated", out, re.M)
    assert healed is not None, out
    kills, restarts = int(healed[1]), int(healed[2])
    assert kills >= 1 and restarts >= 1, out
