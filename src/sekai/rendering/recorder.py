"""Recording frames from an env and saving them as a GIF or a video."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import ActType, ObsType, SeedType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult
from sekai.core.wrapper import Wrapper
from sekai.rendering.renderer import Renderer, RenderFrame
from sekai.utils.extras import missing_extra
from sekai.utils.validation import check_int

__all__ = ["RecordFrames", "save_gif", "save_png", "save_video"]


class RecordFrames(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Appends ``renderer.render(env)`` to ``frames`` after every reset and step.

    Recording happens while ``enabled`` is true and fewer than ``max_frames`` frames are held.
    ``close()`` closes the renderer, then the env.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        renderer: Renderer,
        *,
        enabled: bool = True,
        max_frames: int | None = None,
    ) -> None:
        super().__init__(env)
        # An Env matches the Renderer protocol by its render attribute, which only raises.
        if not isinstance(renderer, Renderer) or isinstance(renderer, Env):
            raise TypeError(
                "RecordFrames: renderer must have render(env) and close(), "
                f"got {type(renderer).__name__}."
            )
        if max_frames is not None:
            max_frames = check_int(max_frames, "RecordFrames: max_frames", low=0)
        self.renderer = renderer
        self.enabled = enabled
        self.max_frames = max_frames
        self.frames: list[RenderFrame] = []

    def _record(self) -> None:
        if self.enabled and (self.max_frames is None or len(self.frames) < self.max_frames):
            self.frames.append(self.renderer.render(self.env))

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env, then record a frame."""
        result = self.env.reset(seed=seed, options=options)
        self._record()
        return result

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env, then record a frame."""
        result = self.env.step(action)
        self._record()
        return result

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the inner env through its async path, then record a frame."""
        result = await self.env.async_reset(seed=seed, options=options)
        self._record()
        return result

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Step the inner env through its async path, then record a frame."""
        result = await self.env.async_step(action)
        self._record()
        return result

    def clear(self) -> None:
        """Forget the recorded frames."""
        self.frames.clear()

    def save(self, path: str | os.PathLike[str], fps: float | None = None) -> Path:
        """Save the frames: a ``.gif`` suffix (any case) uses ``save_gif``, others ``save_video``.

        ``fps`` defaults to the env's ``metadata["render_fps"]``, or 30.
        """
        if fps is None:
            fps = self.metadata.get("render_fps") or 30
        if Path(path).suffix.lower() == ".gif":
            return save_gif(self.frames, path, fps)
        return save_video(self.frames, path, fps)

    def close(self) -> None:
        """Close the renderer, then the inner env (even if the renderer's close raised)."""
        try:
            self.renderer.close()
        finally:
            self.env.close()


def _validate(frames: Any, fps: float) -> list[NDArray[np.uint8]]:
    """Check ``frames`` and ``fps`` as ``save_gif``/``save_video`` document; uint8 frames."""
    if isinstance(fps, bool) or not isinstance(fps, int | float | np.integer | np.floating):
        raise TypeError(f"fps must be a number, got {fps!r}.")
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a finite number > 0, got {fps!r}.")
    if isinstance(frames, str):
        raise TypeError("frames must be images, got a str.")
    if isinstance(frames, np.ndarray):
        if frames.ndim == 2 or (frames.ndim == 3 and frames.shape[-1] in (3, 4)):
            raise ValueError(
                f"frames is a single image of shape {frames.shape}; pass a list of images or "
                "a stacked (T, H, W) or (T, H, W, C) array."
            )
        if frames.ndim not in (3, 4):
            raise ValueError(
                f"frames must be a list of images or a (T, H, W[, C]) array, got shape "
                f"{frames.shape}."
            )
    items = list(frames)
    if not items:
        raise ValueError("frames is empty: nothing to save.")
    out: list[NDArray[np.uint8]] = []
    for index, frame in enumerate(items):
        image = _image(frame, f"frame {index}")
        if out and image.shape != out[0].shape:
            raise ValueError(
                f"frame {index} has shape {image.shape}, frame 0 has {out[0].shape}; "
                "all frames must have one shape."
            )
        out.append(image)
    return out


def _image(frame: Any, name: str) -> NDArray[np.uint8]:
    """``frame`` as a uint8 ``(H, W)``, ``(H, W, 3)`` or ``(H, W, 4)`` image, checked."""
    if isinstance(frame, str):
        raise TypeError(f"{name} is a str; only image arrays can be saved.")
    arr = np.asarray(frame)
    if not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} has non-numeric dtype {arr.dtype}.")
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (3, 4)) or 0 in arr.shape:
        raise ValueError(f"{name} has shape {arr.shape}; expected (H, W), (H, W, 3) or (H, W, 4).")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} has dtype {arr.dtype}; expected integers in [0, 255] (uint8).")
    if arr.min() < 0 or arr.max() > 255:
        raise ValueError(f"{name} has values outside [0, 255].")
    return arr.astype(np.uint8, copy=False)


def _pack(rgb: NDArray[np.uint8]) -> NDArray[np.uint32]:
    c = rgb.astype(np.uint32)
    return np.asarray((c[..., 0] << 16) | (c[..., 1] << 8) | c[..., 2], dtype=np.uint32)


def save_gif(frames: Any, path: str | os.PathLike[str], fps: float = 30) -> Path:
    """Save an animated GIF (Pillow) that loops forever; returns ``Path(path)``.

    ``frames``: a list of ``(H, W)``, ``(H, W, 3)`` or ``(H, W, 4)`` integer images in
    [0, 255], or one stacked array. RGB frames share one palette: the exact colours of every
    ``max(len // 16, 1)``-th frame when there are at most 256 and every frame uses only those,
    else a 256-colour median cut of those frames, without dithering.
    """
    images = _validate(frames, fps)
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError(missing_extra("save_gif", "pillow", "render")) from exc
    if images[0].ndim == 3 and images[0].shape[2] == 3:
        sample = images[:: max(len(images) // 16, 1)]
        colours = np.unique(np.concatenate([_pack(f).ravel() for f in sample]))
        indexed = []
        if colours.size <= 256:
            for frame in images:
                packed = _pack(frame)
                index = np.minimum(np.searchsorted(colours, packed), colours.size - 1)
                if not np.array_equal(colours[index], packed):
                    break
                indexed.append(index.astype(np.uint8))
        if len(indexed) == len(images):
            table = np.stack([colours >> 16, (colours >> 8) & 255, colours & 255], -1)
            palette = table.astype(np.uint8).ravel().tolist()
            pictures = []
            for index in indexed:
                picture = Image.fromarray(index)  # mode "L", made "P" by its palette
                picture.putpalette(palette)
                pictures.append(picture)
        else:
            reference = Image.fromarray(np.concatenate(sample, axis=0)).quantize(
                256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
            )
            pictures = [
                Image.fromarray(f).quantize(palette=reference, dither=Image.Dither.NONE)
                for f in images
            ]
    else:
        pictures = [Image.fromarray(f) for f in images]
    pictures[0].save(
        path,
        format="GIF",
        save_all=True,
        append_images=pictures[1:],
        duration=max(int(1000 / fps), 1),
        loop=0,
        optimize=True,
    )
    return Path(path)


def save_png(frame: Any, path: str | os.PathLike[str]) -> Path:
    """Save one ``(H, W)``, ``(H, W, 3)`` or ``(H, W, 4)`` integer image in [0, 255] as a PNG
    (Pillow); returns ``Path(path)``."""
    image = _image(frame, "frame")
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError(missing_extra("save_png", "pillow", "render")) from exc
    target = Path(path)
    Image.fromarray(image).save(target, format="PNG")
    return target


def save_video(frames: Any, path: str | os.PathLike[str], fps: float = 30) -> Path:
    """Save a video with ``imageio.v2.mimsave`` (an ``.mp4`` needs ffmpeg, e.g. from
    ``imageio-ffmpeg``); returns ``Path(path)``. ``frames`` as for ``save_gif``."""
    images = _validate(frames, fps)
    try:
        import imageio.v2
    except ImportError as exc:
        raise ImportError(missing_extra("save_video", "imageio", "render")) from exc
    target = Path(path)
    arrays: list[ArrayLike] = list(images)
    imageio.v2.mimsave(target, arrays, fps=fps)
    return target
