r"""Change-detection measures of the CDnet benchmark (Goyette et al. 2012; Wang et al. 2014).

Ground-truth labels follow CDnet: 255 (motion) is positive; 0 (static) and 50 (hard
shadow) are negative; 85 (outside the ROI), 170 (unknown motion, object borders) and any
other value are not counted, nor are pixels outside the spatial ROI or frames not scored.
The confusion counts are summed over a clip's pixels and frames before the measures are
taken, as CDnet's own evaluation does per clip. (CDnet's comparator skips 170 and the
pixels outside ``ROI.bmp``, and counts the rest as 255 or not: an 85 inside the ROI
would count as negative there; CDnet marks with 85 only pixels outside ``ROI.bmp``, so the
two rules agree on its clips.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import real_array

__all__ = [
    "best_threshold_f_measure",
    "change_detection_counts",
    "change_detection_measures",
    "measures_from_counts",
]

#: Frames counted per pass, which bounds the boolean temporaries.
_CHUNK_FRAMES = 64


def _check_inputs(
    masks, labels, roi, scored, *, masks_name: str = "masks"
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(masks, labels, roi)`` as arrays of frames ``(n, h, w)`` keeping the scored ones."""
    masks = np.asarray(masks)
    labels = np.asarray(labels)
    if labels.dtype.kind not in "biuf":
        raise TypeError(f"labels must be integers (CDnet's levels), got dtype {labels.dtype}.")
    if labels.dtype.kind == "b":  # a boolean truth: True is motion (255), False static (0)
        labels = np.where(labels, np.uint8(255), np.uint8(0))
    if masks.ndim not in (2, 3) or masks.shape != labels.shape:
        raise ValueError(
            f"{masks_name} and labels must be arrays of the same shape (n_frames, height, "
            f"width) or (height, width), got {masks.shape} and {labels.shape}."
        )
    if masks.ndim == 2:
        masks, labels = masks[None], labels[None]
    if roi is not None:
        roi = np.asarray(roi)
        if roi.shape != masks.shape[1:]:
            raise ValueError(f"roi must have the frames' shape {masks.shape[1:]}, got {roi.shape}.")
        if roi.dtype != bool:
            roi = real_array(roi, "roi") != 0
    if scored is not None:
        scored = np.asarray(scored)
        if scored.dtype != bool or scored.shape != masks.shape[:1]:
            raise ValueError(
                f"scored must be a bool array of shape ({masks.shape[0]},), one flag per "
                f"frame, got dtype {scored.dtype} and shape {scored.shape}."
            )
        masks, labels = masks[scored], labels[scored]
    return masks, labels, roi


def _check_masks(masks: np.ndarray) -> None:
    if masks.dtype == bool:
        return
    if masks.dtype.kind not in "iuf" or not np.isin(masks, (0, 1)).all():
        raise ValueError(
            "masks must be bool (or 0/1); threshold other values first, e.g. masks > 127 "
            "for 0/255 images."
        )


def _classes(labels: np.ndarray, roi: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative (counted) pixels of a chunk of labels."""
    positive = labels == 255
    negative = (labels == 0) | (labels == 50)
    if roi is not None:
        positive &= roi
        negative &= roi
    return positive, negative


def change_detection_counts(masks, labels, roi=None, *, scored=None) -> tuple[int, int, int, int]:
    """Confusion counts ``(tp, fp, fn, tn)`` of foreground masks under CDnet's rules.

    Parameters
    ----------
    masks : array-like of shape (n_frames, height, width) or (height, width), bool
        Detected foreground (True). Integer 0/1 arrays are accepted.
    labels : array-like of the same shape, integers or bool
        CDnet ground truth: 255 positive, 0 and 50 negative, anything else not counted
        (bool: True positive, False negative).
    roi : array-like of shape (height, width) or None, default=None
        Spatial region of interest (nonzero inside); None counts every pixel.
    scored : array-like of shape (n_frames,), bool, or None, default=None
        Frames to count (e.g. :attr:`robustpca.datasets.CDnetClip.scored`); None counts
        all.

    Returns
    -------
    tuple of int
        True positives, false positives, false negatives and true negatives.

    Raises
    ------
    ValueError
        If the shapes differ, ``masks`` is not boolean (or 0/1), or ``scored`` is not one
        flag per frame.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import change_detection_counts
    >>> labels = np.array([[255, 255, 0, 50, 170, 85]])
    >>> masks = np.array([[True, False, True, False, True, True]])
    >>> change_detection_counts(masks, labels)
    (1, 1, 1, 1)
    """
    masks, labels, roi = _check_inputs(masks, labels, roi, scored)
    _check_masks(masks)
    tp = fp = n_positive = n_negative = 0
    for start in range(0, masks.shape[0], _CHUNK_FRAMES):
        chunk = slice(start, start + _CHUNK_FRAMES)
        positive, negative = _classes(labels[chunk], roi)
        detected = masks[chunk].astype(bool, copy=False)
        n_positive += int(np.count_nonzero(positive))
        n_negative += int(np.count_nonzero(negative))
        tp += int(np.count_nonzero(detected & positive))
        fp += int(np.count_nonzero(detected & negative))
    return tp, fp, n_positive - tp, n_negative - fp


def _ratio(numerator: float, denominator: float) -> float:
    return float(numerator / denominator) if denominator > 0 else 0.0


def measures_from_counts(
    tp: int | np.integer, fp: int | np.integer, fn: int | np.integer, tn: int | np.integer
) -> dict[str, float]:
    """CDnet's seven measures from confusion counts, e.g. summed over batches of a stream.

    Parameters
    ----------
    tp, fp, fn, tn : int
        True positives, false positives, false negatives and true negatives, as
        :func:`change_detection_counts` returns them (sum them over batches first).

    Returns
    -------
    dict
        As :func:`change_detection_measures` (zero denominators give 0.0).

    Examples
    --------
    >>> from robustpca.metrics import measures_from_counts
    >>> m = measures_from_counts(3, 1, 2, 4)
    >>> m["precision"], m["recall"], m["pwc"]
    (0.75, 0.6, 30.0)
    """
    for name, value in zip(("tp", "fp", "fn", "tn"), (tp, fp, fn, tn), strict=True):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}.")
    tp, fp, fn, tn = int(tp), int(fp), int(fn), int(tn)  # NumPy's int32 sums would overflow
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    return {
        "f_measure": _ratio(2 * precision * recall, precision + recall),
        "precision": precision,
        "recall": recall,
        "specificity": _ratio(tn, tn + fp),
        "fpr": _ratio(fp, fp + tn),
        "fnr": _ratio(fn, tp + fn),
        "pwc": _ratio(100.0 * (fn + fp), tp + fn + fp + tn),
    }


def change_detection_measures(masks, labels, roi=None, *, scored=None) -> dict[str, float]:
    r"""CDnet's seven measures of foreground masks: F-measure, precision, recall, ...

    From the confusion counts of :func:`change_detection_counts` summed over the clip,

    .. math::
        \mathrm{Re} = \frac{TP}{TP + FN},\quad \mathrm{Pr} = \frac{TP}{TP + FP},\quad
        F = \frac{2\,\mathrm{Pr}\,\mathrm{Re}}{\mathrm{Pr} + \mathrm{Re}},\quad
        \mathrm{Sp} = \frac{TN}{TN + FP},

    :math:`\mathrm{FPR} = FP / (FP + TN)`, :math:`\mathrm{FNR} = FN / (TP + FN)` and
    :math:`\mathrm{PWC} = 100\,(FN + FP) / (TP + FN + FP + TN)`.

    Parameters
    ----------
    masks, labels, roi, scored
        As in :func:`change_detection_counts`.

    Returns
    -------
    dict
        ``f_measure``, ``precision``, ``recall``, ``specificity``, ``fpr``, ``fnr`` and
        ``pwc`` (a percentage), as floats.

    Notes
    -----
    A ratio whose denominator is zero is 0.0, never NaN: with no positive pixel, recall,
    FNR and F are 0; with nothing detected, precision (and so F) is 0; with no counted
    pixel, every measure is 0.

    References
    ----------
    N. Goyette, P.-M. Jodoin, F. Porikli, J. Konrad and P. Ishwar, "changedetection.net:
    A new change detection benchmark dataset", CVPR Workshops 2012, sec. 4.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import change_detection_measures
    >>> labels = np.array([[255, 255, 0, 0]])
    >>> m = change_detection_measures(np.array([[True, False, False, False]]), labels)
    >>> m["precision"], m["recall"], round(m["f_measure"], 4), m["pwc"]
    (1.0, 0.5, 0.6667, 25.0)
    """
    return measures_from_counts(*change_detection_counts(masks, labels, roi, scored=scored))


def best_threshold_f_measure(scores, labels, roi=None, *, scored=None) -> tuple[float, float]:
    """The best F-measure of the masks ``scores >= t`` over every global threshold ``t``.

    An upper bound on what any single threshold of a foreground score (e.g. the magnitude
    of a sparse part) reaches; the benchmark reports it beside the F of a fixed rule.

    Parameters
    ----------
    scores : array-like of shape (n_frames, height, width) or (height, width), real
        Foreground score of every pixel; higher is more likely foreground. No NaN.
    labels, roi, scored
        As in :func:`change_detection_counts`.

    Returns
    -------
    f_measure : float
        The best F-measure, in [0, 1]; 0.0 where no counted pixel is positive.
    threshold : float
        A score value ``t`` whose masks ``scores >= t`` reach it (the largest such); ``inf``
        (the empty mask) where the F-measure is 0.

    Notes
    -----
    Exact: every distinct positive score is a candidate threshold (a threshold between two
    positive scores only adds false positives); the positive scores are sorted, and of the
    negative ones only those that a winning threshold can count (the largest few, found by
    a partition), so the cost is O(N) plus sorting the positives.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import best_threshold_f_measure
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1]])
    >>> labels = np.array([[255, 0, 255, 0]])
    >>> f, t = best_threshold_f_measure(scores, labels)
    >>> round(f, 4), t
    (0.8, 0.7)
    """
    scores_arr, labels_arr, roi_arr = _check_inputs(
        scores, labels, roi, scored, masks_name="scores"
    )
    if scores_arr.dtype.kind not in "biuf":
        raise TypeError(f"scores must be real numbers, got dtype {scores_arr.dtype}.")
    chunks = [
        (scores_arr[i : i + _CHUNK_FRAMES], labels_arr[i : i + _CHUNK_FRAMES])
        for i in range(0, scores_arr.shape[0], _CHUNK_FRAMES)
    ]
    positives = [np.empty(0, scores_arr.dtype)]
    positives += [chunk[_classes(labels, roi_arr)[0]] for chunk, labels in chunks]
    pos = np.sort(np.concatenate(positives))
    if pos.dtype.kind == "f" and np.isnan(pos[-1:]).any():  # NaN sorts last
        raise ValueError("scores hold NaN values.")
    if pos.size == 0:
        return 0.0, float("inf")
    neg, floor = _top_negatives(pos, chunks, roi_arr)
    # candidate thresholds: the distinct positive scores above the floor, from high to low
    candidates = pos[np.append(pos[1:] != pos[:-1], True)][::-1]
    if floor is not None:
        candidates = candidates[candidates > floor]
    tp = pos.size - np.searchsorted(pos, candidates, side="left")
    fp = neg.size - np.searchsorted(neg, candidates, side="left")
    # F = 2 tp / (2 tp + fp + fn) with fn = n_pos - tp (equal to 2PR / (P + R))
    f = 2.0 * tp / (tp + fp + pos.size)
    best = int(np.argmax(f))
    return float(f[best]), float(candidates[best])


def _top_negatives(pos: np.ndarray, chunks: list, roi: np.ndarray | None) -> tuple[np.ndarray, Any]:
    r"""``(negatives, floor)``: the negative scores that a winning threshold can count,
    sorted, and a score the best threshold lies above (None: no bound).

    With ``P`` positives, a mask with ``fp`` false positives has
    :math:`F \le 2P / (2P + fp)`; so once some threshold reaches :math:`F_0`, the best one
    has :math:`fp \le M = 2P(1 - F_0)/F_0`: it lies above every threshold with more false
    positives, and above the :math:`(M+1)`-th largest negative score. Only the negatives
    above that change the counts of the thresholds that can win, so the others are never
    sorted. ``pos`` is sorted; ``chunks`` are ``(scores, labels)`` blocks of frames. The
    counts are exact for the thresholds above ``floor``; at or below the partition's cut
    they count ``keep > M`` false positives, so those thresholds cannot win.
    """
    # F_0: the best F of a few quantiles of the positive scores, from one pass
    quantiles = pos[(np.array([0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7]) * (pos.size - 1)).astype(int)]
    fp = np.zeros(quantiles.size, dtype=np.int64)  # negatives >= each quantile
    n_negative = 0
    for scores, labels in chunks:
        negative = scores[_classes(labels, roi)[1]]
        if negative.dtype.kind == "f" and np.isnan(negative).any():
            raise ValueError("scores hold NaN values.")
        n_negative += negative.size
        fp += [np.count_nonzero(negative >= q) for q in quantiles]
    tp = pos.size - np.searchsorted(pos, quantiles, side="left")
    best = int(np.argmax(2.0 * tp / (tp + fp + pos.size)))
    tp0, fp0, n_pos = int(tp[best]), int(fp[best]), int(pos.size)
    # M + 1 in integers (M = 2P(1 - F_0)/F_0 = P (fp_0 + P - tp_0) / tp_0), no rounding
    keep = n_pos * (fp0 + n_pos - tp0) // tp0 + 1 if tp0 > 0 else n_negative + 1
    # the best threshold lies above every quantile with fp > M: skip the negatives below
    excluded = quantiles[fp >= keep]
    floor = excluded.max() if excluded.size else None
    kept = [np.empty(0, pos.dtype)]
    for scores, labels in chunks:
        negative = scores[_classes(labels, roi)[1]]
        kept.append(negative if floor is None else negative[negative > floor])
    neg = np.concatenate(kept)
    if keep < neg.size:
        # every negative above the keep-th largest is among the keep largest, and a
        # threshold at or below it has fp >= keep > M, so F < F_0
        neg = np.partition(neg, neg.size - keep)[neg.size - keep :]
    return np.sort(neg), floor
