"""RayVecEnv on a local Ray: equality with SyncVecEnv, native slices, attributes, async, Ray."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

ray = pytest.importorskip("ray")

import ray_helpers as helpers  # noqa: E402

import sekai  # noqa: E402
from sekai import Box, Dict, Discrete, MaskedBox, MultiBinary, MultiDiscrete, Sequence, Tuple  # noqa: E402
from sekai.error import VecEnvClosed  # noqa: E402
from sekai.testing import assert_trees_equal  # noqa: E402
from sekai.utils.seeding import make_seed_sequence  # noqa: E402
from sekai.vector import RayVecEnv, SyncVecEnv  # noqa: E402

ToyEnv = toys.ToyEnv
deadline = toys.deadline  # autouse
pytestmark = pytest.mark.usefixtures("local_ray")
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def toy(**kwargs: Any) -> sekai.Env:
    return sekai.TimeLimit(ToyEnv(**kwargs), 100)


@pytest.fixture(scope="module")
def toyvec() -> Iterator[RayVecEnv]:
    vec = RayVecEnv([toy] * 3, num_workers=2)
    yield vec
    vec.close()


# -- construction -----------------------------------------------------------------------------


def test_layout(toyvec: RayVecEnv) -> None:
    assert repr(toyvec) == "RayVecEnv(num_envs=3)" and len(toyvec) == 3
    assert (toyvec.num_workers, toyvec.native_slices, toyvec.autoreset) == (2, False, True)
    assert (toyvec.start_timeout, toyvec.close_timeout) == (120.0, 5.0)
    workers = toyvec.workers
    assert [w.ranks for w in workers] == [range(0, 2), range(2, 3)]
    node = ray.get_runtime_context().get_node_id()
    assert {w.node_id for w in workers} == {node}
    assert len({w.pid for w in workers}) == 2
    assert toyvec.observation_space == Box(-1.0, 1.0, (2,))
    assert toyvec.action_space == Discrete(2)


def test_default_workers_follow_the_cpus() -> None:
    with RayVecEnv([toy] * 5) as vec:  # Ray has 2 CPUs here
        assert [w.ranks for w in vec.workers] == [range(0, 3), range(3, 5)]
    with RayVecEnv([toy], num_workers=4) as vec:
        assert vec.num_workers == 1


def test_eight_workers_start_on_two_cpus() -> None:
    with (
        RayVecEnv(helpers.cartpoles(8), num_workers=8) as vec,
        SyncVecEnv(helpers.cartpoles(8)) as sync,
    ):
        assert len({w.pid for w in vec.workers}) == 8
        helpers.assert_same_rollout(vec, sync, [np.arange(8) % 2] * 3, seed=2)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [({"env_fns": []}, ValueError, "at least one"),
     ({"num_workers": 0}, ValueError, "num_workers"),
     ({"num_workers": 1.5}, TypeError, "num_workers"),
     ({"num_workers": 0.0}, ValueError, "num_workers"),
     ({"worker_options": [("num_cpus", 1)]}, TypeError, "worker_options must be a mapping"),
     ({"worker_options": {"max_concurrency": 2}}, ValueError, "max_concurrency must be 1"),
     ({"start_timeout": 0}, ValueError, "start_timeout must be a positive number"),
     ({"close_timeout": "1"}, TypeError, "close_timeout must be a positive number"),
     ({"address": 6379}, TypeError, "address must be a str"),
     ({"address": "auto"}, ValueError, "already connected to Ray")],
)  # fmt: skip
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        RayVecEnv(**{"env_fns": [toy], **kwargs})


def test_bad_actor_option() -> None:
    with pytest.raises(ValueError, match="no_such_option"):
        RayVecEnv([toy] * 2, worker_options={"no_such_option": 1})


def test_worker_options_reach_the_actors() -> None:
    with RayVecEnv([toy] * 2, worker_options={"num_cpus": 1}) as vec:
        assert ray.available_resources().get("CPU", 0.0) == 0.0
        vec.reset(seed=0)
    assert helpers.all_gone([w.pid for w in vec.workers])


def test_start_timeout_names_the_workers_and_kills_them() -> None:
    with pytest.raises(TimeoutError, match=r"workers \[0, 1\] did not start.*start_timeout=1"):
        RayVecEnv([toy] * 2, worker_options={"num_cpus": 64}, start_timeout=1)
    with RayVecEnv([toy] * 2, worker_options={"num_cpus": 1}) as vec:  # the CPUs are free
        assert len(vec.step([0, 1]).infos) == 2


def test_missing_ray_gives_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install ray .*\.\[ray\]"):
        RayVecEnv([toy])


# -- stepping ---------------------------------------------------------------------------------


SPACES = {
    "discrete": Discrete(5, start=2),
    "dict": Dict(d=MultiDiscrete([2, 3]), b=MultiBinary((2, 2)), x=Box(0, 9, (3,), np.int16)),
    "tuple": Tuple([Box(-1.0, 1.0, (2, 2), np.float64), Dict(z=Box(0.0, 1.0, ()))]),
    "masked": MaskedBox(-1.0, 1.0, (2,), max_size=4),
    "sequence": Sequence(Box(0.0, 1.0, (2,)), max_length=3),
}


@pytest.mark.parametrize("name", list(SPACES))
def test_matches_sync(name: str) -> None:
    fns = [lambda: toy(space=SPACES[name], length=3)] * 5
    with RayVecEnv(fns, num_workers=2) as vec, SyncVecEnv(fns) as sync:
        assert vec.observation_space == SPACES[name]
        helpers.assert_same_rollout(vec, sync, [np.array([0, 1, 0, 1, 1])] * 7, seed=3)


def test_matches_sync_cartpole_with_autoreset_off() -> None:
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, 4) for _ in range(30)]
    for autoreset in (True, False):
        fns = [lambda: sekai.make("CartPole-v1", max_episode_steps=12)] * 4
        with (
            RayVecEnv(fns, num_workers=3, autoreset=autoreset) as vec,
            SyncVecEnv(fns, autoreset=autoreset) as sync,
        ):
            helpers.assert_same_rollout(vec, sync, actions, seed=5)
            if not autoreset:  # every sub-env has finished and stays frozen
                assert vec.step(actions[0]).dones.all()


def test_outputs_are_new_writable_arrays(toyvec: RayVecEnv) -> None:
    fns = [lambda: toy(length=1)] * 3
    with RayVecEnv(fns) as vec:
        first = vec.reset(seed=1).observations
        step = vec.step([0, 1, 0])
        for array in (first, step.observations, step.rewards, step.terminated):
            assert array.flags.writeable
        final = step.infos[0]["final_observation"]
        assert isinstance(final, np.ndarray) and final.flags.writeable
        assert not np.shares_memory(first, step.observations)


def test_dict_actions() -> None:
    actions = Dict(a=Discrete(3), b=Box(-1.0, 1.0, (2,)))
    fns = [lambda: toy(action_space=actions)] * 3
    batch = {"a": np.array([0, 2, 1]), "b": np.arange(6, dtype=np.float32).reshape(3, 2)}
    with RayVecEnv(fns, num_workers=2) as vec, SyncVecEnv(fns) as sync:
        helpers.assert_same_rollout(vec, sync, [batch])
        assert vec.step(batch).infos[2]["action"]["a"] == 1


def test_bad_action_batches(toyvec: RayVecEnv) -> None:
    toyvec.reset(seed=0)  # the module's env: where the other tests left it
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.step(np.zeros(2, int))
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.step([0, 1])
    with pytest.raises(TypeError, match="Cannot pickle the step payload"):
        toyvec.step([0, 1, threading.Lock()])
    assert [info["count"] for info in toyvec.step([0, 1, 1]).infos] == [1, 1, 1]


# -- seeds, options, attributes ---------------------------------------------------------------


def test_seeds_and_options(toyvec: RayVecEnv) -> None:
    with SyncVecEnv([toy] * 3) as sync:
        for seed in (7, [1, 0, np.int64(2)], np.float64(7.0)):
            assert_trees_equal(
                toyvec.reset(seed=seed).observations, sync.reset(seed=seed).observations
            )
    with pytest.raises(TypeError, match="Generator"):
        toyvec.reset(seed=np.random.default_rng(0))
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.reset(seed=[1, 2])
    per_env = [{"level": k} for k in range(3)]
    assert [i["options"] for i in toyvec.reset(options=per_env).infos] == per_env
    with pytest.raises(TypeError):
        toyvec.reset(options=5)


def test_get_set_call(toyvec: RayVecEnv) -> None:
    toyvec.reset(seed=0)
    toyvec.step([1, 1, 1])
    assert toyvec.get_attr("count") == [1, 1, 1]
    assert toyvec.get_attr("max_episode_steps") == [100] * 3  # from the TimeLimit wrapper
    toyvec.set_attr("length", [5, 6, 7])  # reaches ToyEnv through TimeLimit
    assert toyvec.get_attr("length") == [5, 6, 7]
    assert toyvec.call("ping", 3, scale=2) == [(6, 1)] * 3
    toyvec.set_attr("hook", lambda: "hooked")
    assert toyvec.call("hook") == ["hooked"] * 3
    with pytest.raises(ValueError, match="num_envs=3"):
        toyvec.set_attr("length", [1, 2])
    toyvec.set_attr("length", 5)
    assert toyvec.get_attr("length") == [5] * 3


def test_action_mask_matches_sync() -> None:
    fns = [lambda: sekai.make("Market-v0")] * 3
    with RayVecEnv(fns, num_workers=2) as vec, SyncVecEnv(fns) as sync:
        assert not vec.native_slices
        vec.reset(seed=4)
        sync.reset(seed=4)
        assert_trees_equal(vec.call("action_mask"), sync.call("action_mask"))


# -- async ------------------------------------------------------------------------------------


def test_async_matches_sync_and_leaves_the_loop_free() -> None:
    fns = [lambda: toy(slow_on=1, delay=0.3)] * 2

    async def run(vec: RayVecEnv) -> tuple[Any, Any, int]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.create_task(tick())
        reset = await vec.async_reset(seed=3)
        step = await vec.async_step(np.array([1, 0]))
        seen = ticks
        ticker.cancel()
        return reset, step, seen

    with RayVecEnv(fns, num_workers=2) as vec, SyncVecEnv(fns) as sync:
        reset, step, ticks = asyncio.run(run(vec))
        assert ticks > 0  # the loop ran other tasks while the workers stepped
        assert_trees_equal(reset.observations, sync.reset(seed=3).observations)
        expected = sync.step(np.array([1, 0]))
        assert_trees_equal(
            (step.observations, step.rewards, list(step.infos)),
            (expected.observations, expected.rewards, list(expected.infos)),
        )


# -- native slices ----------------------------------------------------------------------------


def test_native_slices_are_seeded_by_child_seeds() -> None:
    vec = sekai.make_vec(
        "Trading-v0", 5, vectorization_mode="ray", vector_kwargs={"num_workers": 2}
    )
    with vec:
        assert vec.native_slices and [w.ranks for w in vec.workers] == [range(3), range(3, 5)]
        assert vec.spec is not None and vec.spec.id == "Trading-v0"
        children = make_seed_sequence(11, 2)
        slices = [sekai.make_vec("Trading-v0", 3), sekai.make_vec("Trading-v0", 2)]
        got = vec.reset(seed=11)
        want = [s.reset(seed=c) for s, c in zip(slices, children, strict=True)]
        assert_trees_equal(got.observations, np.concatenate([w.observations for w in want]))
        rng = np.random.default_rng(0)
        for _ in range(30):
            actions = rng.integers(0, 3, size=5)
            got_step = vec.step(actions)
            parts = [slices[0].step(actions[:3]), slices[1].step(actions[3:])]
            assert_trees_equal(
                (got_step.observations, got_step.rewards, list(got_step.infos)),
                (
                    np.concatenate([p.observations for p in parts]),
                    np.concatenate([p.rewards for p in parts]),
                    [*parts[0].infos, *parts[1].infos],
                ),
            )
        with pytest.raises(sekai.error.InvalidAction):
            vec.step(np.zeros(4, int))


def test_native_slice_attributes() -> None:
    with sekai.make_vec(
        "Trading-v0", 4, vectorization_mode="ray", vector_kwargs={"num_workers": 2}
    ) as vec:
        vec.reset(seed=0)
        assert vec.get_attr("s0") == [100.0] * 4
        vec.set_attr("s0", 50.0)
        assert vec.get_attr("s0") == vec.call("s0") == [50.0] * 4
        assert len(vec.get_attr("position")) == 4  # a (num_envs,) array split per sub-env
        with pytest.raises(sekai.error.VecEnvWorkerError, match="equal values"):
            vec.set_attr("s0", [1.0, 1.0, 2.0, 3.0])


def test_wrappers_turn_native_slices_into_groups() -> None:
    vec = sekai.make_vec(
        "Trading-v0", 3, vectorization_mode="ray", wrappers=[sekai.RecordEpisodeStatistics]
    )
    with vec, sekai.make_vec("Trading-v0", 3, wrappers=[sekai.RecordEpisodeStatistics]) as sync:
        assert not vec.native_slices
        helpers.assert_same_rollout(vec, sync, [np.array([0, 1, 2])] * 5, seed=1)


def test_from_native_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="make_slice must be callable"):
        RayVecEnv.from_native(5, 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_envs"):
        RayVecEnv.from_native(lambda **kwargs: toy(), 0)
    with pytest.raises(sekai.error.VecEnvWorkerError, match="must return a VecEnv of 1 sub-envs"):
        RayVecEnv.from_native(lambda **kwargs: toy(), 2)


# -- closing and the Ray session --------------------------------------------------------------


def test_close_kills_the_actors_and_keeps_the_callers_ray() -> None:
    vec = RayVecEnv([toy] * 3, num_workers=3)
    pids = [w.pid for w in vec.workers]
    vec.close()
    vec.close()  # idempotent
    assert helpers.all_gone(pids)
    assert ray.is_initialized()
    for call in (lambda: vec.step([0, 0, 0]), vec.reset, lambda: vec.get_attr("count")):
        with pytest.raises(VecEnvClosed):
            call()


STARTS_ITS_OWN_RAY = """
import os, sys
import ray
import sekai
from sekai.vector import RayVecEnv

assert not ray.is_initialized()
vec = RayVecEnv([lambda: sekai.make("CartPole-v1")] * 2)
assert ray.is_initialized()
other = RayVecEnv([lambda: sekai.make("CartPole-v1")] * 2)  # joins the same Ray
session = ray._private.worker._global_node.get_session_dir_path()
vec.close()
other.reset(seed=0)
assert ray.is_initialized() and len(other.step([0, 1]).infos) == 2
other.close()
assert not ray.is_initialized()
print(session)
"""


def test_closing_the_last_env_shuts_down_the_ray_it_started(tmp_path: Any) -> None:
    env = {**os.environ, "RAY_ADDRESS": "local"}  # a Ray of its own, never another test's
    source = str(Path(sekai.__file__).parents[1])
    env["PYTHONPATH"] = os.pathsep.join([source, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", STARTS_ITS_OWN_RAY],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    session = done.stdout.strip().splitlines()[-1]

    def leftovers() -> list[str]:
        found = []
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if session.encode() in (proc / "cmdline").read_bytes():
                    found.append(proc.name)
            except OSError:
                pass
        return found

    assert toys.wait_until(lambda: not leftovers(), 20.0), leftovers()
