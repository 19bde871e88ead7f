"""Fixtures shared by several test folders, and the clean-up every test gets.

Every test runs inside ``no_leftovers``: the ``ProcVecEnv`` workers, shared-memory blocks and
``RayVecEnv`` actors it started and left behind are killed, joined and unlinked when it ends,
pass or fail, so that one failure never cascades into the tests after it. A test that passed
but left something running fails its teardown, naming what it left.

Ray: each test process starts one local Ray the first time a module that needs it starts
(``local_ray``) and shuts it down when the session ends.

Bytecode: the suite starts several hundred Python processes (its test processes, Ray actors,
``ProcVecEnv`` workers, command-line runs). Where the environment turns bytecode off
(``PYTHONDONTWRITEBYTECODE``), each of them compiled every module of sekai and of the tests
from source again; the suite writes bytecode all the same (``pytest_configure``).
"""

from __future__ import annotations

import compileall
import functools
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import sekai
from sekai.finance.lob import engine as engines

settings.register_profile("sekai", deadline=None)
settings.register_profile("ci", deadline=None, database=None, derandomize=True, print_blob=True)
settings.load_profile(
    os.environ.get("SEKAI_HYPOTHESIS_PROFILE", "ci" if "CI" in os.environ else "sekai")
)
"""Hypothesis: no per-example deadline anywhere (a loaded machine is not a failure); under CI
(``CI`` set) also the same examples on every run and no example database."""

os.environ["RAY_ADDRESS"] = "local"
"""Every ``ray.init()`` without an address, here and in the scripts the tests start, starts a
Ray of its own: never one that another test process started (``ray.cluster_utils.Cluster``
records its address for later ``ray.init()`` calls to find)."""

WORKER_PREFIX = "sekai-ProcVecEnv-worker-"
SHM_DIR = Path("/dev/shm")


def _workers() -> set[multiprocessing.process.BaseProcess]:
    """Live ``ProcVecEnv`` worker processes of this process."""
    return {p for p in multiprocessing.active_children() if p.name.startswith(WORKER_PREFIX)}


def _blocks() -> set[Path]:
    """Shared-memory blocks this process created."""
    return set(SHM_DIR.glob(f"sekai_{os.getpid()}_*")) if SHM_DIR.is_dir() else set()


class _RayEnvs:
    """The ``RayVecEnv`` objects built while a test runs (Ray imported lazily)."""

    def __init__(self) -> None:
        self.opened: list[Any] = []
        self._original: Any = None

    def start(self) -> None:
        if "ray" not in sys.modules:  # a test that uses Ray imports it first
            return
        from sekai.vector.ray_vec_env import RayVecEnv

        original = RayVecEnv.__init__
        opened = self.opened

        @functools.wraps(original)
        def tracked(vec: Any, *args: Any, **kwargs: Any) -> None:
            original(vec, *args, **kwargs)
            opened.append(vec)  # (one that failed to build has cleaned up after itself)

        self._original = original
        RayVecEnv.__init__ = tracked  # type: ignore[method-assign]

    def stop(self) -> list[Any]:
        """Stop tracking; kill the actors of the envs left open; return those envs."""
        if self._original is None:
            return []
        from sekai.vector.ray_vec_env import RayVecEnv

        RayVecEnv.__init__ = self._original  # type: ignore[method-assign]
        left = [vec for vec in self.opened if not getattr(vec, "closed", True)]
        ray = sys.modules["ray"]
        for vec in left:
            vec.closed = True
            for actor in getattr(vec, "_actors", []):
                if ray.is_initialized():
                    ray.kill(actor, no_restart=True)
        return left


_OUTCOME = pytest.StashKey[bool]()
"""Whether every phase of a test so far passed."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    item.stash[_OUTCOME] = item.stash.get(_OUTCOME, True) and not report.failed
    return report


@pytest.fixture(autouse=True)
def no_leftovers(request: pytest.FixtureRequest) -> Iterator[None]:
    """Kill, join and unlink what the test started and left; fail a passing test that left any."""
    workers, blocks = _workers(), _blocks()
    ray_envs = _RayEnvs()
    ray_envs.start()
    yield
    left_envs = ray_envs.stop()
    strays = _workers() - workers
    for process in strays:
        process.kill()
    for process in strays:
        process.join(10)
    stray_blocks = _blocks() - blocks
    for block in stray_blocks:
        block.unlink(missing_ok=True)
    if request.node.stash.get(_OUTCOME, True) and (strays or stray_blocks or left_envs):
        pytest.fail(
            f"the test left {len(strays)} worker process(es), {len(stray_blocks)} "
            f"shared-memory block(s) and {len(left_envs)} open RayVecEnv(s) behind",
            pytrace=False,
        )


@pytest.fixture(autouse=True, scope="session")
def sb3_log_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Stable-Baselines3 makes a log folder for every ``learn()``, in the system's temporary
    folder unless ``SB3_LOGDIR`` names one: here it is pytest's, cleaned as pytest cleans."""
    folder = tmp_path_factory.mktemp("sb3-logs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(folder))
        yield


@pytest.fixture
def sigint_default() -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt`` during the test, even where the test runner was
    started with SIGINT ignored (a background job, ``nohup``, some CI runners)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def pytest_configure(config: pytest.Config) -> None:
    """Write bytecode, here and, compiled once before the test processes start, for sekai."""
    sys.dont_write_bytecode = False
    if not hasattr(config, "workerinput"):  # the main process, not a pytest-xdist worker
        compileall.compile_dir(Path(sekai.__file__).parent, quiet=2)


@pytest.fixture(scope="module")
def local_ray() -> Any:
    """This process's local Ray of 2 CPUs (None where Ray is not installed): started by the
    first module that uses it, shared by the later ones, shut down when the session ends."""
    try:
        import ray
    except ImportError:
        return None
    if not ray.is_initialized():
        ray.init(num_cpus=2)
    return ray


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one test process per core (at most 8, each may start a Ray). The tests
    start many processes of their own (Ray actors, workers): with two test processes per
    core, the suite took 15 % more CPU time and longer, switching between them."""
    return min(os.cpu_count() or 1, 8)


def pytest_sessionfinish(session: pytest.Session) -> None:
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


@pytest.fixture(params=["numba", "python"])
def order_book_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The order-book engine ``engine="auto"`` picks: numba when it is installed, else python.

    A module runs every test on both with ``pytestmark = pytest.mark.usefixtures(...)``.
    """
    if request.param == "numba":
        pytest.importorskip("numba")
    else:
        monkeypatch.setattr(engines, "numba_installed", lambda: False)
    return str(request.param)
