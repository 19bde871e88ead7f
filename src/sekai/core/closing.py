"""``Closing``: the ``with`` protocol of every object that has a ``close()``."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

__all__ = ["Closing"]

_Self = TypeVar("_Self", bound="Closing")


class Closing:
    """``with obj as o:`` gives ``obj`` itself and calls ``obj.close()`` on the way out."""

    __slots__ = ()

    def close(self) -> None:
        """Release resources; a no-op by default."""

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
