"""The numba engine compiles in one step, with a notice, and ``sekai check`` warms its cache.

From an empty numba cache, ``LimitOrderBook-v0`` used to compile for about a minute at
make/reset and half a minute more during its first 300-step episode, without a word. The
slow test runs fresh processes on an empty cache (``NUMBA_CACHE_DIR`` in a temporary folder).
"""

from __future__ import annotations

import io
import json
import logging
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import sekai

pytest.importorskip("numba")

from numba import njit

from sekai.finance.lob.compiled import compiling
from sekai.finance.lob.compiled.compiling import LOGGER, reporting

ENGINE_NOTICE = (
    "sekai: numba is compiling the order-book engine (about half a minute, once: numba caches "
    "it on disk for later runs; `sekai check LimitOrderBook-v0` compiles it ahead of time)."
)
REPLAY_NOTICE = (
    "sekai: numba is compiling the LOBSTER replay (about half a minute, once: numba caches it "
    "on disk for later runs)."
)

# Run in a fresh process: counts numba's compiles and the cache misses of the engine's
# functions. ``simulated()`` and ``replayed()`` make and reset LimitOrderBook-v0 with
# zero-intelligence flow and replaying a LOBSTER day; ``play`` runs the episode (300 and 25
# steps) and counts what numba compiles during it; ``strings`` names the string functions
# that numba compiles while it makes and resets both.
PRELUDE = """
import json
import numpy as np
from numba.core import event
from numba.core.dispatcher import Dispatcher
import sekai
from sekai.finance.lob import simulate_lobster


class Count(event.Listener):
    def __init__(self):
        self.n = 0
        self.strings = set()

    def on_start(self, event):
        self.n += 1
        function = event.data["dispatcher"].py_func
        if function.__module__ == "numba.cpython.unicode":
            self.strings.add(function.__qualname__)

    def on_end(self, event):
        pass


def misses():
    from sekai.envs.finance.order_book import kernels
    from sekai.finance.lob.compiled import book_rules, book_state, lobster_flow, zi_flow

    modules = (kernels, book_rules, zi_flow, lobster_flow, book_state)
    return sum(
        sum(value.stats.cache_misses.values())
        for module in modules
        for value in vars(module).values()
        if isinstance(value, Dispatcher)
    )


def simulated(seed=0):
    env = sekai.make("LimitOrderBook-v0")
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def replayed(seed=1):
    env = sekai.make(
        "LimitOrderBook-v0",
        data=simulate_lobster(8000, levels=5, seed=1),
        session_length=0.05,
        decision_interval=0.002,
        warmup=0.02,
        latency=0.0005,
    )
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def strings():
    count = Count()
    with event.install_listener("numba:compile", count):
        envs = simulated(), replayed()
    return envs, sorted(count.strings)


def play(env):
    count = Count()
    steps = 0
    with event.install_listener("numba:compile", count):
        while not env.step(env.action_space.sample()).terminated:
            steps += 1
    return [steps + 1, count.n]
"""


def _run(script: str, cache: Path) -> tuple[dict[str, Any], str]:
    """Run ``PRELUDE`` + ``script`` with ``cache`` as numba's cache; (its JSON line, stderr)."""
    result = _python(["-c", PRELUDE + script], cache)
    return json.loads(result.stdout.splitlines()[-1]), result.stderr


def _python(argv: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    """Run Python with ``argv`` and ``cache`` as numba's cache; it must succeed."""
    src = str(Path(sekai.__file__).resolve().parents[1])
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": src}
    result = subprocess.run(
        [sys.executable, *argv], env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.slow
def test_the_first_use_compiles_the_engine_at_once_with_a_notice_and_fills_the_cache(
    tmp_path: Path,
) -> None:
    # One empty cache, compiled into once (half a minute of compiling).
    cache = tmp_path / "numba"
    first, log = _run(
        "(simulated_env, replayed_env), compiled_strings = strings()\n"
        "out = {'simulated': play(simulated_env), 'replayed': play(replayed_env)}\n"
        "out['again'] = play(simulated(2))\n"
        "out['strings'] = compiled_strings\n"
        "print(json.dumps(out))\n",
        cache,
    )
    # make compiled the engine and said so once; the reset with data compiled the replay's
    # reconstruction, with its own notice; the episodes compiled nothing (each used to compile
    # for half a minute), and the second env of the process said nothing. Neither compiled
    # string code: the shape-mismatch message of an array's slice assignment, formatted in
    # compiled code, had doubled the compiled code of every function that grows a book.
    assert first == {"simulated": [300, 0], "replayed": [25, 0], "again": [300, 0], "strings": []}
    assert log.count(ENGINE_NOTICE) == 1
    assert log.count(REPLAY_NOTICE) == 1
    assert log.count("numba is compiling") == 2

    later, log = _run(
        "out = {'simulated': play(simulated()), 'replayed': play(replayed())}\n"
        "out['misses'] = misses()\n"
        "print(json.dumps(out))\n",
        cache,
    )
    # A later process loads it all from the cache, without a word.
    assert later == {"simulated": [300, 0], "replayed": [25, 0], "misses": 0}
    assert "numba is compiling" not in log

    # ``sekai check`` makes the env, which compiles the engine (the command the README gives to
    # fill the cache: that it compiles is the first process's notice); here it finds it all.
    check = _python(["-m", "sekai", "check", "LimitOrderBook-v0", "--steps", "5"], cache)
    assert check.stdout == "LimitOrderBook-v0: all checks passed.\n"
    assert check.stderr == ""


def test_sekai_check_warms_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from sekai.cli import main
    from sekai.envs.finance.order_book import warmup

    calls: list[bool] = []
    real = warmup.warm_up

    def recorded(market: bool) -> None:
        calls.append(market)
        real(market)

    monkeypatch.setattr(warmup, "warm_up", recorded)
    assert main(["check", "LimitOrderBook-v0", "--steps", "5"]) == 0
    assert calls and not any(calls)  # the single-trader engine, warmed when the env was made


# --- the report --------------------------------------------------------------------------------


class FakeTTY(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _kernel() -> Any:
    """A new (uncached) numba function: it compiles at its first call."""

    @njit(cache=False)
    def twice(x: int) -> int:
        return 2 * x

    return twice


def test_compiling_without_a_terminal_logs_one_notice_and_nothing_once_compiled(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    kernel = _kernel()
    with caplog.at_level(logging.WARNING, LOGGER.name):
        with reporting("the test kernel", 2, "; a hint") as done:
            assert kernel(3) == 6
            done(1)
            assert kernel(4) == 8
            done(1)
        assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
            (
                "sekai.finance.lob",
                logging.WARNING,
                "sekai: numba is compiling the test kernel (about half a minute, once: numba "
                "caches it on disk for later runs; a hint).",
            )
        ]
        caplog.clear()
        with reporting("the test kernel", 1) as done:
            assert kernel(5) == 10
            done(1)
        assert caplog.records == []
    assert sys.stderr.getvalue() == sys.stdout.getvalue() == ""


def test_compiling_on_a_terminal_draws_a_bar_instead_of_the_notice(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = FakeTTY()
    monkeypatch.setattr(sys, "stderr", terminal)
    kernel = _kernel()
    with caplog.at_level(logging.WARNING, LOGGER.name), reporting("the test kernel", 4) as done:
        done(1)  # a stage whose functions came from the cache: nothing drawn yet
        assert terminal.getvalue() == ""
        kernel(1)
        done(3)
    assert caplog.records == []
    drawn = terminal.getvalue()
    assert drawn.startswith("\rcompiling the test kernel [")
    assert drawn.endswith("\n")
    assert (
        drawn.rstrip()
        .split("\r")[-1]
        .startswith(f"compiling the test kernel [{'#' * 30}] 4/4 100% ")
    )


def test_nothing_is_said_when_nothing_compiles(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = FakeTTY()
    monkeypatch.setattr(sys, "stderr", terminal)
    with caplog.at_level(logging.WARNING, LOGGER.name), reporting("nothing", 1) as done:
        done(1)
    assert caplog.records == [] and terminal.getvalue() == ""


def test_one_process_of_an_installation_compiles_at_a_time() -> None:
    """A compile block waits while another holds the installation's lock (another open of the
    lock file, as another process would hold it), then runs."""
    done = threading.Event()

    def compile_something() -> None:
        with reporting("a test function", 1):
            done.set()

    with compiling._one_process_at_a_time():
        thread = threading.Thread(target=compile_something)
        thread.start()
        thread.join(0.5)
        assert thread.is_alive() and not done.is_set()  # waiting for the lock
    thread.join(10)
    assert done.is_set()


def test_a_cache_written_by_another_sekai_is_named_with_its_remedy(tmp_path: Path) -> None:
    """numba unpickles a cache index before it checks that the index fits the source: an index
    that names a module of an older sekai raised ``ModuleNotFoundError`` from deep in numba."""
    (tmp_path / "kern.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
    )
    cache = tmp_path / "numba"
    run = "import kern\nfrom sekai.finance.lob.compiled.compiling import reporting\n"
    run += "with reporting('the test kernel', 1):\n    print(kern.twice(3))\n"
    src = str(Path(sekai.__file__).resolve().parents[1])
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": src}

    def python() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", run], env=env, cwd=tmp_path, capture_output=True, text=True
        )

    assert python().stdout == "6\n"  # compiled and cached
    (index,) = cache.rglob("kern.twice-*.nbi")
    with open(index, "rb") as file:
        version = pickle.load(file)
    with open(index, "wb") as file:  # numba's layout: its version, then (stamp, overloads)
        pickle.dump(version, file)
        file.write(b"csekai.finance.lob._gone\nThing\n.")  # a pickle naming a module now gone
    failed = python()
    assert failed.returncode == 1
    assert failed.stderr.strip().splitlines()[-1] == (
        "RuntimeError: numba could not load the test kernel from its disk cache: the cache "
        "names the module sekai.finance.lob._gone, which this sekai does not have, so another "
        f"version of sekai wrote it. Delete numba's cache files (*.nbi and *.nbc) in {cache} "
        "(NUMBA_CACHE_DIR), or point NUMBA_CACHE_DIR at an empty folder; numba then compiles "
        "afresh."
    )
    assert "ModuleNotFoundError: No module named 'sekai.finance.lob._gone'" in failed.stderr


def test_a_missing_module_of_another_package_is_not_taken_for_a_stale_cache() -> None:
    missing = pytest.raises(ModuleNotFoundError, match="not_a_module_of_any_package")
    with missing, reporting("nothing", 1):
        import not_a_module_of_any_package  # noqa: F401
