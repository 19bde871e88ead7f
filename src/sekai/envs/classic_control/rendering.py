"""Renderers for the classic-control environments, matching gymnasium's ``rgb_array`` frames.

Coordinates below are gymnasium's pixel grid: whole numbers address pixel centres, y up from
the bottom row. ``_at`` turns them into canvas coordinates, where pixel centres are at halves.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.core.env import Env
from sekai.envs.classic_control.acrobot import AcrobotEnv
from sekai.envs.classic_control.cartpole import CartPoleEnv
from sekai.envs.classic_control.continuous_mountain_car import ContinuousMountainCarEnv
from sekai.envs.classic_control.mountain_car import MountainCarEnv
from sekai.envs.classic_control.pendulum import PendulumEnv
from sekai.error import ResetRequired
from sekai.rendering import BaseRenderer, Canvas, rotate
from sekai.utils.validation import check_int

__all__ = ["AcrobotRenderer", "CartPoleRenderer", "MountainCarRenderer", "PendulumRenderer"]

_WHITE = (255, 255, 255)
_BLACK = (0, 0, 0)


def _at(points: ArrayLike) -> NDArray[np.float64]:
    """Canvas coordinates of gymnasium pixel coordinates."""
    return np.asarray(points, dtype=np.float64) + 0.5


def _size(value: int, name: str, owner: str) -> int:
    return check_int(value, f"{owner}: {name}", low=1)


def _state(renderer: BaseRenderer, env: Any, kinds: tuple[type, ...]) -> tuple[Any, Any]:
    """The base env (checked against ``kinds``) and its state; ``ResetRequired`` before reset."""
    base = env.unwrapped if isinstance(env, Env) else env
    if not isinstance(base, kinds):
        names = " or ".join(kind.__name__ for kind in kinds)
        raise TypeError(f"{type(renderer).__name__} draws {names}, got {type(base).__name__}.")
    state = getattr(base, "state", None)
    if state is None:
        raise ResetRequired(f"{type(renderer).__name__}: call reset() before rendering.")
    return base, state


def _disc(canvas: Canvas, centre: ArrayLike, radius: float, color: tuple[int, int, int]) -> None:
    """A filled circle centred on the pixel that gymnasium's truncated centre addresses."""
    x, y = (math.trunc(v) for v in np.asarray(centre, dtype=np.float64))
    canvas.circle(x + 0.5, y + 0.5, math.trunc(radius), color)


class CartPoleRenderer(BaseRenderer):
    """CartPole: track at y=100, a 50 by 30 cart, the pole and its axle."""

    def __init__(self, width: int = 600, height: int = 400) -> None:
        self.width = _size(width, "width", "CartPoleRenderer")
        self.height = _size(height, "height", "CartPoleRenderer")

    def render(self, env: Any) -> NDArray[np.uint8]:
        """The ``(height, width, 3)`` uint8 frame of the env's current state."""
        base, state = _state(self, env, (CartPoleEnv,))
        canvas = Canvas(self.width, self.height, _WHITE)
        scale = self.width / (2 * base.x_threshold)
        pole_width, pole_length = 10.0, scale * 2 * base.length
        cart_x, cart_y = state[0] * scale + self.width / 2, 100.0
        axle_y = cart_y + 30 / 4
        cart = np.array([(-25, -15), (-25, 15), (25, 15), (25, -15)]) + np.array([cart_x, cart_y])
        canvas.polygon(_at(cart), _BLACK)
        half = pole_width / 2
        pole = [(-half, -half), (-half, pole_length - half), (half, pole_length - half)]
        pole.append((half, -half))
        canvas.polygon(_at(rotate(pole, -state[2]) + np.array([cart_x, axle_y])), (202, 152, 101))
        _disc(canvas, (cart_x, axle_y), half, (129, 132, 203))
        canvas.rect(0, cart_y, self.width, cart_y + 1, _BLACK)
        return canvas.to_array()


class MountainCarRenderer(BaseRenderer):
    """MountainCar and MountainCarContinuous: track, car with two wheels, goal flag."""

    def __init__(self, width: int = 600, height: int = 400) -> None:
        self.width = _size(width, "width", "MountainCarRenderer")
        self.height = _size(height, "height", "MountainCarRenderer")

    def render(self, env: Any) -> NDArray[np.uint8]:
        """The ``(height, width, 3)`` uint8 frame of the env's current state."""
        base, state = _state(self, env, (MountainCarEnv, ContinuousMountainCarEnv))
        canvas = Canvas(self.width, self.height, _WHITE)
        low = base.min_position
        scale = self.width / (base.max_position - low)
        position = float(state[0])
        xs = np.linspace(low, base.max_position, 100)
        track = np.stack([(xs - low) * scale, base.height(xs) * scale], -1)
        canvas.polyline(_at(track), _BLACK)
        tilt = math.cos(3 * position)
        origin = np.array([(position - low) * scale, 10 + base.height(position) * scale])
        body = rotate([(-20, 0), (-20, 20), (20, 20), (20, 0)], tilt) + origin
        canvas.polygon(_at(body), _BLACK)
        for wheel in rotate([(10, 0), (-10, 0)], tilt) + origin:
            _disc(canvas, wheel, 20 / 2.5, (128, 128, 128))
        flag_x = math.trunc((base.goal_position - low) * scale)
        flag_y = math.trunc(base.height(base.goal_position) * scale)
        canvas.rect(flag_x, flag_y, flag_x + 1, flag_y + 51, _BLACK)
        flag = [(flag_x, flag_y + 50), (flag_x, flag_y + 40), (flag_x + 25, flag_y + 45)]
        canvas.polygon(_at(flag), (204, 204, 0))
        return canvas.to_array()


class PendulumRenderer(BaseRenderer):
    """Pendulum: the rod with rounded ends and a black pivot."""

    def __init__(self, size: int = 500) -> None:
        self.size = _size(size, "size", "PendulumRenderer")

    def render(self, env: Any) -> NDArray[np.uint8]:
        """The ``(size, size, 3)`` uint8 frame of the env's current state."""
        _, state = _state(self, env, (PendulumEnv,))
        canvas = Canvas(self.size, self.size, _WHITE)
        scale = self.size / 4.4
        centre = self.size // 2
        length, half = scale, 0.1 * scale
        angle = state[0] + math.pi / 2
        rod = rotate([(0, -half), (0, half), (length, half), (length, -half)], angle) + centre
        color = (204, 77, 77)
        canvas.polygon(_at(rod), color)
        _disc(canvas, (centre, centre), half, color)
        _disc(canvas, rotate((length, 0), angle) + centre, half, color)
        _disc(canvas, (centre, centre), 0.05 * scale, _BLACK)
        return canvas.to_array()


class AcrobotRenderer(BaseRenderer):
    """Acrobot: a reference line, two links and their joints."""

    def __init__(self, size: int = 500) -> None:
        self.size = _size(size, "size", "AcrobotRenderer")

    def render(self, env: Any) -> NDArray[np.uint8]:
        """The ``(size, size, 3)`` uint8 frame of the env's current state."""
        base, state = _state(self, env, (AcrobotEnv,))
        canvas = Canvas(self.size, self.size, _WHITE)
        l1, l2 = base.LINK_LENGTH_1, base.LINK_LENGTH_2
        scale = self.size / (2 * (l1 + l2 + 0.2))
        centre = self.size / 2
        line_y = math.trunc(scale + centre)
        canvas.rect(0, line_y, self.size, line_y + 1, _BLACK)
        theta1, theta2 = float(state[0]), float(state[1])
        joints = [(centre, centre)]
        joints.append(
            (centre + l1 * scale * math.sin(theta1), centre - l1 * scale * math.cos(theta1))
        )
        angles = (theta1 - math.pi / 2, theta1 + theta2 - math.pi / 2)
        half = 0.1 * scale
        for joint, angle, length in zip(joints, angles, (l1 * scale, l2 * scale), strict=True):
            link = [(0, -half), (0, half), (length, half), (length, -half)]
            canvas.polygon(_at(rotate(link, angle) + joint), (0, 204, 204))
            _disc(canvas, joint, half, (204, 204, 0))
        return canvas.to_array()
