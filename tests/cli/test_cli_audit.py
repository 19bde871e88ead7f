"""The sekai command line, audited against the spec (§11): error paths and edge cases."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.cli import main
from sekai.core import Env, ResetResult, StepResult
from sekai.error import ResetRequired
from sekai.spaces import Box, Discrete

BENCH_LINE = re.compile(
    r"^(?P<id>\S+) \[(?P<label>[^\]]+)\]: (?P<total>[\d,]+) env steps in "
    r"(?P<secs>\d+\.\d\d)s = (?P<rate>[\d,]+|inf) steps/s$"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class ClosingEnv(Env[np.ndarray, np.intp]):
    """Records ``close()``; ``reset()`` raises when ``fail`` is set."""

    closed: list[str] = []  # noqa: RUF012
    fail = False

    def __init__(self) -> None:
        self.observation_space = Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = Discrete(2)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        if self.fail:
            raise ResetRequired("cannot reset today")
        return ResetResult(np.zeros(2, np.float32), {})

    def step(self, action: Any) -> Any:
        return StepResult(np.zeros(2, np.float32), 0.0, False, False, {})

    def close(self) -> None:
        ClosingEnv.closed.append(type(self).__name__)


class FailingResetEnv(ClosingEnv):
    fail = True


@pytest.fixture
def failing_env() -> Any:
    sekai.register("audit/FailingReset-v0", FailingResetEnv)
    ClosingEnv.closed.clear()
    try:
        yield "audit/FailingReset-v0"
    finally:
        sekai.deregister("audit/FailingReset-v0")


# --- main's error handling ------------------------------------------------------------------


def test_import_error_without_a_module_name_names_the_module(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `error: could not import <name>: <msg>`: an ImportError raised by hand has no .name;
    # <name> is then the module given with -m, not "None".
    (tmp_path / "audit_needs_extra.py").write_text("raise ImportError('needs the foo extra')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run(capsys, "-m", "audit_needs_extra", "list")
    assert (code, err) == (2, "error: could not import audit_needs_extra: needs the foo extra\n")


def test_import_error_of_a_dependency_names_the_dependency(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "audit_plugin_dep.py").write_text("import audit_missing_dependency_xyz\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run(capsys, "-m", "audit_plugin_dep", "list")
    assert code == 2
    assert err.startswith("error: could not import audit_missing_dependency_xyz: ")


def test_sekai_error_is_reported(capsys: pytest.CaptureFixture[str], failing_env: str) -> None:
    code, out, err = run(capsys, "check", failing_env)
    # check_env reports reset exceptions itself, so this is an ERROR line and exit 1.
    assert code == 1
    assert out == "ERROR: reset(seed=42) raised ResetRequired: cannot reset today\n"
    assert err == ""


# --- bench ----------------------------------------------------------------------------------


def test_bench_workers_checked_before_the_env_is_looked_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "bench", "NoSuchEnv-v0", "--workers", "2", "--mode", "sync")
    assert (code, err) == (2, "error: --workers applies to --mode proc or ray only\n")


def test_bench_closes_the_env_when_reset_fails(
    capsys: pytest.CaptureFixture[str], failing_env: str
) -> None:
    code, _, err = run(capsys, "bench", failing_env, "--steps", "10")
    assert (code, err) == (2, "error: cannot reset today\n")
    assert ClosingEnv.closed == ["FailingResetEnv"]


def test_bench_vector_closes_when_reset_fails(
    capsys: pytest.CaptureFixture[str], failing_env: str
) -> None:
    code, _, err = run(capsys, "bench", failing_env, "--steps", "10", "--num-envs", "2")
    assert code == 2 and err.startswith("error: ")
    assert ClosingEnv.closed == ["FailingResetEnv", "FailingResetEnv"]


def test_bench_survives_a_zero_duration(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sekai.cli

    monkeypatch.setattr(sekai.cli.time, "perf_counter", lambda: 12.5)
    code, out, _ = run(capsys, "bench", "CartPole-v1", "--steps", "5")
    match = BENCH_LINE.match(out.strip())
    assert code == 0 and match is not None
    assert (match["total"], match["secs"]) == ("5", "0.00")


def test_bench_warmup_and_timed_calls(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = ClosingEnv.step

    def counting_step(self: ClosingEnv, action: Any) -> Any:
        calls.append(1)
        return original(self, action)

    monkeypatch.setattr(ClosingEnv, "step", counting_step)
    sekai.register("audit/Counting-v0", ClosingEnv)
    try:
        for steps, warmup in ((50, 5), (2000, 100), (9, 0)):
            calls.clear()
            code, out, _ = run(capsys, "bench", "audit/Counting-v0", "--steps", str(steps))
            assert code == 0 and BENCH_LINE.match(out.strip())
            assert len(calls) == steps + warmup
    finally:
        sekai.deregister("audit/Counting-v0")


def test_bench_progress_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, "bench", "CartPole-v1", "--steps", "20")
    assert code == 0 and len(out.splitlines()) == 1 and "\r" not in out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run(capsys, "bench", "CartPole-v1", "--steps", "20")
    assert code == 0 and "\r" in out
    assert BENCH_LINE.match(out.splitlines()[-1])


# --- python -m sekai ------------------------------------------------------------------------


def test_python_dash_m_sekai() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sekai", "list", "--namespace", "audit-nowhere"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout) == (
        0,
        "No environments in namespace 'audit-nowhere'.\n",
    )
    result = subprocess.run(
        [sys.executable, "-m", "sekai"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2 and result.stderr.startswith("usage: sekai ")


def test_importing_dunder_main_does_not_run_the_cli() -> None:
    # Only `python -m sekai` runs the command line; importing the module does nothing.
    runpy.run_module("sekai.__main__", run_name="sekai_main_import")
