"""LimitOrderBook-v0 and LimitOrderBookMarket: agents quoting in a limit order book.

Both environments run on one shared core (``core._LOBCore``): the book, the background flow
(zero-intelligence, or replayed LOBSTER messages with ``data=``), the trade memory, the
per-fill accounting, observations and the quote / market-order decision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.multi_agent import MultiAgentEnv
from sekai.core.options import check_reset_options
from sekai.core.result import MAResetResult, MAStepResult, ResetResult, StepResult
from sekai.envs.finance._checks import check_float, check_int, episode_ended
from sekai.envs.finance._log import EpisodeLog
from sekai.envs.finance.order_book.config import LimitOrderBookConfig
from sekai.envs.finance.order_book.core import (
    BUY,
    HOLD,
    LATE,
    NOW,
    SELL,
    Plan,
    _LOBCore,
    _Obs,
    _Trader,
)
from sekai.error import ResetRequired
from sekai.finance.lob import OrderBook, ZeroIntelligenceFlow
from sekai.finance.lob.engine import resolve_engine

if TYPE_CHECKING:
    from sekai.envs.finance.order_book.compiled import _CompiledCore

__all__ = ["BUY", "HOLD", "SELL", "LimitOrderBookEnv", "LimitOrderBookMarket"]

_TOLERANCE = Fraction(1, 10**9)
_Action = NDArray[np.int64]


class LimitOrderBookEnv(Env[_Obs, _Action]):
    """Quote a bid and an ask, and trade at market, against simulated or replayed order flow.

    Each step the agent may send a market order of ``order_size`` lots, then sets its bid and
    ask ``level`` ticks behind the best prices of other traders (0 = no quote); the flow then
    runs for ``decision_interval`` time units of a ``session_length`` session. Reward: change
    of marked-to-mid wealth minus ``inventory_penalty·q²·dt``. Only the flow draws from
    ``rng``: the initial book and the warm-up at reset, then one ``advance`` per step.

    With ``data`` (a ``LobsterData`` or a list of days) the background flow is the recorded
    messages, in seconds: ``sampler`` (default ``"random"``) picks each session's start on
    a ``decision_interval`` grid from ``warmup`` after a day's first message, among starts
    whose session ends by its last message; the only draw is the sampler's. ``latency``
    (``0 <= latency < decision_interval``) prices each decision on the observed book and
    sends it ``latency`` later; a decision that would arrive after the session is not sent.

    ``engine``: ``"numba"`` runs the book, the zero-intelligence flow or the replay compiled,
    with the same results as ``"python"`` (``OrderBook``); ``"auto"`` picks numba when it is
    installed and the flow is not one of the caller's own. Under numba, ``book`` is a
    ``CompiledBook``.

    Every setting but ``decision_interval`` is a field of ``LimitOrderBookConfig``: pass them
    as keywords, or a ``config`` whose fields the keywords override.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 10}
    AGENT: ClassVar[int] = 0

    def __init__(
        self,
        *,
        decision_interval: float = 1.0,
        config: LimitOrderBookConfig | None = None,
        **settings: Any,
    ) -> None:
        self.decision_interval = check_float(
            decision_interval, "decision_interval", low=0.0, low_open=True
        )
        self.config = LimitOrderBookConfig.of(config, settings)
        _check_latency(self.config.latency, self.decision_interval)
        self.core = _make_core(self.config, self.decision_interval, 1, False)
        self.n_steps = math.ceil(self.core.session_length / self.decision_interval - 1e-9)
        self.observation_space = self.core.observation_space()
        self.action_space = self.core.action_space()
        self.trader = _Trader(self.AGENT)
        self.elapsed_steps = 0
        self._schedule = _Schedule(
            Fraction(self.decision_interval), self.core.end, Fraction(self.core.latency)
        )
        self._started = False
        self._done = False
        self._log = EpisodeLog()

    @property
    def book(self) -> OrderBook:
        """The order book (the same object across resets)."""
        return self.core.book

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[_Obs]:
        """Lay a fresh book, run the warm-up and start flat; takes no ``options``."""
        check_reset_options(self, options)
        self._set_rng(seed)
        self.trader = _Trader(self.AGENT)
        self.core.start(self.rng, [self.trader])
        self.elapsed_steps = 0
        self._started = True
        self._done = False
        core = self.core
        info = core.info(self.trader, self.decision_interval)
        self._log.note(0, info)
        return ResetResult(core.observation(self.trader), info)

    def step(self, action: Any) -> StepResult[_Obs]:
        """Market order, quotes, then the flow runs to the next decision time."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        core = self.core
        decision = core.parse(action, self.action_space)
        k = self.elapsed_steps + 1
        observation, reward, info = core.step_agent(
            self.rng, self.trader, decision, self._schedule.times(k)
        )
        self.elapsed_steps = k
        self._done = terminated = k >= self.n_steps
        self._log.note(k, info)
        return StepResult(observation, reward, terminated, False, info)

    def action_mask(self) -> tuple[NDArray[np.int8], ...]:
        """``(bid_mask[K+1], ask_mask[K+1], market_mask[3])`` int8."""
        return self.core.action_mask(self.trader)


class LimitOrderBookMarket(MultiAgentEnv[_Obs, _Action, str]):
    """Several LOB agents sharing one book, each deciding on its own (jittered) clock.

    A step takes the actions of the agents in ``acting``; the session clock then jumps to the
    earliest next decision and the flow runs until then. Every agent gets a reward each step.
    Per step ``rng`` draws one ``uniform`` per acting agent in name order (only when
    ``jitter > 0``), then the flow runs. With one agent and no jitter the trajectories equal
    ``LimitOrderBookEnv``'s for the same seed and actions, unless ``session_length`` lies
    within about 1e-9 of a multiple of the interval (the two end tests round differently).
    ``staggered_by`` names the settings that let only some agents act at a step.

    ``sekai.compat.to_pettingzoo`` runs the market event-driven: ``reset`` and ``step`` observe
    only the agents in ``acting``, the next actions are theirs, and rewards, terminations,
    truncations and infos come for every live agent. PettingZoo's ``parallel_api_test`` has
    every agent act at every step, so it applies where ``staggered_by`` is None: equal
    ``decision_intervals`` and ``jitter=0``, or a single agent.

    ``data``, ``sampler`` and ``latency`` are as for ``LimitOrderBookEnv``: starts lie on a
    grid of the shortest interval, and ``latency`` must stay below the shortest interval
    shortened by the jitter; the acting agents' decisions reach the book together,
    ``latency`` after the step's clock, in name order. ``engine`` is as for
    ``LimitOrderBookEnv``. The settings other than ``n_agents``, ``decision_intervals`` and
    ``jitter`` are ``LimitOrderBookConfig``'s fields, as keywords or a ``config``.
    """

    def __init__(
        self,
        n_agents: int = 2,
        *,
        decision_intervals: float | Sequence[float] = 1.0,
        jitter: float = 0.0,
        config: LimitOrderBookConfig | None = None,
        **settings: Any,
    ) -> None:
        n = check_int(n_agents, "n_agents", low=1)
        self.decision_intervals = _intervals(decision_intervals, n)
        self.jitter = check_float(jitter, "jitter", low=0.0, high=1.0, high_open=True)
        shortest = float(self.decision_intervals.min())
        self.config = LimitOrderBookConfig.of(config, settings)
        _check_latency(self.config.latency, shortest * (1.0 - self.jitter))
        self.core = _make_core(self.config, shortest, n, True)
        self.possible_agents = [f"trader_{i}" for i in range(n)]
        self.agents: list[str] = []
        self.observation_spaces = {a: self.core.observation_space() for a in self.possible_agents}
        self.action_spaces = {a: self.core.action_space() for a in self.possible_agents}
        self.traders = {a: _Trader(i) for i, a in enumerate(self.possible_agents)}
        self.acting: list[str] = []
        self._names = sorted(self.possible_agents)
        self._intervals = dict(
            zip(self.possible_agents, map(Fraction, self.decision_intervals.tolist()), strict=True)
        )
        self._next = dict.fromkeys(self.possible_agents, Fraction(0))
        self._latency = Fraction(self.core.latency)
        self._clock = Fraction(0)
        self._started = False
        self._done = False
        self._log = EpisodeLog()

    @property
    def book(self) -> OrderBook:
        """The order book (the same object across resets)."""
        return self.core.book

    @property
    def next_decision(self) -> NDArray[np.float64]:
        """Each agent's next decision time in session time, in ``possible_agents`` order."""
        return np.array([float(self._next[a]) for a in self.possible_agents], dtype=np.float64)

    @property
    def staggered_by(self) -> str | None:
        """Unequal ``decision_intervals`` or ``jitter > 0`` with several agents, else ``None``.

        Either lets only some agents act at a step; with one agent it always acts.
        """
        if len(self.possible_agents) == 1:
            return None
        reasons = []
        if len(set(self._intervals.values())) > 1:
            reasons.append(f"unequal decision_intervals {self.decision_intervals.tolist()}")
        if self.jitter > 0:
            reasons.append(f"jitter={self.jitter}")
        if not reasons:
            return None
        return (
            f"{' and '.join(reasons)} (every agent acts at every step only with equal "
            "decision_intervals and jitter=0)"
        )

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[_Obs]:
        """Lay a fresh book, run the warm-up, start every trader flat; all agents act first.

        Takes no ``options``.
        """
        check_reset_options(self, options)
        self._set_rng(seed)
        self.traders = {a: _Trader(i) for i, a in enumerate(self.possible_agents)}
        core = self.core
        core.start(self.rng, list(self.traders.values()))
        self._clock = Fraction(0)
        self._next = dict.fromkeys(self.possible_agents, Fraction(0))
        self.agents = list(self.possible_agents)
        self.acting = list(self._names)
        self._started = True
        self._done = False
        infos = {a: core.info(t, 0.0) for a, t in self.traders.items()}
        self._log.note(0.0, infos)
        return MAResetResult({a: core.observation(self.traders[a]) for a in self.acting}, infos)

    def step(self, actions: Mapping[str, Any]) -> MAStepResult[_Obs]:
        """Apply the acting agents' decisions in name order, then run to the next decision."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        if not isinstance(actions, Mapping) or set(actions) != set(self.acting):
            received = list(actions) if isinstance(actions, Mapping) else actions
            raise ValueError(
                f"step() needs exactly one action for each acting agent {self.acting}, "
                f"got {received!r}."
            )
        core = self.core
        decisions = [(a, core.parse(actions[a], self.action_spaces[a])) for a in self.acting]
        traders = self.traders
        mid_before = core.mid()
        wealth_before = {a: t.wealth(mid_before) for a, t in traders.items()}
        core.reset_fills(list(traders.values()))
        rng = self.rng
        jitter = self.jitter
        clock = self._clock
        plans: list[tuple[_Trader, Plan]] = []
        for agent, (bid_level, ask_level, market) in decisions:
            if self._latency:
                plans.append(
                    (traders[agent], core.plan(traders[agent], bid_level, ask_level, market))
                )
            else:
                core.decide(traders[agent], bid_level, ask_level, market)
            interval = self._intervals[agent]
            if jitter > 0:
                interval = Fraction(float(interval) * rng.uniform(1.0 - jitter, 1.0 + jitter))
            self._next[agent] = clock + interval
        new_clock = min(min(self._next.values()), core.end)
        arrival = clock + self._latency
        if plans and arrival < new_clock:
            core.advance(rng, arrival)
            for trader, plan in plans:
                core.deliver(trader, plan)
        dt = float(new_clock - clock)
        self._clock = new_clock
        core.advance(rng, new_clock)
        mid = core.mid()
        penalty = core.inventory_penalty * dt
        rewards = {
            a: t.wealth(mid) - wealth_before[a] - penalty * t.inventory * t.inventory
            for a, t in traders.items()
        }
        done = new_clock >= core.end - _TOLERANCE
        self._done = done
        if done:
            self.acting = list(self._names)
            self.agents = []
        else:
            self.acting = [a for a in self._names if self._next[a] - new_clock <= _TOLERANCE]
        acting = set(self.acting)
        infos = {}
        for agent, trader in traders.items():
            info = core.info(trader, dt)
            info["acting"] = agent in acting
            infos[agent] = info
        self._log.note(core.elapsed, infos)
        return MAStepResult(
            {a: core.observation(traders[a]) for a in self.acting},
            rewards,
            dict.fromkeys(self.possible_agents, done),
            dict.fromkeys(self.possible_agents, False),
            infos,
        )

    def action_mask(self, agent: str) -> tuple[NDArray[np.int8], ...]:
        """``(bid_mask[K+1], ask_mask[K+1], market_mask[3])`` int8 for ``agent``."""
        return self.core.action_mask(self.traders[agent])


def _intervals(value: Any, n: int) -> NDArray[np.float64]:
    """Decision intervals broadcast to ``(n,)``; each finite and > 0."""
    values = [value] * n if np.ndim(value) == 0 else list(value)
    if len(values) != n:
        raise ValueError(
            f"decision_intervals needs a scalar or {n} values (one per agent), got {len(values)}."
        )
    return np.array(
        [check_float(v, "decision_intervals", low=0.0, low_open=True) for v in values],
        dtype=np.float64,
    )


def _check_latency(latency: float, shortest: float) -> None:
    """``ValueError`` unless ``latency`` is below ``shortest``, the shortest decision interval."""
    if latency >= shortest:
        raise ValueError(
            f"latency must be below the shortest time between decisions ({shortest:g}), got "
            f"{latency:g}: a decision must reach the book before the next one."
        )


def _make_core(
    config: LimitOrderBookConfig, start_step: float, n_traders: int, market: bool
) -> _LOBCore | _CompiledCore:
    """The mechanics on the chosen engine; flows other than the built-in ones run in Python.

    ``start_step``: the grid of replayed session starts. ``market``: for
    ``LimitOrderBookMarket``, whose compiled calls differ.
    """
    engine = config.engine
    chosen = resolve_engine(engine)
    flow = config.flow
    if chosen == "numba" and not (flow is None or type(flow) is ZeroIntelligenceFlow):
        if engine == "auto":
            chosen = "python"
        else:
            raise ValueError(
                "engine='numba' runs ZeroIntelligenceFlow order flow or replayed data=; flows "
                "of other types run on engine='python' (or 'auto')."
            )
    if chosen == "python":
        return _LOBCore(config, start_step)
    from sekai.envs.finance.order_book.compiled import _CompiledCore
    from sekai.envs.finance.order_book.warmup import warm_up

    warm_up(market)
    return _CompiledCore(config, start_step, n_traders)


class _Schedule:
    """Decision ``k``'s times in session time, exact: ``k·interval`` capped at the end.

    Rational arithmetic on integers, rounded once to floats, as ``Fraction`` would give.
    """

    _CACHED = 65_536
    """Decisions whose times are kept once computed (every episode asks for the same)."""

    def __init__(self, interval: Fraction, end: Fraction, latency: Fraction) -> None:
        self._interval = interval.as_integer_ratio()
        self._end = end.as_integer_ratio()
        self._latency = latency.as_integer_ratio()
        self._known: list[tuple[float, float, float]] = [(NOW, 0.0, 0.0)]

    def _clock(self, k: int) -> tuple[int, int]:
        num, den = self._interval
        num *= k
        end, end_den = self._end
        return (end, end_den) if num * end_den >= end * den else (num, den)

    def times(self, k: int) -> tuple[float, float, float]:
        """``(arrival, elapsed, dt)`` of decision ``k`` (1, 2, ...): see ``step_agent``."""
        known = self._known
        if k < len(known):
            return known[k]
        times = self._times(k)
        if k == len(known) and k < self._CACHED:
            known.append(times)
        return times

    def _times(self, k: int) -> tuple[float, float, float]:
        now, now_den = self._clock(k)
        before, before_den = self._clock(k - 1)
        dt = (now * before_den - before * now_den) / (now_den * before_den)
        latency, latency_den = self._latency
        if not latency:
            return NOW, now / now_den, dt
        arrival = before * latency_den + latency * before_den
        arrival_den = before_den * latency_den
        if arrival * now_den < now * arrival_den:
            return arrival / arrival_den, now / now_den, dt
        return LATE, now / now_den, dt
