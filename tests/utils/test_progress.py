"""``Progress``: the rendered line, throttled redraws, quiet off a terminal, clean close; and
the progress hook of ``check_env``."""

from __future__ import annotations

import io
import sys
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.utils import Progress
from sekai.utils import progress as progress_module

BAR = 30


class FakeTTY(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def frames(stream: io.StringIO) -> list[str]:
    """The successive drawings of the line (the text between carriage returns)."""
    return stream.getvalue().split("\r")[1:]


def make(total: int | None = 10, label: str = "work", **kwargs: Any) -> tuple[Progress, Any, Any]:
    stream, clock = FakeTTY(), Clock()
    return Progress(total, label, stream=stream, clock=clock, **kwargs), stream, clock


# --- the line --------------------------------------------------------------------------------


def test_first_frame_is_drawn_at_once() -> None:
    bar, stream, _ = make()
    assert stream.getvalue() == f"\rwork [{'-' * BAR}] 0/10   0% 0:00 eta -:--"
    assert bar.active


def test_line_has_bar_count_percent_elapsed_and_eta() -> None:
    bar, stream, clock = make(total=1000)
    clock.now += 3.0
    bar.update(300)
    assert frames(stream)[-1] == f"work [{'#' * 9}{'-' * 21}] 300/1,000  30% 0:03 eta 0:07"


def test_close_leaves_the_final_line_without_eta() -> None:
    bar, stream, clock = make(total=4)
    clock.now += 65.0
    bar.update(4)
    stream.truncate(0)
    stream.seek(0)
    bar.close()
    final = f"work [{'#' * BAR}] 4/4 100% 1:05"
    # padded over the longer line before it, then ended
    assert stream.getvalue() == "\r" + final + " " * len(" eta 0:00") + "\n"


def test_close_without_leave_erases_the_line() -> None:
    bar, stream, _ = make(leave=False)
    drawn = len(frames(stream)[-1])
    bar.close()
    assert stream.getvalue().endswith("\r" + " " * drawn + "\r")


def test_unknown_total_shows_a_count() -> None:
    bar, stream, clock = make(total=None, label="")
    clock.now += 3725.0
    bar.update(12345)
    assert frames(stream)[-1] == "12,345 1:02:05"


def test_total_set_later_and_overshoot_clamps_the_bar() -> None:
    bar, stream, clock = make(total=None)
    bar.total = 2
    assert bar.total == 2
    clock.now += 1.0
    bar.update(3)
    assert frames(stream)[-1] == f"work [{'#' * BAR}] 3/2 100% 0:01 eta 0:00"


def test_zero_total_is_full() -> None:
    _, stream, _ = make(total=0)
    assert frames(stream)[-1] == f"work [{'#' * BAR}] 0/0 100% 0:00 eta 0:00"


def test_width_sets_the_bar() -> None:
    bar, stream, clock = make(total=4, width=4)
    clock.now += 1.0
    bar.update(1)
    assert frames(stream)[-1] == "work [#---] 1/4  25% 0:01 eta 0:03"


def test_line_is_cut_to_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class SizedTTY(FakeTTY):
        def fileno(self) -> int:
            return 99

    def size(fd: int) -> Any:
        assert fd == 99
        return type("Size", (), {"columns": 21})()

    monkeypatch.setattr(progress_module.os, "get_terminal_size", size)
    stream = SizedTTY()
    Progress(10, "work", stream=stream, clock=Clock())
    assert stream.getvalue() == "\rwork [" + "-" * 14  # 20 characters: one column spare


def test_done_elapsed_and_repr() -> None:
    bar, _, clock = make()
    bar.update(2)
    bar.update(np.int64(3))
    clock.now += 1.5
    assert (bar.done, bar.elapsed) == (5, 1.5)
    assert repr(bar) == "Progress(total=10, label='work', done=5)"


# --- throttling ------------------------------------------------------------------------------


def test_redraws_at_most_once_per_interval() -> None:
    bar, stream, clock = make(total=100, interval=0.125)
    for _ in range(50):
        bar.update()
    assert len(frames(stream)) == 1  # only the first frame: the clock has not moved
    clock.now += 0.0625
    bar.update()
    assert len(frames(stream)) == 1
    clock.now += 0.0625  # one interval after the first frame
    bar.update()
    assert len(frames(stream)) == 2 and " 52/100 " in frames(stream)[-1]
    clock.now += 0.0625
    bar.update()
    assert len(frames(stream)) == 2
    clock.now += 0.0625
    bar.update()
    assert len(frames(stream)) == 3 and " 54/100 " in frames(stream)[-1]


def test_interval_zero_redraws_every_update() -> None:
    bar, stream, _ = make(interval=0)
    for _ in range(3):
        bar.update()
    assert len(frames(stream)) == 4


# --- quiet -----------------------------------------------------------------------------------


def test_no_output_off_a_terminal() -> None:
    stream = io.StringIO()
    with Progress(10, "work", stream=stream) as bar:
        bar.update(10)
    assert stream.getvalue() == "" and not bar.active and bar.done == 10


def test_no_output_when_disabled() -> None:
    stream = FakeTTY()
    with Progress(10, "work", stream=stream, enabled=False) as bar:
        bar.update(3)
    assert stream.getvalue() == "" and not bar.active and bar.done == 3


def test_default_stream_is_stderr_then_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = FakeTTY(), FakeTTY()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    Progress(1, "a").close()
    assert err.getvalue().startswith("\ra [") and out.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    Progress(1, "b").close()
    assert out.getvalue().startswith("\rb [")
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    bar = Progress(1, "c")
    bar.close()
    assert not bar.active and sys.stdout.getvalue() == sys.stderr.getvalue() == ""


def test_closed_stream_is_no_terminal() -> None:
    stream = FakeTTY()
    stream.close()
    assert not Progress(1, stream=stream).active


def test_failing_writes_stop_the_drawing_not_the_work() -> None:
    class Broken(FakeTTY):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    bar = Progress(10, "work", stream=Broken(), interval=0)
    assert not bar.active
    bar.update(5)
    bar.close()
    assert bar.done == 5


# --- closing ---------------------------------------------------------------------------------


def test_close_on_exception_finishes_the_line() -> None:
    stream, clock = FakeTTY(), Clock()
    with (
        pytest.raises(RuntimeError, match="boom"),
        Progress(10, "work", stream=stream, clock=clock) as bar,
    ):
        bar.update(4)
        raise RuntimeError("boom")
    # the last drawn frame was the first one: the final line pads over its " eta -:--"
    assert stream.getvalue().endswith(
        f"\rwork [{'#' * 12}{'-' * 18}] 4/10  40% 0:00" + " " * 9 + "\n"
    )
    assert not bar.active


def test_close_twice_and_update_after_close_draw_nothing_more() -> None:
    bar, stream, clock = make(interval=0)
    bar.close()
    text = stream.getvalue()
    bar.close()
    clock.now += 10.0
    bar.update(2)
    assert stream.getvalue() == text and bar.done == 2 and not bar.active


# --- arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"total": -1}, ValueError, "Progress total must be at least 0, got -1"),
        ({"total": 2.5}, TypeError, "Progress total must be an int, got float 2.5"),
        ({"total": "10"}, TypeError, "Progress total must be an int"),
        ({"total": True}, TypeError, "Progress total must be an int"),
        ({"label": 3}, TypeError, "Progress label must be a str"),
        ({"enabled": 1}, TypeError, "Progress enabled must be a bool"),
        ({"leave": None}, TypeError, "Progress leave must be a bool"),
        ({"width": 0}, ValueError, "Progress width must be at least 1"),
        ({"interval": -0.5}, ValueError, "Progress interval must be finite and >= 0"),
        ({"interval": "fast"}, TypeError, "Progress interval must be a real number"),
        ({"stream": 42}, TypeError, "Progress stream must be a text stream or None, got int"),
        ({"clock": 1.0}, TypeError, "Progress clock must be callable, got float"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        Progress(**kwargs)


@pytest.mark.parametrize(
    ("n", "error", "message"),
    [
        (-1, ValueError, "Progress.update n must be at least 0, got -1"),
        (1.5, TypeError, "Progress.update n must be an int, got float 1.5"),
        (-1.0, ValueError, "Progress.update n must be at least 0, got -1"),
        ("1", TypeError, "Progress.update n must be an int"),
        (True, TypeError, "Progress.update n must be an int"),
    ],
)
def test_bad_update(n: Any, error: type[Exception], message: str) -> None:
    bar = Progress(10, enabled=False)
    with pytest.raises(error, match=message):
        bar.update(n)
    assert bar.done == 0


def test_bad_total_set_later() -> None:
    bar = Progress(enabled=False)
    with pytest.raises(ValueError, match="Progress total must be at least 0"):
        bar.total = -3
    assert bar.total is None


# --- the progress hook of check_env ----------------------------------------------------------


def _reports(**kwargs: Any) -> tuple[list[str], list[tuple[int, int]]]:
    calls: list[tuple[int, int]] = []
    issues = sekai.check_env(
        sekai.make("Pendulum-v1"), progress=lambda d, t: calls.append((d, t)), **kwargs
    )
    return issues, calls


def test_check_env_reports_its_env_steps() -> None:
    issues, calls = _reports(n_steps=20)
    assert issues == []
    assert calls == [(i, 20) for i in range(1, 21)] + [(20, 20)]


def test_check_env_reports_the_determinism_rollouts() -> None:
    _, calls = _reports(n_steps=80, check_determinism=True)
    assert {total for _, total in calls} == {80 + 2 * 50}
    assert calls[-1] == (180, 180) and calls[-2] == (80, 180)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_check_env_without_progress_finds_the_same() -> None:
    assert _reports(n_steps=30)[0] == sekai.check_env(sekai.make("Pendulum-v1"), n_steps=30)


def test_check_env_refuses_a_progress_that_is_not_callable() -> None:
    with pytest.raises(TypeError, match="check_env progress must be callable or None, got int"):
        sekai.check_env(sekai.make("Pendulum-v1"), progress=3)
