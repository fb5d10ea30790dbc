"""The scikit-learn outlier-detector contract at the edges the suite did not pin.

* ``fit_predict(X, **kwargs)`` passes ``kwargs`` to ``fit`` (its docstring: e.g.
  ``sample_weight``): with frequency weights it labels the rows as
  ``fit(X, sample_weight=w).predict(X)`` does, which differs from the unweighted fit;
* ``contamination`` may be 0.5, the top of the documented range (0, 0.5] (as
  scikit-learn's ``IsolationForest``): half the training rows, rounded half up;
* a scalar ``sample_weight`` is that weight on every row (scikit-learn's
  ``_check_sample_weight``): the training diagnostics, and so every score, are those of
  the array of it; uniform frequency weights 2 are twice the rows, which moves the
  cutoffs' small-sample factors, so they are not the unweighted fit's either;
* in float64, ``score_samples`` is exactly minus the outlyingness, however large: only
  float32 output is clipped to its range, so the ranking of far rows (by
  ``-decision_function``, as the docs recommend) keeps their order.
"""

from __future__ import annotations

import numpy as np

import robustpca
from robustpca.diagnostics import outlier_diagnostics


def _planted(seed=0, n=41, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))
    X[:4] += 3.0 * rng.normal(size=(4, d))
    return X


def test_fit_predict_passes_sample_weight_to_fit():
    X = _planted()
    w = np.ones(X.shape[0])
    w[:4] = 3.0  # the four outliers count thrice: 49 rows, 0.1 of them is 5, not 4
    model = robustpca.PCA(n_components=2, contamination=0.1)
    labels = model.fit_predict(X, sample_weight=w)
    np.testing.assert_array_equal(labels, model.fit(X, sample_weight=w).predict(X))
    unweighted = robustpca.PCA(n_components=2, contamination=0.1).fit_predict(X)
    assert (unweighted == -1).sum() == 4
    assert not np.array_equal(labels, unweighted)


def test_contamination_one_half_flags_half_the_rows_rounded_up():
    X = _planted()
    model = robustpca.PCA(n_components=2, contamination=0.5).fit(X)
    assert (model.predict(X) == -1).sum() == 21  # floor(0.5 * 41 + 1/2)
    np.testing.assert_array_equal(
        model.decision_function(X), model.score_samples(X) - model.offset_
    )


def test_float64_scores_are_minus_the_outlyingness_beyond_float32_range():
    rng = np.random.default_rng(0)
    line = np.outer(rng.standard_normal(60), np.array([1.0, 2.0, 3.0]) / np.sqrt(14))
    model = robustpca.PCA(n_components=1).fit(line * 1e-18)
    far = np.array([[1e15, -1e15, 1e15], [1e16, -1e16, 1e16]])
    out = outlier_diagnostics(model, far).outlyingness
    assert out[0] > np.finfo(np.float32).max
    s = model.score_samples(far)
    assert s.dtype == np.float64
    np.testing.assert_array_equal(s, -out)
    assert s[1] < s[0]  # the farther row ranks as more outlying


def test_a_scalar_sample_weight_is_that_weight_on_every_row():
    X = _planted()
    scalar = robustpca.PCA(n_components=2).fit(X, sample_weight=2.0)
    array = robustpca.PCA(n_components=2).fit(X, sample_weight=np.full(X.shape[0], 2.0))
    np.testing.assert_array_equal(scalar.decision_function(X), array.decision_function(X))
