"""Partial resets, ``reset(options={"reset_mask": mask})``, on RayVecEnv: groups and native
slices, as on ``ProcVecEnv`` (``test_partial_reset``)."""

from __future__ import annotations

import asyncio
import functools
import sys

import cloudpickle
import numpy as np
import proc_toy_envs as toys
import pytest

ray = pytest.importorskip("ray")

from test_partial_reset import (  # noqa: E402
    ZEROS,
    check_bad_masks,
    check_unselected_seeds_ignored,
    mask,
    script,
    toy_fns,
)

import sekai  # noqa: E402
from sekai.error import ResetRequired  # noqa: E402
from sekai.testing import assert_trees_equal  # noqa: E402
from sekai.utils.seeding import make_seed_sequence  # noqa: E402
from sekai.vector import RayVecEnv, SyncVecEnv  # noqa: E402

deadline = toys.deadline  # autouse
pytestmark = pytest.mark.usefixtures("local_ray")
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.mark.parametrize("num_workers", [2, 3])
def test_groups_reset_the_selected_sub_envs_as_sync_does(num_workers: int) -> None:
    with (
        RayVecEnv(toy_fns(), num_workers=num_workers, autoreset=False) as vec,
        SyncVecEnv(toy_fns(), autoreset=False) as sync,
    ):
        for ours, theirs in zip(script(vec), script(sync), strict=True):
            assert_trees_equal(ours.observations, theirs.observations)
            assert_trees_equal(list(ours.infos), list(theirs.infos))
            if hasattr(ours, "rewards"):
                np.testing.assert_array_equal(ours.rewards, theirs.rewards)
                np.testing.assert_array_equal(ours.dones, theirs.dones)


def test_seeds_of_unselected_sub_envs_are_ignored() -> None:
    check_unselected_seeds_ignored(functools.partial(RayVecEnv, num_workers=2))


def test_bad_masks_and_a_mask_before_the_first_reset() -> None:
    with RayVecEnv(toy_fns(), num_workers=2) as vec:
        with pytest.raises(ResetRequired, match="call reset\\(\\) without a mask first"):
            vec.reset(options={"reset_mask": mask(True, False, False)})
        full = vec.reset(seed=3, options={"reset_mask": mask(True, True, True)})
        np.testing.assert_array_equal(full.observations, vec.reset(seed=3).observations)
        check_bad_masks(vec)
        vec.step(ZEROS)  # still in step with its workers


def test_async_reset_takes_a_mask() -> None:
    with RayVecEnv(toy_fns(), num_workers=2) as vec, SyncVecEnv(toy_fns()) as sync:

        async def run() -> None:
            await vec.async_reset(seed=0)
            sync.reset(seed=0)
            vec.step(ZEROS)
            sync.step(ZEROS)
            options = {"reset_mask": mask(False, True, True), "tag": 2}
            ours = await vec.async_reset(seed=4, options=options)
            theirs = sync.reset(seed=4, options=options)
            assert_trees_equal(
                (ours.observations, list(ours.infos)), (theirs.observations, list(theirs.infos))
            )

        asyncio.run(run())


def test_native_slices_take_their_part_of_the_mask() -> None:
    vec = sekai.make_vec(
        "Trading-v0", 5, vectorization_mode="ray", vector_kwargs={"num_workers": 2}
    )
    with vec:
        assert vec.native_slices
        slices = [sekai.make_vec("Trading-v0", 3), sekai.make_vec("Trading-v0", 2)]
        vec.reset(seed=11)
        for part, child in zip(slices, make_seed_sequence(11, 2), strict=True):
            part.reset(seed=child)
        actions = np.array([1, 2, 0, 1, 2])
        for _ in range(3):
            vec.step(actions)
            slices[0].step(actions[:3])
            slices[1].step(actions[3:])
        selected = mask(True, False, False, False, True)
        got = vec.reset(seed=5, options={"reset_mask": selected})
        want = [
            part.reset(seed=child, options={"reset_mask": selected[lo:hi]})
            for part, child, (lo, hi) in zip(
                slices, make_seed_sequence(5, 2), [(0, 3), (3, 5)], strict=True
            )
        ]
        assert_trees_equal(
            (got.observations, list(got.infos)),
            (
                np.concatenate([w.observations for w in want]),
                [*want[0].infos, *want[1].infos],
            ),
        )
        assert got.infos[1] == {} and got.infos[2] == {}
        check_bad_masks_of_five(vec)


def check_bad_masks_of_five(vec: RayVecEnv) -> None:
    with pytest.raises(ValueError, match=r"shape \(5,\).*got shape \(3,\)"):
        vec.reset(options={"reset_mask": mask(True, False, True)})
    with pytest.raises(TypeError, match="bool array"):
        vec.reset(options={"reset_mask": np.arange(5)})
