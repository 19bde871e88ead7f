"""Renderer protocol, RecordFrames, and saving frames as GIF or video."""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai.rendering.recorder as recorder
from sekai.core import Env, ResetResult, StepResult
from sekai.rendering import BaseRenderer, RecordFrames, Renderer, save_gif, save_video
from sekai.spaces import Box, Discrete

Image = pytest.importorskip("PIL.Image")


class Counter(Env[NDArray[np.float32], int]):
    """Counts steps; logs close()."""

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 12}

    def __init__(self, log: list[str] | None = None) -> None:
        self.observation_space = Box(0, 100, (1,), np.float32)
        self.action_space = Discrete(2)
        self.t = 0
        self.log = [] if log is None else log

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self.t = 0
        return ResetResult(np.array([0], dtype=np.float32), {})

    def step(self, action: int) -> StepResult[NDArray[np.float32]]:
        self.t += 1
        return StepResult(np.array([self.t], dtype=np.float32), 1.0, False, False, {})

    def close(self) -> None:
        self.log.append("env")


class TRenderer(BaseRenderer):
    """A frame whose pixels hold the env's step count; records what it was called with."""

    def __init__(self, log: list[str] | None = None) -> None:
        self.seen: list[Any] = []
        self.log = [] if log is None else log

    def render(self, env: Any) -> NDArray[np.uint8]:
        self.seen.append(env)
        return np.full((2, 3, 3), env.unwrapped.t, dtype=np.uint8)

    def close(self) -> None:
        self.log.append("renderer")


def counts(frames: list[Any]) -> list[int]:
    return [int(f[0, 0, 0]) for f in frames]


# --- renderer protocol --------------------------------------------------------------------------
def test_renderer_protocol_and_base() -> None:
    class Duck:
        def render(self, env: Any) -> str:
            return "frame"

        def close(self) -> None:
            pass

    assert isinstance(Duck(), Renderer) and isinstance(BaseRenderer(), Renderer)
    assert not isinstance(object(), Renderer)
    with pytest.raises(NotImplementedError):
        BaseRenderer().render(None)
    log: list[str] = []
    with TRenderer(log) as renderer:
        assert isinstance(renderer, TRenderer)
    assert log == ["renderer"]


# --- RecordFrames -------------------------------------------------------------------------------
def test_records_after_reset_and_every_step() -> None:
    renderer = TRenderer()
    env = RecordFrames(Counter(), renderer)
    env.reset()
    for _ in range(3):
        env.step(0)
    assert counts(env.frames) == [0, 1, 2, 3]
    assert all(seen is env.env for seen in renderer.seen)
    env.clear()
    assert env.frames == []


def test_records_async() -> None:
    env = RecordFrames(Counter(), TRenderer())

    async def episode() -> None:
        await env.async_reset()
        await env.async_step(1)
        await env.async_step(1)

    asyncio.run(episode())
    assert counts(env.frames) == [0, 1, 2]


def test_max_frames_and_enabled() -> None:
    env = RecordFrames(Counter(), TRenderer(), max_frames=2)
    env.reset()
    env.step(0)
    env.step(0)
    assert counts(env.frames) == [0, 1]
    env = RecordFrames(Counter(), TRenderer(), enabled=False)
    env.reset()
    env.step(0)
    assert env.frames == []
    env.enabled = True
    env.step(0)
    assert counts(env.frames) == [2]
    assert RecordFrames(Counter(), TRenderer(), max_frames=0).max_frames == 0


def test_constructor_checks() -> None:
    with pytest.raises(TypeError):
        RecordFrames(Counter(), object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"max_frames must be an int, got float 2\.5"):
        RecordFrames(Counter(), TRenderer(), max_frames=2.5)  # type: ignore[arg-type]
    assert RecordFrames(Counter(), TRenderer(), max_frames=2.0).max_frames == 2  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        RecordFrames(Counter(), TRenderer(), max_frames=-1)
    with pytest.raises(TypeError):
        RecordFrames("env", TRenderer())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "fps", "metadata_fps", "function", "expected_fps"),
    [
        ("a.gif", None, 12, "save_gif", 12),
        ("a.GIF", 5, 12, "save_gif", 5),
        ("a.mp4", None, None, "save_video", 30),
        ("a.webm", None, 0, "save_video", 30),
        ("a", 7.5, 12, "save_video", 7.5),
    ],
)
def test_save_dispatch(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    fps: float | None,
    metadata_fps: int | None,
    function: str,
    expected_fps: float,
) -> None:
    calls: list[tuple[str, Any, Any, Any]] = []

    def fake(name: str) -> Callable[[Any, Any, Any], Path]:
        def save(frames: Any, path: Any, fps: Any) -> Path:
            calls.append((name, frames, path, fps))
            return Path(path)

        return save

    for name_ in ("save_gif", "save_video"):
        monkeypatch.setattr(recorder, name_, fake(name_))
    base = Counter()
    monkeypatch.setattr(
        base, "metadata", {} if metadata_fps is None else {"render_fps": metadata_fps}
    )
    env = RecordFrames(base, TRenderer())
    env.reset()
    assert env.save(tmp_path / name, fps) == tmp_path / name
    assert calls == [(function, env.frames, tmp_path / name, expected_fps)]


def test_close_order() -> None:
    log: list[str] = []
    RecordFrames(Counter(log), TRenderer(log)).close()
    assert log == ["renderer", "env"]

    class Failing(TRenderer):
        def close(self) -> None:
            raise RuntimeError("renderer broke")

    log.clear()
    with pytest.raises(RuntimeError, match="renderer broke"):
        RecordFrames(Counter(log), Failing()).close()
    assert log == ["env"]


def test_episode_to_gif(tmp_path: Path) -> None:
    env = RecordFrames(Counter(), TRenderer())
    env.reset()
    env.step(0)
    path = env.save(tmp_path / "episode.gif")
    with Image.open(path) as gif:
        assert gif.n_frames == 2 and gif.info["duration"] == 80  # 1000 / 12 = 83 ms, in 10 ms


# --- save_gif -----------------------------------------------------------------------------------
def read_gif(path: Path) -> tuple[list[NDArray[np.uint8]], dict[str, Any]]:
    frames = []
    with Image.open(path) as gif:
        info = dict(gif.info)
        for k in range(gif.n_frames):
            gif.seek(k)
            frames.append(np.array(gif.convert("RGB")))
    return frames, info


def test_gif_round_trip_with_few_colours(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    palette = rng.integers(0, 256, (40, 3), dtype=np.uint8)
    frames = [palette[rng.integers(0, 40, (6, 5))] for _ in range(20)]
    path = save_gif(frames, str(tmp_path / "a.gif"), fps=25)
    assert path == tmp_path / "a.gif"
    back, info = read_gif(path)
    assert len(back) == 20 and all((a == b).all() for a, b in zip(back, frames, strict=True))
    assert info["loop"] == 0 and info["duration"] == 40


def test_gif_palette_is_shared_between_frames(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frames = rng.integers(0, 256, (6, 16, 16, 3), dtype=np.uint8)  # ~1500 colours
    back, _ = read_gif(save_gif(frames, tmp_path / "b.gif", fps=1000))
    colours = {tuple(c) for frame in back for c in frame.reshape(-1, 3)}
    assert len(back) == 6 and len(colours) <= 256


def test_gif_falls_back_when_a_frame_has_an_unseen_colour(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    palette = rng.integers(0, 256, (10, 3), dtype=np.uint8)
    frames = [palette[rng.integers(0, 10, (4, 4))] for _ in range(40)]
    frames[1] = frames[1].copy()
    frames[1][0, 0] = (1, 2, 3)  # every 2nd frame is sampled: this colour is not
    back, _ = read_gif(save_gif(frames, tmp_path / "c.gif"))
    assert (back[0] == frames[0]).all() and tuple(back[1][0, 0]) != (1, 2, 3)


def test_gif_grey_and_rgba_saved_directly(tmp_path: Path) -> None:
    grey = np.arange(60, dtype=np.uint8).reshape(3, 4, 5) * 4
    with Image.open(save_gif(grey, tmp_path / "g.gif")) as gif:
        for k in range(3):
            gif.seek(k)
            assert (np.array(gif.convert("L")) == grey[k]).all()
    rgba = np.zeros((2, 3, 3, 4), dtype=np.uint8)
    rgba[1, ..., :3] = 200
    rgba[..., 3] = 255
    with Image.open(save_gif(list(rgba), tmp_path / "r.gif")) as gif:
        assert gif.n_frames == 2


@pytest.mark.parametrize(("fps", "duration"), [(30, 33), (7, 142), (2000, 1), (0.5, 2000)])
def test_gif_save_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fps: float, duration: int
) -> None:
    options: list[dict[str, Any]] = []
    monkeypatch.setattr(Image.Image, "save", lambda self, path, **kw: options.append(kw))
    save_gif([FRAME, FRAME], tmp_path / "x.png", fps)
    (kw,) = options
    assert kw["duration"] == duration and kw["loop"] == 0 and kw["optimize"] is True
    assert kw["format"] == "GIF" and kw["save_all"] is True and len(kw["append_images"]) == 1


# --- validation ---------------------------------------------------------------------------------
FRAME = np.zeros((4, 5, 3), dtype=np.uint8)

BAD_INPUTS: list[tuple[Any, Any, type[Exception]]] = [
    ([FRAME], 0, ValueError),
    ([FRAME], -1, ValueError),
    ([FRAME], math.nan, ValueError),
    ([FRAME], math.inf, ValueError),
    ([FRAME], "30", TypeError),
    ([FRAME], True, TypeError),
    (np.zeros((4, 5), dtype=np.uint8), 30, ValueError),
    (np.zeros((4, 5, 3), dtype=np.uint8), 30, ValueError),
    (np.zeros((4, 5, 4), dtype=np.uint8), 30, ValueError),
    ([], 30, ValueError),
    (np.zeros((0, 4, 5, 3), dtype=np.uint8), 30, ValueError),
    (["frame"], 30, TypeError),
    ("frames", 30, TypeError),
    ([np.array([[None]])], 30, TypeError),
    ([np.zeros((4, 5), dtype=bool)], 30, TypeError),
    ([np.zeros((4, 5, 2), dtype=np.uint8)], 30, ValueError),
    ([np.zeros(5, dtype=np.uint8)], 30, ValueError),
    ([np.zeros((4, 5, 3, 1), dtype=np.uint8)], 30, ValueError),
    ([np.zeros((0, 5, 3), dtype=np.uint8)], 30, ValueError),
    ([np.zeros((4, 5, 3))], 30, ValueError),
    ([np.full((4, 5, 3), 256)], 30, ValueError),
    ([np.full((4, 5, 3), -1)], 30, ValueError),
    ([FRAME, np.zeros((5, 4, 3), dtype=np.uint8)], 30, ValueError),
    ([FRAME, np.zeros((4, 5), dtype=np.uint8)], 30, ValueError),
]


@pytest.mark.parametrize("save", [save_gif, save_video])
@pytest.mark.parametrize(("frames", "fps", "error"), BAD_INPUTS)
def test_validation_happens_before_writing(
    tmp_path: Path, save: Any, frames: Any, fps: Any, error: type[Exception]
) -> None:
    path = tmp_path / "out.gif"
    with pytest.raises(error):
        save(frames, path, fps)
    assert not path.exists()


def test_accepted_inputs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("imageio.v2")
    saved: list[Any] = []
    monkeypatch.setattr("imageio.v2.mimsave", lambda p, f, fps: saved.append((p, f, fps)))
    stacked = np.zeros((3, 4, 5), dtype=np.int64)  # (T, H, W) grey, any integer dtype
    assert save_video(stacked, str(tmp_path / "v.mp4"), 24) == tmp_path / "v.mp4"
    path, frames, fps = saved[0]
    assert path == tmp_path / "v.mp4" and fps == 24
    assert len(frames) == 3 and all(f.dtype == np.uint8 and f.shape == (4, 5) for f in frames)
    save_video([[[0, 255]]], tmp_path / "w.mp4")  # nested lists are images too
    assert saved[1][1][0].tolist() == [[0, 255]] and saved[1][2] == 30


def test_video_round_trip(tmp_path: Path) -> None:
    pytest.importorskip("imageio_ffmpeg")
    iio = pytest.importorskip("imageio.v2")
    frames = [np.full((32, 48, 3), 40 * k, dtype=np.uint8) for k in range(5)]
    path = save_video(frames, tmp_path / "v.mp4", fps=10)
    back = iio.mimread(path)
    assert len(back) == 5 and back[0].shape == (32, 48, 3)
    assert abs(int(back[3].mean()) - 120) <= 3


def test_missing_dependencies_name_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[render\]"'):
        save_gif([FRAME], tmp_path / "a.gif")
    monkeypatch.setitem(sys.modules, "imageio", None)
    monkeypatch.setitem(sys.modules, "imageio.v2", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[render\]"'):
        save_video([FRAME], tmp_path / "a.mp4")
    assert not (tmp_path / "a.gif").exists()
