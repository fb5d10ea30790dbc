r"""The mask rule of :mod:`robustpca.foreground` on residuals with missing pixels (NaN).

A pixel that was not observed (subsampled video, a dead patch of the sensor, a masked
region: the decomposition's residual is NaN there) is evidence neither way, so every
median of the rule is taken over the pixels seen:

* each frame's offset (step 0) and gain (step 4) over its observed pixels;
* each pixel's scale (step 2) over the frames that observe it; a pixel that no frame of
  the batch observes takes the noise floor (step 3), the median of the other pixels'
  scales; the running scale of :class:`~robustpca.foreground_stream.ForegroundDetector` does
  not move where a frame misses the pixel;
* the spatial median of step 5 over the observed pixels of each window: more than half
  of them must exceed the threshold. A missing pixel therefore takes the verdict of its
  observed neighbours (a gap inside an object is filled with it), and one whose window
  holds no observed pixel is background. The score's median is the *lower* median of
  the observed values (the middle one, or the smaller of the middle two where a window
  observes an even number): it exceeds a threshold exactly when more than half of them
  do, so the masks are the scores thresholded, as without gaps.

On frames of more than :data:`~robustpca.foreground.FRAME_SAMPLE` pixels the frame's
medians (steps 0 and 4) are taken on a regular grid of its *observed* pixels, so that a
regular pattern of gaps (every other column of a subsampled video) cannot hide the
frame from its grid.

Where nothing is missing each of these is the rule's own; batches without NaN never
reach this module, so their masks are unchanged to the bit.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .binary_regions import _box_count, _count_dtype
from .robust_scale import MAD_CONSTANT, _nan_median

__all__ = [
    "all_finite",
    "frame_gains",
    "frame_offsets",
    "gap_majority",
    "gap_median_filter",
    "gap_pixel_scale",
    "gap_scale_step",
    "observed_sample",
    "unseen_as_background",
]


def all_finite(R: np.ndarray) -> bool:
    """Whether an array holds no NaN or infinity: its sum is finite (one pass, no
    temporary), or, where the sum overflows, every entry is. Batches for which it holds
    never reach the rest of this module.

    Parameters
    ----------
    R : ndarray
        A floating array, of any shape.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(R, axis=None)):
            return True
    return bool(np.isfinite(R).all())


def observed_sample(values: np.ndarray, size: int) -> np.ndarray:
    """Each frame's observed pixels, on frames of more than ``size`` pixels an odd number
    of them on a regular grid, NaN-padded to a common length: the sample of each frame's
    medians.

    The grid is the rule's own (every ``k``-th pixel, an odd count) laid over the observed
    pixels, so a frame observed in full gives the rule's sample, and a regular pattern of
    gaps cannot leave the grid without a pixel seen.

    Parameters
    ----------
    values : ndarray of shape (n, m) or (n, m, c)
        The frames' pixels, NaN at the gaps; a pixel is observed where a channel is not
        NaN. Returned as they are where ``m <= size``.
    size : int
        The largest frame sampled in full (:data:`~robustpca.foreground.FRAME_SAMPLE`).
    """
    n, m = values.shape[:2]
    if m <= size:
        return values
    seen = ~np.isnan(values)
    if seen.ndim == 3:
        seen = seen.any(axis=2)
    picks = []
    for t in range(n):
        pick = np.flatnonzero(seen[t])
        if pick.size > size:
            pick = pick[:: pick.size // size]
            pick = pick[: pick.size - 1 + pick.size % 2]
        picks.append(pick)
    sample = np.full((n, max(1, *map(len, picks)), *values.shape[2:]), np.nan, values.dtype)
    for t, pick in enumerate(picks):
        sample[t, : pick.size] = values[t, pick]
    return sample


def frame_offsets(values: np.ndarray) -> np.ndarray:
    """Each frame's median over its observed pixels (0 for a frame with none).

    Parameters
    ----------
    values : ndarray of shape (n, m) or (n, m, c)
        The frames' pixels, NaN at the gaps (as :func:`observed_sample` gives them).
    """
    offset = _nan_median(values, axis=1)
    return np.where(np.isnan(offset), 0, offset).astype(values.dtype, copy=False)


def frame_gains(z: np.ndarray) -> np.ndarray:
    """Step 4's gain ``max(1, 1.4826 med)`` of each frame, the median over its observed
    pixels (1 for a frame with none).

    Parameters
    ----------
    z : ndarray of shape (n, m)
        The frames' scores, NaN at the gaps.
    """
    gain = MAD_CONSTANT * _nan_median(z, axis=1)
    return np.where(np.isnan(gain), 1.0, np.maximum(gain, 1.0)).astype(z.dtype, copy=False)


def gap_pixel_scale(e: np.ndarray, floor_of) -> tuple[np.ndarray, float]:
    """Steps 2-3 on magnitudes with NaN at the gaps: each pixel's 1.4826 times its
    median over the frames that observe it, and the floor of the pixels observed at
    all, which the others take. Returns the raw scale (floored pixels at the floor) and
    the floor (1.0 where no pixel is observed).

    Parameters
    ----------
    e : ndarray of shape (n, h, w)
        The magnitudes, NaN at the gaps.
    floor_of : callable
        ``floor_of(raw, e)``, the floor from the observed pixels' raw scales and the
        observed magnitudes (:func:`robustpca.foreground._floor`).
    """
    raw = MAD_CONSTANT * _nan_median(e.reshape(e.shape[0], -1), axis=0).reshape(e.shape[1:])
    seen = ~np.isnan(raw)
    floor = floor_of(raw[seen], e[~np.isnan(e)]) if seen.any() else 1.0
    return np.where(seen, raw, floor).astype(raw.dtype, copy=False), floor


def gap_scale_step(scale: np.ndarray, e_t: np.ndarray, step: float) -> None:
    """One frame's step of the running log-median, in place.

    Parameters
    ----------
    scale : ndarray of shape (h, w)
        The running per-pixel scale, updated in place.
    e_t : ndarray of shape (h, w)
        The frame's magnitudes; pixels it misses (NaN) keep their scale.
    step : float
        The step :math:`\\gamma_t` in log-scale.
    """
    direction = np.sign(MAD_CONSTANT * e_t - scale)
    scale *= np.exp(step * np.nan_to_num(direction, nan=0.0))


def gap_majority(z: np.ndarray, threshold: float, window: int) -> np.ndarray:
    """Where the median of the observed scores of each ``window x window`` neighbourhood
    (edges replicated) exceeds ``threshold``: more than half of them do. False where the
    window observes nothing.

    Parameters
    ----------
    z : ndarray of shape (n, h, w)
        The scores, NaN at the gaps.
    threshold : float
    window : int
        The neighbourhood's side (odd).
    """
    above = z > threshold
    if window == 1:
        return above
    seen = ~np.isnan(z)
    dtype = _count_dtype(window)
    count = _box_count(above.astype(dtype), window).astype(np.int32)
    observed = _box_count(seen.astype(dtype), window).astype(np.int32)
    return 2 * count > observed


def gap_median_filter(z: np.ndarray, window: int) -> np.ndarray:
    """The lower median of the observed values of each ``window x window`` neighbourhood
    (edges replicated), 0 where it observes none: step 5 for
    :func:`~robustpca.foreground.foreground_score`. It exceeds a threshold exactly where
    :func:`gap_majority` holds (module docstring).

    Parameters
    ----------
    z : ndarray of shape (n, h, w)
        The scores, NaN at the gaps.
    window : int
        The neighbourhood's side (odd).
    """
    r = window // 2
    padded = np.pad(z, ((0, 0), (r, r), (r, r)), mode="edge")
    out = np.empty_like(z)
    for t in range(z.shape[0]):  # a frame's windows at a time: window**2 copies of it
        windows = sliding_window_view(padded[t], (window, window))
        lanes = np.sort(windows.reshape(*z.shape[1:], window * window), axis=-1)  # NaN last
        count = np.count_nonzero(~np.isnan(lanes), axis=-1)
        lower = np.take_along_axis(lanes, (np.maximum(count, 1) - 1)[..., None] // 2, axis=-1)
        out[t] = np.where(count > 0, lower[..., 0], 0)
    return out


def unseen_as_background(z: np.ndarray) -> np.ndarray:
    """Scores with the missing pixels that no spatial median reached (``window=1``) at
    0, background.

    Parameters
    ----------
    z : ndarray
        The scores, NaN at the missing pixels (returned as it is without NaN).
    """
    return np.where(np.isnan(z), 0, z) if np.isnan(z).any() else z
