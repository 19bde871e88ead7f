"""RayVecEnv on a two-node Ray cluster simulated on this machine: placement and a lost node."""

from __future__ import annotations

import atexit
import sys
from collections.abc import Callable, Iterator
from typing import Any

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

ray = pytest.importorskip("ray")

import ray_helpers as helpers  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import sekai  # noqa: E402
from sekai.error import VecEnvWorkerError  # noqa: E402
from sekai.vector import RayVecEnv, SyncVecEnv  # noqa: E402

deadline = toys.deadline  # autouse
cloudpickle.register_pickle_by_value(sys.modules[__name__])

ONE_CPU = {"num_cpus": 1}
"""Each worker holds a CPU, and each node has one: Ray puts one worker on each node."""
HEALTH_CHECKS = {"health_check_period_ms": 500, "health_check_failure_threshold": 2}
"""The head checks its nodes every 0.5 s, so that a killed node is reported dead within about
a second rather than Ray's default 15 s."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A head node and a second node, one CPU each, joined by this process (which leaves the
    local Ray it may be connected to first).

    Ray registers an exit hook for each node it starts, holding the node's GCS client, and
    leaves it registered after the node is shut down: a process forked later from this one
    (``ProcVecEnv(context="fork")``) would run it at exit and, on Python 3.13, crash in gRPC
    freeing that client. The fixture removes the hooks of its nodes once they are shut down.
    """
    if ray.is_initialized():
        ray.shutdown()
    hooks: list[Callable[..., Any]] = []
    register = atexit.register

    def recording(hook: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        if hook.__module__ == "ray._private.node":
            hooks.append(hook)
        return register(hook, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atexit, "register", recording)
        head = {**ONE_CPU, "_system_config": HEALTH_CHECKS}
        nodes = Cluster(initialize_head=True, head_node_args=head)
        try:
            nodes.add_node(**ONE_CPU)
            ray.init(address=nodes.address)
            nodes.wait_for_nodes()
            yield nodes
        finally:
            ray.shutdown()
            nodes.shutdown()
            for hook in hooks:
                atexit.unregister(hook)


def test_workers_on_both_nodes_match_sync(cluster: Any) -> None:
    fns = helpers.cartpoles(5)
    with RayVecEnv(fns, num_workers=2, worker_options=ONE_CPU) as vec, SyncVecEnv(fns) as sync:
        nodes = {node.node_id for node in cluster.list_all_nodes()}
        assert {w.node_id for w in vec.workers} == nodes and len(nodes) == 2
        rng = np.random.default_rng(1)
        helpers.assert_same_rollout(vec, sync, [rng.integers(0, 2, 5) for _ in range(60)], seed=8)


def test_native_slices_on_both_nodes(cluster: Any) -> None:
    kwargs = {"num_workers": 2, "worker_options": ONE_CPU}
    with sekai.make_vec("Portfolio-v0", 4, vectorization_mode="ray", vector_kwargs=kwargs) as vec:
        assert vec.native_slices and len({w.node_id for w in vec.workers}) == 2
        vec.reset(seed=0)
        result = vec.step(vec.batch_action_space.sample())
        assert result.rewards.shape == (4,) and len(result.infos) == 4


def test_lost_node(cluster: Any) -> None:
    doomed = cluster.add_node(**ONE_CPU)
    try:
        cluster.wait_for_nodes()
        vec = RayVecEnv([toys.ToyEnv] * 6, num_workers=3, worker_options=ONE_CPU)
        (w,) = [w for w, info in enumerate(vec.workers) if info.node_id == doomed.node_id]
        vec.reset(seed=0)
        cluster.remove_node(doomed, allow_graceful=False)
        assert helpers.all_gone([vec.workers[w].pid])  # the node's processes end with its raylet
        with pytest.raises(VecEnvWorkerError) as info:
            vec.step(np.zeros(6, int))
        first = 2 * w
        assert info.value.rank == first
        assert f"the Ray worker holding sub-envs {first}-{first + 1} died" in str(info.value)
        pids = [i.pid for i in vec.workers]
        vec.close()
        assert helpers.all_gone(pids)
    finally:
        # The cluster is the module's: leave it as the fixture built it, with Ray's view too
        # (Ray reports a killed node dead only after its health checks fail).
        if doomed in cluster.worker_nodes:
            cluster.remove_node(doomed, allow_graceful=False)
        assert toys.wait_until(lambda: not _alive(doomed.node_id), 60.0)


def _alive(node_id: str) -> bool:
    """Whether Ray reports node ``node_id`` alive."""
    return any(node["NodeID"] == node_id and node["Alive"] for node in ray.nodes())
