"""Writing video results: CDnet-named mask PNGs, frame sequences and side-by-side previews.

Every writer takes an array or an iterable of batches (arrays whose first axis is the
frame), so a caller producing frames batch by batch never holds the whole clip.
"""

from __future__ import annotations

import itertools
import os
import string
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ._video_read import _pil

__all__ = ["write_frames", "write_masks", "write_preview"]

#: Suffixes :func:`write_preview` writes with PyAV (the others: ``.gif`` with Pillow).
VIDEO_SUFFIXES = (".avi", ".m4v", ".mkv", ".mov", ".mp4")

Frames = np.ndarray | Iterable[Any]


def _batches_of(data: Frames, name: str, *, colour: bool = True) -> Iterator[np.ndarray]:
    """The batches (arrays whose first axis is the frame) of an array or of an iterable of
    them, each checked: ``(n, height, width)``, or ``(n, height, width, 3)`` if ``colour``."""
    batches: Iterable[Any] = [data] if isinstance(data, np.ndarray) else data
    for batch in batches:
        batch = np.asarray(batch)
        if batch.ndim not in (3, 4) or (batch.ndim == 4 and (batch.shape[-1] != 3 or not colour)):
            shapes = (
                "(n, height, width) or (n, height, width, 3)" if colour else "(n, height, width)"
            )
            raise ValueError(
                f"{name} must be batches of shape {shapes}, got a batch of shape {batch.shape}."
            )
        yield batch


def _frames_of(data: Frames, name: str) -> Iterator[np.ndarray]:
    """The frames (first-axis slices) of an array or of an iterable of batches."""
    for batch in _batches_of(data, name):
        yield from batch


def _to_uint8(frame: np.ndarray, name: str) -> np.ndarray:
    """A frame of levels in [0, 255] as uint8 (rounded and clipped); bools as 0/255."""
    if frame.dtype == np.uint8:
        return frame
    if frame.dtype == bool:
        return frame.astype(np.uint8) * np.uint8(255)
    if frame.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real numbers, got dtype {frame.dtype}.")
    if not np.isfinite(frame).all():
        raise ValueError(f"{name} holds NaN or infinite values.")
    return np.clip(np.rint(frame), 0, 255).astype(np.uint8)


def _numbers(frame_numbers: Sequence[int] | None) -> list[int] | None:
    """``frame_numbers`` as a list of ints (None stays None): integers, or floats of
    integral value (a number cut to an int would name another frame's file); no number
    twice, since each frame needs a file of its own."""
    if frame_numbers is None:
        return None
    values = np.asarray(frame_numbers).ravel()
    if values.dtype.kind not in "iu":
        whole = values.dtype.kind == "f" and np.isfinite(values) & (values == np.round(values))
        if not np.all(whole):
            bad = values if values.dtype.kind != "f" else values[~whole]
            raise ValueError(
                f"frame_numbers must hold integers, got {bad[:5].tolist()} (of dtype "
                f"{values.dtype}); a frame's number names its file."
            )
    numbers = [int(k) for k in values]
    if len(set(numbers)) != len(numbers):
        twice = sorted({k for k in numbers if numbers.count(k) > 1})[:5]
        raise ValueError(f"frame_numbers holds a number more than once ({twice}).")
    return numbers


def _numbered(pattern: str) -> bool:
    """Whether the file name ``pattern`` holds the frame's number (its one field gives
    different names to different numbers); a ValueError naming it if it is not a format
    string of at most one positional field."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, got {type(pattern).__name__}.")
    try:
        fields = [
            field for _, field, _, _ in string.Formatter().parse(pattern) if field is not None
        ]
        names = (pattern.format(1), pattern.format(2))
    except (ValueError, IndexError, KeyError, AttributeError, TypeError) as error:
        raise ValueError(
            f"pattern={pattern!r} is not a file name with one field for the frame number, "
            f"such as 'bg{{:06d}}.png' ({type(error).__name__}: {error})."
        ) from None
    if len(fields) > 1:
        raise ValueError(
            f"pattern={pattern!r} has {len(fields)} fields; it takes one, the frame number "
            "(e.g. 'bg{:06d}.png')."
        )
    return names[0] != names[1]


def _write_images(
    directory: str | os.PathLike,
    data: Frames,
    name: str,
    convert: Callable[[np.ndarray], np.ndarray],
    pattern: str,
    frame_numbers: Sequence[int] | None,
    *,
    colour: bool = True,
) -> list[Path]:
    """Write the frames of ``data`` one image each. What can be checked before writing
    is: the numbers against an array's frames, or each batch's before it is written, and
    a pattern without the frame number, which names one file, against a second frame."""
    numbered = _numbered(pattern)
    numbers = _numbers(frame_numbers)
    batches: Iterable[np.ndarray] = _batches_of(data, name, colour=colour)
    if isinstance(data, np.ndarray) or not numbered:
        # an array's frames are known at once; a single file waits for the stream's end
        batches = list(_held(batches, name, pattern, numbered))
        n = sum(len(batch) for batch in batches)
        if numbers is not None and n and len(numbers) > n:
            raise ValueError(f"frame_numbers holds more numbers than the {n} frames given.")
    Image = _pil()
    directory = Path(directory).expanduser()
    written: list[Path] = []
    for batch in batches:
        if numbers is not None and len(written) + len(batch) > len(numbers):
            raise ValueError(
                f"frame_numbers holds {len(numbers)} numbers, fewer than the frames given."
            )
        if not written:
            directory.mkdir(parents=True, exist_ok=True)
        for frame in batch:
            number = len(written) + 1 if numbers is None else numbers[len(written)]
            path = directory / pattern.format(number)
            Image.fromarray(convert(frame)).save(path)
            written.append(path)
    if not written:
        raise ValueError("no frames given to write.")
    if numbers is not None and len(numbers) > len(written):
        raise ValueError(f"frame_numbers holds more numbers than the {len(written)} frames given.")
    return written


def _held(
    batches: Iterable[np.ndarray], name: str, pattern: str, numbered: bool
) -> Iterator[np.ndarray]:
    """The batches, checked (for a pattern without the frame's number) to hold at most
    one frame."""
    total = 0
    for batch in batches:
        total += len(batch)
        if total > 1 and not numbered:
            raise ValueError(
                f"pattern={pattern!r} has no field for the frame number, so every frame of "
                f"{name} would be written to one file; give one such as 'bg{{:06d}}.png' "
                "(a pattern without it writes a single frame)."
            )
        yield batch


def write_masks(
    directory: str | os.PathLike,
    masks: Frames,
    *,
    frame_numbers: Sequence[int] | None = None,
) -> list[Path]:
    """Write foreground masks as CDnet's result files: ``binNNNNNN.png``, 0 and 255.

    Parameters
    ----------
    directory : str or path-like
        Output folder (created with its parents if missing).
    masks : array-like of shape (n_frames, height, width) or iterable of such batches
        Foreground masks; a nonzero value is foreground (written 255), zero background.
    frame_numbers : sequence of int or None, default=None
        The number of each frame in the file name (CDnet's are 1-based, e.g.
        :attr:`CDnetClip.frame_numbers`); None numbers them 1, 2, ...

    Returns
    -------
    list of pathlib.Path
        The files written, in frame order.

    Raises
    ------
    ValueError
        If no mask is given, a batch is not 3-D (masks are single-channel), a mask holds
        NaN (neither foreground nor background), or ``frame_numbers`` has another length,
        a number twice or one that is not an integer. An array's masks are checked
        before anything is written; batches one by one.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from robustpca.datasets import write_masks
    >>> paths = write_masks(tempfile.mkdtemp(), np.ones((2, 4, 4), bool), frame_numbers=[470, 471])
    >>> [p.name for p in paths]
    ['bin000470.png', 'bin000471.png']
    """
    if isinstance(masks, np.ndarray):  # an array's are checked before anything is written
        _refuse_nan(masks)
    return _write_images(
        directory, masks, "masks", _mask_image, "bin{:06d}.png", frame_numbers, colour=False
    )


def _mask_image(frame: np.ndarray) -> np.ndarray:
    """0 and 255 for a mask's zero and nonzero values (NaN refused)."""
    _refuse_nan(frame)
    return (frame != 0).astype(np.uint8) * np.uint8(255)


def _refuse_nan(masks: np.ndarray) -> None:
    """A ValueError where ``masks`` hold NaN, which ``!= 0`` would write as foreground."""
    if masks.dtype.kind in "fc" and np.isnan(masks).any():
        raise ValueError(
            "masks hold NaN, which is neither foreground nor background; give booleans or "
            "0 and nonzero values (np.nan_to_num(masks) writes NaN as background)."
        )


def write_frames(
    directory: str | os.PathLike,
    frames: Frames,
    *,
    pattern: str = "bg{:06d}.png",
    frame_numbers: Sequence[int] | None = None,
) -> list[Path]:
    """Write frames (e.g. an estimated background) as one image file each.

    Parameters
    ----------
    directory : str or path-like
        Output folder (created with its parents if missing).
    frames : array-like of shape (n_frames, height, width[, 3]) or iterable of such batches
        Grey or RGB frames, levels in [0, 255] (rounded and clipped to 8 bits).
    pattern : str, default="bg{:06d}.png"
        File name, formatted with the frame's number (one field, e.g. ``{:06d}``); its
        suffix picks the image format (``.png``, ``.jpg``, ``.bmp``, ``.tif``). A name
        without a field (``"background.png"``) writes a single frame only.
    frame_numbers : sequence of int or None, default=None
        The number of each frame (integers; floats of integral value pass); None
        numbers them 1, 2, ...

    Returns
    -------
    list of pathlib.Path
        The files written, in frame order.

    Raises
    ------
    ValueError
        If no frame is given, a batch has a wrong shape, a value is NaN or infinite,
        ``pattern`` has more than one field or none for several frames, or
        ``frame_numbers`` has another length, a number twice or one that is not an
        integer. An array's frames are
        checked for these (NaN aside) before anything is written; batches one by one.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from robustpca.datasets import write_frames
    >>> [p.name for p in write_frames(tempfile.mkdtemp(), np.zeros((2, 4, 4)))]
    ['bg000001.png', 'bg000002.png']
    """
    return _write_images(
        directory,
        frames,
        "frames",
        lambda frame: _to_uint8(frame, "frames"),
        pattern,
        frame_numbers,
    )


def _grey(frame: np.ndarray, name: str) -> np.ndarray:
    frame = _to_uint8(frame, name)
    if frame.ndim == 3:
        return np.asarray(_pil().fromarray(frame).convert("L"))
    return frame


def _preview_rows(frames: Frames, background: Frames, masks: Frames) -> Iterator[np.ndarray]:
    """``frame | background | mask`` side by side, grey uint8, one image per frame."""
    fixed = background if isinstance(background, np.ndarray) and background.ndim == 2 else None
    backgrounds = iter(()) if fixed is not None else _frames_of(background, "background")
    mask_frames = _frames_of(masks, "masks")
    n = 0
    for n, frame in enumerate(_frames_of(frames, "frames"), start=1):
        back = fixed if fixed is not None else next(backgrounds, None)
        mask = next(mask_frames, None)
        if back is None or mask is None:
            break
        parts = [_grey(frame, "frames"), _grey(back, "background"), _grey(mask != 0, "masks")]
        if len({part.shape for part in parts}) != 1:
            raise ValueError(
                f"frame {n - 1}: frames, background and masks differ in size "
                f"{[part.shape for part in parts]}."
            )
        yield np.concatenate(parts, axis=1)
    else:
        if next(mask_frames, None) is None and next(backgrounds, None) is None:
            return
    raise ValueError(f"frames, background and masks hold different numbers of frames ({n}).")


def _write_gif(path: Path, rows: Iterator[np.ndarray], fps: float) -> None:
    """An animated GIF with Pillow (which gathers the frames, 1 byte a pixel, to save)."""
    Image = _pil()
    images = [Image.fromarray(row) for row in rows]
    if not images:
        raise ValueError("no frames given to write.")
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=max(1, round(1000 / fps)),
        loop=0,
    )


def _write_av(path: Path, rows: Iterator[np.ndarray], fps: float) -> None:
    """A video file with PyAV, encoded frame by frame (H.264 where FFmpeg has it)."""
    try:
        import av
    except ImportError as error:  # pragma: no cover - PyAV comes with the test extra
        raise ImportError(
            "writing video files needs PyAV; install the video extra: "
            "pip install 'robustpca[video]'"
        ) from error
    first = next(rows, None)
    if first is None:
        raise ValueError("no frames given to write.")
    height, width = first.shape[0] + first.shape[0] % 2, first.shape[1] + first.shape[1] % 2
    codec = "libx264" if "libx264" in av.codecs_available and path.suffix != ".avi" else "mpeg4"
    with av.open(str(path), mode="w") as container:
        stream: Any = container.add_stream(codec, rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        if codec == "libx264":  # a preview: three times faster than the default, no larger
            stream.options = {"preset": "veryfast"}
        for row in itertools.chain([first], rows):
            even = np.pad(row, ((0, height - row.shape[0]), (0, width - row.shape[1])), "edge")
            rgb = np.ascontiguousarray(np.repeat(even[:, :, None], 3, axis=2))
            for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def write_preview(
    path: str | os.PathLike,
    frames: Frames,
    background: Frames,
    masks: Frames,
    *,
    fps: float = 25.0,
) -> Path:
    """Write a side-by-side preview, ``frame | background | mask`` in grey, as GIF or video.

    Parameters
    ----------
    path : str or path-like
        Output file; its suffix picks the format: ``.gif`` (Pillow) or ``.mp4``, ``.m4v``,
        ``.mov``, ``.mkv``, ``.avi`` (PyAV, H.264 where FFmpeg has it, else MPEG-4 part 2).
    frames : array-like of shape (n_frames, height, width[, 3]) or iterable of such batches
        The input frames, levels in [0, 255] (colour is shown in grey).
    background : array-like of shape (n_frames, height, width[, 3]) or (height, width), or
        iterable of batches: the background of each frame, or one image for all.
    masks : array-like of shape (n_frames, height, width) or iterable of such batches
        Foreground masks (nonzero: white).
    fps : float, default=25.0
        Frames per second.

    Returns
    -------
    pathlib.Path
        ``path``.

    Notes
    -----
    A video file is encoded frame by frame, so batches stream through in constant memory;
    a GIF is gathered before Pillow saves it (one byte a pixel). Odd video sizes are padded
    by one pixel (the encoders need even sides).

    Raises
    ------
    ValueError
        If the suffix is not one above, ``fps`` is not positive, the three inputs differ in
        length or frame size, or no frame is given.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from robustpca.datasets import write_preview
    >>> frames = np.zeros((3, 8, 8))
    >>> out = write_preview(Path(tempfile.mkdtemp()) / "p.gif", frames, frames[0], frames > 0)
    >>> out.name
    'p.gif'
    """
    path = Path(path).expanduser()
    suffix = path.suffix.lower()
    if suffix != ".gif" and suffix not in VIDEO_SUFFIXES:
        raise ValueError(
            f"{path}: cannot write a preview as {suffix or 'a file without suffix'!r}; "
            f"use .gif or one of {', '.join(VIDEO_SUFFIXES)}."
        )
    if isinstance(fps, bool) or not isinstance(fps, (int, float, np.integer, np.floating)):
        raise TypeError(f"fps must be a positive number, got {fps!r}.")
    if not (np.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps!r}.")
    rows = _preview_rows(frames, background, masks)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".gif":
        _write_gif(path, rows, float(fps))
    else:
        _write_av(path, rows, float(fps))
    return path
