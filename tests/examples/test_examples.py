"""The example scripts run end to end (short versions)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(name: str, *args: str) -> str:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_finance_baselines_quick() -> None:
    out = _run("finance_baselines.py", "--quick")
    assert "Almgren" in out and "Avellaneda" in out


@pytest.mark.skipif(importlib.util.find_spec("PIL") is None, reason="needs the render extra")
def test_render_dashboards_writes_one_gif_per_env(tmp_path: Path) -> None:
    from PIL import Image

    out = _run("render_dashboards.py", "--quick", "--out", str(tmp_path), "--theme", "dark")
    ids = ["Market-v0", "MarketMaking-v0", "OptimalExecution-v0", "LimitOrderBook-v0"]
    for env_id in ids:
        assert f"{env_id}: " in out
        with Image.open(tmp_path / f"{env_id}.gif") as gif:
            assert gif.size == (640, 400)
            assert gif.n_frames >= 2  # identical consecutive frames may merge
