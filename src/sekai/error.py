"""Every exception raised by sekai.

Each class records its constructor arguments, so an exception pickled in a worker process
comes back with the same type and message even when the message is built from them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

__all__ = [
    "AsyncCallPending",
    "DeprecatedAPI",
    "EnvAlreadyRegistered",
    "EnvNotFound",
    "InvalidAction",
    "InvalidObservation",
    "LookAheadError",
    "ResetRequired",
    "SekaiError",
    "SpaceMismatch",
    "VecEnvClosed",
    "VecEnvWorkerError",
]


class SekaiError(Exception):
    """Base class of every sekai exception."""

    _init_args: tuple[Any, ...]
    _init_kwargs: dict[str, Any]

    def __new__(cls, *args: Any, **kwargs: Any) -> SekaiError:
        self = super().__new__(cls, *args)
        self._init_args = args
        self._init_kwargs = kwargs
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._init_args, self._init_kwargs))


def _rebuild(cls: type[SekaiError], args: tuple[Any, ...], kwargs: dict[str, Any]) -> SekaiError:
    return cls(*args, **kwargs)


class EnvNotFound(SekaiError):
    """No environment with this id is registered."""

    def __init__(self, id: str, suggestions: Sequence[str] = ()) -> None:
        self.id = id
        self.suggestions = tuple(suggestions)
        message = f"Environment '{id}' is not in the registry."
        if self.suggestions:
            message += " Did you mean: " + ", ".join(f"'{s}'" for s in self.suggestions) + "?"
        message += " See sekai.all_specs() or `sekai list` for the registered ids."
        super().__init__(message)


class EnvAlreadyRegistered(SekaiError):
    """An environment with this id is registered already."""

    def __init__(self, id: str) -> None:
        super().__init__(
            f"Environment '{id}' is already registered; deregister it first or pick another id."
        )


class InvalidAction(SekaiError, ValueError):
    """An action outside the action space."""

    def __init__(self, action: object, space: object) -> None:
        super().__init__(f"Invalid action {action!r}: not in the action space {space!r}.")


class InvalidObservation(SekaiError, ValueError):
    """An observation outside the observation space."""

    def __init__(self, obs: object, space: object) -> None:
        super().__init__(f"Invalid observation {obs!r}: not in the observation space {space!r}.")


class ResetRequired(SekaiError):
    """step() was called before reset(), or after the episode ended."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message or "Call reset() before step(): the environment has no current episode."
        )


class AsyncCallPending(SekaiError):
    """An async call overlapped one that has not been awaited yet."""

    def __init__(self) -> None:
        super().__init__(
            "An earlier async call on this environment has not completed; await it first."
        )


class SpaceMismatch(SekaiError):
    """Two spaces that should agree do not."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)


class DeprecatedAPI(SekaiError):
    """A deprecated API was used."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(f"{old} is deprecated; use {new} instead.")


class VecEnvWorkerError(SekaiError):
    """A sub-environment of a vector env raised, or its worker died."""

    def __init__(self, rank: int, exc_type: str, message: str, remote_traceback: str) -> None:
        self.rank = rank
        self.exc_type = exc_type
        self.remote_traceback = remote_traceback
        text = f"Sub-env {rank} raised {exc_type}: {message}"
        if remote_traceback:
            text += f"\n\nWorker traceback:\n{remote_traceback}"
        super().__init__(text)


class VecEnvClosed(SekaiError):
    """The vector env has been closed."""

    def __init__(self) -> None:
        super().__init__("This VecEnv has been closed.")


class LookAheadError(SekaiError):
    """Data from the future was requested."""

    def __init__(self, msg: str) -> None:
        super().__init__(msg)


class _BackendMismatch(SekaiError):
    """Deprecated: backends no longer exist."""

    def __init__(self, expected: str, got: str) -> None:
        super().__init__(f"Backend mismatch: expected '{expected}', got '{got}'.")


_BackendMismatch.__name__ = "BackendMismatch"
_BackendMismatch.__qualname__ = "BackendMismatch"


def __getattr__(name: str) -> Any:
    if name == "BackendMismatch":
        warnings.warn(
            "sekai.error.BackendMismatch is deprecated and will be removed in sekai 0.3.",
            DeprecationWarning,
            stacklevel=2,
        )
        return _BackendMismatch
    raise AttributeError(f"module 'sekai.error' has no attribute {name!r}")
