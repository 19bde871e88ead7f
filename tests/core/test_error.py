"""Exceptions: messages, attributes and pickling."""

from __future__ import annotations

import pickle
import warnings

import pytest

from sekai import error
from sekai.error import (
    AsyncCallPending,
    EnvAlreadyRegistered,
    EnvNotFound,
    InvalidAction,
    InvalidObservation,
    LookAheadError,
    ResetRequired,
    SekaiError,
    SpaceMismatch,
    VecEnvClosed,
    VecEnvWorkerError,
)

EXAMPLES = [
    SekaiError("plain", 3),
    EnvNotFound("CartPol-v1", ["CartPole-v1"]),
    EnvNotFound("Nothing-v0"),
    EnvAlreadyRegistered("CartPole-v1"),
    InvalidAction(5, "Discrete(2)"),
    InvalidObservation([1.0], "Box(0, 1)"),
    ResetRequired(),
    ResetRequired("custom"),
    AsyncCallPending(),
    SpaceMismatch("spaces differ"),
    error.DeprecatedAPI("old()", "new()"),
    VecEnvWorkerError(3, "ValueError", "boom", "Traceback ..."),
    VecEnvWorkerError(0, "KeyError", "'k'", ""),
    VecEnvClosed(),
    LookAheadError("future"),
]


@pytest.mark.parametrize("exc", EXAMPLES, ids=lambda e: type(e).__name__)
def test_pickle_round_trip_keeps_type_and_message(exc: Exception) -> None:
    clone = pickle.loads(pickle.dumps(exc))
    assert type(clone) is type(exc)
    assert str(clone) == str(exc)
    assert isinstance(clone, SekaiError)


def test_env_not_found_message_and_attributes() -> None:
    exc = EnvNotFound("CartPol-v1", ["CartPole-v1", "CartPole-v0"])
    assert exc.id == "CartPol-v1"
    assert exc.suggestions == ("CartPole-v1", "CartPole-v0")
    text = str(exc)
    assert "'CartPol-v1'" in text and "not in the registry" in text
    assert "Did you mean: 'CartPole-v1', 'CartPole-v0'?" in text
    assert text.endswith("See sekai.all_specs() or `sekai list` for the registered ids.")
    assert "Did you mean" not in str(EnvNotFound("X"))


def test_worker_error_exact_format() -> None:
    exc = VecEnvWorkerError(2, "RuntimeError", "bad", "tb line")
    assert str(exc) == "Sub-env 2 raised RuntimeError: bad\n\nWorker traceback:\ntb line"
    assert (exc.rank, exc.exc_type, exc.remote_traceback) == (2, "RuntimeError", "tb line")
    assert str(VecEnvWorkerError(0, "E", "m", "")) == "Sub-env 0 raised E: m"


def test_builtin_bases() -> None:
    assert issubclass(InvalidAction, ValueError)
    assert "5" in str(InvalidAction(5, "Discrete(2)"))
    assert "Discrete(2)" in str(InvalidAction(5, "Discrete(2)"))
    assert "reset()" in str(ResetRequired())
    assert str(ResetRequired("custom")) == "custom"


def test_backend_mismatch_is_deprecated_and_hidden() -> None:
    assert "BackendMismatch" not in error.__all__
    with pytest.warns(DeprecationWarning, match="sekai.error.BackendMismatch is deprecated"):
        cls = error.BackendMismatch
    exc = cls("numpy", "jax")
    assert str(exc) == "Backend mismatch: expected 'numpy', got 'jax'."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        clone = pickle.loads(pickle.dumps(exc))
    assert str(clone) == str(exc)
    with pytest.raises(AttributeError):
        error.NoSuchThing  # noqa: B018
