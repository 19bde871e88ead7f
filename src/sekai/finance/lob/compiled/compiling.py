"""Say when numba compiles: a progress bar on a terminal, else one logged notice.

numba compiles a function the first time it runs with new argument types, unless its disk
cache (``cache=True``) holds that version. ``reporting`` watches numba's compile events
inside a block of work measured in units: at the first compile it draws a ``Progress`` bar
of the units when there is a terminal, else it logs one notice on the ``sekai.finance.lob``
logger (at WARNING, so that it shows without any logging set up). Work whose functions all
load from the cache is not reported. One block runs at a time among the processes that share
numba's cache (a file lock), so that processes that start together, a ``ProcVecEnv``'s workers
or Ray actors on one machine, compile once: the first fills the cache, the others load from
it. Imported only with numba.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from numba.core import event

from sekai.utils.progress import Progress

__all__ = ["LOGGER", "reporting"]

LOGGER = logging.getLogger("sekai.finance.lob")


def _lock_file() -> Path:
    """The lock file of the compiles that share numba's cache: named after where sekai is
    installed and numba's cache folder (``NUMBA_CACHE_DIR``, else next to the sources)."""
    where = f"{Path(__file__).parent}\n{os.environ.get('NUMBA_CACHE_DIR', '')}"
    name = hashlib.sha256(where.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"sekai-numba-{name}.lock"


@contextmanager
def _one_process_at_a_time() -> Iterator[None]:
    """Hold the lock of the compiles into this cache (none where ``fcntl`` is missing:
    Windows)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(_lock_file(), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_STALE_CACHE = (
    "numba could not load {what} from its disk cache: the cache names the module {module}, "
    "which this sekai does not have, so another version of sekai wrote it. Delete numba's "
    "cache files (*.nbi and *.nbc) in {where}, or point NUMBA_CACHE_DIR at an empty folder; "
    "numba then compiles afresh."
)


def _cache_places() -> str:
    """Where numba keeps the caches of sekai's compiled functions, in words."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if folder:
        return f"{folder} (NUMBA_CACHE_DIR)"
    return f"the __pycache__ folders under {Path(__file__).parents[3]}"


class _Watch(event.Listener):
    """Counts the units done and reports numba's first compile in the block."""

    def __init__(self, what: str, total: int, notice: str) -> None:
        self.what = what
        self.total = total
        self.notice = notice
        self.done = 0
        self.bar: Progress | None = None

    def on_start(self, event: Any) -> None:
        if self.bar is None:
            self.bar = Progress(self.total, f"compiling {self.what}")
            if not self.bar.active:
                LOGGER.warning(self.notice)
            self.bar.update(self.done)
        else:
            self.bar.update(0)  # redraws the elapsed time during a long compile

    def on_end(self, event: Any) -> None:
        if self.bar is not None:
            self.bar.update(0)

    def advance(self, units: int) -> None:
        """Count ``units`` more done."""
        self.done += units
        if self.bar is not None:
            self.bar.update(units)


@contextmanager
def reporting(what: str, total: int, hint: str = "") -> Iterator[Callable[[int], None]]:
    """Report numba compiling ``what`` inside the block, ``total`` units of work.

    Yields the function that counts units done. Without a terminal the notice logged is
    ``sekai: numba is compiling <what> (...)``, with ``hint`` at its end. Waits while another
    process that shares numba's cache runs such a block.
    """
    notice = (
        f"sekai: numba is compiling {what} (about half a minute, once: numba caches it on disk "
        f"for later runs{hint})."
    )
    watch = _Watch(what, total, notice)
    try:
        with _one_process_at_a_time(), event.install_listener("numba:compile", watch):
            yield watch.advance
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("sekai."):
            raise
        raise RuntimeError(
            _STALE_CACHE.format(what=what, module=exc.name, where=_cache_places())
        ) from exc
    finally:
        if watch.bar is not None:
            watch.bar.close()
