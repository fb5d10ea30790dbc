"""Regions of stacks of boolean frames: majority filter, labelling, hole filling.

The morphology of :mod:`robustpca.foreground`'s mask rule (steps 5-7), on arrays of shape
``(n, h, w)`` and per frame, never across frames. Each labelling runs on the rows of the
frames that can hold a region only, stacked with an empty row between runs of rows, so
that ``scipy.ndimage.label`` of the stack is that of the frames on those rows.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi


def _box_count(counts: np.ndarray, window: int) -> np.ndarray:
    """Sums of the small non-negative integers ``counts`` (n, h, w) over each ``window x
    window`` neighbourhood, edges replicated, in ``counts``' dtype (two passes of
    shifted sums)."""
    r = window // 2
    padded = np.pad(counts, ((0, 0), (r, r), (r, r)), mode="edge")
    h, w = counts.shape[1:]
    rows = padded[:, :h, :].copy()
    for i in range(1, window):
        rows += padded[:, i : i + h, :]
    box = rows[:, :, :w].copy()
    for j in range(1, window):
        box += rows[:, :, j : j + w]
    return box


def _count_dtype(window: int) -> type[np.unsignedinteger]:
    """The narrowest unsigned integer type that holds the ``window**2`` pixels of a
    ``window x window`` count: 8 bits up to a window of 15, 16 up to 255, else 32."""
    size = window * window
    return np.uint8 if size <= 255 else np.uint16 if size <= 65535 else np.uint32


def _majority(above: np.ndarray, window: int) -> np.ndarray:
    """Where the median of each ``window x window`` neighbourhood (edges replicated) of
    the scores exceeds a threshold, from where the scores do (``above``): the median of
    ``m`` values exceeds it when at least ``(m + 1) / 2`` of them do. Two box sums of
    small integers instead of a median filter."""
    if window == 1:
        return above
    dtype = _count_dtype(window)  # wide enough for window**2, 1 byte a pixel up to 15
    counts = above.view(np.uint8) if dtype == np.uint8 else above.astype(dtype)
    result: np.ndarray = _box_count(counts, window) >= (window * window + 1) // 2
    return result


def _runs(active: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows where ``active`` (n, h) holds, as flat indices into the ``n * h`` rows of
    the frames, with their positions in a stack of them that has an empty row before
    each run of consecutive rows of one frame, and where each run starts. A labelling
    of the stack is that of the frames on those rows: the other rows only cost time."""
    h = active.shape[1]
    rows = np.flatnonzero(active.ravel())
    starts = np.ones(rows.size, dtype=bool)
    starts[1:] = (np.diff(rows) != 1) | (rows[1:] % h == 0)
    at = np.arange(rows.size) + np.cumsum(starts)
    return rows, at, starts


def _label_runs(pixels: np.ndarray, rows, at, structure) -> tuple[np.ndarray, int]:
    """``scipy.ndimage.label`` of the rows ``rows`` of ``pixels`` (n * h, w) stacked at
    ``at`` (:func:`_runs`): the labels of the stack and their count."""
    stack = np.zeros((int(at[-1]) + 1, pixels.shape[1]), dtype=bool)
    stack[at] = pixels[rows]
    labels, count = ndi.label(stack, structure=structure)
    return labels, int(count)


#: 8-connected regions in each frame; their background 4-connected
_EIGHT = np.ones((3, 3), dtype=bool)
_FOUR = ndi.generate_binary_structure(2, 1)


def _fill_holes(masks: np.ndarray) -> np.ndarray:
    """``scipy.ndimage.binary_fill_holes`` of each frame, in one labelling: the holes are
    the background's 4-connected components that touch no edge of the frame. They lie
    between a frame's first and last rows with a mask pixel; the rows outside are all
    background, joined to the frame's sides, so only those spans are labelled and the
    components on a span's first or last row reach the outside."""
    n, h, w = masks.shape
    any_row: np.ndarray = np.any(masks, axis=2)
    first = any_row.argmax(axis=1)
    last = h - 1 - any_row[:, ::-1].argmax(axis=1)
    index = np.arange(h)
    span = np.any(any_row, axis=1)[:, None] & (index >= first[:, None]) & (index <= last[:, None])
    rows, at, starts = _runs(span)
    if rows.size == 0:
        return masks
    flat = masks.reshape(-1, w)
    labels, count = _label_runs(~flat, rows, at, _FOUR)
    if count == 0:
        return masks
    hole = np.ones(count + 1, dtype=bool)
    ends = np.append(starts[1:], True)
    for edge in (labels[at[starts]], labels[at[ends]], labels[:, 0], labels[:, -1]):
        hole[edge] = False
    hole[0] = False  # the masks themselves, and the empty rows
    filled = flat.copy()
    filled[rows] |= np.take(hole, labels)[at]
    return filled.reshape(n, h, w)
