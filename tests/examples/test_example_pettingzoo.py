"""examples/pettingzoo_market.py runs end to end (``--quick``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (the pettingzoo extra)")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "pettingzoo_market.py"


def test_pettingzoo_market_quick() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == (
        "LimitOrderBookMarket as a PettingZoo ParallelEnv: "
        "agents ['trader_0', 'trader_1', 'trader_2']"
    )
    rows = [line.split() for line in lines if line.startswith("      0  trader_")]
    assert [row[1] for row in rows] == ["trader_0", "trader_1", "trader_2"]
    assert [" ".join(row[2:-5]) for row in rows] == ["market maker", "momentum taker", "random"]
    for row in rows:
        fills, inventory = int(row[-4]), int(row[-3])
        assert fills >= 0 and abs(inventory) <= 20  # the market's default max_inventory
    assert "Staggered turns, decision_intervals [1.0, 1.0, 2.5]" in completed.stdout
    # 30 time units: decisions at 0, 1, ..., 29, and at 0, 2.5, ..., 27.5 for the slow trader
    decisions = re.findall(r"^  (trader_\d) decided (\d+) times", completed.stdout, re.MULTILINE)
    assert decisions == [("trader_0", "30"), ("trader_1", "30"), ("trader_2", "12")]
