"""``benchmarks/learning_plots.py``: the learning curves of several runs in one PNG."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.rendering import LIGHT

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("PIL") is None, reason="Pillow is not installed (the render extra)"
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "learning_plots.py"


def _curve(directory: Path, seed: int, gaps: list[float], env_id: str = "Demo-v1") -> Path:
    """A run directory with the ``curve.json`` that ``benchmarks/learning.py`` would write."""
    directory.mkdir()
    curve: dict[str, Any] = {
        "env_id": env_id,
        "algo": "ppo",
        "seed": seed,
        "episodes": 200,
        "optimum": "best",
        "references": {"best": -1.0, "naive": -1.5},
        "random": -6.0,
        "points": [
            {"steps": 512 * i, "mean": -1.0 - 5.0 * g, "se": 0.0, "gap": g}
            for i, g in enumerate(gaps)
        ],
    }
    (directory / "curve.json").write_text(json.dumps(curve))
    return directory


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )


def _pixels_near(image: np.ndarray, color: tuple[int, int, int]) -> int:
    return int((np.abs(image.astype(int) - np.array(color)).max(axis=-1) <= 8).sum())


def test_the_curves_of_several_seeds_are_drawn(tmp_path: Path) -> None:
    from PIL import Image

    runs = [
        _curve(tmp_path / "a", 0, [1.2, 0.3, 0.01, 0.0]),  # a gap of 0 sits on the lowest decade
        _curve(tmp_path / "b", 1, [1.0, 0.5, 0.02, -0.001]),
    ]
    out = tmp_path / "curves.png"
    completed = _run(*map(str, runs), "--out", str(out), "--width", "640", "--height", "320")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == f"2 curves of Demo-v1 drawn in {out}\n"
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (320, 640, 3)
    assert tuple(image[0, 0]) == LIGHT.background
    for slot in (0, 1):
        assert _pixels_near(image, LIGHT.color(slot)) > 100
    assert _pixels_near(image, LIGHT.color(2)) == 0  # two runs, two colours
    again = tmp_path / "again.png"
    _run(*map(str, runs), "--out", str(again), "--width", "640", "--height", "320")
    assert again.read_bytes() == out.read_bytes()


def test_runs_of_different_ids_are_refused(tmp_path: Path) -> None:
    runs = [
        _curve(tmp_path / "a", 0, [1.0, 0.1]),
        _curve(tmp_path / "b", 0, [1.0, 0.1], env_id="Other-v1"),
    ]
    completed = _run(*map(str, runs), "--out", str(tmp_path / "x.png"))
    assert completed.returncode == 2
    assert completed.stdout == "error: the runs must share one env id, got Demo-v1, Other-v1.\n"
    assert not (tmp_path / "x.png").exists()
