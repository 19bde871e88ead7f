"""A one-line progress bar for long work on a terminal.

``Progress`` redraws one line in place (``\\r``) with the label, a bar, done/total, the elapsed
time and an estimate of the time left. It draws only on a terminal: by default on
``sys.stderr`` if that is one, else on ``sys.stdout`` if that is one, so nothing is ever
written into a pipe or a file and piped results stay clean. It redraws at most once per
``interval`` seconds, so ``update`` may be called at every step of a hot loop.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

from sekai.utils.validation import check_bool, check_instance, check_int, check_real

__all__ = ["Progress"]


def _is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an open terminal (False when it cannot tell)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _columns(stream: TextIO) -> int | None:
    """The width of the terminal behind ``stream``; None when it cannot tell."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return columns if columns > 0 else None  # a terminal of no set size reports 0


def _clock_text(seconds: float) -> str:
    """``seconds`` as ``m:ss``, or ``h:mm:ss`` from an hour on."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """A progress bar over ``total`` units of work (None: unknown, a count is shown instead).

    ``label`` starts the line; ``update(n)`` counts ``n`` more units done; ``close()`` (or
    leaving the ``with`` block, by an exception too) finishes the line: it stays with a final
    count and the elapsed time if ``leave``, else it is erased. The line reads, for example::

        CartPole-v1 [#########---------------------] 300/1,000  30% 0:03 eta 0:07

    It is drawn on ``stream`` only if that is a terminal; ``stream=None`` picks ``sys.stderr``
    if it is one, else ``sys.stdout`` if it is one. With ``enabled=False`` or no terminal
    nothing is written at all. It redraws at most once per ``interval`` seconds of ``clock``
    and is cut to the terminal's width. A stream that fails to write stops the drawing, never
    the work.
    """

    def __init__(
        self,
        total: int | None = None,
        label: str = "",
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
        leave: bool = True,
        width: int = 30,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._total = None if total is None else check_int(total, "Progress total", low=0)
        self.label: str = check_instance(label, "Progress label", str, "a str")
        enabled = check_bool(enabled, "Progress enabled")
        if stream is not None and not callable(getattr(stream, "write", None)):
            raise TypeError(
                f"Progress stream must be a text stream or None, got {type(stream).__name__}."
            )
        self.leave: bool = check_bool(leave, "Progress leave")
        self._width = check_int(width, "Progress width", low=1)
        self._interval = check_real(interval, "Progress interval", low=0.0)
        if not callable(clock):
            raise TypeError(f"Progress clock must be callable, got {type(clock).__name__}.")
        self._clock = clock
        self._done = 0
        self._drawn = 0  # length of the line on screen
        self._start = clock()
        self._next = self._start
        self._stream: TextIO | None = None
        if enabled:
            candidates = (sys.stderr, sys.stdout) if stream is None else (stream,)
            self._stream = next((s for s in candidates if _is_terminal(s)), None)
        self._columns = None if self._stream is None else _columns(self._stream)
        self._live = self._stream is not None
        self._closed = False
        if self._live:
            self._draw(self._start)

    # --- state --------------------------------------------------------------------------------
    @property
    def done(self) -> int:
        """The units counted so far."""
        return self._done

    @property
    def total(self) -> int | None:
        """The units of the whole work (None: unknown); settable when it becomes known."""
        return self._total

    @total.setter
    def total(self, value: int | None) -> None:
        self._total = None if value is None else check_int(value, "Progress total", low=0)

    @property
    def elapsed(self) -> float:
        """Seconds of ``clock`` since the bar was made."""
        return self._clock() - self._start

    @property
    def active(self) -> bool:
        """Whether the bar is being drawn (a terminal, enabled, not closed, writes working)."""
        return self._live

    # --- work ---------------------------------------------------------------------------------
    def update(self, n: int = 1) -> None:
        """Count ``n`` more units done (a non-negative int) and redraw if ``interval`` passed."""
        if n.__class__ is not int or n < 0:
            n = check_int(n, "Progress.update n", low=0)
        self._done += n
        if self._live and (now := self._clock()) >= self._next:
            self._draw(now)

    def close(self) -> None:
        """Finish the line: draw it a last time and end it, or erase it if not ``leave``.

        Later calls do nothing; ``update`` after ``close`` still counts but draws nothing.
        """
        if self._closed:
            return
        self._closed = True
        if not self._live:
            return
        if self.leave:
            self._write("\r" + self._fit(self._line(self._clock(), final=True)) + "\n")
        else:
            self._write("\r" + " " * self._drawn + "\r")
        self._live = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Progress(total={self._total!r}, label={self.label!r}, done={self._done})"

    # --- drawing ------------------------------------------------------------------------------
    def _line(self, now: float, *, final: bool) -> str:
        """The text of the line at time ``now``; ``final`` leaves out the estimate."""
        elapsed = max(now - self._start, 0.0)
        done, total = self._done, self._total
        parts = [self.label] if self.label else []
        if total is None:
            parts += [f"{done:,}", _clock_text(elapsed)]
            return " ".join(parts)
        fraction = 1.0 if total == 0 else min(done / total, 1.0)
        filled = int(self._width * fraction)
        bar = "#" * filled + "-" * (self._width - filled)
        parts += [f"[{bar}]", f"{done:,}/{total:,}", f"{int(100 * fraction):3d}%"]
        parts.append(_clock_text(elapsed))
        if not final:
            if done >= total:
                parts.append("eta 0:00")
            elif done == 0:
                parts.append("eta -:--")
            else:
                parts.append("eta " + _clock_text(elapsed * (total - done) / done))
        return " ".join(parts)

    def _fit(self, line: str) -> str:
        """``line`` cut to the terminal's width (one column spare) and padded over the old one."""
        if self._columns is not None:
            line = line[: max(self._columns - 1, 1)]
        padding = " " * (self._drawn - len(line))
        self._drawn = len(line)
        return line + padding

    def _draw(self, now: float) -> None:
        self._next = now + self._interval
        self._write("\r" + self._fit(self._line(now, final=False)))

    def _write(self, text: str) -> None:
        stream = self._stream
        if stream is None:
            return
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):  # a closed stream or a broken pipe: stop drawing
            self._live = False
            self._stream = None
