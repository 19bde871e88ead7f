"""``EnvNotFound``'s suggestions: same name in other versions first, then close names."""

from __future__ import annotations

import pytest

import sekai
from sekai.error import EnvNotFound
from sekai.registry import EnvRegistry
from sekai.registry._suggest import close_ids

BUILT_IN = [spec.id for spec in sekai.all_specs() if spec.namespace is None]


def test_another_version_of_the_same_name_and_nothing_far() -> None:
    # 'Market-v0' was offered for 'CartPole-v0' by a match over whole ids (ratio 0.6).
    assert close_ids("CartPole-v0", BUILT_IN) == ["CartPole-v1"]


def test_versions_nearest_first_newer_on_a_tie_newest_without_one() -> None:
    ids = ["Env-v0", "Env-v1", "Env-v2", "Env-v5", "Other-v0"]
    assert close_ids("Env-v3", ids) == ["Env-v2", "Env-v5", "Env-v1"]
    assert close_ids("Env-v1", ["Env-v0", "Env-v2", "Env-v7"]) == ["Env-v2", "Env-v0", "Env-v7"]
    assert close_ids("Env", ["Env-v0", "Env-v2", "Env"]) == ["Env-v2", "Env-v0"]
    assert close_ids("env-v9", ["Env", "Env-v0"]) == ["Env-v0", "Env"]


def test_same_name_comes_before_close_names_and_at_most_three() -> None:
    ids = ["Maze-v0", "Mazes-v0", "Mazes-v1", "Maze-v2", "Amaze-v0"]
    assert close_ids("Maze-v1", ids) == ["Maze-v2", "Maze-v0", "Mazes-v1"]


def test_close_names_keep_their_namespace_and_case_does_not_matter() -> None:
    ids = ["games/Maze-v0", "Maze-v0", "other/Maze-v0"]
    assert close_ids("games/maze-v0", ids) == ["games/Maze-v0"]
    assert close_ids("game/Maze-v0", ids) == ["games/Maze-v0"]


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        ("Cartpole-v1", ["CartPole-v1"]),
        ("CartPol-v1", ["CartPole-v1"]),
        ("Acrobat-v1", ["Acrobot-v1"]),
        ("Tradin-v0", ["Trading-v0", "Trading-v1"]),
        ("MarketMakng-v0", ["MarketMaking-v0", "MarketMaking-v1", "Market-v0"]),
        ("LimitOrderbook-v1", ["LimitOrderBook-v0"]),
        ("Portfolios-v0", ["Portfolio-v0", "Portfolio-v1"]),
        ("Countin-v1", []),  # 'MountainCar' is too far
        ("Zzzzzzzzzz", []),
    ],
)
def test_built_in_ids(asked: str, expected: list[str]) -> None:
    assert close_ids(asked, BUILT_IN) == expected


def test_text_that_is_no_id_still_gets_suggestions() -> None:
    assert close_ids("Counting v0", ["Counting-v0", "Counting-v1"]) == [
        "Counting-v1",
        "Counting-v0",
    ]


def test_the_registry_raises_with_them() -> None:
    registry = EnvRegistry()
    for id in ("CartPole-v1", "Market-v0"):
        registry.register(id, "sekai.envs.classic_control.cartpole:CartPoleEnv")
    with pytest.raises(EnvNotFound) as info:
        registry.spec("CartPole-v0")
    assert info.value.suggestions == ("CartPole-v1",)
    with pytest.raises(EnvNotFound) as info:
        registry.make("Markett-v0")
    assert info.value.suggestions == ("Market-v0",)
