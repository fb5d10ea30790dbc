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
   zero scale.
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
(:mod:`robustpca.foreground_gaps`).

The thresholds are multiples of the robust scale and the same for every clip; see
:func:`foreground_masks` for why they sit where they do. :class:`ForegroundDetector`
applies the same rule to a stream, batch by batch, with a running per-pixel scale and
memory proportional to one frame.

References
----------
E. J. Candès, X. Li, Y. Ma, J. Wright, "Robust principal component analysis?",
Journal of the ACM 58(3), 2011, sec. 4.1 (video background subtraction).
J. Canny, "A computational approach to edge detection", IEEE TPAMI 8(6), 1986
(hysteresis thresholding).
"""

from __future__ import annotations

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
    gap_scale_step,
    unseen_as_background,
)
from .linalg.work_space import reusable, work_space
from .robust_scale import MAD_CONSTANT, _column_medians, _median

__all__ = [
    "ForegroundDetector",
    "foreground_masks",
    "foreground_score",
]

# defaults of the rule (their reasons: foreground_masks' Notes)
HIGH = 8.0
LOW = 4.0
MIN_SIZE = 0.0
WINDOW = 3
#: the gain of the running log-median's steps (ForegroundDetector's docstring)
_GAIN = 3.0
#: A frame's own statistics (its median residual, its gain) are taken on a regular grid
#: of at most this many of its pixels: the median of 4,096 values is within about 2% of
#: a noise scale of the frame's, and the rule's cost per frame stays that of its passes.
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
    if frame_shape is not None:
        shape = tuple(int(s) for s in frame_shape)
        if len(shape) not in (2, 3) or any(s < 1 for s in shape):
            raise ValueError(f"frame_shape must be (h, w) or (h, w, c), got {frame_shape!r}.")
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
    offset = frame_offsets(_sampled(flat)) if gaps else _frame_median(flat)
    out = R if in_place and R.flags.writeable else reusable(work, R)
    out = work_space(R.shape, R.dtype) if out is None else out
    R = np.subtract(R, offset.reshape((n, 1, 1, *R.shape[3:])), out=out)
    if R.ndim == 3:
        return np.abs(R, out=R), 1, gaps
    return np.sqrt(np.einsum("...c,...c->...", R, R) / R.shape[-1]), R.shape[-1], gaps


def _floor(pixel_scale: np.ndarray, e: np.ndarray) -> float:
    """The noise floor: the median pixel scale; where more than half the pixels have a
    zero scale (a residual that is mostly exact zeros), the scale of the nonzero
    magnitudes; 1 where everything is zero (all scores are then zero)."""
    floor = float(_median(pixel_scale.ravel(), axis=0))
    if floor > 0:
        return floor
    nonzero = e[e > 0]
    if nonzero.size:
        return MAD_CONSTANT * float(_median(nonzero, axis=0))
    return 1.0


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


def _sampled(values: np.ndarray) -> np.ndarray:
    """The pixels of :func:`_frame_median`'s grid (all of them on small frames)."""
    return _frame_sample(values) if values.shape[1] > FRAME_SAMPLE else values


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
    z /= (frame_gains(_sampled(flat)) if gaps else _frame_gain(flat))[:, None, None]
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


def _raw_scale(e: np.ndarray, gaps: bool = False) -> tuple[np.ndarray, float]:
    """Steps 2-3: the per-pixel robust scale before its floor, and the floor."""
    if gaps:
        return gap_pixel_scale(e, _floor)
    raw = MAD_CONSTANT * _time_median(e)
    return raw, _floor(raw, e)


def _pixel_scale(e: np.ndarray, gaps: bool = False) -> tuple[np.ndarray, float]:
    """Steps 2-3: the per-pixel robust scale with its floor, and the floor."""
    raw, floor = _raw_scale(e, gaps)
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
        keep &= sizes >= rule.min_size * h * w
    keep[0] = False  # the background, and the stack's empty rows
    masks = np.zeros((n * h, w), dtype=bool)
    masks[rows] = np.take(keep, labels)[at]
    masks = masks.reshape(n, h, w)
    if rule.fill_holes:
        masks = _fill_holes(masks)
    return masks


def _masks(e: np.ndarray, scale: np.ndarray, rule: _Rule, gaps: bool = False) -> np.ndarray:
    """Steps 4-7 on the magnitudes ``e`` (n, h, w; overwritten), by chunks of frames."""
    step = max(1, CHUNK_PIXELS // (e.shape[1] * e.shape[2]))
    chunks = [
        _threshold(_score(e[s : s + step], scale, 1, gaps), rule, gaps)
        for s in range(0, len(e), step)
    ]
    return chunks[0] if len(chunks) == 1 else np.concatenate(chunks)


def foreground_score(residual, *, frame_shape=None, window: int = WINDOW) -> np.ndarray:
    r"""Per-pixel foreground score: the residual in units of its own robust scale.

    Steps 0-5 of the rule (module docstring): ``|r|`` less each frame's median (the
    root mean square over channels for colour), divided by the per-pixel scale over
    time with its noise floor and by each frame's gain, then median-filtered over a
    ``window x window`` neighbourhood in each frame. :func:`foreground_masks`
    thresholds it; a benchmark can scan thresholds on it for the best global F-measure
    under the same normalisation.

    Parameters
    ----------
    residual : array-like of shape (n_frames, h, w) or (n_frames, h, w, c)
        The sparse part ``S`` or the residual ``X - L`` of a decomposition, one frame
        per row; or shape ``(n_frames, h * w [* c])`` with ``frame_shape``.
    frame_shape : tuple of int or None, default=None
        ``(h, w)`` or ``(h, w, c)`` when ``residual`` holds flattened frames.
    window : int, default=3
        Side of the spatial median filter (odd; 1 turns it off).

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
    e, _, gaps = _magnitude(residual, frame_shape)
    scale, _ = _pixel_scale(e, gaps)
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
    ForegroundDetector : the same rule on a stream.

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
    e, _, gaps = _magnitude(residual, frame_shape)
    scale, _ = _pixel_scale(e, gaps)
    return _masks(e, scale, rule, gaps)


class ForegroundDetector:
    r"""The rule of :func:`foreground_masks` on a stream of residual frames.

    Keeps one running robust scale per pixel, so its memory is that of a few frames
    whatever the length of the stream. The first batch sets the scale to its per-pixel
    median, as the batch rule does; each later frame moves it by a stochastic
    approximation of the median in log-scale (Robbins & Monro 1951),

    .. math::
        \log m_p \leftarrow \log m_p + \gamma_t \operatorname{sign}(e_{tp} - m_p),
        \qquad \gamma_t = \max(3/t, \gamma),

    whose fixed point is the median of :math:`e_{tp}`. The steps ``3/t`` weigh all frames
    seen alike, so that on a stationary stream the scale approaches the batch rule's at
    the rate :math:`1/\sqrt t`; that rate needs a gain above :math:`1/(4f)`, with
    :math:`f` the density of :math:`\log e` at its median (0.43 for Gaussian noise, less
    on pixels that objects often cross), and 3 leaves room for a density of 1/12. Then
    ``learning_rate`` :math:`\gamma` keeps a memory of about :math:`1/\gamma` frames, to
    follow a background whose noise drifts (light, weather).
    Each batch is then thresholded exactly as :func:`foreground_masks` does, with the
    running scale in place of the batch's medians.

    Parameters
    ----------
    high, low, min_size, window, fill_holes
        The rule's parameters, as in :func:`foreground_masks`.
    learning_rate : float, default=0.01
        The smallest step :math:`\gamma \in (0, 1]` of the running log-median.
    frame_shape : tuple of int or None, default=None
        ``(h, w)`` or ``(h, w, c)`` when batches hold flattened frames.

    Attributes
    ----------
    scale_ : ndarray of shape (h, w)
        The running per-pixel median of the residual's magnitude (steps 0-1 of the
        rule) times 1.4826, before the floor (values below half the floor are held
        there).
    noise_floor_ : float
        The median of ``scale_`` (the floor of step 3 of the rule).
    n_frames_seen_ : int
        Frames seen so far.
    n_channels_ : int
        Channels of the frames (1 for grey).

    See Also
    --------
    foreground_masks : the batch rule.

    References
    ----------
    H. Robbins, S. Monro, "A stochastic approximation method", Annals of Mathematical
    Statistics 22(3), 1951.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.foreground import ForegroundDetector
    >>> rng = np.random.default_rng(0)
    >>> detector = ForegroundDetector()
    >>> for start in range(0, 60, 20):
    ...     batch = rng.normal(size=(20, 16, 16))
    ...     batch[5, 4:10, 4:10] += 20.0
    ...     masks = detector.update(batch)
    >>> detector.n_frames_seen_, int(masks[5].sum()), int(masks.sum())
    (60, 32, 32)
    """

    def __init__(
        self,
        *,
        high: float = HIGH,
        low: float = LOW,
        min_size: float = MIN_SIZE,
        window: int = WINDOW,
        fill_holes: bool = True,
        learning_rate: float = 0.01,
        frame_shape=None,
    ) -> None:
        self.high = high
        self.low = low
        self.min_size = min_size
        self.window = window
        self.fill_holes = fill_holes
        self.learning_rate = learning_rate
        self.frame_shape = frame_shape

    def _check(self) -> tuple[_Rule, float]:
        rule = _check_rule(self.high, self.low, self.min_size, self.window, self.fill_holes)
        rate = check_nonnegative_float(self.learning_rate, "learning_rate", strict=True)
        if rate > 1:
            raise ValueError(f"learning_rate={rate!r} must be in (0, 1].")
        return rule, rate

    #: The last update's magnitudes (batch-sized), the next update's work space.
    _work: np.ndarray | None = None

    def _magnitude(
        self, batch, work: np.ndarray | None = None, in_place: bool = False
    ) -> tuple[np.ndarray, int, bool]:
        e, c, gaps = _magnitude(batch, self.frame_shape, "residual_batch", work, in_place)
        if hasattr(self, "scale_") and (e.shape[1:] != self.scale_.shape or c != self.n_channels_):
            raise ValueError(
                f"residual_batch has frames of shape {e.shape[1:]} with {c} channel(s); "
                f"earlier batches had {self.scale_.shape} with {self.n_channels_}."
            )
        return e, c, gaps

    def partial_fit(self, residual_batch) -> ForegroundDetector:
        """Update the running per-pixel scale with a batch of frames; return self."""
        _, rate = self._check()
        e, c, gaps = self._magnitude(residual_batch)
        self._update_scale(e, c, rate, gaps)
        return self

    def _update_scale(self, e: np.ndarray, c: int, rate: float, gaps: bool = False) -> None:
        if not hasattr(self, "scale_"):
            raw, self.noise_floor_ = _raw_scale(e, gaps)
            self.n_channels_ = c
            self.scale_ = np.maximum(raw, self.noise_floor_ / 2)
            self.n_frames_seen_ = len(e)
            return
        scale = self.scale_.copy()
        for t in range(len(e)):
            step = max(_GAIN / (self.n_frames_seen_ + t + 1), rate)
            if gaps:
                gap_scale_step(scale, e[t], step)
            else:
                scale *= np.exp(step * np.sign(MAD_CONSTANT * e[t] - scale))
        floor = _floor(scale, e)
        self.scale_ = np.maximum(scale, floor / 2)
        self.noise_floor_ = floor
        self.n_frames_seen_ += len(e)

    def score(self, residual_batch) -> np.ndarray:
        """Scores of a batch (as :func:`foreground_score`) under the current scale."""
        rule, _ = self._check()
        if not hasattr(self, "scale_"):
            raise ValueError("this ForegroundDetector has seen no frames: call update first.")
        e, _, gaps = self._magnitude(residual_batch)
        scale = np.maximum(self.scale_, self.noise_floor_)
        return unseen_as_background(_score(e, scale, rule.window, gaps))

    def update(self, residual_batch, *, overwrite: bool = False) -> np.ndarray:
        """Update the scale with a batch, then return the batch's boolean masks.

        ``overwrite``: the batch's memory may be the rule's work space (where it is an
        array of the frames' shape), so that no other batch-sized array is needed; its
        content is then undefined.
        """
        rule, rate = self._check()
        e, c, gaps = self._magnitude(residual_batch, self._work, in_place=bool(overwrite))
        if not np.may_share_memory(e, residual_batch):
            # e is not given out: the next batch's magnitudes reuse its memory
            self._work = e
        self._update_scale(e, c, rate, gaps)
        scale = np.maximum(self.scale_, self.noise_floor_)
        return _masks(e, scale, rule, gaps)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_work", None)  # a batch's work space, not part of the detector
        return state
