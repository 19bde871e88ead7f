"""LimitOrderBookConfig: the LOB envs' settings, checked once, given as keywords or a config."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import sekai
from sekai.envs.finance import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.envs.finance.order_book import LimitOrderBookConfig
from sekai.finance.lob import ZeroIntelligenceFlow, simulate_lobster


def test_keywords_and_a_config_build_the_same_env() -> None:
    flat = LimitOrderBookEnv(levels=3, max_inventory=4, engine="python")
    config = LimitOrderBookConfig(levels=3, max_inventory=4, engine="python")
    given = LimitOrderBookEnv(config=config)
    assert flat.config == given.config == config
    first = flat.reset(seed=1).observation
    second = given.reset(seed=1).observation
    np.testing.assert_array_equal(first["book"], second["book"])


def test_keywords_override_the_fields_of_a_config() -> None:
    config = LimitOrderBookConfig(levels=3, max_inventory=4, engine="python")
    env = sekai.make("LimitOrderBook-v0", config=config, levels=2)
    assert env.unwrapped.config == dataclasses.replace(config, levels=2)
    market = LimitOrderBookMarket(2, config=config, max_trades=8)
    assert market.config == dataclasses.replace(config, max_trades=8)


def test_the_config_holds_checked_numbers_and_is_frozen() -> None:
    config = LimitOrderBookConfig(levels=np.int64(3), session_length=10, warmup=0)
    assert type(config.levels) is int and config.levels == 3
    assert type(config.session_length) is float and type(config.warmup) is float
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.levels = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"levels": 0}, "levels"),
        ({"mid_price": 10}, "mid_price"),
        ({"session_length": 0.0}, "session_length"),
        ({"latency": -1.0}, "latency"),
        ({"engine": "fast"}, "engine"),
        ({"sampler": "random"}, "needs data="),
    ],
)
def test_wrong_values_are_value_errors(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LimitOrderBookConfig(**settings)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        LimitOrderBookEnv(**settings)


def test_flow_and_data_together_are_refused() -> None:
    data = simulate_lobster(200, levels=2, seed=1)
    with pytest.raises(ValueError, match="not both"):
        LimitOrderBookConfig(flow=ZeroIntelligenceFlow(), data=data)


def test_wrong_kinds_are_type_errors() -> None:
    with pytest.raises(TypeError, match="levels"):
        LimitOrderBookConfig(levels=2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="config must be a LimitOrderBookConfig"):
        LimitOrderBookEnv(config={"levels": 3})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword argument 'depth'"):
        LimitOrderBookEnv(depth=3)


def test_latency_is_checked_against_the_decision_interval() -> None:
    with pytest.raises(ValueError, match="latency must be below"):
        LimitOrderBookEnv(decision_interval=0.5, latency=0.5, engine="python")
    with pytest.raises(ValueError, match="latency must be below"):
        LimitOrderBookMarket(2, decision_intervals=1.0, jitter=0.5, latency=0.5)
