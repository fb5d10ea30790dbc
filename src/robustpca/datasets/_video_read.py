"""Reading video: a video file (imageio's PyAV plugin) or a folder of image frames (Pillow).

Every reader yields 8-bit frames, converted to grey (Pillow's ITU-R 601-2 luma) or RGB and
resized with a box (area-averaging) filter, then cast to the requested dtype, so a frame
folder and a video file of the same pictures give the same arrays up to the codec's loss.
16-bit grey images (PNG, TIFF) are scaled to 8 bits, ``round(v / 257)``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_bool

__all__ = ["VideoInfo", "iter_video", "read_video", "video_info"]

#: Suffixes of the image files a frame folder is read from (case-insensitive).
IMAGE_SUFFIXES = (".bmp", ".jpeg", ".jpg", ".png", ".tif", ".tiff")

#: A selection of frames: None (all), a ``slice`` or a ``range`` of 0-based positions.
FrameSelection = slice | range | None

_EXTRA_HINT = "install the video extra: pip install 'robustpca[video]'"


@dataclass(frozen=True)
class VideoInfo:
    """What a video holds, read without decoding its frames.

    Parameters
    ----------
    n_frames : int or None
        Number of frames; None where the container does not say (some video files).
    frame_shape : tuple of int
        ``(height, width)`` of the frames :func:`read_video` returns at the ``scale`` given
        to :func:`video_info`.
    fps : float or None
        Frames per second of a video file; None for a frame folder.
    """

    n_frames: int | None
    frame_shape: tuple[int, int]
    fps: float | None


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError as error:  # pragma: no cover - Pillow comes with the test extra
        raise ImportError(f"reading and writing frames needs Pillow; {_EXTRA_HINT}") from error
    return Image


def _imageio() -> Any:
    try:
        import av  # noqa: F401 (imageio's PyAV plugin needs it)
        import imageio.v3 as iio
    except ImportError as error:  # pragma: no cover - imageio comes with the test extra
        raise ImportError(f"reading video files needs imageio and PyAV; {_EXTRA_HINT}") from error
    return iio


def natural_key(name: str) -> tuple:
    """Sort key of a file name in natural order: its runs of digits compared as numbers
    (``2.png`` before ``10.png``, as FFmpeg's ``%d.png`` numbers frames), the rest as
    text; names that tie (``01.png``, ``1.png``) in the order of their text."""
    parts = re.split(r"(\d+)", name)  # text, digits, text, ..., text
    return (tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), name)


def resolve_video_path(path: str | os.PathLike) -> tuple[Path, list[Path] | None]:
    """``(path, frame files)``: the image files of a frame folder (in the natural order
    of their names, :func:`natural_key`; hidden ones left out), or None for a video file.
    A CDnet clip folder (one with ``input/``) is read from ``input/``.

    A missing path is a FileNotFoundError; a folder without image files a ValueError.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such video file or frame folder.")
    if not path.is_dir():
        return path, None
    if (path / "input").is_dir():
        path = path / "input"
    # hidden files (macOS's ._in000001.jpg beside each frame) are not frames
    files = sorted(
        (
            p
            for p in path.iterdir()
            if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".") and p.is_file()
        ),
        key=lambda p: natural_key(p.name),
    )
    if not files:
        raise ValueError(f"{path}: no frames found (looked for {', '.join(IMAGE_SUFFIXES)} files).")
    return path, files


def scaled_size(size: tuple[int, int], scale: float) -> tuple[int, int]:
    """Pillow's ``(width, height)`` of a frame of ``size`` resized by ``scale`` (at least 1)."""
    if scale == 1.0:
        return size
    return max(1, round(size[0] * scale)), max(1, round(size[1] * scale))


def check_scale(scale: float) -> float:
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)):
        raise TypeError(f"scale must be a positive number, got {scale!r}.")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive finite number, got {scale!r}.")
    return float(scale)


def _check_dtype(dtype: Any) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or (dtype.kind in "ui" and np.iinfo(dtype).max >= 255):
        return dtype
    raise ValueError(f"dtype must be a float or an integer type holding 0..255, got {dtype}.")


def _check_frames(frames: FrameSelection) -> slice:
    """``frames`` as a slice with a positive step (its bounds not yet resolved)."""
    if frames is None:
        return slice(None)
    if isinstance(frames, range):
        if frames.step < 0:
            raise ValueError(f"frames must select frames in order, got {frames!r}.")
        return slice(frames.start, frames.stop, frames.step)
    if isinstance(frames, slice):
        bounds = []
        for name in ("start", "stop", "step"):
            value = getattr(frames, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, np.integer))
            ):
                raise TypeError(f"frames: the slice's {name} must be an int, got {value!r}.")
            bounds.append(None if value is None else int(value))
        if bounds[2] is not None and bounds[2] <= 0:
            raise ValueError(f"frames must select frames in order (step > 0), got {frames!r}.")
        return slice(*bounds)
    raise TypeError(f"frames must be None, a slice or a range, got {type(frames).__name__}.")


def _positions(frames: slice, n: int | None, path: Path) -> range | slice:
    """The positions selected among ``n`` frames (a range), or, with ``n`` unknown, the
    slice itself when its bounds are non-negative."""
    if n is not None:
        return range(*frames.indices(n))
    if (frames.start or 0) < 0 or (frames.stop or 0) < 0:
        raise ValueError(
            f"{path}: the container does not give the number of frames, so "
            f"frames cannot count from the end (got {frames!r})."
        )
    return frames


def _sixteen_bit(image: Any) -> bool:
    """Whether a Pillow image holds 16-bit grey levels: its mode says so (``I;16``...),
    or it is a PNG opened as 32-bit integers (which older Pillows do for 16 bits)."""
    return image.mode.startswith("I;16") or (image.mode == "I" and image.format == "PNG")


def _to_pil(Image: Any, image: Any, grey: bool, size: tuple[int, int] | None) -> np.ndarray:
    """A Pillow image (or RGB array) -> uint8 grey (h, w) or RGB (h, w, 3), resized to
    ``size`` with the box filter when given. 16-bit grey levels are scaled to 8 bits
    (``round(v / 257)``, so 65535 is 255), where Pillow's conversion would clip them."""
    if isinstance(image, np.ndarray):
        image = Image.fromarray(image)
    if _sixteen_bit(image):
        levels = np.asarray(image).astype(np.float64)
        image = Image.fromarray(np.clip(np.rint(levels / 257.0), 0, 255).astype(np.uint8))
    image = image.convert("L" if grey else "RGB")
    if size is not None and size != image.size:
        factor = image.size[0] // size[0]
        if factor > 1 and image.size == (factor * size[0], factor * size[1]):
            image = image.reduce(factor)  # the same block means, a third faster
        else:
            image = image.resize(size, Image.Resampling.BOX)
    return np.asarray(image)


def _open_image(Image: Any, file: Path) -> Any:
    try:
        image = Image.open(file)
        image.load()
    except (OSError, SyntaxError, ValueError) as error:
        raise ValueError(f"{file}: not a readable image ({error}).") from None
    return image


def image_size(file: Path) -> tuple[int, int]:
    """``(width, height)`` of an image file, read from its header."""
    Image = _pil()
    try:
        with Image.open(file) as image:
            width, height = image.size
            return int(width), int(height)
    except (OSError, SyntaxError, ValueError) as error:
        raise ValueError(f"{file}: not a readable image ({error}).") from None


def iter_images(
    files: Sequence[Path], *, grey: bool, scale: float, reference: Path | None = None
) -> Iterator[np.ndarray]:
    """uint8 frames of image ``files``, all of the size of the first (or of ``reference``):
    a file of another size is a ValueError naming it."""
    Image = _pil()
    first = reference if reference is not None else (files[0] if files else None)
    size = image_size(first) if first is not None else None
    for file in files:
        image = _open_image(Image, file)
        if image.size != size:
            raise ValueError(
                f"{file}: frame size {image.size[0]}x{image.size[1]} differs from "
                f"{first}'s {size[0]}x{size[1]}."  # type: ignore[index]
            )
        yield _to_pil(Image, image, grey, scaled_size(image.size, scale))


def _video_error(path: Path, error: BaseException) -> ValueError:
    return ValueError(f"{path}: not a readable video ({type(error).__name__}: {error}).")


def _iter_video_file(
    path: Path, positions: range | slice, *, grey: bool, scale: float
) -> Iterator[np.ndarray]:
    iio, Image = _imageio(), _pil()
    start, stop, step = positions.start or 0, positions.stop, positions.step or 1
    if stop is not None and stop <= start:
        return
    reader = iio.imiter(path, plugin="pyav", format="rgb24")  # opens at the first next()
    shape = None
    index = 0
    try:
        while stop is None or index < stop:
            try:
                frame = next(reader, None)
            except Exception as error:  # imageio's and FFmpeg's errors have no common base
                raise _video_error(path, error) from None
            if frame is None:
                break
            if shape is None:
                shape = frame.shape
            elif frame.shape != shape:
                raise ValueError(
                    f"{path}: frame {index} is {frame.shape[1]}x{frame.shape[0]}, the first "
                    f"frames {shape[1]}x{shape[0]}; frames of different sizes."
                )
            if index >= start and (index - start) % step == 0:
                size = scaled_size((frame.shape[1], frame.shape[0]), scale)
                yield _to_pil(Image, frame, grey, size)
            index += 1
    finally:
        reader.close()


def _iter_frames(
    path: str | os.PathLike, grey: bool, scale: float, frames: FrameSelection
) -> tuple[Path, int | None, Iterator[np.ndarray]]:
    """``(resolved path, number of frames selected or None, uint8 frame iterator)``."""
    grey = check_bool(grey, "grey")
    scale = check_scale(scale)
    selection = _check_frames(frames)
    root, files = resolve_video_path(path)
    if files is not None:
        chosen = [files[i] for i in range(*selection.indices(len(files)))]
        if not chosen:
            raise ValueError(f"{root}: frames={frames!r} selects none of its {len(files)} frames.")
        return root, len(chosen), iter_images(chosen, grey=grey, scale=scale)
    n_frames = None
    if (selection.start or 0) < 0 or (selection.stop or 0) < 0:
        n_frames = video_info(root).n_frames  # counting from the end needs the length
    positions = _positions(selection, n_frames, root)
    return root, None, _iter_video_file(root, positions, grey=grey, scale=scale)


def read_video(
    path: str | os.PathLike,
    *,
    grey: bool = True,
    scale: float = 1.0,
    frames: FrameSelection = None,
    dtype: Any = np.float32,
) -> np.ndarray:
    """Read the frames of a video file, a folder of image frames or a CDnet clip.

    Parameters
    ----------
    path : str or path-like
        A video file (anything FFmpeg decodes: mp4, avi, ...), a folder of image frames
        (``.jpg``, ``.png``, ``.bmp``, ``.tif``; read in the natural order of their names,
        numbers compared as numbers: ``2.png`` before ``10.png``, as FFmpeg's ``%d.png``
        numbers them, and ``frame9.png`` before ``frame10.png``; 16-bit
        grey images are scaled to 8 bits, ``round(v / 257)``) or a CDnet clip folder (its
        ``input/`` is read).
    grey : bool, default=True
        Grey frames (ITU-R 601-2 luma, Pillow's ``convert("L")``); else RGB.
    scale : float, default=1.0
        Resize factor of both sides (rounded, at least one pixel), with a box filter: each
        output pixel is the mean of the input pixels it covers.
    frames : slice, range or None, default=None
        0-based positions of the frames to read, e.g. ``slice(100, 400)``; None reads all.
        Counting from the end (negative bounds) needs a frame folder or a video file whose
        container gives its number of frames.
    dtype : data-type, default=numpy.float32
        Type of the returned array: a float, or an integer type that holds 0..255.

    Returns
    -------
    ndarray of shape (n_frames, height, width) or (n_frames, height, width, 3)
        Grey or RGB frames, values in [0, 255] (8-bit levels, whatever ``dtype``).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a readable video, the folder holds no frames, a frame cannot be
        read or differs in size from the first, or ``frames`` selects no frame.

    See Also
    --------
    iter_video : the same frames in batches, never holding the whole clip.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from robustpca.datasets import read_video, write_frames
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_frames(folder, np.zeros((5, 8, 6), dtype=np.uint8))
    >>> read_video(folder, scale=0.5).shape
    (5, 4, 3)
    """
    dtype = _check_dtype(dtype)
    root, n, it = _iter_frames(path, grey, scale, frames)
    if n is not None:
        first = next(it)
        out = np.empty((n, *first.shape), dtype=dtype)
        out[0] = first
        for i, frame in enumerate(it, start=1):
            out[i] = frame
        return out
    stack = list(it)
    if not stack:
        raise ValueError(f"{root}: frames={frames!r} selects no frame of the video.")
    return np.stack(stack).astype(dtype, copy=False)


def iter_video(
    path: str | os.PathLike,
    *,
    batch_size: int = 64,
    grey: bool = True,
    scale: float = 1.0,
    frames: FrameSelection = None,
    dtype: Any = np.float32,
) -> Iterator[np.ndarray]:
    """Yield the frames of :func:`read_video` in batches, never holding the whole clip.

    A video file is decoded frame by frame (imageio's ``imiter``), a frame folder read file
    by file, so memory holds one batch whatever the clip's length.

    Parameters
    ----------
    path, grey, scale, frames, dtype
        As in :func:`read_video`.
    batch_size : int, default=64
        Frames per batch; the last batch holds the rest.

    Returns
    -------
    iterator of ndarray of shape (batch, height, width) or (batch, height, width, 3)
        Consecutive frames, values in [0, 255].

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`read_video`; the arguments, the path and the selection are checked at
        the call (a video file's frames as they are decoded).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from robustpca.datasets import iter_video, write_frames
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_frames(folder, np.zeros((5, 4, 6), dtype=np.uint8))
    >>> [batch.shape for batch in iter_video(folder, batch_size=2)]
    [(2, 4, 6), (2, 4, 6), (1, 4, 6)]
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(f"batch_size must be a positive int, got {batch_size!r}.")
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}.")
    dtype = _check_dtype(dtype)
    root, _, it = _iter_frames(path, grey, scale, frames)
    return _video_batches(root, it, int(batch_size), dtype, frames)


def _video_batches(
    root: Path, it: Iterator[np.ndarray], batch_size: int, dtype: Any, frames: FrameSelection
) -> Iterator[np.ndarray]:
    """The batches of :func:`iter_video` from its checked arguments and frame iterator."""
    batch: list[np.ndarray] = []
    seen = 0
    for frame in it:
        batch.append(frame)
        if len(batch) == batch_size:
            seen += len(batch)
            yield np.stack(batch).astype(dtype, copy=False)
            batch = []
    if batch:
        seen += len(batch)
        yield np.stack(batch).astype(dtype, copy=False)
    if not seen:
        raise ValueError(f"{root}: frames={frames!r} selects no frame of the video.")


def _average_rate(path) -> float | None:
    """The frame rate of the first video stream of ``path``, read by PyAV, for the
    imageio releases whose metadata fails where the container states no duration
    (Matroska, WebM)."""
    import av

    with av.open(str(path)) as container:
        rate = container.streams.video[0].average_rate
    return float(rate) if rate else None


def video_info(path: str | os.PathLike, *, scale: float = 1.0) -> VideoInfo:
    """Number of frames, frame shape and frame rate of a video, decoding no frame.

    Parameters
    ----------
    path : str or path-like
        As in :func:`read_video`.
    scale : float, default=1.0
        The resize factor whose frame shape to report (that of ``read_video(path,
        scale=scale)``).

    Returns
    -------
    VideoInfo
        ``n_frames`` (None when a video file's container does not say), ``frame_shape``
        ``(height, width)`` and ``fps`` (None for a frame folder).

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`read_video`.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from robustpca.datasets import video_info, write_frames
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_frames(folder, np.zeros((3, 4, 6), dtype=np.uint8))
    >>> video_info(folder)
    VideoInfo(n_frames=3, frame_shape=(4, 6), fps=None)
    """
    scale = check_scale(scale)
    root, files = resolve_video_path(path)
    if files is not None:
        width, height = scaled_size(image_size(files[0]), scale)
        return VideoInfo(len(files), (height, width), None)
    iio = _imageio()
    try:
        with iio.imopen(root, "r", plugin="pyav") as file:
            shape = file.properties().shape
            try:
                fps = file.metadata().get("fps")
            except TypeError:  # older imageio (2.22) on a container that states no duration
                fps = _average_rate(root)
    except Exception as error:  # imageio's and FFmpeg's errors have no common base
        raise _video_error(root, error) from None
    n_frames = int(shape[0]) if shape[0] > 0 else None
    width, height = scaled_size((int(shape[2]), int(shape[1])), scale)
    return VideoInfo(n_frames, (height, width), float(fps) if fps else None)
