r"""Foreground masks from the sparse part (or residual) of a video: one rule for every
low-rank plus sparse method, batch or streaming.

A decomposition ``X = L + S`` of a video (one frame per row) leaves in ``S`` (or in the
residual ``X - L``) both the moving objects and the noise of the background: sensor and
compression noise everywhere, and much more of it where the background itself moves
(leaves in the wind, water, a flickering screen). A single global threshold on
``|S|`` either misses objects on quiet pixels or floods the moving background. The rule
here judges every pixel against its *own* noise:

0. **Frame offset.** Each frame's median residual (per channel) is subtracted: a
   change of the whole frame's brightness that the background missed (clouds, the
   camera's exposure) is light, not an object, and objects cover less than half a
   frame.
1. **Magnitude.** ``e_tp = |r_tp|`` for grey frames; for colour frames the root mean
   square over the channels, :math:`e = (\frac1c\sum_k r_k^2)^{1/2}`. The channels of
   real video share most of their noise (luminance, compression), so the colour rule
   is the grey rule when they are fully correlated, and stricter when they are not.
2. **Per-pixel robust scale.** :math:`\hat\sigma_p = 1.4826\,\operatorname{med}_t
   e_{tp}`, the MAD about a zero centre (the residual of a decomposition is centred):
   consistent for :math:`\sigma` under Gaussian noise, and unaffected by objects that
   cover the pixel in fewer than half the frames. Pixels on a moving background get a
   large scale.
3. **Noise floor.** :math:`s_p = \max(\hat\sigma_p, \sigma_0)` with
   :math:`\sigma_0 = \operatorname{med}_p \hat\sigma_p`, the typical pixel's scale: a
   pixel that never changes (or that the decomposition fitted exactly, such as the
   zeros of a soft-thresholded ``S``) is judged at the typical noise level, never at a
   zero scale; and never below ``min_scale`` (the rounding of integer frames). Where
   most pixels have a zero scale, :math:`\sigma_0` is ``min_scale`` if positive (a
   static scene of integer frames), else the scale of the nonzero magnitudes.
4. **Frame gain.** :math:`z_{tp} = e_{tp} / (s_p g_t)` with
   :math:`g_t = \max\big(1, 1.4826\,\operatorname{med}_p (e_{tp}/s_p)\big)`: a frame whose
   typical pixel is noisier than the model (a global flicker or a gain change that ``L``
   missed) is judged at its own level, since objects cover less than half a frame.
5. **Spatial median.** :math:`z` is replaced by its median over a 3-by-3
   window in each frame: a pixel stands out only when most of its neighbours do, which
   removes isolated spikes (compression blocks, single swaying leaves) and keeps
   objects, which are larger than a few pixels.
6. **Hysteresis** (Canny 1986): pixels above ``high`` are seeds, grown into the
   8-connected regions of pixels above ``low`` (in each frame, never across frames);
   regions with no seed are dropped, and so are those smaller than ``min_size`` of the
   frame.
7. **Holes** inside a region are filled.

A missing pixel (NaN in the residual: subsampled video, a dead patch of the sensor) is
evidence neither way: every median above is then taken over the pixels seen, and a
missing pixel takes the verdict of its observed neighbours
(:mod:`robustpca.foreground_gaps`; step 5's median is then the lower median of a window's
observed scores, so that the masks stay the scores thresholded).

The thresholds are multiples of the robust scale and the same for every clip; see
:func:`foreground_masks` for why they sit where they do.
:class:`~robustpca.foreground_stream.ForegroundDetector` applies the same rule to a
stream, batch by batch, with a running per-pixel scale and memory proportional to one
frame.

References
----------
E. J. Candès, X. Li, Y. Ma, J. Wright, "Robust principal component analysis?",
Journal of the ACM 58(3), 2011, sec. 4.1 (video background subtraction).
J. Canny, "A computational approach to edge detection", IEEE TPAMI 8(6), 1986
(hysteresis thresholding).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import ndimage as ndi

from ._validation import check_nonnegative_float, check_positive_int, real_array
from .binary_regions import _EIGHT, _fill_holes, _label_runs, _majority, _runs
from .foreground_gaps import (
    all_finite,
    frame_gains,
    frame_offsets,
    gap_majority,
    gap_median_filter,
    gap_pixel_scale,
    observed_sample,
    unseen_as_background,
)
from .linalg.work_space import reusable, work_space
from .robust_scale import MAD_CONSTANT, _column_medians, _median

__all__ = [
    "QUANTISATION_SCALE",
    "foreground_masks",
    "foreground_score",
    "min_scale_for",
]

# defaults of the rule (their reasons: foreground_masks' Notes)
HIGH = 8.0
LOW = 4.0
MIN_SIZE = 0.0
WINDOW = 3
#: The rule's scale (1.4826 times the median magnitude) of the rounding error of integer
#: frames, uniform on [-1/2, 1/2]: ``min_scale`` for them (subtract_background).
QUANTISATION_SCALE = MAD_CONSTANT * 0.25
#: A frame's own statistics (its median residual, its gain) are taken on a regular grid
#: of at most this many of its pixels (of its observed pixels, where some are missing):
#: the median of 4,096 values is within about 2% of a noise scale of the frame's, and the
#: rule's cost per frame stays that of its passes.
FRAME_SAMPLE = 4096
#: Steps 4-7 run on chunks of frames of about this many pixels: the rule is per frame,
#: and a chunk's temporaries stay in cache and reuse the memory of the last chunk's.
CHUNK_PIXELS = 1 << 18


@dataclass(frozen=True)
class _Rule:
    """The validated parameters of the rule (shared by the function and the class)."""

    high: float
    low: float
    min_size: float
    window: int
    fill_holes: bool


def _check_rule(high, low, min_size, window, fill_holes) -> _Rule:
    high = check_nonnegative_float(high, "high", strict=True)
    low = check_nonnegative_float(low, "low", strict=True)
    if low > high:
        raise ValueError(f"low={low!r} must be <= high={high!r}.")
    min_size = check_nonnegative_float(min_size, "min_size")
    if min_size >= 1.0:
        raise ValueError(f"min_size={min_size!r} must be < 1 (a share of the frame's pixels).")
    window = check_positive_int(window, "window")
    if window % 2 == 0:
        raise ValueError(f"window={window} must be odd (a window centred on the pixel).")
    if not isinstance(fill_holes, (bool, np.bool_)):
        raise TypeError(f"fill_holes must be a bool, got {type(fill_holes).__name__}.")
    return _Rule(high, low, min_size, window, bool(fill_holes))


def _check_frame_shape(frame_shape) -> tuple[int, ...] | None:
    """``frame_shape`` as a tuple of 2 or 3 positive ints, or None."""
    if frame_shape is None:
        return None
    if not isinstance(frame_shape, (tuple, list, np.ndarray)):
        raise TypeError(
            f"frame_shape must be a tuple (h, w) or (h, w, c) of ints, got {frame_shape!r}."
        )
    shape = tuple(frame_shape.tolist() if isinstance(frame_shape, np.ndarray) else frame_shape)
    if not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in shape):
        raise TypeError(f"frame_shape must hold ints, got {frame_shape!r}.")
    if len(shape) not in (2, 3) or any(s < 1 for s in shape):
        raise ValueError(
            f"frame_shape must be (h, w) or (h, w, c) of positive ints, got {frame_shape!r}."
        )
    return tuple(int(s) for s in shape)


def _rms(R: np.ndarray, gaps: bool) -> np.ndarray:
    """The root mean square over the last axis of ``R`` (n, h, w, c). The sum of squares
    is exact in scale where no square overflows and the largest stays well above the
    dtype's least normal number; otherwise (magnitudes near the ends of the dtype's range)
    each pixel's channels are first divided by their largest, so the masks do not depend
    on the residual's units."""
    c = R.shape[-1]
    squares = np.einsum("...c,...c->...", R, R)
    top = float(np.fmax.reduce(squares, axis=None))  # NaN (a gap) skipped
    info = np.finfo(R.dtype)
    # squares of magnitudes down to the dtype's precision below the largest stay normal
    if np.isnan(top) or float(info.tiny) / float(info.eps) ** 2 <= top < np.inf:
        return np.sqrt(squares / c)
    largest = np.max(np.abs(R), axis=-1)  # NaN at a gap
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = R / largest[..., None]
        unit[largest == 0] = 0
        return largest * np.sqrt(np.einsum("...c,...c->...", unit, unit) / c)


def _magnitude(
    residual,
    frame_shape,
    name: str = "residual",
    work: np.ndarray | None = None,
    in_place: bool = False,
) -> tuple[np.ndarray, int, bool]:
    """``(e, c, gaps)``: the per-pixel magnitude, shape ``(n, h, w)``, the channel count
    (steps 0-1 of the rule) and whether a pixel is missing (NaN in ``e`` there).

    ``residual`` is ``(n, h, w)`` (grey), ``(n, h, w, c)`` (colour: the root mean square
    over the last axis), or ``(n, d)`` with ``frame_shape`` ``(h, w)`` or ``(h, w, c)``.
    ``work``: an array that the centred residual may be written into (used where it has
    its shape and dtype; on grey frames it is then ``e``); ``in_place``: written into
    the residual itself instead.
    """
    R = np.asarray(residual)
    if R.dtype != np.float32:  # a float32 stream is scored in float32 (its throughput)
        R = real_array(R, name)
    shape = _check_frame_shape(frame_shape)
    if shape is not None:
        if R.ndim != 2 or R.shape[1] != int(np.prod(shape)):
            raise ValueError(
                f"{name} of shape {R.shape} does not hold frames of shape {shape} "
                f"(expected (n_frames, {int(np.prod(shape))}))."
            )
        R = R.reshape((R.shape[0], *shape))
    if R.ndim not in (3, 4):
        raise ValueError(
            f"{name} must have shape (n_frames, h, w) or (n_frames, h, w, channels), or "
            f"(n_frames, h * w) with frame_shape; got shape {R.shape}."
        )
    if R.shape[0] < 1 or R.size == 0:
        raise ValueError(f"{name} holds no frames (shape {R.shape}).")
    gaps = not all_finite(R)
    if gaps and np.isinf(R).any():
        raise ValueError(f"{name} holds infinite values (a missing pixel is NaN).")
    n = R.shape[0]
    flat = R.reshape((n, -1, *R.shape[3:]))
    offset = frame_offsets(observed_sample(flat, FRAME_SAMPLE)) if gaps else _frame_median(flat)
    out = R if in_place and R.flags.writeable else reusable(work, R)
    out = work_space(R.shape, R.dtype) if out is None else out
    R = np.subtract(R, offset.reshape((n, 1, 1, *R.shape[3:])), out=out)
    if R.ndim == 3:
        return np.abs(R, out=R), 1, gaps
    return _rms(R, gaps), R.shape[-1], gaps


def _floor(pixel_scale: np.ndarray, e: np.ndarray, min_scale: float = 0.0) -> float:
    """The noise floor: the median pixel scale, never below ``min_scale``. Where more
    than half the pixels have a zero scale (a residual that is mostly exact zeros):
    ``min_scale`` where it is positive (integer frames: the residual is at their
    rounding, and its nonzero magnitudes are changes, such as an object crossing a
    static scene), else the scale of the nonzero magnitudes (the zeros of a
    soft-thresholded ``S``, whose other entries are noise as much as objects); 1 where
    everything is zero (all scores are then zero)."""
    floor = float(_median(pixel_scale.ravel(), axis=0))
    if floor > 0 or min_scale > 0:
        return max(floor, min_scale)
    return _nonzero_floor(e, 1.0)


def _nonzero_floor(e: np.ndarray, previous: float) -> float:
    """:func:`_floor` where the median pixel scale is zero: the scale of the nonzero
    magnitudes of ``e`` (NaN skipped), or ``previous`` where there is none."""
    nonzero = e[e > 0]
    return MAD_CONSTANT * float(_median(nonzero, axis=0)) if nonzero.size else previous


def _frame_median(values: np.ndarray) -> np.ndarray:
    """Each frame's median of ``values`` (n, m[, c]) along its pixels; on a frame of more
    than :data:`FRAME_SAMPLE` pixels, the median of an odd number of them on a regular
    grid (one order statistic: NumPy's single-``kth`` selection is the fast one)."""
    m = values.shape[1]
    if m <= FRAME_SAMPLE:
        return _median(values, axis=1) if values.dtype == np.float64 else np.median(values, 1)
    sample = _frame_sample(values)
    half = sample.shape[1] // 2
    return np.partition(sample, half, axis=1)[:, half]


def _frame_sample(values: np.ndarray) -> np.ndarray:
    """The regular grid of :func:`_frame_median` on frames of more than
    :data:`FRAME_SAMPLE` pixels: an odd number of each frame's values (a view)."""
    sample = values[:, :: values.shape[1] // FRAME_SAMPLE]
    return sample[:, : sample.shape[1] - 1 + sample.shape[1] % 2]


def _frame_gain(z: np.ndarray) -> np.ndarray:
    """Step 4's gain of each frame of ``z`` (n, m): ``max(1, 1.4826 med)``, the median as
    :func:`_frame_median` takes it. Where at most half the grid's scaled values exceed 1,
    so does not the median's (scaling by a positive constant keeps the order of the
    rounded values), and the gain is 1 without a selection: the usual frame."""
    if z.shape[1] <= FRAME_SAMPLE:
        return np.maximum(MAD_CONSTANT * _frame_median(z), 1.0)
    scaled = MAD_CONSTANT * _frame_sample(z)
    half = scaled.shape[1] // 2
    high = np.count_nonzero(scaled > 1.0, axis=1) > half
    gain = np.ones(len(z), dtype=scaled.dtype)
    if high.any():
        gain[high] = np.maximum(np.partition(scaled[high], half, axis=1)[:, half], 1.0)
    return gain


def _score(e: np.ndarray, scale: np.ndarray, window: int, gaps: bool = False) -> np.ndarray:
    """Steps 4-5: ``e / scale``, divided by each frame's gain, then median-filtered.
    ``e`` (a temporary of the rule's) is overwritten where the quotient keeps its dtype.
    ``gaps``: ``e`` is NaN at missing pixels, which stay NaN unless filtered."""
    z = np.divide(e, scale, out=e) if np.result_type(e, scale) == e.dtype else e / scale
    flat = z.reshape(len(z), -1)
    gains = frame_gains(observed_sample(flat, FRAME_SAMPLE)) if gaps else _frame_gain(flat)
    z /= gains[:, None, None]
    if window > 1:
        if gaps:
            return gap_median_filter(z, window)
        z = ndi.median_filter(z, size=(1, window, window), mode="nearest")
    return z


def _time_median(e: np.ndarray) -> np.ndarray:
    """Each pixel's median over the frames of ``e`` (n, h, w): :func:`numpy.median` along
    axis 0 to the bit (:func:`~robustpca.robust_scale._column_medians`)."""
    median: np.ndarray = _column_medians(e.reshape(e.shape[0], -1)).reshape(e.shape[1:])
    return median


def _raw_scale(
    e: np.ndarray, gaps: bool = False, min_scale: float = 0.0
) -> tuple[np.ndarray, float]:
    """Steps 2-3: the per-pixel robust scale before its floor, and the floor."""
    if gaps:
        return gap_pixel_scale(e, lambda raw, e: _floor(raw, e, min_scale))
    raw = MAD_CONSTANT * _time_median(e)
    return raw, _floor(raw, e, min_scale)


def _pixel_scale(
    e: np.ndarray, gaps: bool = False, min_scale: float = 0.0
) -> tuple[np.ndarray, float]:
    """Steps 2-3: the per-pixel robust scale with its floor, and the floor."""
    raw, floor = _raw_scale(e, gaps, min_scale)
    return np.maximum(raw, floor), floor


def _threshold(z: np.ndarray, rule: _Rule, gaps: bool = False) -> np.ndarray:
    """Steps 5-7 on the scores before the spatial median: the median filter (through
    :func:`_majority`; :func:`~robustpca.foreground_gaps.gap_majority` where ``z`` is NaN
    at missing pixels), hysteresis between ``rule.low`` and ``rule.high``, size filter,
    holes. The regions are labelled on the rows that hold a pixel above ``low`` only."""

    def majority(t: float) -> np.ndarray:
        return gap_majority(z, t, rule.window) if gaps else _majority(z > t, rule.window)

    weak = majority(rule.low)
    n, h, w = weak.shape
    rows, at, _ = _runs(np.any(weak, axis=2))
    if rows.size == 0:
        return weak
    labels, count = _label_runs(weak.reshape(-1, w), rows, at, _EIGHT)
    # the stack's labels in place: a boolean gather at ``at`` copies 1 byte a pixel, not 4
    seeds = np.zeros(labels.shape, dtype=bool)
    seeds[at] = majority(rule.high).reshape(-1, w)[rows]
    keep = np.zeros(count + 1, dtype=bool)
    keep[labels[seeds]] = True
    if rule.min_size > 0:
        sizes = np.bincount(labels.ravel(), minlength=count + 1)
        keep &= sizes >= _least_size(rule.min_size, h * w)
    keep[0] = False  # the background, and the stack's empty rows
    masks = np.zeros((n * h, w), dtype=bool)
    masks[rows] = np.take(keep, labels)[at]
    masks = masks.reshape(n, h, w)
    if rule.fill_holes:
        masks = _fill_holes(masks)
    return masks


def _least_size(min_size: float, pixels: int) -> int:
    """The fewest pixels of a region of at least ``min_size`` of a frame of ``pixels``:
    ``ceil(min_size * pixels)``, the product's rounding aside (a region of exactly that
    share, such as 3 of 30 pixels for 0.1, is kept)."""
    return math.ceil(min_size * pixels * (1 - 1e-12))


def _masks(e: np.ndarray, scale: np.ndarray, rule: _Rule, gaps: bool = False) -> np.ndarray:
    """Steps 4-7 on the magnitudes ``e`` (n, h, w; overwritten), by chunks of frames."""
    step = max(1, CHUNK_PIXELS // (e.shape[1] * e.shape[2]))
    chunks = [
        _threshold(_score(e[s : s + step], scale, 1, gaps), rule, gaps)
        for s in range(0, len(e), step)
    ]
    return chunks[0] if len(chunks) == 1 else np.concatenate(chunks)


def min_scale_for(frames) -> float:
    """The ``min_scale`` that :func:`~robustpca.background_subtraction.subtract_background`
    gives the mask rule for a clip whose (first) frames are ``frames``.

    Integer frames are levels (8-bit video): the scale of their rounding,
    :data:`QUANTISATION_SCALE`, so that a static scene's residual, far below it, leaves a
    change of one level background. Float frames: the same in units of float32's
    spacing at their largest magnitude (the residual is float32), so that a noise-free
    clip's exact background gives the rule a unit instead of measuring the objects
    against themselves; far below any real noise, and it scales with the frames (those
    in 0..1 get 1/255 of those in 0..255). Boolean frames are the floats 0.0 and 1.0 (a
    binary frame is exact). Frames with no nonzero value get 0. Pass it to a
    :class:`~robustpca.foreground_stream.ForegroundDetector` or to
    :func:`foreground_masks` that judges such frames' residual; ``min_scale="auto"``
    has the detector take it from the first frames of a ``subtract_background`` stream.

    Parameters
    ----------
    frames : array-like of real numbers or bools
        Frames of the clip, any shape; NaN (a missing pixel) is left out.

    Returns
    -------
    float
        The floor, non-negative.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.foreground import QUANTISATION_SCALE, min_scale_for
    >>> min_scale_for(np.zeros((2, 4, 4), np.uint8)) == QUANTISATION_SCALE
    True
    >>> bool(0 < min_scale_for(np.ones((2, 4, 4))) < 1e-6)
    True
    """
    frames = np.asarray(frames)
    if frames.dtype.kind not in "biuf":
        raise ValueError(f"frames must hold real numbers or bools, got dtype {frames.dtype}.")
    if frames.dtype.kind in "iu":
        return QUANTISATION_SCALE
    top = min(_largest_magnitude(frames), float(np.finfo(np.float32).max))
    # in units of float32's spacing there, as QUANTISATION_SCALE is in units of one level
    return QUANTISATION_SCALE * float(np.spacing(np.float32(top))) if top > 0 else 0.0


def _largest_magnitude(frames: np.ndarray) -> float:
    """The largest magnitude of the values of real or boolean ``frames``, NaN left out
    (0 where there is none): two passes, no temporary; inf where they hold one."""
    if frames.dtype.kind == "b":
        return 1.0 if frames.any() else 0.0
    if not frames.size:
        return 0.0
    top = np.fmax.reduce(frames, axis=None)  # fmax and fmin skip NaN
    top = max(abs(float(top)), abs(float(np.fmin.reduce(frames, axis=None))))
    return 0.0 if np.isnan(top) else top


def foreground_score(
    residual, *, frame_shape=None, window: int = WINDOW, min_scale: float = 0.0
) -> np.ndarray:
    r"""Per-pixel foreground score: the residual in units of its own robust scale.

    Steps 0-5 of the rule (module docstring): ``|r|`` less each frame's median (the
    root mean square over channels for colour), divided by the per-pixel scale over
    time with its noise floor and by each frame's gain, then median-filtered over a
    ``window x window`` neighbourhood in each frame (of its observed pixels, the lower
    median, where some are missing). :func:`foreground_masks` thresholds it: a score
    above ``high`` is foreground (in a region of at least ``min_size``). A benchmark can
    scan thresholds on it for the best global F-measure under the same normalisation.

    Parameters
    ----------
    residual : array-like of shape (n_frames, h, w) or (n_frames, h, w, c)
        The sparse part ``S`` or the residual ``X - L`` of a decomposition, one frame
        per row; or shape ``(n_frames, h * w [* c])`` with ``frame_shape``.
    frame_shape : tuple of int or None, default=None
        ``(h, w)`` or ``(h, w, c)`` when ``residual`` holds flattened frames.
    window : int, default=3
        Side of the spatial median filter (odd; 1 turns it off).
    min_scale : float, default=0.0
        The least noise floor (step 3), in the residual's units. For integer frames,
        :func:`~robustpca.background_subtraction.subtract_background` passes the scale
        of their rounding, :data:`QUANTISATION_SCALE` (0.37 of a level): a residual at
        rounding level (a static scene) then leaves changes of one level background;
        for float frames, that of their float32 rounding. Pass a positive one for the
        residual of a noise-free (synthetic) clip: with none, its exact zeros read as a
        soft threshold's, and the objects are measured against themselves.

    Returns
    -------
    ndarray of shape (n_frames, h, w)
        Non-negative, finite scores; about 1 on typical background, larger on objects.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.foreground import foreground_score
    >>> rng = np.random.default_rng(0)
    >>> R = rng.normal(size=(20, 16, 16))
    >>> R[5, 4:10, 4:10] += 20.0
    >>> z = foreground_score(R)
    >>> bool(z[5, 6, 6] > 8 > z[6, 6, 6])
    True
    """
    window = _check_rule(HIGH, LOW, MIN_SIZE, window, True).window
    min_scale = check_nonnegative_float(min_scale, "min_scale")
    e, _, gaps = _magnitude(residual, frame_shape)
    scale, _ = _pixel_scale(e, gaps, min_scale)
    return unseen_as_background(_score(e, scale, window, gaps))


def foreground_masks(
    residual,
    *,
    frame_shape=None,
    high: float = HIGH,
    low: float = LOW,
    min_size: float = MIN_SIZE,
    window: int = WINDOW,
    fill_holes: bool = True,
    min_scale: float = 0.0,
) -> np.ndarray:
    r"""Boolean foreground masks of a video from its sparse part or residual.

    The whole rule of the module docstring: :func:`foreground_score`, then hysteresis
    between ``low`` and ``high``, removal of small regions and filling of holes. The
    same defaults serve every clip and every decomposition: nothing is fitted to the
    data beyond the robust scales.

    Parameters
    ----------
    residual : array-like of shape (n_frames, h, w) or (n_frames, h, w, c)
        The sparse part ``S`` or the residual ``X - L``; or ``(n_frames, h * w [* c])``
        with ``frame_shape``. Not modified.
    frame_shape : tuple of int or None, default=None
        ``(h, w)`` or ``(h, w, c)`` when ``residual`` holds flattened frames.
    high : float, default=8.0
        Seed threshold, in units of the robust scale: a region is foreground only if
        one of its (median-filtered) scores exceeds it.
    low : float, default=4.0
        Growth threshold (``0 < low <= high``): a seed's 8-connected region of scores
        above ``low`` is foreground.
    min_size : float, default=0.0
        Regions with fewer pixels than this share of the frame are dropped.
    window : int, default=3
        Side of the spatial median filter of the scores (odd; 1 turns it off).
    fill_holes : bool, default=True
        Fill the holes of each region (the uniform inside of a vehicle can match the
        background where its edges do not).
    min_scale : float, default=0.0
        The least noise floor (step 3), in the residual's units. For integer frames,
        :func:`~robustpca.background_subtraction.subtract_background` passes the scale
        of their rounding, :data:`QUANTISATION_SCALE` (0.37 of a level): a residual at
        rounding level (a static scene) then leaves changes of one level background;
        for float frames, that of their float32 rounding. Pass a positive one for the
        residual of a noise-free (synthetic) clip: with none, its exact zeros read as a
        soft threshold's, and the objects are measured against themselves.

    Returns
    -------
    ndarray of bool, shape (n_frames, h, w)

    Notes
    -----
    Under Gaussian noise the scores of background pixels would rarely exceed 4
    (:math:`P(|z| > 4) = 6 \cdot 10^{-5}` per pixel, and the median of a 3-by-3
    window exceeds it only when five of the nine pixels do). Real residuals have much
    heavier tails: JPEG blocks, sub-pixel camera shake, edges that the low-rank
    background blurs. ``low = 4`` keeps those tails out of the grown regions, and
    ``high = 2 low`` asks each region for a pixel whose median neighbourhood is twice as
    far out, which noise clusters do not reach.

    The rule serves any residual, but the scale it reads is the residual's own: a
    soft-thresholded sparse part (principal component pursuit's ``sparse_``, and
    ``X - L`` of the same fit, which equals it to the solver's tolerance) has most of
    its small entries set to zero, which shrinks the per-pixel medians and loosens the
    masks. A residual that keeps the noise (a fit of known rank such as
    ``AccAltProj``'s ``X - low_rank_``, or a temporal median) is read as it is.

    See Also
    --------
    foreground_score : the scores before thresholding.
    robustpca.foreground_stream.ForegroundDetector : the same rule on a stream.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.foreground import foreground_masks
    >>> rng = np.random.default_rng(0)
    >>> R = rng.normal(size=(20, 16, 16))
    >>> R[5, 4:10, 4:10] += 20.0
    >>> masks = foreground_masks(R)
    >>> int(masks[5].sum()), int(masks.sum())
    (32, 32)
    """
    rule = _check_rule(high, low, min_size, window, fill_holes)
    min_scale = check_nonnegative_float(min_scale, "min_scale")
    e, _, gaps = _magnitude(residual, frame_shape)
    scale, _ = _pixel_scale(e, gaps, min_scale)
    return _masks(e, scale, rule, gaps)
