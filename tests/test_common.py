"""Every public estimator passes scikit-learn's estimator checks and shares the contract."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import robustpca
from robustpca.diagnostics import outlier_diagnostics

ESTIMATORS = [getattr(robustpca, name)() for name in robustpca.ESTIMATOR_NAMES]
#: The linear subspace estimators: components_ live in feature space (KernelL21PCA's live
#: in its kernel embedding and it has no inverse_transform; tests/test_kernel_l21.py).
LINEAR = [e for e in ESTIMATORS if e._linear_model]
#: Estimators whose method needs more samples than features (the MCD of CovariancePCA);
#: on wide data they raise a ValueError saying so (test_tall_only_estimators_refuse_wide).
TALL_ONLY = {"CovariancePCA"}


def _refuses_wide(estimator, n, d) -> bool:
    """True (after checking the error) where the estimator cannot fit an n x d matrix."""
    if type(estimator).__name__ not in TALL_ONLY or n > d + 1:
        return False
    with pytest.raises(ValueError, match="n_samples > n_features"):
        estimator.set_params(n_components=3).fit(np.ones((n, d)))
    return True


def check_instance(name):
    """An instance for the common checks: 2 components (the default, all components, is
    data-shape dependent, which the weighted-vs-repeated-rows check cannot allow), and
    ``contamination=0.1`` (EllipticEnvelope's default): scikit-learn's outlier checks
    want some of their 300 blob samples flagged, and rrcov's cutoffs (``"auto"``) flag
    none of three compact blobs for half the estimators, as they should; the checks then
    test that exactly 10% are flagged. ``"auto"`` is tested in tests/test_outlier_api.py."""
    estimator = getattr(robustpca, name)(n_components=2)
    if "contamination" in estimator.get_params():
        estimator.set_params(contamination=0.1)
    return _seeded(estimator, 0)


def _seeded(estimator, seed):
    """Set ``random_state`` where the estimator has one (deterministic ones have none)."""
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=seed)
    return estimator


@parametrize_with_checks([check_instance(name) for name in robustpca.ESTIMATOR_NAMES])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", LINEAR, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(("n", "d"), [(40, 7), (12, 30)])
def test_fitted_attribute_contract(estimator, n, d):
    if _refuses_wide(estimator, n, d):
        return
    X = np.random.default_rng(0).normal(size=(n, d))
    X_copy = X.copy()
    model = _seeded(estimator.set_params(n_components=3), 0).fit(X)
    np.testing.assert_array_equal(X, X_copy)  # never modified in place
    assert model.components_.shape == (3, d)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(3), atol=1e-10)
    assert model.mean_.shape == (d,)
    assert model.n_features_in_ == d and model.n_components_ == 3
    assert isinstance(model.n_iter_, int) and model.n_iter_ >= 1
    assert isinstance(model.converged_, bool)
    assert model.objective_history_.ndim == 1 and len(model.objective_history_) >= 1
    assert np.isfinite(model.objective_history_).all()
    Z = model.transform(X)
    assert Z.shape == (n, 3)
    err = model.reconstruction_error(X)
    np.testing.assert_allclose(
        err, np.linalg.norm(X - model.inverse_transform(Z), axis=1), atol=1e-10
    )
    # the outlier-detector contract (estimators/_outlier_api.py): the outlyingness in
    # units of the training cutoffs, and the decision its translate by offset_
    outlyingness = outlier_diagnostics(model, X).outlyingness
    np.testing.assert_array_equal(model.score_samples(X), -outlyingness)
    assert model.offset_ == -1.0  # contamination="auto": rrcov's cutoffs
    np.testing.assert_array_equal(model.decision_function(X), 1.0 - outlyingness)
    np.testing.assert_array_equal(model.predict(X) == -1, outlier_diagnostics(model, X).outliers)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_random_state_reproducible(estimator):
    X = np.random.default_rng(1).normal(size=(10, 20))
    if type(estimator).__name__ in TALL_ONLY:
        X = np.random.default_rng(1).normal(size=(40, 12))
    a = _seeded(estimator.set_params(n_components=10), 4).fit(X).components_
    b = _seeded(estimator.set_params(n_components=10), 4).fit(X).components_
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("bad", [0, -1, 9])
def test_n_components_out_of_range(estimator, bad):
    X = np.random.default_rng(2).normal(size=(8, 12))
    with pytest.raises(ValueError, match="n_components"):
        estimator.set_params(n_components=bad).fit(X)


@pytest.mark.parametrize("estimator", LINEAR, ids=lambda e: type(e).__name__)
def test_inverse_transform_refuses_what_is_not_real_and_finite(estimator):
    """Complex coordinates lost their imaginary part and NaN or infinity passed through
    to the output; they are errors, as in scikit-learn's PCA."""
    X = np.random.default_rng(3).normal(size=(30, 5))
    model = estimator.set_params(n_components=2).fit(X)
    for bad, match in [
        (np.array([[1 + 5j, 2 - 3j]]), "real numbers"),
        (np.array([["a", "b"]]), "real numbers"),
        (np.array([[np.nan, 0.0]]), "NaN or infinity"),
        (np.array([[np.inf, 0.0]]), "NaN or infinity"),
    ]:
        with pytest.raises(ValueError, match=match):
            model.inverse_transform(bad)
    np.testing.assert_allclose(  # integer coordinates are numbers
        model.inverse_transform(np.array([[1, 2]])), model.inverse_transform([[1.0, 2.0]])
    )
    from scipy import sparse

    with pytest.raises(TypeError, match="Sparse data"):  # as for transform
        model.inverse_transform(sparse.csr_matrix(np.ones((3, 2))))


@pytest.mark.parametrize("name", robustpca.ESTIMATOR_NAMES)
def test_a_dataframe_fit_warns_of_nothing(name):
    """A DataFrame fit with a share ``contamination`` rescored its training rows as a
    NumPy array, and scikit-learn warned that X had no feature names (every estimator;
    KernelL21PCA at its defaults too)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(40, 5)), columns=list("abcde"))
    for params in ({}, {"contamination": 0.1}):
        estimator = _seeded(getattr(robustpca, name)(n_components=2), 0)
        if "contamination" not in estimator.get_params() and params:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            model = estimator.set_params(**params).fit(X)
            model.predict(X)
        assert list(model.feature_names_in_) == list("abcde")


@pytest.mark.parametrize("contamination", ["auto", 0.1])
def test_a_skewed_robpca_dataframe_fit_warns_of_nothing(shared_data, contamination):
    """The skewed score distances of the training rows were computed from the validated
    array, and scikit-learn warned at fit that X had no feature names (rrcov's hbk)."""
    pd = pytest.importorskip("pandas")
    X = pd.read_csv(shared_data / "rrcov" / "hbk.csv")
    model = robustpca.ROBPCA(skew=True, contamination=contamination, random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        model.fit(X).predict(X)
    assert list(model.feature_names_in_) == list(X.columns)


@pytest.mark.parametrize("name", robustpca.ESTIMATOR_NAMES)
def test_an_array_after_a_dataframe_fit_warns_once(name):
    """scikit-learn's warning that X has no feature names came twice from every scoring
    method (X was validated once per distance, and rows with gaps were fitted twice);
    its results are those of transform and reconstruction_error."""
    import pandas as pd

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 5))
    model = _seeded(getattr(robustpca, name)(n_components=2), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(pd.DataFrame(X, columns=list("abcde")))
    methods = ["score_samples", "predict", "decision_function", "score", "mahalanobis"]
    for method in [m for m in methods if hasattr(model, m)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(model, method)(X)
        said = [w for w in caught if "feature names" in str(w.message)]
        assert len(said) == 1, (method, [str(w.message) for w in caught])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, od = model._transform_and_distances(X)
        np.testing.assert_array_equal(scores, model.transform(X))
        np.testing.assert_array_equal(od, model.reconstruction_error(X))


@pytest.mark.parametrize("name", sorted(TALL_ONLY))
def test_tall_only_estimators_refuse_wide(name):
    with pytest.raises(ValueError, match="n_samples > n_features"):
        getattr(robustpca, name)(n_components=2).fit(np.ones((10, 20)))


def test_every_public_estimator_is_listed():
    """ESTIMATOR_NAMES drives these tests and the docs: a new estimator must be in it."""
    from sklearn.base import BaseEstimator

    exported = {
        n
        for n in robustpca.__all__
        if isinstance(getattr(robustpca, n), type)
        and issubclass(getattr(robustpca, n), BaseEstimator)
    }
    assert exported == set(robustpca.ESTIMATOR_NAMES)


def test_every_estimator_is_exported_at_the_top_level():
    """``robustpca.__all__`` is built from ESTIMATOR_NAMES: a new estimator class must be
    listed there to be part of the top-level API, the common checks and the CLI."""
    public = set(robustpca.estimators.__all__) - {"BaseSubspaceEstimator"}
    assert public == set(robustpca.ESTIMATOR_NAMES)
    assert public <= set(robustpca.__all__)
