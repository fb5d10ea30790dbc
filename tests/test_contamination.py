"""``contamination`` and ``offset_`` of the outlier-detector API (issue 42, item 2).

``"auto"`` keeps rrcov's cutoffs (``offset_ = -1``); a float flags that share of the
training rows, ``floor(c n + 1/2)`` of them, whatever the data, as long as their scores
do not tie (up to rounding) at the threshold; ``decision_function = score_samples -
offset_`` always.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import is_outlier_detector
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca.diagnostics import outlier_diagnostics
from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers.contamination_cut import resolved_gaps

from .conftest import make_estimator

#: one of each family: classical, reweighting, the rrcov rules, convex, 2-D, kernel
SAMPLED = [
    "PCA",
    "OptimalMeanPCA",
    "HQPCA",
    "ROBPCA",
    "PrincipalComponentPursuit",
    "TwoDPCA",
    "KernelL21PCA",
]
ALL = list(robustpca.ESTIMATOR_NAMES)


def quiet(model, X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, **kw)


def planted(seed=0, n=120, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 0.2 * rng.normal(size=(n, d))
    X[:8] += 6 * rng.normal(size=(8, d))
    return X


def expected_count(c: float, n: int) -> int:
    return int(np.floor(c * n + 0.5))


@pytest.mark.parametrize("name", ALL)
def test_every_estimator_takes_contamination(name):
    model = make_estimator(name, n_components=2)
    assert model.get_params()["contamination"] == "auto"
    assert is_outlier_detector(model)
    X = planted()
    auto = quiet(model, X)
    assert auto.offset_ == -1.0
    np.testing.assert_array_equal(auto.decision_function(X), auto.score_samples(X) + 1.0)
    share = quiet(make_estimator(name, n_components=2, contamination=0.1), X)
    assert (share.predict(X) == -1).sum() == 12
    np.testing.assert_array_equal(
        share.decision_function(X), share.score_samples(X) - share.offset_
    )


@pytest.mark.parametrize("bad", [0, 0.0, 0.51, 1.0, -0.1, "0.1", "none", True, None, np.nan])
@pytest.mark.parametrize("name", ["ROBPCA", "OptimalMeanPCA", "TwoDPCA"])
def test_invalid_contamination_is_a_value_error_naming_it(name, bad):
    with pytest.raises(ValueError, match="contamination"):
        make_estimator(name, n_components=2, contamination=bad).fit(planted())


def test_score_samples_is_minus_the_outlyingness_in_cutoff_units():
    """-1 on a cutoff: a sample exactly at the OD cutoff (on the subspace otherwise, at
    the score centre) scores -1 and its decision is 0 with "auto"."""
    X = planted(2)
    model = robustpca.ROBPCA(n_components=2).fit(X)
    diag = outlier_diagnostics(model, X)
    expected = np.maximum(
        diag.score_distances / diag.score_cutoff, diag.orthogonal_distances / diag.orthogonal_cutoff
    )
    np.testing.assert_allclose(-model.score_samples(X), expected, rtol=1e-12)
    normal = np.linalg.svd(np.eye(6) - model.components_.T @ model.components_)[0][:, 0]
    at_cutoff = model.mean_ + diag.orthogonal_cutoff * normal
    np.testing.assert_allclose(model.score_samples(at_cutoff[None]), [-1.0], rtol=1e-9)


def test_a_share_scales_both_cutoffs_by_one_factor():
    """flagged <=> SD > r c_SD or OD > r c_OD, with r = -offset_ (module docstring)."""
    X = planted(4, n=200)
    for c in (0.05, 0.2, 0.5):
        model = robustpca.OptimalMeanPCA(n_components=2, contamination=c).fit(X)
        diag = outlier_diagnostics(model, X)
        r = -model.offset_
        by_cutoffs = (diag.score_distances > r * diag.score_cutoff) | (
            diag.orthogonal_distances > r * diag.orthogonal_cutoff
        )
        np.testing.assert_array_equal(model.predict(X) == -1, by_cutoffs)
        assert by_cutoffs.sum() == expected_count(c, 200)


def test_new_data_are_judged_by_the_training_offset():
    X, Y = planted(5), planted(6)
    model = robustpca.ROBPCA(n_components=2, contamination=0.25, random_state=0).fit(X)
    np.testing.assert_array_equal(
        model.predict(Y), np.where(model.score_samples(Y) < model.offset_, -1, 1)
    )
    again = robustpca.ROBPCA(n_components=2, contamination=0.25, random_state=0).fit(X)
    assert model.offset_ == again.offset_


def test_contamination_leaves_the_fit_alone():
    X = planted(7)
    a = robustpca.ROBPCA(n_components=2, random_state=0).fit(X)
    b = robustpca.ROBPCA(n_components=2, contamination=0.3, random_state=0).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.score_samples(X), b.score_samples(X))
    np.testing.assert_array_equal(
        outlier_diagnostics(a, X).outliers, outlier_diagnostics(b, X).outliers
    )


def test_frequency_weights_flag_the_share_of_the_repeated_rows():
    """PCA with integer ``sample_weight`` flags rows holding the same share of the total
    weight as the repeated data does."""
    rng = np.random.default_rng(8)
    X = planted(8, n=60)
    w = rng.integers(1, 4, size=60)
    weighted = robustpca.PCA(2, contamination=0.15).fit(X, sample_weight=w.astype(float))
    repeated = robustpca.PCA(2, contamination=0.15).fit(np.repeat(X, w, axis=0))
    flagged = weighted.predict(X) == -1
    assert w[flagged].sum() == (repeated.predict(np.repeat(X, w, axis=0)) == -1).sum()
    assert abs(w[flagged].sum() - expected_count(0.15, w.sum())) <= w.max()


@pytest.mark.parametrize("scale", [1 / 40, 0.05, 0.3, 7.5])
def test_weights_that_are_not_whole_flag_the_share_of_their_total(scale):
    """Weights that sum to 1 flagged nothing: the target weight was rounded to a whole
    number even where the weights are not frequencies. With weights that are not whole,
    the flagged weight is nearest ``c`` times the total, and the cut does not depend on
    their scale; whole weights keep the count of the repeated rows."""
    rng = np.random.default_rng(9)
    scores = rng.normal(size=40)
    w = rng.uniform(0.5, 2.0, size=40)
    offset = contamination_offset(scores, 0.1, w)
    assert contamination_offset(scores, 0.1, scale * w) == offset
    flagged = scores < offset
    assert abs(w[flagged].sum() - 0.1 * w.sum()) <= w.max() / 2
    uniform = np.full(40, scale)
    assert (scores < contamination_offset(scores, 0.1, uniform)).sum() == 4
    X = planted(9, n=40)  # an estimator with normalised weights
    model = robustpca.PCA(2, contamination=0.1).fit(X, sample_weight=np.full(40, 1 / 40))
    assert (model.predict(X) == -1).sum() == 4


# ------------------------------------------------------------------ exact counts (hypothesis)
@st.composite
def distinct_rows(draw):
    n = draw(st.integers(12, 40))
    d = draw(st.integers(3, 7))
    value = st.floats(-100, 100, allow_nan=False, allow_subnormal=False) | st.integers(-3, 3)
    rows = draw(st.lists(st.tuples(*[value] * d), min_size=n, max_size=n, unique=True))
    return np.asarray(rows, dtype=np.float64)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    X=distinct_rows(),
    name=st.sampled_from(SAMPLED),
    c=st.floats(0.01, 0.5),
    k=st.integers(1, 2),
)
def test_a_share_flags_exactly_that_many_training_rows(X, name, c, k):
    """``floor(c n + 1/2)`` rows flagged when the training scores do not tie (up to
    rounding) at the threshold; with ties there, the count of a cut at a tie group's edge
    nearest it."""
    model = quiet(make_estimator(name, n_components=k, contamination=c), X)
    scores = np.sort(model.score_samples(X))
    flagged = int((model.predict(X) == -1).sum())
    np.testing.assert_array_equal(
        model.decision_function(X), model.score_samples(X) - model.offset_
    )
    assert np.isfinite(model.offset_)
    target = expected_count(c, X.shape[0])
    distinct = np.concatenate([[True], resolved_gaps(scores), [True]])  # ties up to rounding
    cuts = np.flatnonzero(distinct)
    best = min(cuts, key=lambda j: (abs(j - target), j))
    assert flagged == best
    if distinct[target]:
        assert flagged == target


def test_robpca_share_flags_ten_percent_of_any_planted_table():
    """The issue's target: ``ROBPCA(contamination=0.1).fit(X).predict(X)`` flags 10%."""
    for seed, (n, d) in enumerate([(50, 5), (133, 9), (20, 40), (301, 3)]):
        X = np.random.default_rng(seed).standard_t(3, size=(n, d))
        labels = robustpca.ROBPCA(contamination=0.1).fit(X).predict(X)
        assert (labels == -1).sum() == expected_count(0.1, n)


# ------------------------------------------------------------------ the offset rule
def test_offset_cuts_between_distinct_scores_and_at_tie_edges():
    s = np.array([-5.0, -3.0, -3.0, -3.0, -1.0, -0.5, -0.2, -0.1, -0.05, 0.0])
    assert contamination_offset(s, 0.1, None) == -4.0  # 1 of 10: between -5 and -3
    # 2 of 10 falls inside the tie group [-3, -3, -3]: its edges flag 1 or 4 -> 1
    assert contamination_offset(s, 0.2, None) == -4.0
    assert contamination_offset(s, 0.3, None) == -2.0  # 3: the edge 4 is nearer than 1
    assert (s < contamination_offset(s, 0.5, None)).sum() == 5


def test_offset_is_finite_with_infinite_scores_and_weights():
    s = np.array([-np.inf, -np.inf, -2.0, -1.0, -0.5, -0.1])
    off = contamination_offset(s, 0.5, None)
    assert np.isfinite(off) and (s < off).sum() == 3
    off = contamination_offset(s, 0.01, None)  # none flagged: below -2, above -inf
    assert np.isfinite(off) and (s < off).sum() == 2  # the -inf rows cannot be kept
    w = np.array([1.0, 1.0, 4.0, 1.0, 1.0, 2.0])
    off = contamination_offset(s, 0.6, w)
    assert (w[s < off]).sum() == 6.0


def test_dask_input_scores_lazily_and_a_dask_fit_has_the_share_offset():
    da = pytest.importorskip("dask.array")
    X = planted(9)
    model = robustpca.OptimalMeanPCA(2, contamination=0.1).fit(X)
    lazy = model.score_samples(da.from_array(X, chunks=(40, 3)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.score_samples(X), rtol=1e-12)
    np.testing.assert_array_equal(
        model.predict(da.from_array(X, chunks=(40, 6))).compute(), model.predict(X)
    )
    dask_fit = robustpca.OptimalMeanPCA(2, contamination=0.1).fit(da.from_array(X, chunks=(40, 6)))
    assert dask_fit.offset_ == pytest.approx(model.offset_, rel=1e-10)  # counting passes
    np.testing.assert_array_equal(dask_fit.predict(X), model.predict(X))
    assert robustpca.OptimalMeanPCA(2).fit(da.from_array(X, chunks=(40, 6))).offset_ == -1.0


@pytest.mark.realdata
def test_hbk_share_of_its_outliers_flags_them(shared_data):
    """rrcov's hbk: 14 of 75 rows are outliers (rows 1-14); a contamination of 14/75
    flags exactly them for ROBPCA and for RPCA-OM."""
    X = np.loadtxt(shared_data / "rrcov" / "hbk.csv", delimiter=",", skiprows=1)
    for cls in (robustpca.ROBPCA, robustpca.OptimalMeanPCA):
        labels = cls(n_components=2, contamination=14 / 75).fit(X).predict(X)
        np.testing.assert_array_equal(np.flatnonzero(labels == -1), np.arange(14))
