"""Outlier diagnostics: nominal flag rates on clean data, planted outliers found."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from robustpca import PCA, OptimalMeanPCA
from robustpca.datasets import occlude_blocks
from robustpca.diagnostics import DiagnosticReference, outlier_diagnostics, plot_outlier_map
from robustpca.linalg import RANK_RTOL


def gaussian_subspace_data(seed, n=2000, d=10, k=3, noise=0.5):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    X = rng.normal(size=(n, k)) * np.array([5.0, 3.0, 2.0])[:k] @ basis.T
    X += noise * rng.normal(size=(n, d))
    return X, basis


@pytest.mark.parametrize("seed", range(4))
def test_flag_rates_near_nominal_on_clean_gaussian_data(seed):
    X, _ = gaussian_subspace_data(seed)
    diag = outlier_diagnostics(PCA(3).fit(X), X)
    # each cutoff is a 97.5% quantile of its reference distribution: about 2.5% flagged.
    # The score scales and the OD cutoff are estimated from 2000 samples, so allow 1-5%.
    assert 0.01 <= diag.score_outliers.mean() <= 0.05
    assert 0.01 <= diag.orthogonal_outliers.mean() <= 0.05


@pytest.mark.parametrize("seed", range(4))
def test_planted_outliers_are_flagged_by_type(seed):
    X, basis = gaussian_subspace_data(seed, n=500)
    rng = np.random.default_rng(100 + seed)
    X[:25] += 15 * rng.normal(size=(25, X.shape[1]))  # off the subspace: orthogonal outliers
    # far along the subspace, with the inliers' noise: good leverage points
    X[25:50] = 40 * rng.normal(size=(25, 3)) @ basis.T + 0.5 * rng.normal(size=(25, 10))
    diag = outlier_diagnostics(OptimalMeanPCA(3).fit(X), X)
    assert diag.orthogonal_outliers[:25].all()
    # the leverage points are 40 * N(0, I_3) draws: now and then one falls near the centre
    assert diag.score_outliers[25:50].mean() >= 0.9
    assert diag.orthogonal_outliers[25:50].mean() <= 0.1
    assert diag.outliers[50:].mean() < 0.08


def test_reference_data_and_errors():
    X, _ = gaussian_subspace_data(0, n=300)
    model = PCA(3).fit(X)
    new = X[:10] + 100.0
    diag = outlier_diagnostics(model, new, reference=X)
    assert diag.orthogonal_outliers.all() or diag.score_outliers.all()
    with pytest.raises(ValueError, match="quantile"):
        outlier_diagnostics(model, X, quantile=1.5)


@pytest.mark.realdata
def test_occluded_faces_are_flagged(orl):
    """The OD cutoff is precise but conservative on occluded faces: at k = 10 it flags 21
    faces, all occluded (seeds 0 and 1), i.e. 26% of the 80 occluded ones. A quarter-size
    white block moves a 32 x 32 face less, relative to the spread of faces, than the
    Gaussian model behind the Wilson-Hilferty cutoff expects."""
    X, mask = occlude_blocks(orl.data, orl.image_shape, fill="max", random_state=0)
    occluded = mask.any(axis=1)
    diag = outlier_diagnostics(OptimalMeanPCA(10).fit(X), X)
    flagged = diag.orthogonal_outliers
    assert occluded[flagged].mean() > 0.9
    assert flagged[occluded].mean() > 0.2


def test_outlier_map_draws(tmp_path):
    X, _ = gaussian_subspace_data(1, n=200)
    X[:5] += 20.0
    diag = outlier_diagnostics(PCA(2).fit(X), X)
    ax = plot_outlier_map(diag, labels=[str(i) for i in range(len(X))])
    ax.figure.savefig(tmp_path / "map.png")
    assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_outlier_map_labels_must_match_the_samples():
    """Too few labels failed with an IndexError at the first flagged sample beyond them."""
    X, _ = gaussian_subspace_data(1, n=200)
    X[:5] += 20.0
    diag = outlier_diagnostics(PCA(2).fit(X), X)
    with pytest.raises(ValueError, match="labels must have one entry per sample"):
        plot_outlier_map(diag, labels=["a"])


def test_outlier_map_keeps_its_labels_inside_the_figure():
    """The axis labels and the title are drawn inside the figure (they were clipped on the
    left before the map had a constrained layout), and the row labels sit beside their
    points."""
    X, _ = gaussian_subspace_data(1, n=200)
    X[:5] += 20.0
    diag = outlier_diagnostics(PCA(2).fit(X), X)
    ax = plot_outlier_map(diag)
    fig = ax.figure
    fig.draw_without_rendering()
    width, height = fig.bbox.width, fig.bbox.height
    for text in (ax.xaxis.label, ax.yaxis.label, ax.title):
        box = text.get_window_extent()
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, text
    assert ax.texts and all(t.get_anncoords() == "offset points" for t in ax.texts)


def test_outlier_map_without_orthogonal_part_plots_score_distances_by_sample():
    """k equal to the rank: the ODs are rounding noise and there is no OD cutoff, so the
    map shows the score distances by sample (rrcov), not a scatter of noise."""
    X, _ = gaussian_subspace_data(3, n=60, d=3, k=3)
    X[:4] *= 30.0
    diag = outlier_diagnostics(PCA(3).fit(X), X)
    assert diag.orthogonal_cutoff == 0.0 and diag.outliers[:4].all()
    ax = plot_outlier_map(diag)
    assert ax.get_xlabel() == "sample" and ax.get_ylabel() == "score distance"
    flagged = ax.collections[1].get_offsets()
    np.testing.assert_allclose(flagged[:, 1], diag.score_distances[diag.outliers])
    np.testing.assert_array_equal(flagged[:, 0], np.flatnonzero(diag.outliers) + 1)


def test_no_orthogonal_cutoff_when_k_equals_the_rank():
    """rrcov: with every direction fitted the ODs are zero and nothing is flagged by OD
    (cutoff 0), for the rrcov rules and for the founding-paper estimators alike."""
    X, _ = gaussian_subspace_data(2, n=200, d=3, k=3)
    for model in (PCA(3).fit(X), OptimalMeanPCA(3).fit(X)):
        diag = outlier_diagnostics(model, X)
        assert diag.orthogonal_cutoff == 0.0 and not diag.orthogonal_outliers.any()
        np.testing.assert_array_equal(diag.outliers, diag.score_outliers)


def test_scores_rule_is_the_robust_centre_and_scale():
    """Founding-paper estimators: SD from the median and MAD (1.4826) of the training
    scores; the rrcov rules: the fit's eigenvalues and no re-centring."""
    X, _ = gaussian_subspace_data(3, n=300)
    model = OptimalMeanPCA(3).fit(X)
    diag = outlier_diagnostics(model, X)
    T = model.transform(X)
    med = np.median(T, axis=0)
    mad = 1.4826 * np.median(np.abs(T - med), axis=0)
    assert diag.rule == "scores"
    np.testing.assert_allclose(diag.score_distances, np.linalg.norm((T - med) / mad, axis=1))
    pca = PCA(3).fit(X)
    d = outlier_diagnostics(pca, X)
    assert d.rule == "classical"
    np.testing.assert_allclose(
        d.score_distances,
        np.sqrt(np.sum(pca.transform(X) ** 2 / pca.explained_variance_, axis=1)),
    )


def test_skew_rule_uses_the_estimators_adjusted_outlyingness():
    """The protocol ROBPCA(skew=True) follows: ``_od_cutoff_rule = "skew"`` and
    ``_skew_score_distances`` give rrcov's skew-adjusted SD and both medcouple cutoffs."""
    from robustpca.diagnostics import _skew_cutoff

    class SkewPCA(PCA):
        _od_cutoff_rule = "skew"

        def _skew_score_distances(self, X):
            return np.abs(self.transform(X)[:, 0]) ** 1.5

    X, _ = gaussian_subspace_data(4, n=300)
    model = SkewPCA(2).fit(X)
    diag = outlier_diagnostics(model, X)
    ao = np.abs(model.transform(X)[:, 0]) ** 1.5
    np.testing.assert_allclose(diag.score_distances, ao)
    assert diag.score_cutoff == _skew_cutoff(ao)
    assert diag.orthogonal_cutoff == pytest.approx(_skew_cutoff(model.reconstruction_error(X)))
    np.testing.assert_array_equal(model.predict(X) == -1, diag.outliers)


def test_a_distance_at_its_cutoff_to_rounding_is_regular():
    """The skew rule's cutoffs are training distances (rrcov's ``.crit.od``), which
    ``predict`` may recompute an ulp apart: a distance within 8 ulps of its cutoff is at
    the cutoff (regular, margin 0 to rounding); one 1e-12 beyond is flagged, with a
    negative margin. Flags and margins agree either way."""
    from robustpca.diagnostics import OutlierDiagnostics

    cut = 0.1945901563348386
    sd = np.array([1.0, np.nextafter(1.0, 2.0), 1.0 + 1e-12, 0.5])
    od = np.array([np.nextafter(cut, 1.0), 0.1, 0.1, cut * (1 + 1e-12)])
    diag = OutlierDiagnostics(sd, od, 1.0, cut, np.ones(1), 0.975, rule="skew")
    np.testing.assert_array_equal(diag.outliers, [False, False, True, True])
    np.testing.assert_array_equal(diag.margins < 0, diag.outliers)
    assert abs(diag.margins[:2]).max() < 1e-14


@pytest.mark.parametrize("k", [1, 2])
def test_samples_on_the_subspace_are_regular_whatever_their_rounding(k):
    """Four equal rows and two others, one of them on the line through the four: the
    ODs of the five are zero up to rounding (4.6e-16 and 5.5e-16), and so was the
    robust OD cutoff taken of them (4.5e-16), so they were flagged by their rounding:
    two flagged at ``k = 1``, all six at ``k = 2``. The cutoff is now at least the
    level below which an OD is rounding."""
    from robustpca import ROBPCA

    x = np.array([-0.787, -0.952, 0.757, -0.813, -0.918, -0.088])
    X = np.vstack([np.tile(x, (4, 1)), np.random.default_rng(0).normal(size=(2, 6))])
    model = ROBPCA(n_components=k, random_state=0).fit(X)
    np.testing.assert_array_equal(model.predict(X), [1, 1, 1, 1, 1, -1])
    assert np.all(model.decision_function(X)[:5] > 0.5)


@pytest.mark.parametrize(
    "name, params",
    [
        ("ROBPCA", {"n_components": 2}),
        ("ROBPCA", {}),
        ("ROBPCA", {"n_components": 2, "skew": True}),
        ("CovariancePCA", {"n_components": 2}),
        ("PrincipalComponentPursuit", {}),
    ],
)
def test_most_rows_at_one_point_are_regular(name, params):
    """90% of the rows at one point: the h-subset is that point, so the training
    distances of most rows are the rounding of its centring, and so was the median norm
    that set the rounding level. ROBPCA flagged every row (its SD scales, 1e-15, were
    taken for real), CovariancePCA none. Where the median norm is at the rounding of
    the centre, the centre's norm sets that level: the 200 other rows are flagged."""
    import robustpca

    rng = np.random.default_rng(0)
    X = np.r_[np.ones((1800, 5)), rng.normal(size=(200, 5))]
    model = getattr(robustpca, name)(**params).fit(X)
    np.testing.assert_array_equal(model.predict(X), np.r_[np.ones(1800), -np.ones(200)])


@pytest.mark.parametrize(
    "name", ["ROBPCA", "CovariancePCA", "SphericalPCA", "OptimalMeanPCA", "PCA", "HQPCA"]
)
def test_new_rows_off_training_rows_at_one_point_are_flagged(name):
    """Every training row at one point: the scores have zero scale and the ODs are
    rounding, so there is no OD cutoff (rrcov) and the score distance had no component.
    A new row off that point was called an inlier (score 0). It lies off the training
    rows' span (their ODs all rounding, k < p) or off a component of zero scale, by
    more than rounding: it is flagged, the farther the lower its score; the point
    itself and a row at its rounding are not. The same with k = p (no OD at all)."""
    import robustpca

    new = np.array([[2.0, 1, 1, 1], [100.0, 3, 0, 0], [1.0, 1, 1, 1], [1.0 + 1e-15, 1, 1, 1]])
    for k in (2, 4):
        model = getattr(robustpca, name)(n_components=k).fit(np.ones((40, 4)))
        np.testing.assert_array_equal(model.predict(new), [-1, -1, 1, 1])
        scores = model.score_samples(new)
        assert np.all(np.isfinite(scores)) and scores[1] < scores[0] < -1e6
        assert np.all(scores[2:] > -1.0)


@pytest.mark.parametrize("name", ["ROBPCA", "OptimalMeanPCA", "PCA"])
def test_rank_k_training_rows_have_no_od_cutoff_but_new_rows_off_their_span_are_flagged(name):
    """Training rows of rank k = 2 < p = 6 (rrcov: no OD cutoff, cutoff 0): none of them
    is flagged by OD, whatever the rounding of its OD; a new row off their span by
    1e-4 of its norm is, and one on it (beyond the training range) is not by OD."""
    import robustpca

    rng = np.random.default_rng(4)
    X = 3.0 + rng.normal(size=(200, 2)) @ rng.normal(size=(2, 6))
    model = getattr(robustpca, name)(n_components=2)
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    model.fit(X)
    train = outlier_diagnostics(model, X)
    assert train.orthogonal_cutoff == 0.0 and not train.orthogonal_outliers.any()
    off = X[:5] + 1e-4 * np.linalg.norm(X[:5], axis=1, keepdims=True) * rng.normal(size=(5, 6))
    on = model.mean_ + 3.0 * (X[5:10] - model.mean_)
    diag = outlier_diagnostics(model, np.r_[off, on])
    np.testing.assert_array_equal(diag.orthogonal_outliers, [True] * 5 + [False] * 5)
    # the ODs in units of their rounding: flagged, and ranked as the ODs are
    outlyingness = diag.outlyingness[:5]
    assert np.all(np.isfinite(outlyingness)) and np.all(outlyingness > 1.0)
    order = np.argsort(diag.orthogonal_distances[:5])
    np.testing.assert_array_equal(np.argsort(outlyingness), order)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rank=st.integers(0, 3),
    extra=st.integers(0, 2),
    # data whose squares underflow (below 1.5e-154) are refused (check_magnitude)
    shift=st.floats(-1e4, 1e4).filter(lambda v: v == 0 or abs(v) > 1e-100),
    scale=st.sampled_from([1e-6, 1.0, 1e6]),
    name=st.sampled_from(["PCA", "ROBPCA", "OptimalMeanPCA"]),
)
def test_training_rows_in_the_fit_are_kept_and_rows_off_it_flagged(
    seed, rank, extra, shift, scale, name
):
    """Training rows of rank r <= k < p (any shift and scale): none is flagged by OD and
    no score is NaN; every new row off their span by 1e-6 of their size (the rounding
    of their ODs is relative to it) is flagged and ranked below every training row."""
    import robustpca

    rng = np.random.default_rng(seed)
    p, k = 6, rank + extra
    if k == 0:
        k = 1
    X = shift + scale * (rng.normal(size=(60, rank)) @ rng.normal(size=(rank, p)))
    model = getattr(robustpca, name)(n_components=k)
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    model.fit(X)
    train = outlier_diagnostics(model, X)
    assert not train.orthogonal_outliers.any()
    mean = np.asarray(model.mean_)
    size = np.linalg.norm(X - mean, axis=1).max() + np.linalg.norm(mean)
    off = X[:4] + 1e-5 * size * np.linalg.qr(rng.normal(size=(p, p)))[0][:4]
    residual = off - model.inverse_transform(model.transform(off))
    moved = np.linalg.norm(residual, axis=1) > 1e-6 * size
    scores, trained = model.score_samples(off), model.score_samples(X)
    assert not np.isnan(scores).any() and not np.isnan(trained).any()
    assert np.all(model.predict(off)[moved] == -1)
    assert np.all(scores[moved] < trained.min())


def test_full_rank_fit_never_flags_by_od():
    """k = p (rrcov: no OD at all): the ODs of new rows, even of norm 1e12 times the
    training rows', are rounding and flag nothing."""
    X, _ = gaussian_subspace_data(5, n=200, d=3, k=3)
    model = PCA(3).fit(X)
    new = 1e12 * np.random.default_rng(5).normal(size=(20, 3))
    diag = outlier_diagnostics(model, new)
    assert diag.orthogonal_cutoff == 0.0 and not diag.orthogonal_outliers.any()
    assert np.isinf(diag.score_distances).sum() == 0


@pytest.mark.realdata
@pytest.mark.parametrize("k", [2, 3])
def test_rows_fitted_exactly_are_regular_on_wood(shared_data, k):
    """wood with its regular rows moved onto their own rank-2 affine subspace (planted,
    exact) and its four documented outliers (4, 6, 8, 19) as they are: ROBPCA fits the
    sixteen to rounding and flags exactly the four (the OD cutoff is above rounding)."""
    from robustpca import ROBPCA

    from .conftest import load_table

    X = load_table(shared_data, "wood")
    outliers = np.array([3, 5, 7, 18])
    regular = np.setdiff1d(np.arange(X.shape[0]), outliers)
    centre = X[regular].mean(axis=0)
    basis = np.linalg.svd(X[regular] - centre, full_matrices=False)[2][:2]
    X[regular] = centre + (X[regular] - centre) @ basis.T @ basis
    model = ROBPCA(n_components=k, random_state=0).fit(X)
    diag = outlier_diagnostics(model, X)
    assert diag.orthogonal_distances[regular].max() < 1e-12
    np.testing.assert_array_equal(np.flatnonzero(diag.outliers), outliers)


@pytest.mark.realdata
def test_a_gross_outlier_does_not_hide_the_others(shared_data):
    """bushfire plus one row at 1e10: ROBPCA flags the rows it flags without it, and
    that row. The rounding floor of the OD cutoff is taken of a typical row's norm;
    taken of the largest (the new row's), it rose to 150 and hid rows 7-12."""
    from robustpca import ROBPCA

    from .conftest import load_table

    X = load_table(shared_data, "bushfire")
    far = X.mean(axis=0) + 1e10 * np.array([1.0, -1.0, 1.0, -1.0, 1.0]) / np.sqrt(5.0)
    D = np.vstack([X, far])
    alone = np.flatnonzero(ROBPCA(n_components=2, random_state=0).fit(X).predict(X) == -1)
    model = ROBPCA(n_components=2, random_state=0).fit(D)
    np.testing.assert_array_equal(np.flatnonzero(model.predict(D) == -1), [*alone, len(X)])


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["PCA", "HQPCA", "ROBPCA"])
def test_a_component_beyond_the_rank_is_left_out_of_the_score_distance(shared_data, name):
    """The first 7 octane spectra (rank 6 once centred) at k = 7: the seventh
    component's scores are rounding, and so was HQ-PCA's robust scale of them (9.5e-19
    against 4.5e-3 to 6.2e-2): the score distances, so the flags, were rounding. Its
    scale is zero, as rrcov leaves out a zero eigenvalue, and the score distances are
    those of the six others."""
    import robustpca

    from .conftest import load_table

    X = load_table(shared_data, "octane")[:7]
    model = getattr(robustpca, name)(n_components=7)
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    model.fit(X)
    reference = model._outlier_reference
    assert reference.score_scale[-1] == 0.0 and np.all(reference.score_scale[:-1] > 0)
    scores = (X - model.mean_) @ model.components_.T
    z = (scores[:, :6] - reference.score_center[:6]) / reference.score_scale[:6]
    np.testing.assert_allclose(
        outlier_diagnostics(model, X).score_distances, np.linalg.norm(z, axis=1), rtol=1e-10
    )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rank=st.integers(1, 5),
    extra=st.integers(1, 3),
    tail=st.floats(0.5, 3.0),
    estimator=st.sampled_from([PCA, OptimalMeanPCA]),
)
def test_components_of_zero_scale_add_nothing_for_training_rows(seed, rank, extra, tail, estimator):
    """Heavy-tailed rows of rank r in p > r features, fitted at k = p and at k = r:
    the p - r further components have zero scale and the training rows' scores on them
    are rounding, so their score distances, and the ranking, are those of the fit at
    k = r (the SD cutoffs differ: chi-square with k degrees of freedom). With rrcov's
    rule (PCA: the eigenvalues) and with the "scores" rule (OptimalMeanPCA: the robust
    scales of the scores, whose rounding on a null component follows the eigenvectors'
    accuracy, not that of one product)."""
    rng = np.random.default_rng(seed)
    p = rank + extra
    T = rng.standard_t(tail, size=(300, rank)) * np.logspace(0, 3, rank)
    X = T @ rng.normal(size=(rank, p))
    # the r-th component within the resolution of a covariance eigendecomposition
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    assume((s[rank - 1] / s[0]) ** 2 > 100 * RANK_RTOL)
    full = outlier_diagnostics(estimator(n_components=p).fit(X), X)
    exact = outlier_diagnostics(estimator(n_components=rank).fit(X), X)
    np.testing.assert_allclose(full.score_distances, exact.score_distances, rtol=1e-6)
    np.testing.assert_allclose(
        full.outlyingness * full.score_cutoff, exact.outlyingness * exact.score_cutoff, rtol=1e-6
    )


@pytest.mark.realdata
def test_rounding_on_components_of_zero_scale_flags_nothing_on_fault(adbench):
    """ADBench's 12_fault (median/MAD scaling) has two exactly collinear pairs of
    columns. PCA at its defaults keeps all 27 components, two of zero variance, and the
    training scores on those are rounding of 1e-6 to 5e-5, above the rounding level
    (3e-7) that had counted them: 62% of the rows were flagged and the ranking was no
    better than chance (ROC AUC 0.48). Rounding within the training rows' own is zero:
    the score distances are those of the 25 other components."""
    import sys
    from pathlib import Path

    from sklearn.metrics import roc_auc_score

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_outliers as bench

    X, y = bench.load_table("12_fault", adbench)
    X = bench.scale_columns(X)
    model = PCA().fit(X)
    reference = model._outlier_reference
    zero = reference.score_scale == 0
    assert zero.sum() == 2 and not reference.od_cutoff_applies
    diag = outlier_diagnostics(model, X)
    z = (model.transform(X)[:, ~zero] - reference.score_center[~zero]) / reference.score_scale[
        ~zero
    ]
    np.testing.assert_allclose(diag.score_distances, np.linalg.norm(z, axis=1), rtol=1e-10)
    assert np.mean(model.predict(X) == -1) < 0.1
    assert roc_auc_score(y, -model.decision_function(X)) > 0.6
    # a row moved off a zero-scale component by 1e-3 of its norm is still flagged
    off = X[:3] + 1e-3 * np.linalg.norm(X[:3], axis=1, keepdims=True) * model.components_[-1]
    assert np.all(model.predict(off) == -1)


def test_the_row_that_sets_the_score_rounding_stays_within_it():
    """The training rows' largest deviation on a component of zero scale sets its
    rounding unit; a later ``transform`` of that row rounds its products otherwise (by
    about 1e-12 of it on 12_fault, with the BLAS's blocking and the buffers' alignment),
    and once landed just beyond the unit, so that the test above failed in four runs of
    six. The unit has the floor's margin above the largest deviation."""
    from robustpca._distance_rounding import score_rounding

    largest, floor = np.array([3.0, 2e-5]), 1e-9
    unit = score_rounding(np.array([1.0, 0.0]), largest, floor)
    assert unit[0] == floor and unit[1] >= largest[1] * (1 + 1e-6)
    reference = DiagnosticReference(
        "scores",
        np.zeros(2),
        np.array([1.0, 0.0]),
        0.0,
        1.0,
        0.0,
        0.0,
        False,
        floor,
        score_rounding=unit,
    )
    again = np.array([[0.5, largest[1] * (1 + 1e-12)]])  # the same row, rounded otherwise
    np.testing.assert_allclose(reference.score_distances(again), [0.5], rtol=1e-15)


def test_scores_rule_sd_cutoff_agrees_with_chi2_on_gaussian_scores():
    """Gaussian scores: SD^2 is chi-square, so the empirical floor of the "scores" rule
    (median and MAD of SD^(2/3), Wilson-Hilferty) sits at the chi-square cutoff."""
    from scipy import stats

    from robustpca import OptimalMeanPCA

    X = np.random.default_rng(3).normal(size=(20000, 4)) * [3.0, 2.0, 1.0, 0.5]
    ref = OptimalMeanPCA(n_components=4).fit(X)._outlier_reference
    assert ref.rule == "scores"
    empirical = (ref.sd_location + ref.sd_scale * stats.norm.ppf(0.975)) ** 1.5
    assert empirical == pytest.approx(np.sqrt(stats.chi2.ppf(0.975, 4)), rel=0.03)


def test_scores_rule_sd_cutoff_follows_heavy_tailed_scores():
    """Student-t scores (3 degrees of freedom): the per-component MADs miss their joint
    spread and the chi-square cutoff alone flags well over 10% of the clean rows; the
    empirical floor, which follows the spread of the SDs themselves, flags under half
    as many."""
    from scipy import stats

    from robustpca import OptimalMeanPCA

    X = np.random.default_rng(4).standard_t(3, size=(5000, 6))
    model = OptimalMeanPCA(n_components=6).fit(X)
    diag = outlier_diagnostics(model, X)
    chi2_only = diag.score_distances > np.sqrt(stats.chi2.ppf(0.975, 6))
    assert chi2_only.mean() > 0.1
    assert diag.score_cutoff > np.sqrt(stats.chi2.ppf(0.975, 6))
    assert diag.outliers.mean() < 0.5 * chi2_only.mean()
