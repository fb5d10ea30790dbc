r"""The foreground rule of :mod:`robustpca.foreground` on a stream of residual frames,
with a running per-pixel scale and memory proportional to one frame."""

from __future__ import annotations

from typing import cast

import numpy as np

from ._validation import check_nonnegative_float
from .foreground import (
    HIGH,
    LOW,
    MIN_SIZE,
    WINDOW,
    _check_rule,
    _floor,
    _magnitude,
    _masks,
    _nonzero_floor,
    _pixel_scale,
    _raw_scale,
    _Rule,
    _score,
)
from .foreground_gaps import gap_scale_step, unseen_as_background
from .robust_scale import MAD_CONSTANT

__all__ = ["ForegroundDetector"]

#: the gain of the running log-median's steps (ForegroundDetector's docstring)
_GAIN = 3.0


def _auto(min_scale) -> bool:
    """Whether ``min_scale`` is ``"auto"``: the frames' floor, set by subtract_background."""
    return isinstance(min_scale, str) and min_scale == "auto"


class ForegroundDetector:
    r"""The rule of :func:`~robustpca.foreground.foreground_masks` on a stream of
    residual frames.

    Keeps one running robust scale per pixel, so its memory is that of a few frames
    whatever the length of the stream. The first batch with a nonzero residual sets the
    scale to its per-pixel median, as the batch rule does (batches before it, black frames
    or frames with no pixel seen, have no foreground and give the scale no unit), so an
    object that covers a pixel in most of that batch's frames raises the scale there
    until it settles: give that batch enough frames that no object dwells so long (the
    video guide measures this). Each later frame moves it by a stochastic
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
    Each batch is then thresholded exactly as
    :func:`~robustpca.foreground.foreground_masks` does, with the running scale in place
    of the batch's medians.

    Parameters
    ----------
    high, low, min_size, window, fill_holes
        The rule's parameters, as in :func:`~robustpca.foreground.foreground_masks`.
    learning_rate : float, default=0.01
        The smallest step :math:`\gamma \in (0, 1]` of the running log-median.
    min_scale : float or "auto", default=0.0
        The least noise floor, as in :func:`~robustpca.foreground.foreground_masks`.
        ``"auto"``: the floor that
        :func:`~robustpca.background_subtraction.subtract_background` gives its own
        detector, :func:`~robustpca.foreground.min_scale_for` of the stream's first
        frames, which it sets as ``min_scale_`` on its first batch, so that a detector
        built to be pickled gives the default stream's masks for frames of any dtype and
        range. Fed residuals by other code, such a detector needs ``min_scale_`` set
        first (an error otherwise).
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
    min_scale_ : float
        The floor that ``min_scale="auto"`` stands for (only with it), set before the
        first update; it travels with a pickle, so a resumed stream keeps it.

    See Also
    --------
    robustpca.foreground.foreground_masks : the batch rule.

    References
    ----------
    H. Robbins, S. Monro, "A stochastic approximation method", Annals of Mathematical
    Statistics 22(3), 1951.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.foreground_stream import ForegroundDetector
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
        min_scale: float | str = 0.0,
    ) -> None:
        self.high = high
        self.low = low
        self.min_size = min_size
        self.window = window
        self.fill_holes = fill_holes
        self.learning_rate = learning_rate
        self.frame_shape = frame_shape
        self.min_scale = min_scale

    def _check(self) -> tuple[_Rule, float]:
        rule = _check_rule(self.high, self.low, self.min_size, self.window, self.fill_holes)
        rate = check_nonnegative_float(self.learning_rate, "learning_rate", strict=True)
        if rate > 1:
            raise ValueError(f"learning_rate={rate!r} must be in (0, 1].")
        if isinstance(self.min_scale, str) and not _auto(self.min_scale):
            raise ValueError(
                f"min_scale must be a non-negative number or 'auto', got {self.min_scale!r}."
            )
        if not _auto(self.min_scale):
            check_nonnegative_float(cast(float, self.min_scale), "min_scale")
        self._least_scale()  # "auto" needs its floor before any frame
        return rule, rate

    def _least_scale(self) -> float:
        """``min_scale`` as a number: with ``"auto"``, the ``min_scale_`` set for it."""
        if not _auto(self.min_scale):
            return float(self.min_scale)
        if not hasattr(self, "min_scale_"):
            raise ValueError(
                "min_scale='auto' is the floor of the frames, which subtract_background "
                "sets (min_scale_) from the first batch it is given; fed residuals by other "
                "code, give min_scale a number, such as "
                "robustpca.foreground.min_scale_for(frames)."
            )
        return float(self.min_scale_)

    #: The floor that ``min_scale="auto"`` stands for, once set (no class default:
    #: ``hasattr`` tells whether it is).
    min_scale_: float

    #: The last update's magnitudes (batch-sized), the next update's work space.
    _work: np.ndarray | None = None

    def _magnitude(
        self, batch, work: np.ndarray | None = None, in_place: bool = False
    ) -> tuple[np.ndarray, int, bool]:
        e, c, gaps = _magnitude(batch, self.frame_shape, "residual_batch", work, in_place)
        known = getattr(self, "scale_", None)
        shape = known.shape if known is not None else getattr(self, "_frame_shape", None)
        if shape is not None and (e.shape[1:] != shape or c != self.n_channels_):
            raise ValueError(
                f"residual_batch has frames of shape {e.shape[1:]} with {c} channel(s); "
                f"earlier batches had {shape} with {self.n_channels_}."
            )
        return e, c, gaps

    def partial_fit(self, residual_batch) -> ForegroundDetector:
        """Update the running per-pixel scale with a batch of frames; return self.

        Parameters
        ----------
        residual_batch : array-like of shape (n_frames, h, w) or (n_frames, h, w, c)
            The sparse part or residual of a batch of frames, NaN at missing pixels; or
            ``(n_frames, h * w [* c])`` with ``frame_shape``. Not modified.
        """
        _, rate = self._check()
        e, c, gaps = self._magnitude(residual_batch)
        self._update_scale(e, c, rate, gaps)
        return self

    def _update_scale(self, e: np.ndarray, c: int, rate: float, gaps: bool = False) -> None:
        least = self._least_scale()
        if not hasattr(self, "scale_"):
            self.n_channels_ = c
            self.n_frames_seen_ = getattr(self, "n_frames_seen_", 0) + len(e)
            unseen = gaps and bool(np.isnan(e).all())
            if unseen or (not least > 0 and not np.any(e > 0)):
                # no signal yet (no pixel seen; black frames without a floor): nothing
                # gives the scale its unit, which the first batch with some sets, as the
                # batch rule would
                self._frame_shape = e.shape[1:]
                return
            raw, self.noise_floor_ = _raw_scale(e, gaps, least)
            self.scale_ = np.maximum(raw, self.noise_floor_ / 2)
            self._scale_frames = len(e)
            return
        scale = self.scale_.copy()
        done = getattr(self, "_scale_frames", self.n_frames_seen_)  # frames behind scale_
        for t in range(len(e)):
            step = max(_GAIN / (done + t + 1), rate)
            if gaps:
                gap_scale_step(scale, e[t], step)
            else:
                scale *= np.exp(step * np.sign(MAD_CONSTANT * e[t] - scale))
        floor = _floor(scale, e)
        sunk = 2 * np.count_nonzero(scale < self.noise_floor_ / 2) > scale.size
        if sunk and not least > 0:
            # most pixels sink below the hold: their running median is an exact zero, which
            # the log-median only approaches; the batch rule's floor for a zero median
            # (min_scale where positive, applied below)
            floor = _nonzero_floor(e, self.noise_floor_)
        floor = max(floor, least)
        self.scale_ = np.maximum(scale, floor / 2)
        self.noise_floor_ = floor
        self.n_frames_seen_ += len(e)
        self._scale_frames = done + len(e)

    def score(self, residual_batch) -> np.ndarray:
        """Scores of a batch (as :func:`~robustpca.foreground.foreground_score`) under the
        current scale, which it does not update (before any frame with a nonzero
        residual, under the scale the batch would set).

        Parameters
        ----------
        residual_batch : array-like of shape (n_frames, h, w) or (n_frames, h, w, c)
            As in :meth:`partial_fit`; frames of the shape seen so far.
        """
        rule, _ = self._check()
        if not hasattr(self, "n_frames_seen_"):
            raise ValueError("this ForegroundDetector has seen no frames: call update first.")
        e, _, gaps = self._magnitude(residual_batch)
        if hasattr(self, "scale_"):
            scale = np.maximum(self.scale_, self.noise_floor_)
        else:  # no signal seen yet: the scale this batch would set as the first with some
            scale = _pixel_scale(e, gaps, self._least_scale())[0]
        return unseen_as_background(_score(e, scale, rule.window, gaps))

    def update(self, residual_batch, *, overwrite: bool = False) -> np.ndarray:
        """Update the scale with a batch, then return the batch's boolean masks.

        Parameters
        ----------
        residual_batch : array-like of shape (n_frames, h, w) or (n_frames, h, w, c)
            As in :meth:`partial_fit`, but see ``overwrite``.
        overwrite : bool, default=False
            Whether the batch's memory may be the rule's work space (where it is an
            array of the frames' shape), so that no other batch-sized array is needed;
            its content is then undefined.
        """
        rule, rate = self._check()
        e, c, gaps = self._magnitude(residual_batch, self._work, in_place=bool(overwrite))
        if not np.may_share_memory(e, residual_batch):
            # e is not given out: the next batch's magnitudes reuse its memory
            self._work = e
        self._update_scale(e, c, rate, gaps)
        if not hasattr(self, "scale_"):  # no signal yet: nothing is foreground
            return np.zeros(e.shape, dtype=bool)
        scale = np.maximum(self.scale_, self.noise_floor_)
        return _masks(e, scale, rule, gaps)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_work", None)  # a batch's work space, not part of the detector
        return state
