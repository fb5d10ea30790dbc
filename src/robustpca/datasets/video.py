"""Video in and out for foreground detection, and CDnet 2014's clip layout.

Reading (:func:`read_video`, :func:`iter_video`, :func:`video_info`) takes a video file,
a folder of image frames or a CDnet clip folder; :func:`load_cdnet` adds CDnet's ground
truth, spatial and temporal regions of interest; the writers put out CDnet-named masks
(:func:`write_masks`), frame sequences (:func:`write_frames`) and a side-by-side preview
(:func:`write_preview`); :func:`iter_cdnet` streams a clip with its ground truth in
batches. They need the ``video`` extra (imageio, PyAV, Pillow).

CDnet's layout (Goyette et al. 2012; Wang et al. 2014): ``input/inNNNNNN.jpg`` frames,
``groundtruth/gtNNNNNN.png`` labels (0 static, 50 hard shadow, 85 outside the ROI, 170
unknown motion, 255 motion), ``ROI.bmp`` (the spatial region of interest, white inside)
and ``temporalROI.txt`` (``first last``, the 1-based numbers of the scored frames).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_bool
from ._video_read import (
    FrameSelection,
    VideoInfo,
    _check_dtype,
    _check_frames,
    _open_image,
    _pil,
    check_scale,
    image_size,
    iter_images,
    iter_video,
    read_video,
    resolve_video_path,
    scaled_size,
    video_info,
)
from ._video_write import write_frames, write_masks, write_preview

__all__ = [
    "CDNET_LABELS",
    "CDnetClip",
    "VideoInfo",
    "iter_cdnet",
    "iter_video",
    "load_cdnet",
    "read_video",
    "video_info",
    "write_frames",
    "write_masks",
    "write_preview",
]

#: CDnet's ground-truth levels: static, hard shadow, outside the ROI, unknown, motion.
CDNET_LABELS = (0, 50, 85, 170, 255)

_NUMBER = re.compile(r"(\d+)$")


@dataclass(frozen=True, eq=False)
class CDnetClip:
    """One CDnet clip: frames, ground truth and the regions CDnet scores.

    Parameters
    ----------
    frames : ndarray of shape (n_frames, height, width) or (n_frames, height, width, 3)
        Frames (float32 unless asked otherwise), levels in [0, 255].
    labels : ndarray of shape (n_frames, height, width), uint8, or None
        Ground truth, values in :data:`CDNET_LABELS`; None when the clip has no
        ``groundtruth/``. A frame outside the temporal ROI without its file holds 85
        (not counted).
    roi : ndarray of shape (height, width), bool
        The spatial region of interest (``ROI.bmp``; the whole frame without one).
    temporal_roi : tuple of int
        ``(first, last)``: CDnet's 1-based numbers of the scored frames, from
        ``temporalROI.txt``, or the first and last frame of ``input/`` without one.
    frame_numbers : ndarray of shape (n_frames,), int64
        CDnet's 1-based number of each frame, from its file name.
    scored : ndarray of shape (n_frames,), bool
        Frames CDnet scores: inside ``temporal_roi``, with ground truth.
    path : pathlib.Path
        The clip folder.
    """

    frames: np.ndarray
    labels: np.ndarray | None
    roi: np.ndarray
    temporal_roi: tuple[int, int]
    frame_numbers: np.ndarray
    scored: np.ndarray
    path: Path

    @property
    def name(self) -> str:
        """The clip folder's name (e.g. ``highway``)."""
        return self.path.name

    @property
    def n_frames(self) -> int:
        """Number of frames loaded."""
        return int(self.frames.shape[0])

    @property
    def frame_shape(self) -> tuple[int, int]:
        """``(height, width)`` of the frames."""
        return (int(self.frames.shape[1]), int(self.frames.shape[2]))


def _frame_number(file: Path, prefix: str) -> int:
    """CDnet's number in ``<prefix>NNNNNN.<ext>``; a ValueError naming other files."""
    stem = file.stem
    match = _NUMBER.search(stem)
    if not stem.startswith(prefix) or match is None or match.start() != len(prefix):
        raise ValueError(f"{file}: not a CDnet file name ({prefix}NNNNNN{file.suffix} expected).")
    return int(match.group(1))


def _read_temporal_roi(path: Path, numbers: np.ndarray) -> tuple[int, int]:
    file = path / "temporalROI.txt"
    if not file.exists():
        return int(numbers.min()), int(numbers.max())
    fields = file.read_text(encoding="ascii", errors="replace").split()
    try:
        first, last = (int(v) for v in fields[:2])
    except ValueError:
        first, last = 0, -1
    if len(fields) < 2 or not 0 <= first <= last:
        raise ValueError(f"{file}: expected two frame numbers 'first last', got {fields!r}.")
    return first, last


def _read_roi(path: Path, native: tuple[int, int], size: tuple[int, int]) -> np.ndarray:
    Image = _pil()
    candidates = [path / name for name in ("ROI.bmp", "ROI.png", "ROI.jpg")]
    file = next((f for f in candidates if f.exists()), None)
    if file is None:
        return np.ones((size[1], size[0]), dtype=bool)
    image = _open_image(Image, file)
    if image.size != native:
        raise ValueError(
            f"{file}: ROI size {image.size[0]}x{image.size[1]} differs from the frames' "
            f"{native[0]}x{native[1]}."
        )
    image = image.convert("L")
    if size != native:
        image = image.resize(size, Image.Resampling.NEAREST)
    # CDnet's comparator counts every pixel that is not black; a JPEG's compression
    # leaves dark grey around the edges of its black, hence its mid-level cut
    return np.asarray(image) > (127 if file.suffix == ".jpg" else 0)


def _read_labels(
    folder: Path,
    numbers: np.ndarray,
    temporal_roi: tuple[int, int],
    native: tuple[int, int],
    size: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, present)``: uint8 ground truth of frames ``numbers`` resized with the
    nearest neighbour (85 where a file is missing outside the temporal ROI)."""
    Image = _pil()
    labels = np.full((len(numbers), size[1], size[0]), 85, dtype=np.uint8)
    present = np.zeros(len(numbers), dtype=bool)
    allowed = np.zeros(256, dtype=bool)
    allowed[list(CDNET_LABELS)] = True
    first, last = temporal_roi
    for i, number in enumerate(numbers):
        file = folder / f"gt{number:06d}.png"
        if not file.exists():
            if first <= number <= last:
                raise ValueError(
                    f"{file}: ground truth missing for frame {number}, inside the temporal "
                    f"ROI {first}-{last}."
                )
            continue
        image = _open_image(Image, file)
        if image.size != native:
            raise ValueError(
                f"{file}: ground truth size {image.size[0]}x{image.size[1]} differs from "
                f"the frames' {native[0]}x{native[1]}."
            )
        image = image.convert("L")
        if size != native:
            image = image.resize(size, Image.Resampling.NEAREST)
        labels[i] = image
        if not allowed[labels[i]].all():
            bad = sorted(set(np.unique(labels[i]).tolist()) - set(CDNET_LABELS))
            raise ValueError(f"{file}: labels {bad} are not CDnet's {list(CDNET_LABELS)}.")
        present[i] = True
    return labels, present


def _first_last(value) -> tuple[int, int]:
    """``numbers`` checked: a pair of whole CDnet frame numbers ``(first, last)``."""
    pair = tuple(value) if not isinstance(value, str) and np.ndim(value) == 1 else None
    if (
        pair is None
        or len(pair) != 2
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in pair)
    ):
        raise ValueError(
            f"numbers must be (first, last), two whole CDnet frame numbers; got {value!r}."
        )
    return int(pair[0]), int(pair[1])


def _select_numbers(
    numbers: np.ndarray, frames: FrameSelection, first_last: tuple[int, int] | None, path: Path
) -> np.ndarray:
    """Positions into ``numbers`` chosen by ``frames`` (0-based) or by CDnet numbers."""
    if first_last is not None:
        if frames is not None:
            raise ValueError("give frames or numbers, not both.")
        first, last = _first_last(first_last)
        chosen = np.flatnonzero((numbers >= first) & (numbers <= last))
    else:
        chosen = np.arange(len(numbers))[_check_frames(frames)]
    if chosen.size == 0:
        which = f"numbers={first_last!r}" if first_last is not None else f"frames={frames!r}"
        raise ValueError(
            f"{path}: {which} selects none of its {len(numbers)} frames "
            f"(numbered {numbers.min()}-{numbers.max()})."
        )
    return chosen


def load_cdnet(
    path: str | os.PathLike,
    *,
    grey: bool = True,
    scale: float = 1.0,
    frames: FrameSelection = None,
    numbers: tuple[int, int] | None = None,
    dtype: Any = np.float32,
) -> CDnetClip:
    """Load a clip in CDnet 2014's layout: frames, ground truth, ROI and scored frames.

    Parameters
    ----------
    path : str or path-like
        The clip folder, holding ``input/`` (``inNNNNNN.jpg``) and, where present,
        ``groundtruth/`` (``gtNNNNNN.png``), ``ROI.bmp`` and ``temporalROI.txt``.
    grey : bool, default=True
        Grey frames; else RGB (as :func:`read_video`).
    scale : float, default=1.0
        Resize factor: frames with the box filter, labels and ROI with the nearest
        neighbour, so labels keep CDnet's values.
    frames : slice, range or None, default=None
        0-based positions among the frames of ``input/`` (sorted by number).
    numbers : tuple of int or None, default=None
        ``(first, last)``, inclusive CDnet frame numbers to load instead of ``frames``.
    dtype : data-type, default=numpy.float32
        Type of the frames (as :func:`read_video`; ``numpy.uint8`` takes a quarter of the
        memory).

    Returns
    -------
    CDnetClip
        Frames (of ``dtype``), labels, ROI, temporal ROI, frame numbers and scored frames.

    Raises
    ------
    FileNotFoundError
        If ``path`` or its ``input/`` is missing.
    ValueError
        If a frame is unreadable or of another size, a file name is not CDnet's, the
        ground truth does not match the frames (a file missing inside the temporal ROI,
        another size, labels not CDnet's), or the selection is empty.

    Notes
    -----
    CDnet numbers frames from 1 in the original sequence; a clip may hold only part of
    it (frames 470-1700, say), so the loader reads the numbers from the file names and
    never assumes that the first file is frame 1.

    References
    ----------
    N. Goyette, P.-M. Jodoin, F. Porikli, J. Konrad and P. Ishwar, "changedetection.net:
    A new change detection benchmark dataset", CVPR Workshops 2012. Y. Wang, P.-M. Jodoin,
    F. Porikli, J. Konrad, Y. Benezeth and P. Ishwar, "CDnet 2014: An expanded change
    detection benchmark dataset", CVPR Workshops 2014.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from robustpca.datasets import load_cdnet, write_frames
    >>> clip = Path(tempfile.mkdtemp())
    >>> _ = write_frames(clip / "input", np.zeros((4, 6, 8)), pattern="in{:06d}.png",
    ...                  frame_numbers=[10, 11, 12, 13])
    >>> _ = (clip / "temporalROI.txt").write_text("12 20")
    >>> c = load_cdnet(clip)
    >>> c.frames.shape, c.frame_numbers.tolist(), c.temporal_roi, c.labels is None
    ((4, 6, 8), [10, 11, 12, 13], (12, 20), True)
    """
    grey = check_bool(grey, "grey")
    index = _cdnet_index(path, scale, frames, numbers)
    return _cdnet_batch(index, slice(None), grey=grey, scale=scale, dtype=_check_dtype(dtype))


def iter_cdnet(
    path: str | os.PathLike,
    *,
    batch_size: int = 64,
    grey: bool = True,
    scale: float = 1.0,
    frames: FrameSelection = None,
    numbers: tuple[int, int] | None = None,
    dtype: Any = np.float32,
) -> Iterator[CDnetClip]:
    """Yield a CDnet clip in batches of consecutive frames, never holding the whole clip.

    Each batch is a :class:`CDnetClip` of up to ``batch_size`` frames with their labels,
    numbers and scored flags (the ROI and temporal ROI of the whole clip), so a stream of
    masks can be written (:func:`write_masks` with ``frame_numbers``) and counted
    (:func:`robustpca.metrics.change_detection_counts`, summed over the batches) as the
    frames arrive.

    Parameters
    ----------
    path, grey, scale, frames, numbers, dtype
        As in :func:`load_cdnet`.
    batch_size : int, default=64
        Frames per batch; the last batch holds the rest.

    Returns
    -------
    iterator of CDnetClip
        The batches, in frame order.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`load_cdnet`: the layout, the names, the ROI, the temporal ROI and the
        selection are checked at the call; a frame or a ground-truth file when its batch
        is read.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from robustpca.datasets import iter_cdnet, write_frames
    >>> clip = Path(tempfile.mkdtemp())
    >>> _ = write_frames(clip / "input", np.zeros((5, 6, 8)), pattern="in{:06d}.png")
    >>> [batch.frame_numbers.tolist() for batch in iter_cdnet(clip, batch_size=2)]
    [[1, 2], [3, 4], [5]]
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(f"batch_size must be a positive int, got {batch_size!r}.")
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}.")
    dtype = _check_dtype(dtype)
    grey = check_bool(grey, "grey")
    index = _cdnet_index(path, scale, frames, numbers)
    size = int(batch_size)
    return (
        _cdnet_batch(index, slice(start, start + size), grey=grey, scale=scale, dtype=dtype)
        for start in range(0, len(index.files), size)
    )


@dataclass(frozen=True)
class _CDnetIndex:
    """What a clip's batches share: the chosen files and numbers, the regions of interest."""

    path: Path
    files: list[Path]
    numbers: np.ndarray
    temporal_roi: tuple[int, int]
    native: tuple[int, int]
    size: tuple[int, int]
    roi: np.ndarray
    has_labels: bool


def _cdnet_index(
    path: str | os.PathLike,
    scale: float,
    frames: FrameSelection,
    numbers: tuple[int, int] | None,
) -> _CDnetIndex:
    scale = check_scale(scale)
    clip = Path(path).expanduser()
    if not clip.exists():
        raise FileNotFoundError(f"{clip}: no such CDnet clip folder.")
    if not (clip / "input").is_dir():
        raise FileNotFoundError(f"{clip / 'input'}: not found; a CDnet clip holds input/.")
    _, files = resolve_video_path(clip)
    assert files is not None  # a folder
    all_numbers = np.array([_frame_number(f, "in") for f in files], dtype=np.int64)
    order = np.argsort(all_numbers, kind="stable")
    files, all_numbers = [files[i] for i in order], all_numbers[order]
    temporal_roi = _read_temporal_roi(clip, all_numbers)
    chosen = _select_numbers(all_numbers, frames, numbers, clip)
    chosen_files = [files[i] for i in chosen]
    native = image_size(chosen_files[0])
    size = scaled_size(native, scale)
    return _CDnetIndex(
        path=clip,
        files=chosen_files,
        numbers=all_numbers[chosen],
        temporal_roi=temporal_roi,
        native=native,
        size=size,
        roi=_read_roi(clip, native, size),
        has_labels=(clip / "groundtruth").is_dir(),
    )


def _cdnet_batch(
    index: _CDnetIndex, part: slice, *, grey: bool, scale: float, dtype: np.dtype
) -> CDnetClip:
    """The frames ``part`` of an indexed clip, read with their ground truth."""
    files, frame_numbers = index.files[part], index.numbers[part]
    width, height = index.size
    out = np.empty((len(files), height, width, *(() if grey else (3,))), dtype=dtype)
    frames = iter_images(files, grey=grey, scale=scale, reference=index.files[0])
    for i, frame in enumerate(frames):
        out[i] = frame
    first, last = index.temporal_roi
    labels = None
    scored = np.zeros(len(files), dtype=bool)
    if index.has_labels:
        labels, present = _read_labels(
            index.path / "groundtruth", frame_numbers, index.temporal_roi, index.native, index.size
        )
        scored = (frame_numbers >= first) & (frame_numbers <= last) & present
    return CDnetClip(
        frames=out,
        labels=labels,
        roi=index.roi,
        temporal_roi=index.temporal_roi,
        frame_numbers=frame_numbers,
        scored=scored,
        path=index.path,
    )
