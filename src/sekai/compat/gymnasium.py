"""Bridges between sekai and gymnasium: spaces, environments and rendering."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, SupportsFloat

import numpy as np
from numpy.typing import NDArray

from sekai.compat._install import install_hint
from sekai.core import Env, ResetResult, StepResult
from sekai.core.closing import Closing
from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Sequence, Space, Tuple
from sekai.spaces.masking import (
    action_mask_space,
    flatten_action_mask,
    get_action_mask,
    supports_action_mask,
)
from sekai.utils.seeding import check_seed

try:
    import gymnasium as gym
    from gymnasium import spaces as gspaces
except ImportError as exc:
    raise ImportError(install_hint("gymnasium")) from exc

__all__ = [
    "GymnasiumRenderer",
    "GymnasiumToSekai",
    "SekaiToGymnasium",
    "space_from_gymnasium",
    "space_to_gymnasium",
]


class _Renderer(Protocol):
    """Anything with ``render(env)``, such as the renderers of ``sekai.rendering``."""

    def render(self, env: Any) -> Any: ...


def space_to_gymnasium(space: Space[Any]) -> gspaces.Space[Any]:
    """The ``gymnasium.spaces`` equivalent of ``space``.

    Dict key order is kept (a MaskedBox becomes its ``{"values", "mask"}`` Dict); a Sequence
    drops ``max_length``. Other space types raise ``TypeError``.
    """
    if isinstance(space, Box):
        return gspaces.Box(space.low, space.high, dtype=space.dtype)
    if isinstance(space, Discrete):
        return gspaces.Discrete(space.n, start=space.start)
    if isinstance(space, MultiDiscrete):
        return gspaces.MultiDiscrete(space.nvec, dtype=space.dtype, start=space.start)
    if isinstance(space, MultiBinary):
        return gspaces.MultiBinary(list(space.n))
    if isinstance(space, Dict):
        # A list of pairs, because gymnasium sorts the keys of a mapping.
        return gspaces.Dict([(key, space_to_gymnasium(sub)) for key, sub in space.spaces.items()])
    if isinstance(space, Tuple):
        return gspaces.Tuple([space_to_gymnasium(sub) for sub in space.spaces])
    if isinstance(space, Sequence):
        return gspaces.Sequence(space_to_gymnasium(space.feature_space), stack=space.stack)
    raise TypeError(f"No gymnasium equivalent for the sekai space {space!r}.")


def space_from_gymnasium(space: gspaces.Space[Any]) -> Space[Any]:
    """The sekai equivalent of a ``gymnasium.spaces`` space (inverse of ``space_to_gymnasium``).

    Dict key order is kept. Other space types raise ``TypeError``.
    """
    if isinstance(space, gspaces.Box):
        return Box(space.low, space.high, dtype=space.dtype)
    if isinstance(space, gspaces.Discrete):
        return Discrete(int(space.n), start=int(space.start))
    if isinstance(space, gspaces.MultiDiscrete):
        return MultiDiscrete(space.nvec, space.dtype.type, start=space.start)
    if isinstance(space, gspaces.MultiBinary):
        return MultiBinary(tuple(int(n) for n in np.atleast_1d(space.n)))
    if isinstance(space, gspaces.Dict):
        return Dict({key: space_from_gymnasium(sub) for key, sub in space.spaces.items()})
    if isinstance(space, gspaces.Tuple):
        return Tuple([space_from_gymnasium(sub) for sub in space.spaces])
    if isinstance(space, gspaces.Sequence):
        return Sequence(space_from_gymnasium(space.feature_space), stack=space.stack)
    raise TypeError(f"No sekai equivalent for the gymnasium space {space!r}.")


class SekaiToGymnasium(gym.Env[Any, Any]):
    """A ``sekai.Env`` seen as a ``gymnasium.Env``.

    Rendering goes through ``renderer.render(sekai_env)``. If the sekai env has
    ``action_mask()``, ``action_masks()`` returns its flat boolean mask (the method
    sb3-contrib's ``MaskablePPO`` looks for); otherwise there is no ``action_masks``.
    """

    RENDER_MODES = ("rgb_array", "ansi")

    def __init__(
        self,
        env: Env[Any, Any],
        renderer: _Renderer | None = None,
        render_mode: str | None = None,
    ) -> None:
        if not isinstance(env, Env):
            raise TypeError(
                f"SekaiToGymnasium expects a sekai.Env, got {type(env).__name__}; "
                "use sekai.compat.to_pettingzoo for a sekai.MultiAgentEnv."
            )
        if render_mode is not None and renderer is None:
            raise ValueError(
                f"render_mode={render_mode!r} needs a renderer: pass renderer=, e.g. one from "
                "sekai.rendering."
            )
        if render_mode == "human":
            raise ValueError(
                "render_mode='human' is not supported: use render_mode='rgb_array' and wrap the "
                "result in gymnasium.wrappers.HumanRendering."
            )
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(
                f"Unsupported render_mode '{render_mode}'; expected one of "
                f"{', '.join(map(repr, self.RENDER_MODES))} or None."
            )
        if render_mode is None and renderer is not None:
            render_mode = "rgb_array"
        self.sekai_env = env
        self.renderer = renderer
        self.render_mode = render_mode
        self.observation_space = space_to_gymnasium(env.observation_space)
        self.action_space = space_to_gymnasium(env.action_space)
        self.metadata = {"render_modes": [render_mode] if render_mode else []}
        if "render_fps" in env.metadata:
            self.metadata["render_fps"] = env.metadata["render_fps"]
        if supports_action_mask(env):
            self.action_masks: Callable[[], NDArray[np.bool_]] = self._flat_action_mask

    def _flat_action_mask(self) -> NDArray[np.bool_]:
        """The sekai env's action mask, flat and boolean (all True when it returns None)."""
        space = self.sekai_env.action_space
        mask = get_action_mask(self.sekai_env)
        if mask is None:
            return np.ones(action_mask_space(space).n, dtype=bool)
        return flatten_action_mask(space, mask)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Seed gymnasium's ``np_random`` and reset the sekai env with the same seed."""
        super().reset(seed=seed)
        result = self.sekai_env.reset(seed=seed, options=options)
        return result.observation, result.info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the sekai env; returns gymnasium's 5-tuple."""
        result = self.sekai_env.step(action)
        return (
            result.observation,
            result.reward,
            bool(result.terminated),
            bool(result.truncated),
            result.info,
        )

    def render(self) -> Any:
        """``renderer.render(sekai_env)``, or None without a renderer."""
        if self.renderer is None:
            return None
        return self.renderer.render(self.sekai_env)

    def close(self) -> None:
        """Close the renderer (if it has ``close``), then the sekai env."""
        close_renderer = getattr(self.renderer, "close", None)
        if close_renderer is not None:
            close_renderer()
        self.sekai_env.close()

    def __str__(self) -> str:
        return f"<SekaiToGymnasium{self.sekai_env}>"


class GymnasiumToSekai(Env[Any, Any]):
    """A ``gymnasium.Env`` seen as a ``sekai.Env``; ``rng`` is the gymnasium env's ``np_random``."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        if not isinstance(env, gym.Env):
            raise TypeError(f"GymnasiumToSekai expects a gymnasium.Env, got {type(env).__name__}.")
        self.gym_env = env
        self.observation_space = space_from_gymnasium(env.observation_space)
        self.action_space = space_from_gymnasium(env.action_space)
        self.metadata = dict(env.metadata)  # type: ignore[misc]

    @property
    def rng(self) -> np.random.Generator:
        """The gymnasium env's ``np_random``."""
        return self.gym_env.np_random

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.gym_env.np_random = value
        self._rng_seed = -1

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        """Reset the gymnasium env; a Generator seed becomes its ``np_random``, and any other
        seed is checked as ``Env.reset`` checks it (``check_seed``)."""
        checked = check_seed(seed)
        if isinstance(checked, np.random.Generator):
            self.gym_env.np_random = checked
            obs, info = self.gym_env.reset(seed=None, options=options)
            self._rng_seed = -1
        elif checked is None:
            obs, info = self.gym_env.reset(seed=None, options=options)
        else:
            obs, info = self.gym_env.reset(seed=checked, options=options)
            self._rng_seed = checked
        return ResetResult(obs, dict(info))

    def step(self, action: Any) -> StepResult[Any]:
        """Step the gymnasium env; reward as float, flags as bool, info as dict."""
        obs, reward, terminated, truncated, info = self.gym_env.step(action)
        return StepResult(obs, float(reward), bool(terminated), bool(truncated), dict(info))

    def close(self) -> None:
        """Close the gymnasium env."""
        self.gym_env.close()

    def __str__(self) -> str:
        return f"<GymnasiumToSekai{self.gym_env}>"

    __repr__ = __str__


class GymnasiumRenderer(Closing):
    """Renders a (wrapped) ``GymnasiumToSekai`` with its gymnasium env's ``render()``."""

    def render(self, env: Env[Any, Any]) -> Any:
        """The gymnasium env's ``render()``; ``TypeError`` for other envs."""
        base = env.unwrapped
        if not isinstance(base, GymnasiumToSekai):
            raise TypeError(
                f"GymnasiumRenderer renders envs built by sekai.compat.from_gymnasium, "
                f"got {type(base).__name__}."
            )
        return base.gym_env.render()

    def close(self) -> None:
        """Nothing to release."""
