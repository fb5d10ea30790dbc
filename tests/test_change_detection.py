"""CDnet's change-detection measures: hand-counted confusions, the label and ROI rules,
degenerate clips, the best global threshold against a brute-force scan, and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from robustpca.metrics import (
    best_threshold_f_measure,
    change_detection_counts,
    change_detection_measures,
    measures_from_counts,
)

KEYS = ["f_measure", "precision", "recall", "specificity", "fpr", "fnr", "pwc"]


def test_counts_by_hand_with_every_label():
    # one frame of 2 x 5: 255 positive, 0 and 50 negative, 85 and 170 never counted
    labels = np.array([[255, 255, 255, 0, 50], [0, 50, 85, 170, 255]])
    masks = np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 0]], dtype=bool)
    # tp: (0,0), (0,1); fn: (0,2), (1,4); fp: (0,3), (1,1); tn: (0,4), (1,0)
    assert change_detection_counts(masks, labels) == (2, 2, 2, 2)
    assert change_detection_counts(masks[None], labels[None]) == (2, 2, 2, 2)


def test_roi_excludes_pixels():
    labels = np.array([[255, 255, 0, 0]])
    masks = np.array([[True, False, True, False]])
    roi = np.array([[True, False, False, True]])
    assert change_detection_counts(masks, labels) == (1, 1, 1, 1)
    assert change_detection_counts(masks, labels, roi) == (1, 0, 0, 1)
    # a 0/255 ROI image counts as inside where nonzero
    assert change_detection_counts(masks, labels, roi.astype(np.uint8) * 255) == (1, 0, 0, 1)


def test_scored_frames_only():
    labels = np.stack([np.full((2, 2), 255), np.zeros((2, 2))]).astype(np.uint8)
    masks = np.ones((2, 2, 2), dtype=bool)
    assert change_detection_counts(masks, labels) == (4, 4, 0, 0)
    assert change_detection_counts(masks, labels, scored=np.array([True, False])) == (4, 0, 0, 0)
    assert change_detection_counts(masks, labels, scored=np.array([False, True])) == (0, 4, 0, 0)


def test_measures_by_hand():
    # tp=3, fp=1, fn=2, tn=4 over two frames
    labels = np.array([[255, 255, 255, 255, 255], [0, 0, 0, 0, 0]])
    masks = np.array([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=bool)
    assert change_detection_counts(masks, labels) == (3, 1, 2, 4)
    m = change_detection_measures(masks, labels)
    assert list(m) == KEYS
    precision, recall = 3 / 4, 3 / 5
    assert m["precision"] == pytest.approx(precision)
    assert m["recall"] == pytest.approx(recall)
    assert m["f_measure"] == pytest.approx(2 * precision * recall / (precision + recall))
    assert m["specificity"] == pytest.approx(4 / 5)
    assert m["fpr"] == pytest.approx(1 / 5)
    assert m["fnr"] == pytest.approx(2 / 5)
    assert m["pwc"] == pytest.approx(100 * 3 / 10)
    assert all(isinstance(v, float) for v in m.values())


def test_measures_from_counts_checks_its_counts():
    assert measures_from_counts(3, 1, 2, 4) == change_detection_measures(
        np.array([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=bool),
        np.array([[255] * 5, [0] * 5]),
    )
    assert measures_from_counts(np.int64(0), 0, 0, 0)["f_measure"] == 0.0
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="tp"):
            measures_from_counts(bad, 0, 0, 0)


@pytest.mark.parametrize(
    "labels, masks, expected",
    [
        # no positive pixel: recall, fnr and F are 0, nothing detected: precision 0
        (np.zeros((2, 3)), np.zeros((2, 3), bool), {"specificity": 1.0, "pwc": 0.0}),
        # nothing counted at all (85 and 170 only): every measure 0
        (np.full((2, 3), 170), np.ones((2, 3), bool), {}),
        # only positives, all detected: perfect F, specificity and fpr undefined -> 0
        (
            np.full((2, 3), 255),
            np.ones((2, 3), bool),
            {"f_measure": 1.0, "precision": 1.0, "recall": 1.0},
        ),
        # only positives, none detected
        (np.full((2, 3), 255), np.zeros((2, 3), bool), {"fnr": 1.0, "pwc": 100.0}),
    ],
)
def test_degenerate_denominators_give_zero(labels, masks, expected):
    m = change_detection_measures(masks, labels.astype(np.uint8))
    for key in KEYS:
        assert np.isfinite(m[key])
        assert m[key] == pytest.approx(expected.get(key, 0.0)), key


def test_inputs_are_not_modified_and_integer_masks_accepted():
    labels = np.array([[255, 0, 50, 170]], dtype=np.uint8)
    masks = np.array([[1, 1, 0, 1]], dtype=np.int64)
    before = labels.copy(), masks.copy()
    assert change_detection_counts(masks, labels) == (1, 1, 0, 1)
    np.testing.assert_array_equal(labels, before[0])
    np.testing.assert_array_equal(masks, before[1])


@pytest.mark.parametrize(
    "masks, labels, kwargs, error, match",
    [
        (np.zeros((2, 3), bool), np.zeros((3, 2)), {}, ValueError, "same shape"),
        (np.zeros((2, 3, 4, 5), bool), np.zeros((2, 3, 4, 5)), {}, ValueError, "same shape"),
        (np.full((2, 3), 255), np.zeros((2, 3)), {}, ValueError, "masks > 127"),
        (np.zeros((2, 3), bool), np.zeros((2, 3)), {"roi": np.ones((3, 2))}, ValueError, "roi"),
        (np.zeros((2, 3), bool), np.array([["a"] * 3] * 2), {}, TypeError, "labels"),
        (
            np.zeros((2, 2, 3), bool),
            np.zeros((2, 2, 3)),
            {"scored": np.array([1, 0])},
            ValueError,
            "scored",
        ),
    ],
)
def test_bad_inputs(masks, labels, kwargs, error, match):
    with pytest.raises(error, match=match):
        change_detection_counts(masks, labels, **kwargs)


def brute_force_best_f(scores, labels, roi=None):
    """F of ``scores >= t`` at every distinct score, by counting each mask."""
    best, best_t = 0.0, float("inf")
    for t in np.unique(scores)[::-1]:
        f = change_detection_measures(scores >= t, labels, roi)["f_measure"]
        if f > best:
            best, best_t = f, float(t)
    return best, best_t


def random_clip(seed, n=3, h=5, w=6, levels=None):
    rng = np.random.default_rng(seed)
    labels = rng.choice(np.array([0, 50, 85, 170, 255], dtype=np.uint8), size=(n, h, w))
    scores = rng.normal(size=(n, h, w)) + 1.5 * (labels == 255)
    if levels is not None:  # ties
        scores = np.round(scores * levels) / levels
    return scores, labels, rng.random((h, w)) < 0.8


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("levels", [None, 2])
def test_best_threshold_matches_brute_force(seed, levels):
    scores, labels, roi = random_clip(seed, levels=levels)
    f, t = best_threshold_f_measure(scores, labels, roi)
    f_ref, t_ref = brute_force_best_f(scores, labels, roi)
    assert f == pytest.approx(f_ref, abs=1e-12)
    assert t == t_ref
    # the threshold returned reaches the F returned
    assert change_detection_measures(scores >= t, labels, roi)["f_measure"] == pytest.approx(f)


def sorted_best_f(scores, labels, roi):
    """The best F over every distinct positive score, counting from fully sorted scores."""
    counted = np.broadcast_to(roi, labels.shape)
    pos = np.sort(scores[(labels == 255) & counted])
    neg = np.sort(scores[((labels == 0) | (labels == 50)) & counted])
    candidates = np.unique(pos)[::-1]
    tp = pos.size - np.searchsorted(pos, candidates)
    fp = neg.size - np.searchsorted(neg, candidates)
    f = 2.0 * tp / (tp + fp + pos.size)
    return f.max(), candidates[np.argmax(f)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("levels", [None, 4])
@pytest.mark.parametrize("separation", [0.5, 3.0])
def test_best_threshold_on_large_clips_matches_a_full_sort(seed, levels, separation):
    """Large clips, where only the largest negative scores are sorted."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(
        np.array([0, 50, 85, 170, 255], dtype=np.uint8),
        size=(20, 40, 40),
        p=[0.7, 0.1, 0.05, 0.05, 0.1],
    )
    scores = rng.normal(size=labels.shape) + separation * (labels == 255)
    if levels is not None:
        scores = np.round(scores * levels) / levels
    roi = rng.random((40, 40)) < 0.9
    f, t = best_threshold_f_measure(scores, labels, roi)
    f_ref, t_ref = sorted_best_f(scores, labels, roi)
    assert f == pytest.approx(f_ref, abs=1e-12)
    assert t == t_ref
    assert change_detection_measures(scores >= t, labels, roi)["f_measure"] == pytest.approx(f)


def test_best_threshold_keeps_the_negatives_at_the_bound():
    """The best threshold has exactly the largest number of false positives the pruning
    allows (M = 3 here): its negatives must stay counted (found by hypothesis)."""
    pos = [1.24775785, 1.58561156, 1.68699388, 1.76723642, 1.92336009]
    neg = [1.72112692, 1.09839871, 1.14914618, 1.22326367, 1.20670302, 1.68804515, 1.77355502]
    scores = np.array([pos + neg])
    labels = np.array([[255] * 5 + [0] * 7])
    assert best_threshold_f_measure(scores, labels) == (pytest.approx(10 / 13), pos[0])


def test_best_threshold_separable_and_degenerate():
    labels = np.array([[255, 255, 0, 0, 170]], dtype=np.uint8)
    scores = np.array([[5.0, 4.0, 1.0, 2.0, 9.0]])  # the 170 pixel's score does not count
    assert best_threshold_f_measure(scores, labels) == (1.0, 4.0)
    # no positive pixel: 0 at the empty mask
    assert best_threshold_f_measure(scores, np.zeros_like(labels)) == (0.0, float("inf"))
    # only scored frames count
    scored = np.array([False])
    assert best_threshold_f_measure(scores[None], labels[None], scored=scored) == (
        0.0,
        float("inf"),
    )
    with pytest.raises(ValueError, match="NaN"):
        best_threshold_f_measure(np.array([[np.nan, 1.0]]), np.array([[255, 0]]))


def test_best_threshold_is_an_upper_bound_of_fixed_thresholds():
    scores, labels, roi = random_clip(7, n=4, h=8, w=8)
    f, _ = best_threshold_f_measure(scores, labels, roi)
    for t in np.linspace(-2, 3, 11):
        assert change_detection_measures(scores > t, labels, roi)["f_measure"] <= f + 1e-12


@given(seed=st.integers(0, 2**32 - 1), p=st.floats(0.0, 1.0))
def test_properties(seed, p):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 6)))
    labels = rng.choice(np.array([0, 50, 85, 170, 255], dtype=np.uint8), size=shape)
    masks = rng.random(shape) < p
    roi = rng.random(shape[1:]) < 0.7
    tp, fp, fn, tn = change_detection_counts(masks, labels, roi)
    counted = np.isin(labels, (0, 50, 255)) & roi
    assert tp + fp + fn + tn == np.count_nonzero(counted)
    assert tp + fn == np.count_nonzero((labels == 255) & roi)
    m = change_detection_measures(masks, labels, roi)
    for key in KEYS:
        assert np.isfinite(m[key])
        upper = 100.0 if key == "pwc" else 1.0
        assert 0.0 <= m[key] <= upper, key
    # detecting more never lowers recall
    assert (
        change_detection_measures(masks | (rng.random(shape) < 0.5), labels, roi)["recall"]
        >= m["recall"]
    )
    f, _ = best_threshold_f_measure(masks.astype(float) + rng.random(shape), labels, roi)
    assert 0.0 <= f <= 1.0
    assert f >= m["f_measure"] - 1e-12  # the mask itself is one threshold of these scores


@given(
    seed=st.integers(0, 2**32 - 1),
    separation=st.floats(0.0, 4.0),
    levels=st.sampled_from([None, 1, 2, 8]),
)
def test_best_threshold_equals_the_full_sort(seed, separation, levels):
    """The pruned negatives never change the best F or its threshold (ties included)."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(1, 9)))
    labels = rng.choice(np.array([0, 50, 85, 170, 255], dtype=np.uint8), size=shape)
    scores = rng.normal(size=shape) + separation * (labels == 255)
    if levels is not None:
        scores = np.round(scores * levels) / levels
    roi = rng.random(shape[1:]) < 0.8
    f, t = best_threshold_f_measure(scores, labels, roi)
    if not ((labels == 255) & roi).any():
        assert (f, t) == (0.0, float("inf"))
        return
    f_ref, t_ref = sorted_best_f(scores, labels, roi)
    assert f == pytest.approx(f_ref, abs=1e-12)
    assert t == t_ref


def test_boolean_ground_truth_is_motion_where_true():
    """A boolean truth (e.g. ``labels == 255``) was compared with 255 and counted no
    positive: a perfect mask scored F = 0. True is now motion, False static."""
    truth = np.zeros((2, 8, 8), bool)
    truth[:, 2:6, 2:6] = True
    levels = np.where(truth, 255, 0).astype(np.uint8)
    assert change_detection_counts(truth, truth) == change_detection_counts(truth, levels)
    assert change_detection_measures(truth, truth)["f_measure"] == 1.0
    assert best_threshold_f_measure(truth.astype(float), truth)[1] == 1.0
    assert truth.dtype == bool and truth.sum() == 32
