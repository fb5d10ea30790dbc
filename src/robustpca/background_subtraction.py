"""Background subtraction of a video by robust PCA: frames in, backgrounds and masks out.

One frame is one row (its pixels, times the colour channels): a static camera's
background is low rank and the moving objects are sparse (Candès, Li, Ma & Wright 2011,
sec. 4.1). :func:`subtract_background` runs any of the library's low-rank plus sparse
methods over a stream of frame batches and turns each frame's residual ``x - l`` into a
foreground mask with the rule of :mod:`robustpca.foreground`:

- the online methods (``"orpca"``, ``"grasta"``) split each batch with the model as it
  stands, then update it, so memory is that of the model, O(d r), of its burn-in's
  frames (``burn_in``) and of one batch, whatever the length of the clip;
- the batch methods (``"pcp"``, ``"accaltproj"``, ``"godec"``) gather every frame, fit,
  then hand the frames back batch by batch.

The function works on arrays only; reading and writing video files is
:mod:`robustpca.datasets.video`'s, and ``robustpca video`` ties the two together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from . import estimators
from ._validation import is_dask_collection, magnitude_limit
from .foreground import _largest_magnitude, foreground_masks, foreground_score, min_scale_for
from .foreground_stream import ForegroundDetector, _auto
from .linalg.work_space import reusable, work_space

__all__ = [
    "BATCH_METHODS",
    "DEFAULT_METHOD",
    "METHODS",
    "ONLINE_METHODS",
    "VideoBatch",
    "make_video_model",
    "subtract_background",
]

#: Methods that stream: O(d r) memory whatever the clip's length.
ONLINE_METHODS = ("orpca", "grasta")
#: Methods that fit the whole clip at once.
BATCH_METHODS = ("pcp", "accaltproj", "godec")
METHODS = ONLINE_METHODS + BATCH_METHODS
#: The method of ``robustpca video`` when none is named (docs/video.md gives the evidence).
DEFAULT_METHOD = "orpca"
#: Rank of the background when none is given: a static camera's frames share one image
#: up to their brightness; what else moves in the background (leaves, water, flicker)
#: the mask rule's per-pixel scale absorbs, where more directions would take in objects
#: that stop (docs/video.md has the measurements).
DEFAULT_RANK = 1


class VideoBatch:
    """One batch of consecutive frames with their background and foreground.

    Parameters
    ----------
    start : int
        The batch's first frame's position in the stream.
    frames : ndarray of shape (b, h, w) or (b, h, w, c)
        The frames.
    background : ndarray or callable
        The background (its frames or ``(b, d)`` rows), or a function without arguments
        that forms the rows, called on the first access of the attribute.
    masks : ndarray of shape (b, h, w), bool
        The foreground masks.
    scores : ndarray of shape (b, h, w) or None
        The foreground scores, or None.

    Attributes
    ----------
    start : int
        Position of the batch's first frame in the stream (0-based).
    frames : ndarray of shape (b, h, w) or (b, h, w, c)
        The frames as given (their dtype kept, boolean frames included); for a batch
        method fed by an iterator, a copy of them, since the iterator may refill its
        arrays before the clip is fitted.
    background : ndarray, same shape as ``frames``
        The low-rank part of each frame (float32). OR-PCA's is formed from the batch's
        coefficients and basis on first access, so that a stream read for its masks
        only never forms it.
    masks : ndarray of shape (b, h, w), bool
        Foreground masks (:mod:`robustpca.foreground`).
    scores : ndarray of shape (b, h, w) or None
        The foreground score the masks threshold (the residual in units of its robust
        per-pixel scale, :func:`robustpca.foreground.foreground_score`), for measures at
        other thresholds; None unless asked for.
    """

    def __init__(
        self,
        start: int,
        frames: np.ndarray,
        background: np.ndarray | Callable[[], np.ndarray],
        masks: np.ndarray,
        scores: np.ndarray | None,
    ):
        self.start = start
        self.frames = frames
        self.masks = masks
        self.scores = scores
        # a function that forms the (b, d) rows, or an array (rows: OR-PCA without a model)
        self._background = background if callable(background) else background.reshape(frames.shape)

    @property
    def background(self) -> np.ndarray:
        if callable(self._background):
            self._background = self._background().reshape(self.frames.shape)
        return self._background

    def __repr__(self) -> str:
        return (
            f"VideoBatch(start={self.start}, frames={self.frames.shape}, "
            f"masks={self.masks.shape}, scores={None if self.scores is None else 'array'})"
        )


def _check_method(method: str) -> str:
    if not isinstance(method, str) or method.lower() not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    return method.lower()


def make_video_model(
    method: str = DEFAULT_METHOD,
    *,
    n_components: int | None = None,
    random_state: Any = 0,
) -> Any:
    """The estimator :func:`subtract_background` runs for ``method``, with its video
    defaults.

    Parameters
    ----------
    method : {"orpca", "grasta", "pcp", "accaltproj", "godec"}, default="orpca"
        :class:`~robustpca.OnlineRobustPCA`, :class:`~robustpca.GRASTA`,
        :class:`~robustpca.PrincipalComponentPursuit` (``lam="video"`` and
        ``center="median"``, whose background has the low rank of a static camera),
        :class:`~robustpca.AccAltProj` or :class:`~robustpca.GoDec`.
    n_components : int or None, default=None
        Rank of the background (not used by PCP, whose penalty sets it); None:
        :data:`DEFAULT_RANK`.
    random_state : int, Generator or None, default=0

    Returns
    -------
    estimator
        An unfitted estimator.
    """
    method = _check_method(method)
    if n_components is not None and (
        isinstance(n_components, bool) or not isinstance(n_components, int | np.integer)
    ):
        raise TypeError(f"n_components must be an int or None, got {n_components!r}.")
    if n_components is not None and n_components < 1:
        raise ValueError(f"n_components must be at least 1, got {n_components}.")
    rank = DEFAULT_RANK if n_components is None else int(n_components)
    if method == "orpca":
        return estimators.OnlineRobustPCA(n_components=rank, random_state=random_state)
    if method == "grasta":
        return estimators.GRASTA(n_components=rank, random_state=random_state)
    if method == "pcp":
        return estimators.PrincipalComponentPursuit(
            lam="video", center="median", random_state=random_state
        )
    if method == "accaltproj":
        return estimators.AccAltProj(n_components=rank, random_state=random_state)
    return estimators.GoDec(n_components=rank, random_state=random_state)


def _rows(frames: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The frames as float32 rows: a view of C-ordered float32 frames, else a copy,
    written over ``out`` where it is an array of the rows' shape and dtype."""
    shape = (frames.shape[0], int(np.prod(frames.shape[1:])))
    if frames.dtype == np.float32 and frames.flags.c_contiguous:
        return frames.reshape(shape)
    if out is None or out.shape != shape or out.dtype != np.float32 or not out.flags.c_contiguous:
        out = work_space(shape, np.float32)
    np.copyto(out.reshape(frames.shape), frames, casting="unsafe")
    return out


def _frame_blocks(clip: Any) -> Iterator[np.ndarray]:
    """The blocks of frames of a dask array ``clip`` (n_frames, h, w[, c]), in order,
    each computed when the stream reaches it (the other axes' chunks merged); its shape
    is checked at once. Empty blocks (a clip whose frames were selected by a mask) are
    left to the stream, which skips them as it skips any empty batch."""
    if clip.ndim not in (3, 4):
        raise ValueError(
            f"frames: a dask array of frames must have shape (n_frames, height, width) or "
            f"(n_frames, height, width, channels), got {clip.shape}."
        )
    clip = clip.rechunk({axis: -1 for axis in range(1, clip.ndim)})
    return (np.asarray(clip.blocks[i].compute()) for i in range(clip.numblocks[0]))


def _stream(batches: Any) -> tuple[Iterator[Any], bool]:
    """The batches of ``subtract_background``'s ``batches`` as an iterator, and whether
    they are ``fresh``: arrays that stay as they are while the stream runs (a list's, a
    whole array, a dask array's blocks), where an iterator may refill one."""
    if isinstance(batches, np.ndarray):
        return iter([batches]), True
    if is_dask_collection(batches):  # a lazy clip: its blocks of frames, one at a time
        return _frame_blocks(batches), True
    try:
        return iter(batches), isinstance(batches, (list, tuple))
    except TypeError:
        raise TypeError(
            f"batches must be an array of frames or an iterable of batches of frames, got "
            f"{type(batches).__name__}."
        ) from None


def _fit_low_rank(model: Any, rows: np.ndarray) -> np.ndarray:
    """``model.fit(rows).low_rank_`` in float32. With missing pixels (NaN), the fit
    takes the pixels seen in some frame and the frames with a pixel seen (a batch fit
    refuses the others: nothing identifies them); the rest of the background is 0, as
    the online methods leave a pixel they never see."""
    missing = np.isnan(rows) if np.isnan(np.add.reduce(rows, axis=None)) else None
    if missing is None:
        return np.asarray(_low_rank(model.fit(rows)), dtype=np.float32)
    frames, pixels = ~missing.all(axis=1), ~missing.all(axis=0)
    background = np.zeros(rows.shape, dtype=np.float32)
    if frames.any():
        model.fit(rows[np.ix_(frames, pixels)])
        background[np.ix_(frames, pixels)] = _low_rank(model)
    return background


def _low_rank(model: Any) -> Any:
    """A fitted batch ``model``'s ``low_rank_``; a TypeError naming ``model`` where it
    has none (a model of a kind :func:`_check_model` could not judge before the fit)."""
    low_rank = getattr(model, "low_rank_", None)
    if low_rank is None:
        raise TypeError(_no_low_rank(model, "has no low_rank_ after fit"))
    return low_rank


def _check_batch(
    batch: Any, shape: tuple[int, ...] | None, position: int
) -> tuple[np.ndarray, float] | None:
    """The batch's frames and the largest magnitude of their values (NaN left out), or
    None for a batch of no frame (a boolean selection of frames can leave one), which
    the stream skips once its frames' shape and values are checked; a ValueError naming
    ``frames`` for a batch of another shape, values that are not real numbers or are
    infinite, or magnitudes that float32 (the frames' rows) cannot hold squared."""
    frames = np.asarray(batch)
    if frames.ndim not in (3, 4):
        raise ValueError(
            f"frames: each batch must have shape (n_frames, height, width) or "
            f"(n_frames, height, width, channels); batch at frame {position} has shape "
            f"{frames.shape}."
        )
    if shape is not None and frames.shape[1:] != shape:
        raise ValueError(
            f"frames: frame {position} has shape {frames.shape[1:]}, the first frames "
            f"{shape}; every frame must have the same size."
        )
    if frames.dtype != np.bool_ and (  # bool: binary frames, 0 and 1
        not np.issubdtype(frames.dtype, np.number) or frames.dtype.kind == "c"
    ):
        raise ValueError(
            f"frames: the batch at frame {position} holds {frames.dtype} values; frames "
            "must hold real numbers."
        )
    if frames.shape[0] == 0:
        return None
    magnitude = _largest_magnitude(frames)
    if magnitude == np.inf:
        raise ValueError(
            f"frames: the batch at frame {position} holds infinite values (a missing pixel is NaN)."
        )
    _check_magnitude(magnitude, frames.size, f"the batch at frame {position}")
    return frames, magnitude


#: The least largest magnitude of frames: their rows are float32, and an estimator
#: squares them (variances, distances), which underflow below it
#: (robustpca._validation.check_magnitude's bound for float32 data).
_LEAST_MAGNITUDE = float(np.sqrt(np.finfo(np.float32).tiny))


def _check_magnitude(magnitude: float, size: int, where: str) -> None:
    """A ValueError naming ``frames`` where values of largest magnitude ``magnitude``,
    ``size`` of them fitted at once, are outside what their float32 rows hold: the
    estimators' bounds (:func:`robustpca._validation.check_magnitude`), checked before
    the cast that loses them. Frames in float64 or any other dtype alike: they are split
    in float32 whatever their dtype, so passing them as float64 is no remedy."""
    limit = magnitude_limit(np.float32, size)
    if magnitude > limit:
        raise ValueError(
            f"frames: {where} holds values of magnitude up to {magnitude:.3g}; frames are "
            f"split in float32, whose sums of squares overflow for {size} values fitted "
            f"at once above {limit:.3g}. Rescale the frames (to 0..1 or 0..255, say)."
        )
    if 0.0 < magnitude < _LEAST_MAGNITUDE:
        raise ValueError(
            f"frames: {where} holds values of magnitude at most {magnitude:.3g}; frames "
            f"are split in float32, whose squares underflow below {_LEAST_MAGNITUDE:.3g}, "
            "and the background and masks would be lost. Rescale the frames (to 0..1 or "
            "0..255, say)."
        )


def _callers(frames: np.ndarray, batch: Any) -> bool:
    """Whether ``frames`` (``np.asarray(batch)``) may be memory that the caller writes
    again: the batch itself or a view of someone's (not a fresh conversion)."""
    return frames is batch or frames.base is not None


def _will_hold(model: Any) -> bool:
    """Whether an online ``model`` may keep the rows it is given next: ours during their
    burn-in (and before their first batch); a model of another kind, always."""
    holds = getattr(model, "_holds_batches", None)
    if holds is None:
        return True
    return bool(holds()) or getattr(model, "n_samples_seen_", 0) == 0


def subtract_background(
    batches: Iterable[Any],
    *,
    method: str = DEFAULT_METHOD,
    n_components: int | None = None,
    random_state: Any = 0,
    model: Any = None,
    detector: ForegroundDetector | None = None,
    return_scores: bool = False,
) -> Iterator[VideoBatch]:
    """Split a stream of frames into background and foreground, batch by batch.

    Parameters
    ----------
    batches : iterable of array-like of shape (b, h, w) or (b, h, w, c)
        Consecutive frames, grey or colour, in batches (e.g.
        :func:`robustpca.datasets.iter_video`); one array of the whole clip works too,
        as one batch; a dask array's blocks of frames are the batches, computed one at
        a time. A batch of no frame (``b = 0``, as a boolean selection of frames can
        leave), a dask block or not, is skipped: no ``VideoBatch`` is yielded for it.
        NaN marks a missing pixel: the background fills it, and its mask follows its
        observed neighbours (:mod:`robustpca.foreground_gaps`). The frames are split
        in float32, so their largest magnitude must lie where float32 holds their
        squares (from about 1e-19 to about 9e15 for a million values fitted at once);
        outside it, rescale them.
    method : {"orpca", "grasta", "pcp", "accaltproj", "godec"}, default="orpca"
        See :func:`make_video_model`. The online methods stream; the batch methods
        first gather every frame.
    n_components : int or None, default=None
        Rank of the background; see :func:`make_video_model`.
    random_state : int, Generator or None, default=0
    model : estimator, optional
        An estimator to use instead of :func:`make_video_model`'s (it needs
        ``partial_fit_decompose`` for an online ``method``, ``low_rank_`` after ``fit``
        for a batch one). An online one may have seen the earlier frames of the stream
        (resumed from a pickle, with ``detector``).
    detector : ForegroundDetector, optional
        The online methods' mask rule, updated in place batch by batch: pickle it with
        ``model`` between two batches, and pass both to a new call with the rest of the
        stream to resume it where it stopped (Notes). Used as it stands; by default a new
        one with ``min_scale="auto"``, whose noise floor is then set from the first
        batch's frames by :func:`robustpca.foreground.min_scale_for` (for integer
        frames the scale of their rounding, ``QUANTISATION_SCALE``; for float frames
        that of their float32 rounding): give yours ``min_scale="auto"`` to get the
        default stream's masks, whatever the frames' dtype and range.
    return_scores : bool, default=False
        Also give each batch's foreground scores (``VideoBatch.scores``).

    Returns
    -------
    iterator of VideoBatch
        The frames of each (non-empty) input batch with their background, masks and
        scores, split as the iteration reaches them. The arguments are checked at the
        call; the frames, batch by batch, as they arrive.

    Raises
    ------
    ValueError
        If ``method`` is unknown, ``n_components`` below 1, a batch has another shape
        than ``(b, h, w)`` or ``(b, h, w, c)`` or than the frames before it, holds
        values that are not real numbers, infinite ones or magnitudes float32 cannot
        hold squared, or the stream holds no frame; at its end, if an online model never
        started (no more frames than ``n_components``: every mask empty).
    TypeError
        If ``model`` lacks what ``method`` calls, ``detector`` is not a
        :class:`~robustpca.foreground_stream.ForegroundDetector`, ``return_scores`` not a
        bool, or ``batches`` not iterable.

    Notes
    -----
    The mask of a frame comes from its residual ``x - l`` (for PCP, the sparse part)
    by :func:`robustpca.foreground.foreground_masks` for the batch methods, and by the
    streaming form of the same rule,
    :class:`robustpca.foreground_stream.ForegroundDetector`, for the online ones. For
    integer frames the rule's noise floor is at least the scale of their rounding
    (``min_scale``), and for float frames that of their rounding to float32, so that
    a noise-free (synthetic) clip's changes are all measured against it; boolean
    frames (binary images, exact) are those floats 0.0 and 1.0. A batch method needs
    at least two frames.

    A stream resumed from a pickled ``model`` and ``detector`` (the state of both after
    the same batch) gives the batches that the uninterrupted stream gives, bit for bit;
    only ``VideoBatch.start`` counts from the resumed call's first frame. Give the
    first call a detector with ``min_scale="auto"`` (the default stream's floor, set
    from the first frames and kept in the pickle as ``min_scale_``).
    """
    method = _check_method(method)
    if not isinstance(return_scores, (bool, np.bool_)):
        raise TypeError(f"return_scores must be a bool, got {type(return_scores).__name__}.")
    ours = model is None or type(model) in (estimators.OnlineRobustPCA, estimators.GRASTA)
    if model is None:
        model = make_video_model(method, n_components=n_components, random_state=random_state)
    else:
        _check_model(model, method)
    if detector is not None:
        if not isinstance(detector, ForegroundDetector):
            raise TypeError(
                f"detector must be a ForegroundDetector, got {type(detector).__name__}."
            )
        if method not in ONLINE_METHODS:
            raise ValueError(
                f"detector applies to the online methods ({', '.join(ONLINE_METHODS)}); "
                f"method={method!r} masks the whole clip with foreground_masks."
            )
    # the arguments are checked above, at the call; the split is a generator
    stream, fresh = _stream(batches)
    if method in ONLINE_METHODS:
        return _online(
            stream, model, bool(return_scores), reuse=ours, fresh=fresh, detector=detector
        )
    return _batch(stream, model, bool(return_scores), fresh=fresh)


def _check_model(model: Any, method: str) -> None:
    """A user's ``model`` has what ``method`` calls: ``partial_fit_decompose`` for an
    online method, ``fit`` for a batch one, and then ``low_rank_`` where its kind says
    it has none (:func:`_gives_low_rank`), before any frame is read."""
    need = "partial_fit_decompose" if method in ONLINE_METHODS else "fit"
    if not callable(getattr(model, need, None)):
        kind = "an online" if method in ONLINE_METHODS else "a batch"
        raise TypeError(
            f"model: {type(model).__name__} has no {need}, which method={method!r} "
            f"({kind} method) calls; pass the method that suits the model "
            f"(online: {', '.join(ONLINE_METHODS)}; batch: {', '.join(BATCH_METHODS)})."
        )
    if method in BATCH_METHODS and _gives_low_rank(model) is False:
        raise TypeError(_no_low_rank(model, "sets no low_rank_ at fit"))


def _gives_low_rank(model: Any) -> bool | None:
    """Whether a batch ``model`` has ``low_rank_`` after ``fit``: True where it has one
    already; for a robustpca class, whether it says so (``_sets_low_rank``); False for
    scikit-learn's (none has one); None for another's class, which only its fit shows
    (:func:`_low_rank`)."""
    if hasattr(model, "low_rank_"):
        return True
    package = type(model).__module__.split(".")[0]
    if package == "robustpca":
        return bool(getattr(model, "_sets_low_rank", False))
    return False if package == "sklearn" else None


def _no_low_rank(model: Any, what: str) -> str:
    """The TypeError's message for a batch ``model`` without ``low_rank_``."""
    return (
        f"model: {type(model).__name__} {what}, which a batch method "
        f"({', '.join(BATCH_METHODS)}) reads as the background; pass a low-rank plus "
        "sparse estimator (PrincipalComponentPursuit, AccAltProj, GoDec), or an online "
        f"model (partial_fit_decompose) with method in {', '.join(ONLINE_METHODS)}."
    )


def _online(
    batches: Iterable[Any],
    model: Any,
    scored: bool,
    *,
    reuse: bool,
    fresh: bool = True,
    detector: ForegroundDetector | None = None,
) -> Iterator[VideoBatch]:
    """The online split; ``reuse``: the model is one of ours, whose sparse part is a
    fresh array that the residual may overwrite (a user's model might return its own
    state), and OR-PCA's residual route (:meth:`_partial_fit_residual`) applies: the
    rows and the residual are then written over the last batch's arrays, and the
    background is formed only when asked for. Unless ``fresh`` (the batches are not
    written again while the stream runs), rows that are a view of the caller's batch
    are copied where the model may keep them (its burn-in). A given ``detector`` is used
    as it stands; the default one, and any with ``min_scale="auto"`` that has no floor
    yet, get that of the first frames (:func:`~robustpca.foreground.min_scale_for`)."""
    detector = ForegroundDetector(min_scale="auto") if detector is None else detector
    route = getattr(model, "_partial_fit_residual", None) if reuse else None
    shape: tuple[int, ...] | None = None
    start = 0
    kept_rows = residual = None  # the route's arrays, reused by the next batch
    for batch in batches:
        checked = _check_batch(batch, shape, start)
        if checked is None:  # no frame: nothing to split
            continue
        frames = checked[0]
        if _auto(detector.min_scale) and not hasattr(detector, "min_scale_"):
            detector.min_scale_ = min_scale_for(frames)
        shape = frames.shape[1:]
        if route is None:
            rows = _kept(_rows(frames), frames, batch, model, fresh)
            low_rank, sparse = model.partial_fit_decompose(rows)
            background: Any = low_rank.reshape(frames.shape)
            # the residual into the sparse part's memory (not given out): one
            # batch-sized allocation fewer
            residual = _into(sparse if reuse else None, rows, low_rank)
        else:
            # rows the model still holds (its burn-in) are not written over
            rows = _rows(frames, None if model._holds_batches() else kept_rows)
            rows = _kept(rows, frames, batch, model, fresh)
            kept_rows = None if np.may_share_memory(rows, frames) else rows
            background, residual = route(rows, residual)
        frame_residual = residual.reshape(frames.shape)
        # the scores need the residual after the masks; otherwise the rule's work
        # space is the residual's memory
        masks = detector.update(frame_residual, overwrite=route is not None and not scored)
        scores = detector.score(frame_residual) if scored else None
        yield VideoBatch(start, frames, background, masks, scores)
        start += frames.shape[0]
    if shape is None:
        raise ValueError("frames: the stream holds no frame.")
    if reuse and not hasattr(model, "components_"):  # the model never started
        raise _NoModel(
            f"n_components={model._rank_}: the online model never started, so every mask is "
            f"empty: it needs more frames (with a pixel seen) than n_components, and the "
            f"stream held {start}. Lower n_components below {start}, or give more frames."
        )


class _NoModel(ValueError):
    """An online stream that ended before its model started (``n_components``)."""


def _kept(rows: np.ndarray, frames: np.ndarray, batch: Any, model: Any, fresh: bool) -> np.ndarray:
    """``rows``, copied where they are the caller's memory, which a stream may write
    again, and the model may keep them."""
    if fresh or not np.may_share_memory(rows, frames) or not _callers(frames, batch):
        return rows
    return rows.copy() if _will_hold(model) else rows


def _into(sparse: np.ndarray | None, rows: np.ndarray, low_rank: np.ndarray) -> np.ndarray:
    """``rows - low_rank`` in float32 (``rows`` are), written over ``sparse`` where it
    can hold it."""
    return np.subtract(rows, low_rank, out=reusable(sparse, rows), dtype=np.float32)


def _batch(
    batches: Iterable[Any], model: Any, scored: bool, *, fresh: bool = True
) -> Iterator[VideoBatch]:
    """The batch split: every frame gathered, then fitted. Unless ``fresh``, a batch
    that is the caller's memory is copied, since the stream may write it again before
    the end."""
    parts: list[np.ndarray] = []
    sizes: list[int] = []
    shape: tuple[int, ...] | None = None
    magnitude = 0.0
    for batch in batches:
        checked = _check_batch(batch, shape, sum(sizes))
        if checked is None:  # no frame: nothing to gather
            continue
        frames, magnitude = checked[0], max(magnitude, checked[1])
        # the whole clip is fitted at once: its squares are summed over all its values
        _check_magnitude(magnitude, frames[0].size * (sum(sizes) + len(frames)), "the clip")
        if not fresh and _callers(frames, batch):
            frames = frames.copy()
        shape = frames.shape[1:]
        parts.append(frames)
        sizes.append(frames.shape[0])
    if shape is None:
        raise ValueError("frames: the stream holds no frame.")
    if sum(sizes) < 2:
        raise ValueError(
            f"frames: a batch method fits the background to the whole clip and needs at "
            f"least 2 frames; the stream holds {sum(sizes)}."
        )
    if len(parts) == 1:
        clip = parts[0]
    else:  # the clip and its residual are work spaces (linalg.work_space)
        gathered = (sum(sizes), *shape)
        clip = np.concatenate(parts, out=work_space(gathered, np.result_type(*parts)))
    background = _fit_low_rank(model, _rows(clip)).reshape(clip.shape)
    residual = np.subtract(
        clip, background, out=work_space(clip.shape, np.float32), dtype=np.float32
    )
    least = min_scale_for(clip)
    masks = foreground_masks(residual, min_scale=least)
    scores = foreground_score(residual, min_scale=least) if scored else None
    start = 0
    for frames, size in zip(parts, sizes, strict=True):
        stop = start + size
        part = None if scores is None else scores[start:stop]
        yield VideoBatch(start, frames, background[start:stop], masks[start:stop], part)
        start = stop
