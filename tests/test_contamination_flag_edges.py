"""Mutation-audit additions for robustpca.estimators._outlier_api."""

from __future__ import annotations

import numpy as np

import robustpca
from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers.contamination_cut import offset_at_cut


def test_a_row_whose_score_is_the_offset_is_an_inlier(monkeypatch):
    """offset_at_cut puts an offset between two adjacent values at the upper one, where
    their midpoint rounds to the lower; a row scoring the offset has decision 0 and, as
    in scikit-learn (decision_function < 0 is an outlier), it is an inlier."""
    low = -3.0
    scores = np.array([low, np.nextafter(low, 0.0), -1.0, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3])
    offset = offset_at_cut(scores, 1)
    assert offset == scores[1]  # the midpoint rounds to the lower score
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 3))
    model = robustpca.PCA(n_components=1, contamination=0.1).fit(X)
    model.offset_ = offset
    monkeypatch.setattr(model, "_score_samples", lambda X, method: scores.copy())
    labels = model.predict(X)
    np.testing.assert_array_equal(labels, [-1] + [1] * 9)


def test_a_zero_weight_row_is_no_candidate_cut():
    """'a row of weight 0 is no row: its score is no candidate cut (nor midpoint)':
    the offset is that of the data without it."""
    scores = np.array([-5.0, -4.0, -3.0, -2.0, -1.0, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4])
    w = np.ones(scores.size)
    w[2] = 0.0  # the row at -3 weighs nothing
    kept = w > 0
    a = contamination_offset(scores, 0.2, w)
    b = contamination_offset(scores[kept], 0.2, w[kept])
    assert a == b == -3.0  # the midpoint of -4 and -2


def test_equally_near_cuts_take_the_first():
    """Two cuts equally near the target weight: the first (fewer rows flagged)."""
    scores = -np.arange(10.0, 0.0, -1.0)  # -10 .. -1
    w = np.full(10, 2.0)  # total 20; 0.15 of it is 3, between the cuts at 2 and 4
    assert contamination_offset(scores, 0.15, w) == -9.5


def test_float32_scores_beyond_float32_range_are_its_largest_not_infinite():
    """score_samples in float32: an outlyingness beyond float32's range gives float32's
    largest (negated), not -inf (the clip in _score_samples)."""
    rng = np.random.default_rng(0)
    # rank-1 training rows at a tiny scale: the ODs (and so the OD unit) are float32
    # rounding of 1e-18, and a row 1e15 off the line is 1e40 of them (> 3.4e38)
    line = np.outer(rng.standard_normal(60), np.array([1.0, 2.0, 3.0]) / np.sqrt(14))
    X = (line * 1e-18).astype(np.float32)
    model = robustpca.PCA(n_components=1).fit(X)
    far = np.array([[1e15, -1e15, 1e15]], dtype=np.float32)
    assert model._diagnose(far, "score_samples").outlyingness[0] > np.finfo(np.float32).max
    s = model.score_samples(far)
    assert s.dtype == np.float32
    assert np.isfinite(s).all()
    assert s[0] == -np.finfo(np.float32).max
