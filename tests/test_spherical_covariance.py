"""SphericalPCA and CovariancePCA equal rrcov's PcaLocantore and PcaCov (issue 11).

Reference values: ``tests/reference/rrcov_robust/fits.csv`` (its ``make_fixtures.R``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from scipy.stats import ortho_group
from sklearn.covariance import EmpiricalCovariance, MinCovDet

from robustpca import CovariancePCA, SphericalPCA
from robustpca.robust_scale import mad
from robustpca.solvers.spherical import spatial_median

from .conftest import leverage_cluster, load_table, reference_fits
from .test_robpca import assert_equals_rrcov

LOCANTORE = reference_fits("PcaLocantore")
PCACOV = reference_fits("PcaCov")


def _k(k):
    return "auto" if k == 0 else k


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(LOCANTORE))
def test_spherical_equals_pcalocantore(shared_data, table, k):
    """With rrcov's sphere-scale eigenvalues everything is rrcov's, flags included."""
    X = load_table(shared_data, table)
    model = SphericalPCA(n_components=_k(k), scale_on="sphere").fit(X)
    assert_equals_rrcov(model, X, LOCANTORE[(table, k)])


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(LOCANTORE))
def test_spherical_data_scale_eigenvalues(shared_data, table, k):
    """The default: the same centre and axes, eigenvalues the squared MAD of the data's
    scores on them (Locantore et al.), which is a different ordering only where two
    axes swap places."""
    X = load_table(shared_data, table)
    ref = LOCANTORE[(table, k)]
    model = SphericalPCA(n_components=_k(k)).fit(X)
    assert model.n_components_ == int(ref["k_fitted"])
    expected = mad((X - model.mean_) @ model.components_.T, axis=0) ** 2
    np.testing.assert_allclose(model.explained_variance_, expected, rtol=1e-12)
    assert np.all(np.diff(model.explained_variance_) <= 0)


@pytest.mark.realdata
def test_spherical_data_scale_eigenvalues_are_on_the_data_scale(shared_data):
    """wood's variances are about 0.01: the default eigenvalues are of that order (within
    a factor 3 of ROBPCA's), rrcov's sphere-scale ones a hundred times larger."""
    from robustpca import ROBPCA

    X = load_table(shared_data, "wood")
    robust = ROBPCA(n_components=2, random_state=0).fit(X).explained_variance_
    data = SphericalPCA(n_components=2).fit(X).explained_variance_
    sphere = SphericalPCA(n_components=2, scale_on="sphere").fit(X).explained_variance_
    assert np.all((data / robust > 1 / 3) & (data / robust < 3))
    assert np.all(sphere / robust > 30)


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(PCACOV))
def test_covariance_pca_equals_pcacov(shared_data, table, k):
    X = load_table(shared_data, table)
    model = CovariancePCA(n_components=_k(k), random_state=0).fit(X)
    assert_equals_rrcov(model, X, PCACOV[(table, k)])


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["bushfire", "hbk", "wood"])
def test_covariance_pca_ignores_a_constant_column(shared_data, table):
    """A constant column (a dead sensor) puts every sample on a hyperplane, so every
    h-subset's covariance is singular and the MCD's criterion cannot choose: FAST-MCD
    returned an arbitrary subset (bushfire with a zero column: 7 of its 12 flags changed,
    the subspace 1.0 off in sine), and robustbase returns the classical estimate of all
    the samples. The MCD is now taken within the data's affine hull: the fit is that of
    the table without the column, to rounding, the column's loadings 0 (to 1e-12) and
    its centre the constant."""
    X = load_table(shared_data, table)
    reference = CovariancePCA(n_components=2, random_state=0).fit(X)
    for value in (0.0, 7.0):
        padded = np.column_stack([X[:, :1], np.full(len(X), value), X[:, 1:]])
        model = CovariancePCA(n_components=2, random_state=0).fit(padded)
        np.testing.assert_allclose(
            np.delete(model.components_, 1, axis=1), reference.components_, atol=1e-8
        )
        np.testing.assert_allclose(model.components_[:, 1], 0.0, atol=1e-12)
        np.testing.assert_allclose(
            model.explained_variance_, reference.explained_variance_, rtol=1e-8
        )
        np.testing.assert_allclose(model.mean_[1], value, atol=1e-10 * np.abs(X).max())
        np.testing.assert_array_equal(model.predict(padded), reference.predict(X))


@pytest.mark.parametrize(("Estimator", "bound"), [(SphericalPCA, 0.2), (CovariancePCA, 0.05)])
def test_planted_subspace_despite_leverage_points(Estimator, bound):
    """Spherical PCA's axes are biased for non-spherical data (Locantore et al.): a
    looser bound than the MCD's, still far from PCA's breakdown (sine 1)."""
    X, U, m = leverage_cluster(frac=0.2)
    model = Estimator(n_components=2, random_state=0).fit(X)
    assert np.sin(subspace_angles(model.components_.T, U)).max() < bound
    assert np.all(model.predict(X)[:m] == -1)


def test_covariance_pca_takes_any_sklearn_covariance():
    X, U, _ = leverage_cluster(frac=0.2)
    robust = CovariancePCA(n_components=2, covariance=MinCovDet(random_state=0)).fit(X)
    assert np.sin(subspace_angles(robust.components_.T, U)).max() < 0.1
    classical = CovariancePCA(n_components=2, covariance=EmpiricalCovariance()).fit(X)
    assert np.sin(subspace_angles(classical.components_.T, U)).max() > 0.9
    assert classical.support_ is None


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16))
@example(seed=15675)  # the spatial median is a sample (found by hypothesis)
def test_spherical_is_orthogonally_equivariant(seed):
    """Up to the spatial median's stopping rule, which is rrcov's and absolute (steps
    below ``delta * sqrt(p)``): equivariant to that tolerance, not to rounding. Seed
    15675's spatial median is one of the samples: the iterates stopped near it, its
    distance about the floor below which it is not sphered, and its sign (sphered on one
    side of the rotation, not on the other) moved the second eigenvalue by 14%. The
    sample itself is now the centre (Vardi & Zhang's condition)."""
    scale = 1.0
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 4)) * [3.0, 2.0, 1.0, 0.5]
    Q = ortho_group.rvs(4, random_state=seed)
    b = rng.normal(size=4)
    a = SphericalPCA(n_components=2).fit(X)
    t = SphericalPCA(n_components=2).fit(scale * X @ Q + b)
    tol = 10 * 1e-3 * np.sqrt(4)
    np.testing.assert_allclose(t.mean_, scale * a.mean_ @ Q + b, atol=tol)
    np.testing.assert_allclose(t.explained_variance_, scale**2 * a.explained_variance_, rtol=0.05)


def test_spatial_median_of_symmetric_points_is_the_centre():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [100.0, 100.0]])
    centre, _, _ = spatial_median(X[:4])
    np.testing.assert_allclose(centre, 0.0, atol=1e-12)
    centre, _, _ = spatial_median(X)  # one gross outlier moves it little
    assert np.linalg.norm(centre) < 0.5


def test_a_sample_that_is_the_spatial_median_is_returned_exactly():
    """With a sample at the centre of four symmetric ones, the iterates only approach it
    (Weiszfeld's steps at a vertex): the sample itself is returned, to the bit, and its
    sign is 0. Off-centre, no sample is the median and the iterate is kept."""
    X = np.array([[0.3, -0.2], [2.3, -0.2], [-1.7, -0.2], [0.3, 1.8], [0.3, -2.2]])
    centre, _, _ = spatial_median(X[::-1], delta=1e-3)
    np.testing.assert_array_equal(centre, X[0])
    model = SphericalPCA(n_components=2).fit(X)
    np.testing.assert_array_equal(model.mean_, X[0])
    X[0] = [1.3, 0.8]  # now pulled off: not a vertex of the median
    centre, _, _ = spatial_median(X, delta=1e-8)
    assert not np.any(np.all(centre == X, axis=1))


@pytest.mark.parametrize("Estimator", [SphericalPCA, CovariancePCA])
@pytest.mark.parametrize(
    "X", [np.ones((12, 4)), np.repeat(np.arange(12.0)[:, None], 3, axis=1)], ids=["const", "r1"]
)
@pytest.mark.parametrize("n_components", [2, "auto", 0.9])
def test_degenerate_data_give_finite_fits(Estimator, X, n_components):
    """Equal rows (no direction of variance: SphericalPCA's automatic rank raised
    "eigenvalues must hold at least one value") and rank-one rows."""
    model = Estimator(n_components=n_components, random_state=0).fit(X)
    if isinstance(n_components, int):
        assert model.n_components_ == n_components
    else:  # one direction at most: one component, as ROBPCA gives
        assert model.n_components_ == 1
    for attr in ("components_", "mean_", "explained_variance_"):
        assert np.isfinite(getattr(model, attr)).all()
    assert np.isfinite(model.decision_function(X)).all()


@pytest.mark.parametrize(
    ("Estimator", "params", "error", "match"),
    [
        (SphericalPCA, {"scale_on": "both"}, ValueError, "scale_on"),
        (SphericalPCA, {"delta": 0.0}, ValueError, "delta"),
        (SphericalPCA, {"kmax": 0}, ValueError, "kmax"),
        (CovariancePCA, {"covariance": "ogk"}, ValueError, "covariance"),
        (CovariancePCA, {"covariance": 3}, TypeError, "covariance"),
        (CovariancePCA, {"alpha": 0.2}, ValueError, "alpha"),
        (CovariancePCA, {"n_starts": 2**62}, ValueError, "n_starts"),
    ],
)
def test_bad_parameters_name_themselves(Estimator, params, error, match):
    with pytest.raises(error, match=match):
        Estimator(**params).fit(np.random.default_rng(0).normal(size=(30, 3)))


#: A 10 x 3 table (rows of a seeded random draw, rounded to 3 decimals) whose second
#: row is its spatial median.
MEDIAN_AT_A_SAMPLE = np.array(
    [
        [-0.925, 2.945, 1.474],
        [1.519, 1.088, 0.991],
        [-2.158, -1.856, -0.555],
        [8.424, 0.633, 1.363],
        [-2.144, -0.283, -1.194],
        [0.028, -1.802, -2.201],
        [1.687, -0.378, -1.23],
        [5.37, 2.426, 1.783],
        [4.941, 4.052, 4.564],
        [1.785, 3.267, 4.969],
    ]
)


def test_a_sample_at_the_median_stops_rrcovs_endless_steps():
    """On this 10 x 3 table (rows of a seeded random draw, rounded to 3 decimals) the
    second row is the spatial median. rrcov's ``spatial.median`` weighs a sample within
    its floor by ``eps``, not ``1 / eps``: its iterates circle the row, and
    ``PcaLocantore(x, k = 1)`` (rrcov 1.7-2) had not returned after 20 s. Ours returns
    the row, exactly, as soon as an iterate comes within the floor of it (it ran to its
    1,000-step cap before)."""
    X = MEDIAN_AT_A_SAMPLE
    centre, _, n_iter = spatial_median(X)
    np.testing.assert_array_equal(centre, X[1])
    assert n_iter < 50
    model = SphericalPCA(n_components=1, scale_on="sphere").fit(X)
    np.testing.assert_array_equal(model.mean_, X[1])
    assert model.n_iter_ < 50 and np.isfinite(model.explained_variance_).all()


def test_random_state_seeds_a_given_covariance_estimator():
    """MinCovDet() (its own random_state None) is seeded from CovariancePCA's, so that
    an int random_state gives the same fit twice; a seeded one keeps its seed."""
    X = leverage_cluster(80, 4, seed=3)[0]
    fits = [CovariancePCA(2, covariance=MinCovDet(), random_state=0).fit(X) for _ in range(3)]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.covariance_, fits[0].covariance_)
    own = CovariancePCA(2, covariance=MinCovDet(random_state=5), random_state=0).fit(X)
    np.testing.assert_array_equal(own.covariance_, MinCovDet(random_state=5).fit(X).covariance_)


def test_covariance_pca_warns_where_the_mcd_is_not_positive_definite():
    """n = p + 2: robustbase's small-sample factor of the reweighted MCD is negative
    (.MCDcnp2.rew(5, 7, 0.5) = -0.337) and rrcov's PcaCov stops ("covariance matrix is
    not non-negative definite"); the fit clipped every eigenvalue to 0 without a word.
    (R values: tests/reference/inline_values/make_values.R.)"""
    X = np.random.default_rng(5).normal(size=(7, 5))
    with pytest.warns(UserWarning, match="not non-negative definite"):
        CovariancePCA(n_components=2, random_state=0).fit(X)


@pytest.mark.parametrize("Estimator", [SphericalPCA, CovariancePCA])
def test_kmax_caps_the_auto_rule_but_not_a_share(Estimator):
    """``kmax`` bounds rrcov's ``"auto"`` rule only; a share keeps its meaning, as in ROBPCA
    (isotropic data: 90% of the variance needs most axes)."""
    X = np.random.default_rng(0).normal(size=(200, 8))
    assert Estimator(n_components="auto", kmax=2, random_state=0).fit(X).n_components_ == 2
    share = Estimator(n_components=0.9, kmax=2, random_state=0).fit(X)
    assert share.n_components_ == Estimator(n_components=0.9, random_state=0).fit(X).n_components_
    assert share.n_components_ > 2
