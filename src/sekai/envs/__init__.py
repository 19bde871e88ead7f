"""Built-in environments, registered on import of sekai."""

from sekai.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    ContinuousMountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from sekai.envs.finance import (
    LimitOrderBookEnv,
    LimitOrderBookMarket,
    MarketEnv,
    MarketMakingEnv,
    OptimalExecutionEnv,
    PortfolioEnv,
    TradingEnv,
)
from sekai.registry import register

__all__ = [
    "AcrobotEnv",
    "CartPoleEnv",
    "ContinuousMountainCarEnv",
    "MountainCarEnv",
    "PendulumEnv",
    "LimitOrderBookEnv",
    "LimitOrderBookMarket",
    "MarketEnv",
    "MarketMakingEnv",
    "OptimalExecutionEnv",
    "PortfolioEnv",
    "TradingEnv",
]

_CLASSIC = "sekai.envs.classic_control"
_FINANCE = "sekai.envs.finance"

register(
    "CartPole-v1",
    f"{_CLASSIC}.cartpole:CartPoleEnv",
    renderer=f"{_CLASSIC}.rendering:CartPoleRenderer",
    max_episode_steps=500,
    reward_threshold=475.0,
)
register(
    "MountainCar-v0",
    f"{_CLASSIC}.mountain_car:MountainCarEnv",
    renderer=f"{_CLASSIC}.rendering:MountainCarRenderer",
    max_episode_steps=200,
    reward_threshold=-110.0,
)
register(
    "MountainCarContinuous-v0",
    f"{_CLASSIC}.continuous_mountain_car:ContinuousMountainCarEnv",
    renderer=f"{_CLASSIC}.rendering:MountainCarRenderer",
    max_episode_steps=999,
    reward_threshold=90.0,
)
register(
    "Pendulum-v1",
    f"{_CLASSIC}.pendulum:PendulumEnv",
    renderer=f"{_CLASSIC}.rendering:PendulumRenderer",
    max_episode_steps=200,
)
register(
    "Acrobot-v1",
    f"{_CLASSIC}.acrobot:AcrobotEnv",
    renderer=f"{_CLASSIC}.rendering:AcrobotRenderer",
    max_episode_steps=500,
    reward_threshold=-100.0,
)
register(
    "Trading-v0",
    f"{_FINANCE}.trading:TradingEnv",
    vector_entry_point=f"{_FINANCE}.vector:TradingVecEnv",
    renderer=f"{_FINANCE}.trading:TradingRenderer",
)
register(
    "Trading-v1",
    f"{_FINANCE}.trading:TradingEnv",
    vector_entry_point=f"{_FINANCE}.vector:TradingVecEnv",
    renderer=f"{_FINANCE}.trading:TradingRenderer",
    kwargs={"observation": "auto", "reward_mode": "auto", "random_start": True},
)
register(
    "Portfolio-v0",
    f"{_FINANCE}.portfolio:PortfolioEnv",
    vector_entry_point=f"{_FINANCE}.vector:PortfolioVecEnv",
    renderer=f"{_FINANCE}.portfolio:PortfolioRenderer",
)
register(
    "Portfolio-v1",
    f"{_FINANCE}.portfolio:PortfolioEnv",
    vector_entry_point=f"{_FINANCE}.vector:PortfolioVecEnv",
    renderer=f"{_FINANCE}.portfolio:PortfolioRenderer",
    kwargs={
        "action_mode": "logits",
        "observation": "auto",
        "reward_mode": "auto",
        "random_start": True,
    },
)
register(
    "MarketMaking-v0",
    f"{_FINANCE}.market_making:MarketMakingEnv",
    vector_entry_point=f"{_FINANCE}.vector:MarketMakingVecEnv",
    renderer=f"{_FINANCE}.market_making:MarketMakingRenderer",
)
register(
    "MarketMaking-v1",
    f"{_FINANCE}.market_making:MarketMakingEnv",
    vector_entry_point=f"{_FINANCE}.vector:MarketMakingVecEnv",
    renderer=f"{_FINANCE}.market_making:MarketMakingRenderer",
    kwargs={"centred_actions": True, "expected_reward": True, "inventory_scale": 8.0},
)
register(
    "OptimalExecution-v0",
    f"{_FINANCE}.optimal_execution:OptimalExecutionEnv",
    vector_entry_point=f"{_FINANCE}.vector:OptimalExecutionVecEnv",
    renderer=f"{_FINANCE}.optimal_execution:OptimalExecutionRenderer",
)
register(
    "OptimalExecution-v1",
    f"{_FINANCE}.optimal_execution:OptimalExecutionEnv",
    kwargs={
        "centred_action": True,
        "expected_reward": True,
        "reward_scale": 100.0,
        "observe_price": False,
    },
    vector_entry_point=f"{_FINANCE}.vector:OptimalExecutionVecEnv",
    renderer=f"{_FINANCE}.optimal_execution:OptimalExecutionRenderer",
)
register(
    "Market-v0",
    f"{_FINANCE}.market_env:MarketEnv",
    vector_entry_point=f"{_FINANCE}.vector:MarketVecEnv",
    renderer=f"{_FINANCE}.market:MarketRenderer",
)
register(
    "LimitOrderBook-v0",
    f"{_FINANCE}.lob_env:LimitOrderBookEnv",
    renderer=f"{_FINANCE}.order_book:LimitOrderBookRenderer",
)
register(
    "MarketDiscrete-v0",
    f"{_FINANCE}.market:MarketEnv",
    vector_entry_point=f"{_FINANCE}.market:MarketVecEnv",
    renderer=f"{_FINANCE}.market:MarketRenderer",
    kwargs={"action_mode": "discrete"},
)
