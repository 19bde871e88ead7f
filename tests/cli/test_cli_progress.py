"""The progress bars of ``sekai bench`` and ``sekai check``: on a terminal only, off with
``--quiet``, and never a change to what is printed on stdout."""

from __future__ import annotations

import io
import re
import sys

import pytest

from sekai.cli import main

BENCH_LINE = re.compile(
    r"^CartPole-v1 \[single env\]: 200 env steps in \d+\.\d\ds = ([\d,]+|inf) steps/s\n$"
)
ELAPSED = r"\d+:\d\d"


class FakeTTY(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str
) -> tuple[int, str, str]:
    """Run the CLI with a terminal on stderr; return the status, stdout and the terminal's text."""
    terminal = FakeTTY()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", terminal)
        code = main(list(argv))
    return code, capsys.readouterr().out, terminal.getvalue()


def final_line(terminal: str) -> str:
    """The line the bar left: its last drawing, ended by a newline."""
    assert terminal.startswith("\r") and terminal.endswith("\n")
    return terminal.rsplit("\r", 1)[1].rstrip(" \n")


def test_bench_draws_on_the_terminal_and_keeps_stdout(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, terminal = run(capsys, monkeypatch, "bench", "CartPole-v1", "--steps", "200")
    assert code == 0 and BENCH_LINE.match(out)
    assert re.fullmatch(rf"CartPole-v1 \[#{{30}}\] 200/200 100% {ELAPSED}", final_line(terminal))
    assert terminal.split("\r")[1].startswith(f"CartPole-v1 [{'-' * 30}] 0/200   0% ")


def test_bench_quiet(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, terminal = run(
        capsys, monkeypatch, "bench", "CartPole-v1", "--steps", "200", "--quiet"
    )
    assert code == 0 and BENCH_LINE.match(out) and terminal == ""


def test_bench_vectorised_counts_calls(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, terminal = run(
        capsys, monkeypatch, "bench", "Pendulum-v1", "--steps", "7", "--num-envs", "2"
    )
    assert code == 0 and out.startswith("Pendulum-v1 [SyncVecEnv x2]: 14 env steps in ")
    assert re.fullmatch(rf"Pendulum-v1 \[#{{30}}\] 7/7 100% {ELAPSED}", final_line(terminal))


def test_check_draws_the_env_steps(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ("check", "Pendulum-v1", "--steps", "60", "--determinism")
    code, out, terminal = run(capsys, monkeypatch, *argv)
    assert (code, out) == (0, "Pendulum-v1: all checks passed.\n")
    # 60 rollout steps and two determinism rollouts of 50
    assert re.fullmatch(rf"Pendulum-v1 \[#{{30}}\] 160/160 100% {ELAPSED}", final_line(terminal))


def test_check_quiet(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ("check", "Pendulum-v1", "--steps", "60", "--quiet")
    code, out, terminal = run(capsys, monkeypatch, *argv)
    assert (code, out, terminal) == (0, "Pendulum-v1: all checks passed.\n", "")


def test_check_prints_the_same_issues_with_and_without_a_bar(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ("check", "MountainCar-v0", "--steps", "30", "--strict")
    quiet = run(capsys, monkeypatch, *argv, "--quiet")
    drawn = run(capsys, monkeypatch, *argv)
    assert drawn[:2] == quiet[:2] and quiet[2] == "" and drawn[2] != ""


def test_no_bar_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "Pendulum-v1", "--steps", "20"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("Pendulum-v1: all checks passed.\n", "")


def test_quiet_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("bench", "check"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--quiet" in capsys.readouterr().out
