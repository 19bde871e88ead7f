"""``conformance_tests``: the conformance suite of the built-in envs, for your own envs.

In a test module, ``test_my_envs = conformance_tests(["MyEnv-v0", make_other_env])`` makes
pytest run every check on every env, one test per env and check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sekai.core.env import Env
from sekai.core.wrapper import Wrapper
from sekai.registry import make, spec
from sekai.testing.env_checker import check_env
from sekai.testing.trees import assert_trees_equal
from sekai.testing.vector_backends import VECTOR_BACKENDS, check_vector_backends
from sekai.wrappers import TimeLimit

__all__ = ["CONFORMANCE_CHECKS", "conformance_tests"]

CONFORMANCE_CHECKS = ("check_env", "spec", "async", "time_limit", "vector_backends")
"""The checks ``conformance_tests`` runs; ``spec`` and ``time_limit`` need a registered id."""

_ID_ONLY = frozenset({"spec", "time_limit"})
_EPISODE_CUT = 5
"""Episode length in the vector checks, so that every rollout crosses autoresets."""
_VECTOR_CHECK: dict[str, Any] = {"num_envs": 3, "seed": 7, "n_steps": 12}
_WORKERS: dict[str, dict[str, Any]] = {"proc": {"num_workers": 2}, "ray": {"num_workers": 2}}
"""``proc`` and ``ray`` run two workers (sub-envs 0-1 share one); ``proc_no_shm`` one per
sub-env."""

EnvSource = str | Callable[[], Env[Any, Any]]


def conformance_tests(
    envs: Iterable[EnvSource], *, checks: Iterable[str] = CONFORMANCE_CHECKS
) -> Callable[..., None]:
    """A pytest test function that runs ``checks`` on each of ``envs`` (ids or env factories).

    Assign it to a ``test_*`` name of a test module; it is parametrized with one case per env
    and check (one per backend and autoreset mode for ``vector_backends``), with ids such as
    ``MyEnv-v0-check_env`` or ``MyEnv-v0-vector_backends-proc-autoreset``. The checks:

    * ``check_env``: ``check_env(env, n_steps=400, check_determinism=True)`` finds nothing;
    * ``spec``: ``env.spec.make()`` builds the same wrapper stack, which replays 50 random
      steps of the env exactly;
    * ``async``: ``async_reset``/``async_step`` replay 30 steps of ``reset``/``step`` exactly;
    * ``time_limit``: the registered ``max_episode_steps`` applies, and ``-1`` removes it;
    * ``vector_backends``: ``check_vector_backends`` finds no difference between ``sync`` and
      each other backend (``native`` where the id has a native version), with episodes cut
      to 5 steps, with and without autoreset. The ``ray`` cases are skipped where Ray is not
      installed; they use the Ray this process is connected to, else the first of them in a
      test module starts a local one, shut down when the module's tests end.

    ``spec`` and ``time_limit`` apply to registered ids only and are left out for factories.
    pytest is imported when this is called.
    """
    import pytest

    chosen = list(dict.fromkeys(checks))
    unknown = [c for c in chosen if c not in CONFORMANCE_CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; choose from {CONFORMANCE_CHECKS}.")
    cases = [case for env in envs for case in _cases(env, chosen)]

    @pytest.mark.parametrize("case", [pytest.param(case, id=case.id) for case in cases])
    def test_conformance(case: _Case, request: pytest.FixtureRequest) -> None:
        if case.backend == "ray":
            _connect_ray(request)
        case.run()

    return test_conformance


@dataclass(frozen=True)
class _Case:
    """One check of one env (for ``vector_backends``: one backend and autoreset mode)."""

    env: EnvSource
    check: str
    backend: str = ""
    autoreset: bool = True

    @property
    def id(self) -> str:
        name = self.env if isinstance(self.env, str) else _factory_name(self.env)
        if self.check != "vector_backends":
            return f"{name}-{self.check}"
        mode = "autoreset" if self.autoreset else "no_autoreset"
        return f"{name}-{self.check}-{self.backend}-{mode}"

    def run(self) -> None:
        if self.check == "vector_backends":
            _check_backend(self.env, self.backend, self.autoreset)
        else:
            _SINGLE_CHECKS[self.check](self.env)


def _connect_ray(request: Any) -> None:
    """Skip without Ray; else start a local Ray, shut down at the end of the test module,
    unless this process is connected to one."""
    import pytest

    ray = pytest.importorskip("ray", reason="the ray backend needs Ray: pip install ray")
    from sekai.vector.workers.ray_session import join, leave

    if not ray.is_initialized() and join(ray, None):
        scope = request.node.getparent(pytest.Module) or request.node
        scope.addfinalizer(lambda: leave(ray))


def _factory_name(factory: Callable[[], Env[Any, Any]]) -> str:
    return str(getattr(factory, "__qualname__", None) or type(factory).__name__)


def _cases(env: EnvSource, checks: list[str]) -> list[_Case]:
    if not (isinstance(env, str) or callable(env)):
        raise TypeError(f"envs must hold registered ids or env factories, got {env!r}.")
    cases = []
    for check in checks:
        if check in _ID_ONLY and not isinstance(env, str):
            continue
        if check != "vector_backends":
            cases.append(_Case(env, check))
            continue
        native = isinstance(env, str) and spec(env).vector_entry_point is not None
        for autoreset in (True, False):
            for backend in VECTOR_BACKENDS:
                if backend != "native" or native:
                    cases.append(_Case(env, check, backend, autoreset))
    return cases


def _build(env: EnvSource) -> Env[Any, Any]:
    return make(env) if isinstance(env, str) else env()


def _check_env(env: EnvSource) -> None:
    with _build(env) as built:
        problems = check_env(built, n_steps=400, check_determinism=True)
    assert problems == [], "\n".join(problems)


def _layers(env: Env[Any, Any]) -> list[Env[Any, Any]]:
    return list(env) if isinstance(env, Wrapper) else [env]


def _check_spec(env_id: str) -> None:
    env = make(env_id)
    assert env.spec is not None, f"make({env_id!r}) built an env without a spec"
    clone = env.spec.make()
    assert clone.spec == env.spec
    assert [type(layer) for layer in _layers(clone)] == [type(layer) for layer in _layers(env)]
    first, second = env.reset(seed=3), clone.reset(seed=3)
    assert_trees_equal(first.observation, second.observation)
    env.action_space.seed(0)
    for action in [env.action_space.sample() for _ in range(50)]:
        a, b = env.step(action), clone.step(action)
        assert_trees_equal(
            (a.observation, a.reward, a.terminated, a.truncated),
            (b.observation, b.reward, b.terminated, b.truncated),
        )
        if a.done:
            break


def _check_async(env: EnvSource) -> None:
    sync_env, async_env = _build(env), _build(env)
    sync_env.action_space.seed(1)
    actions = [sync_env.action_space.sample() for _ in range(30)]
    sync_env.reset(seed=5)
    expected = []
    for action in actions:
        expected.append(sync_env.step(action))
        if expected[-1].done:
            break

    async def rollout() -> list[Any]:
        await async_env.async_reset(seed=5)
        return [await async_env.async_step(a) for a in actions[: len(expected)]]

    for got, want in zip(asyncio.run(rollout()), expected, strict=True):
        assert_trees_equal(
            (got.observation, got.info, got.reward, got.terminated, got.truncated),
            (want.observation, want.info, want.reward, want.terminated, want.truncated),
        )


def _check_time_limit(env_id: str) -> None:
    limit = spec(env_id).max_episode_steps
    env = make(env_id)
    if limit is None:
        assert not isinstance(env, TimeLimit)
    else:
        assert env.get_attr("max_episode_steps") == limit
        assert not isinstance(make(env_id, max_episode_steps=-1), TimeLimit)


_SINGLE_CHECKS: dict[str, Callable[[Any], None]] = {
    "check_env": _check_env,
    "spec": _check_spec,
    "async": _check_async,
    "time_limit": _check_time_limit,
}


@dataclass(frozen=True)
class _Cut:
    """An env factory whose episodes end after ``_EPISODE_CUT`` steps (picklable)."""

    factory: Callable[[], Env[Any, Any]]

    def __call__(self) -> Env[Any, Any]:
        return TimeLimit(self.factory(), _EPISODE_CUT)


def _check_backend(env: EnvSource, backend: str, autoreset: bool) -> None:
    if isinstance(env, str):
        source: EnvSource = env
        env_kwargs: dict[str, Any] = {"max_episode_steps": _EPISODE_CUT}
    else:
        source, env_kwargs = _Cut(env), {}
    problems = check_vector_backends(
        source,
        backends=("sync",) if backend == "sync" else ("sync", backend),
        autoreset=autoreset,
        env_kwargs=env_kwargs,
        proc_kwargs=_WORKERS.get(backend) if backend.startswith("proc") else None,
        ray_kwargs=_WORKERS.get(backend) if backend == "ray" else None,
        **_VECTOR_CHECK,
    )
    assert problems == [], "\n".join(problems)
