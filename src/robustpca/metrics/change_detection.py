r"""Change-detection measures of the CDnet benchmark (Goyette et al. 2012; Wang et al. 2014).

Ground-truth labels follow CDnet: 255 (motion) is positive; 0 (static) and 50 (hard
shadow) are negative; 85 (outside the ROI), 170 (unknown motion, object borders) and any
other value are not counted, nor are pixels outside the spatial ROI or frames not scored.
The confusion counts are summed over a clip's pixels and frames before the measures are
taken, as CDnet's own evaluation does per clip.
"""

from __future__ import annotations

import numpy as np

from .._validation import real_array

__all__ = [
    "best_threshold_f_measure",
    "change_detection_counts",
    "change_detection_measures",
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
    labels : array-like of the same shape, integers
        CDnet ground truth: 255 positive, 0 and 50 negative, anything else not counted.
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


def measures_from_counts(tp: int, fp: int, fn: int, tn: int) -> dict[str, float]:
    """CDnet's seven measures from confusion counts (see :func:`change_detection_measures`)."""
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
    Exact, in O(N log N) for N counted pixels: the positive and the negative scores are
    sorted once and every distinct positive score is a candidate threshold (a threshold
    between two positive scores only adds false positives).

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
    positives, negatives = [np.empty(0, scores_arr.dtype)], [np.empty(0, scores_arr.dtype)]
    for start in range(0, scores_arr.shape[0], _CHUNK_FRAMES):
        chunk = slice(start, start + _CHUNK_FRAMES)
        positive, negative = _classes(labels_arr[chunk], roi_arr)
        positives.append(scores_arr[chunk][positive])
        negatives.append(scores_arr[chunk][negative])
    pos = np.sort(np.concatenate(positives))
    neg = np.sort(np.concatenate(negatives))
    if pos.dtype.kind == "f" and (np.isnan(pos[-1:]).any() or np.isnan(neg[-1:]).any()):
        raise ValueError("scores hold NaN values.")  # NaN sorts last
    if pos.size == 0:
        return 0.0, float("inf")
    # candidate thresholds: the distinct positive scores, from high to low
    candidates = pos[np.append(pos[1:] != pos[:-1], True)][::-1]
    tp = pos.size - np.searchsorted(pos, candidates, side="left")
    fp = neg.size - np.searchsorted(neg, candidates, side="left")
    # F = 2 tp / (2 tp + fp + fn) with fn = n_pos - tp (equal to 2PR / (P + R))
    f = 2.0 * tp / (tp + fp + pos.size)
    best = int(np.argmax(f))
    return float(f[best]), float(candidates[best])
