"""Rows fitted exactly
(:func:`robustpca.solvers.informative_coordinates.rows_fitted_exactly`): a row with at
most ``k`` observed entries has a zero observed residual for almost every subspace, so
its term of the objective is a constant and the weighted steps leave it out (the
arithmetic-mean-centred methods fit the other rows alone). Before, the EM completion of
such rows pinned the subspace: on rrcov's hbk (3 columns, ``k = 2``) with a tenth of its
cells missing, RPCA-OM had not converged in 5,000 iterations, PCA's EM ran for its 500
with a mean far outside the data (-19.5 in a column whose values lie between 0 and 10),
and R1-PCA and PCA-L21 stopped at ``max_iter`` with means outside the data too."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca import L1PCA, L21PCA, PCA, R1PCA, AdaptiveNeighborsPCA, OptimalMeanPCA
from robustpca.estimators._generalized_mean import GeneralizedMeanPCA
from robustpca.estimators._hq import HQPCA
from robustpca.solvers.informative_coordinates import rows_fitted_exactly
from robustpca.solvers.missing import MissingPCAProblem

from .conftest import load_table, random_gaps


def _sine(A, B) -> float:
    return float(np.sin(subspace_angles(A.T, B.T).max()))


@pytest.fixture(scope="module")
def hbk(shared_data):
    return np.loadtxt(shared_data / "rrcov" / "hbk.csv", delimiter=",", skiprows=1)


def _one_cell_out(X, n_rows, seed=0):
    """``X`` with one cell removed from each of ``n_rows`` rows (``d - 1`` observed:
    fitted exactly when ``k = d - 1``), and the indices of the complete rows."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(X.shape[0], n_rows, replace=False)
    Xm = X.copy()
    Xm[rows, rng.integers(0, X.shape[1], n_rows)] = np.nan
    return Xm, np.setdiff1d(np.arange(X.shape[0]), rows)


def test_rows_fitted_exactly_are_those_with_at_most_k_observed_entries():
    missing = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 0, 1]], dtype=bool)
    np.testing.assert_array_equal(rows_fitted_exactly(missing, 2), [0, 1, 1, 1])
    np.testing.assert_array_equal(rows_fitted_exactly(missing, 1), [0, 0, 1, 1])
    np.testing.assert_array_equal(rows_fitted_exactly(missing, 0), [0, 0, 0, 0])


@pytest.mark.realdata
@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA], ids=lambda c: c.__name__)
def test_rows_fitted_exactly_change_nothing_of_the_fit(hbk, cls):
    """hbk with one cell removed from 20 rows: PCA (closed form) and RPCA-OM (run to
    convergence) find the subspace of the 55 complete rows alone, the mean on it: the
    20 rows' constant terms take no part (for PCA to rounding, in 2 EM iterations)."""
    Xm, complete = _one_cell_out(hbk, 20)
    kw = {} if cls is PCA else {"tol": 1e-10, "max_iter": 1000}
    with_gaps = cls(2, random_state=0, **kw).fit(Xm)
    alone = cls(2, random_state=0, **kw).fit(hbk[complete])
    assert with_gaps.converged_
    assert _sine(with_gaps.components_, alone.components_) < (1e-12 if cls is PCA else 1e-7)
    off = with_gaps.mean_ - alone.mean_
    off_plane = off - alone.components_.T @ (alone.components_ @ off)
    assert np.linalg.norm(off_plane) < 1e-6
    if cls is PCA:
        assert with_gaps.n_iter_ <= 3
        np.testing.assert_allclose(with_gaps.mean_, hbk.mean(axis=0), atol=5.0)


@pytest.mark.realdata
@pytest.mark.parametrize("seed", [0, 1, 3])
def test_hbk_with_random_gaps_converges_and_flags_its_outliers(hbk, seed):
    """A tenth of hbk's cells removed at random, a fifth for seed 3 (15-36 rows keep at
    most 2 of their 3 entries): the default RPCA-OM converges before max_iter (it ran
    past 5,000 before), its objective never increases, the rows fitted exactly keep a
    zero observed residual, and the 14 documented outliers are flagged."""
    Xm, mask = random_gaps(hbk, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = OptimalMeanPCA(2, random_state=0).fit(Xm)
    assert model.converged_ and model.n_iter_ < 100
    history = np.asarray(model.objective_history_)
    assert np.all(np.diff(history) <= 1e-12 * history[:-1])
    exact = rows_fitted_exactly(mask, 2)
    assert exact.sum() >= 15
    np.testing.assert_allclose(model.residuals_[exact], 0.0, atol=1e-9)
    assert (model.predict(Xm)[:14] == -1).all()


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(12, 60),
    d=st.integers(2, 5),
    rate=st.floats(0.02, 0.3),
    cls=st.sampled_from([PCA, OptimalMeanPCA, HQPCA, GeneralizedMeanPCA, AdaptiveNeighborsPCA]),
)
def test_the_step_leaves_out_the_rows_fitted_exactly(seed, n, d, rate, cls):
    """With ``k = d - 1``, on data whose rows lose cells at random: the fit has no NaN,
    the rows fitted exactly keep a zero observed residual, and RPCA-OM's observed
    objective never increases."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 5.0
    X[: n // 10] += 20.0 * rng.normal(size=(n // 10, d))
    missing = rng.random(X.shape) < rate
    missing[missing.all(axis=1), 0] = False
    k = d - 1
    assume((~missing).sum() > d + k * (d - k) + n * k)  # else refused: too few entries
    Xm = X.copy()
    Xm[missing] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = cls(k, random_state=0).fit(Xm)
    for name in ("components_", "mean_"):
        assert np.isfinite(getattr(model, name)).all()
    assert np.isfinite(model.transform(Xm)).all()
    if cls is OptimalMeanPCA:
        exact = rows_fitted_exactly(missing, k)
        np.testing.assert_allclose(model.residuals_[exact], 0.0, atol=1e-8)
        history = np.asarray(model.objective_history_)
        assert np.all(np.diff(history) <= 1e-10 * history[:-1])


def test_the_step_keeps_every_weight_where_no_other_row_has_one():
    """Every row fitted exactly, or every other row at weight 0 (a capped loss): the
    step is the weighted step of the given weights, as before."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    missing = np.zeros(X.shape, dtype=bool)
    missing[np.arange(30), rng.integers(0, 3, 30)] = True  # every row: 2 of 3 observed
    w = rng.random(30)
    problem = MissingPCAProblem(X, missing, 2, np.random.default_rng(0))
    reference = MissingPCAProblem(X, missing, 2, np.random.default_rng(0))
    reference._left_out = None
    np.testing.assert_allclose(problem.solve(w).basis(), reference.solve(w).basis(), atol=1e-12)
    missing[10:] = False  # rows 10-29 complete, their weights 0: all the weight is left out
    w[10:] = 0.0
    problem = MissingPCAProblem(X, missing, 2, np.random.default_rng(0))
    assert problem._left_out is not None
    sub = problem.solve(w)
    assert np.isfinite(sub.basis()).all() and np.isfinite(sub.mean()).all()
    model = OptimalMeanPCA(2, loss="capped", threshold=1e-9, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Xm = X.copy()
        Xm[missing] = np.nan
        model.fit(Xm)
    assert np.isfinite(model.components_).all()


@pytest.mark.realdata
@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA], ids=lambda c: c.__name__)
def test_the_dask_route_leaves_them_out_too(hbk, cls):
    """The tall dask route runs the same loop in passes: on hbk with 20 rows fitted
    exactly it finds the in-memory subspace, and PCA's explained variance is every
    row's, as in memory."""
    da = pytest.importorskip("dask.array")
    Xm, _ = _one_cell_out(hbk, 20)
    kw = {} if cls is PCA else {"tol": 1e-10, "max_iter": 1000}
    memory = cls(2, random_state=0, **kw).fit(Xm)
    chunked = cls(2, random_state=0, **kw).fit(da.from_array(Xm, chunks=(25, 3)))
    assert _sine(chunked.components_, memory.components_) < 1e-6
    if cls is PCA:
        np.testing.assert_allclose(
            chunked.explained_variance_, memory.explained_variance_, rtol=1e-6
        )
        np.testing.assert_allclose(chunked.mean_, memory.mean_, rtol=1e-6)


@pytest.mark.realdata
@pytest.mark.parametrize("seed", [0, 1, 3])
@pytest.mark.parametrize("cls", [R1PCA, L21PCA, L1PCA], ids=lambda c: c.__name__)
def test_the_centred_methods_fit_the_informative_rows(hbk, cls, seed):
    """R1-PCA, PCA-L21 and PCA-L1 (arithmetic-mean-centred EM) on hbk with random gaps:
    the fit is that of the rows not fitted exactly, it converges, its mean lies within
    the data's range, and R1-PCA's per-row attributes cover every row (residual 0 and
    the loss's weight at 0 for the rows left out). Before, R1-PCA ran to its 300
    iterations on all three masks and PCA-L21 to its 500 on two, with means outside."""
    Xm, mask = random_gaps(hbk, seed)
    exact = rows_fitted_exactly(mask, 2)
    assert 0 < exact.sum() < len(hbk)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = cls(2, random_state=0).fit(Xm)
        alone = cls(2, random_state=0).fit(Xm[~exact])
    assert model.converged_
    assert _sine(model.components_, alone.components_) < 1e-10
    np.testing.assert_allclose(model.mean_, alone.mean_, rtol=1e-12)
    assert np.all((model.mean_ >= hbk.min(axis=0)) & (model.mean_ <= hbk.max(axis=0)))
    if cls is R1PCA:
        assert model.weights_.shape == model.residuals_.shape == (len(hbk),)
        np.testing.assert_array_equal(model.residuals_[exact], 0.0)
        np.testing.assert_allclose(model.residuals_[~exact], alone.residuals_, atol=1e-9)
        assert np.all(model.weights_[exact] >= model.weights_[~exact].max())


#: every estimator that fits missing entries at a given rank (the convex programs have none)
_EVERY_ROW_EXACT = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if getattr(robustpca, name)._supports_missing
    and "n_components" in getattr(robustpca, name)().get_params()
    and name not in {"PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA"}
    # the imputation EM of the rrcov methods (estimators/_rrcov_common.py) can cycle with
    # the discrete h-subset; ROBPCA does on bushfire here, as its docstring says at k = 2
    and name != "ROBPCA"
]


@pytest.mark.realdata
@pytest.mark.parametrize("name", _EVERY_ROW_EXACT)
@pytest.mark.parametrize("table", ["hbk", "bushfire"])
def test_every_row_fitted_exactly_stops_at_the_first_iteration(shared_data, table, name):
    """At ``k = p`` every row is fitted exactly, so the observed residuals are 0. They came
    out as rounding (up to 7 ``eps`` of a row's norm): PCA's EM compared objectives of
    1e-25 and ran to its 500 iterations on hbk (mask 0) and bushfire (masks 1-3), and
    R1-PCA's Huber weights became ratios of rounding errors (300 iterations on both
    tables). Four masks each, warnings as errors, every transform finite; PCA and R1-PCA
    stop at their first iteration with residuals exactly 0."""
    X = load_table(shared_data, table)
    cls = getattr(robustpca, name)
    kwargs = {"n_components": X.shape[1]}
    if "random_state" in cls().get_params():
        kwargs["random_state"] = 0
    for seed in range(4):
        Xm, _ = random_gaps(X, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            # PCA-GM's centring (Algorithm 1 by EM on the gaps, at any k) is not what is
            # tested here; on hbk's mask 0 it takes more than 100 iterations, and says so
            warnings.filterwarnings("ignore", "The generalized sample mean", ConvergenceWarning)
            model = cls(**kwargs).fit(Xm)
        assert np.isfinite(model.transform(Xm)).all()
        if name in ("PCA", "R1PCA"):
            assert model.n_iter_ == 1
            np.testing.assert_array_equal(model.reconstruction_error(Xm), 0.0)
