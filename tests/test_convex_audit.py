"""The convex estimators' reported attributes (an audit of PCP, outlier pursuit and
CRPCA-OM): the callback's mean, ``objective_history_`` with missing entries and with
clipped penalties, ``mu_``, float32 offsets with gaps, and ``truncated_power_method``'s
``n_nonzero``. The fitted arrays are not in question here, only what is reported."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustpca import ConvexOptimalMeanPCA, OutlierPursuit, PrincipalComponentPursuit
from robustpca.estimators._masked import MaskedFitMixin
from robustpca.solvers import StopReason, truncated_power_method
from robustpca.solvers.alm_observed import solve_observed
from robustpca.solvers.alm_schedule import DUALITY_GAP
from robustpca.solvers.alm_types import column_offset

CENTRED = [
    ConvexOptimalMeanPCA(random_state=0),
    PrincipalComponentPursuit(center=True, random_state=0),
    PrincipalComponentPursuit(center="median", random_state=0),
    OutlierPursuit(center=True, random_state=0),
]


def _nuclear(A: np.ndarray) -> float:
    return float(np.linalg.svd(A, compute_uv=False).sum())


def _l21(A: np.ndarray) -> float:
    return float(np.linalg.norm(A, axis=1).sum())


def _paper_objective(model, X: np.ndarray) -> float:
    """The paper's objective of the fit at ``(low_rank_, X - low_rank_)``, on the
    observed entries, with the reported ``lam_`` or ``gamma_``."""
    observed = ~np.isnan(X)
    E = np.where(observed, np.nan_to_num(X) - model.low_rank_, 0.0)
    Z = model.low_rank_ - model.mean_
    if isinstance(model, PrincipalComponentPursuit):
        return _nuclear(Z) + model.lam_ * float(np.abs(E).sum())
    return _l21(E) + model.gamma_ * _nuclear(Z)


def _offset_data(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(20, 3)) @ rng.normal(size=(3, 10)) + 10.0
    X[:2] += 5 * rng.normal(size=(2, 10))
    return X


def _outlier_data(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 20)) + 3.0
    X[:4] = 3 * rng.normal(size=(4, 20))
    return X


# ------------------------------------------------------------ bug 1: callback's mean
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("model", CENTRED, ids=["om", "pcp-mean", "pcp-median", "op-mean"])
def test_callback_mean_is_the_fitted_mean(model, missing):
    """``state.mean`` is the offset of the low-rank iterate, centre included: at the last
    iteration it is ``mean_`` (it omitted the centre on complete data)."""
    X = _offset_data()
    if missing:
        X[0, 0] = np.nan
    seen: list[np.ndarray] = []
    model = clone(model).set_params(callback=lambda it, state: seen.append(state.mean))
    model.fit(X)
    assert len(seen) == model.n_iter_
    np.testing.assert_allclose(seen[-1], model.mean_, rtol=0, atol=1e-12 * np.nanmax(np.abs(X)))


@pytest.mark.parametrize("model", CENTRED[:2] + CENTRED[3:], ids=["om", "pcp", "op"])
def test_callback_mean_on_dask(model):
    da = pytest.importorskip("dask.array")
    X = _offset_data()
    seen: list[np.ndarray] = []
    model = clone(model).set_params(callback=lambda it, state: seen.append(np.asarray(state.mean)))
    model.fit(da.from_array(X, chunks=(10, -1)))
    np.testing.assert_allclose(
        seen[-1], np.asarray(model.mean_), rtol=0, atol=1e-12 * np.abs(X).max()
    )


# ------------------------------------------- bug 2: the objective with missing entries
@pytest.mark.parametrize("cls", [OutlierPursuit, ConvexOptimalMeanPCA])
def test_observed_objective_is_the_papers(cls):
    """With gaps, outlier pursuit and CRPCA-OM record :math:`\\lVert E\\rVert_{2,1} +
    \\gamma\\lVert Z\\rVert_*` (it was divided by gamma), at the fit's feasible point."""
    X = _outlier_data()
    Xn = X.copy()
    Xn[5, 5] = np.nan
    full = cls(gamma=2.0, random_state=0).fit(X)
    miss = cls(gamma=2.0, random_state=0).fit(Xn)
    np.testing.assert_allclose(miss.objective_history_[-1], _paper_objective(miss, Xn), rtol=1e-9)
    # one entry less changes the optimum by little, not by a factor gamma
    assert abs(miss.objective_history_[-1] / full.objective_history_[-1] - 1) < 1e-2


@pytest.mark.parametrize("cls", [PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA])
@pytest.mark.parametrize("max_iter", [1, 3])
def test_observed_objective_at_the_feasible_point(cls, max_iter):
    """Every recorded value is the objective of the returned iterate, with the sparse
    part it leaves on the observed entries (not the shrunk ``S`` iterate), as on
    complete data."""
    X = _outlier_data()
    Xn = X.copy()
    Xn[5, 5] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for data in (X, Xn):
            model = cls(max_iter=max_iter, random_state=0).fit(data)
            assert model.n_iter_ == max_iter
            np.testing.assert_allclose(
                model.objective_history_[-1], _paper_objective(model, data), rtol=1e-9
            )


@pytest.mark.parametrize("cls", [PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA])
def test_observed_callback_objective_matches_history(cls):
    X = _outlier_data()
    X[5, 5] = np.nan
    seen: list[float] = []
    model = cls(random_state=0, callback=lambda it, state: seen.append(state.objective)).fit(X)
    np.testing.assert_allclose(seen, model.objective_history_, rtol=1e-14)


# ---------------------------------------------------- bug 3: float32 offsets with gaps
def test_observed_column_offset_accumulates_in_float64():
    rng = np.random.default_rng(10)
    X = (1e9 + rng.normal(size=(25, 12)) * 1e3).astype(np.float32)
    observed = rng.random(X.shape) > 0.15
    expected = np.where(observed, X.astype(np.float64), 0.0).sum(axis=0) / observed.sum(axis=0)
    offset = column_offset(X, True, observed)
    assert offset.dtype == np.float64
    np.testing.assert_array_equal(offset, expected)


@pytest.mark.parametrize("value", [0.1, 1e9])
@pytest.mark.parametrize(
    "model",
    [
        ConvexOptimalMeanPCA(random_state=0),
        OutlierPursuit(center=True, random_state=0),
        PrincipalComponentPursuit(center=True, random_state=0),
    ],
    ids=["om", "op", "pcp"],
)
def test_constant_float32_columns_with_gaps(model, value):
    """Constant columns with gaps: the offset is the constant, ``L = S = 0`` at once
    (no iteration, as on complete data), no spurious rank, no warning."""
    rng = np.random.default_rng(10)
    X = np.full((25, 12), value, dtype=np.float32)
    X[rng.random(X.shape) < 0.15] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = clone(model).fit(X)
    assert model.rank_ == 0
    assert model.n_iter_ == 0 and model.converged_
    assert model.stop_reason_ == StopReason.EXACT
    assert model.duality_gap_ == 0.0
    np.testing.assert_array_equal(model.objective_history_, [0.0])
    np.testing.assert_array_equal(model.mean_, np.float64(np.float32(value)))


def test_zero_observed_data_stop_at_once():
    X = np.zeros((6, 4))
    observed = np.ones(X.shape, dtype=bool)
    observed[0, 0] = False
    calls: list[int] = []
    result = solve_observed(
        X, observed, lam=0.5, rng=np.random.default_rng(0), callback=lambda i, s: calls.append(i)
    )
    assert result.n_iter == 0 and result.converged and not calls
    assert result.stop_reason == StopReason.EXACT
    np.testing.assert_array_equal(result.info["low_rank"], 0.0)
    np.testing.assert_array_equal(result.info["sparse"], 0.0)


# ------------------------------------------- bug 4: the objective of a clipped penalty
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize(
    "model",
    [
        PrincipalComponentPursuit(lam=1e-12, random_state=0),
        PrincipalComponentPursuit(lam=1e3, random_state=0),
        OutlierPursuit(gamma=1e-12, random_state=0),
        ConvexOptimalMeanPCA(gamma=1e-12, random_state=0),
    ],
    ids=["pcp-small", "pcp-large", "op-small", "om-small"],
)
def test_clipped_penalty_objective_uses_the_given_penalty(model, missing):
    """The solver runs with the penalty clipped to the same solution; the reported
    objective weighs the terms by ``lam_``/``gamma_``, the value given."""
    X = np.random.default_rng(0).normal(size=(15, 10))
    if missing:
        X[3, 4] = np.nan
    model = clone(model).fit(X)
    penalty = model.lam_ if isinstance(model, PrincipalComponentPursuit) else model.gamma_
    assert penalty == model.get_params().get("lam", model.get_params().get("gamma"))
    # the fit's own rounding (about 1e-14 in X - L) is not small beside such a value
    expected = _paper_objective(model, X)
    np.testing.assert_allclose(model.objective_history_[-1], expected, rtol=1e-3)


@pytest.mark.parametrize("cls", [PrincipalComponentPursuit, OutlierPursuit])
def test_clipped_penalty_objective_on_dask(cls):
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).normal(size=(40, 10))
    key = "lam" if cls is PrincipalComponentPursuit else "gamma"
    ref = cls(random_state=0, **{key: 1e-12}).fit(X)
    model = cls(random_state=0, **{key: 1e-12}).fit(da.from_array(X, chunks=(20, -1)))
    np.testing.assert_allclose(model.objective_history_, ref.objective_history_, rtol=1e-3)
    np.testing.assert_allclose(ref.objective_history_[-1], _paper_objective(ref, X), rtol=1e-3)


def test_penalty_clipping_is_documented():
    for cls in (PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA):
        doc = " ".join(cls.__doc__.split())
        assert "Penalties beyond the known range" in doc
        assert "penalty_range" in doc


# ------------------------------------------------ bug 5: mu_ and mu_max with missing data
@pytest.mark.parametrize("cls", [PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA])
def test_observed_mu_is_the_initial_penalty(cls):
    X = _outlier_data()
    X[0, 0] = np.nan
    assert cls(mu=0.01, random_state=0).fit(X).mu_ == 0.01
    auto = cls(random_state=0).fit(X)
    centred = cls is ConvexOptimalMeanPCA
    observed = ~np.isnan(X)
    Z = np.nan_to_num(X)
    if centred:
        Z = np.where(observed, Z - Z.sum(axis=0) / observed.sum(axis=0), 0.0)
    np.testing.assert_allclose(auto.mu_, 1.25 / np.linalg.norm(Z, 2), rtol=1e-12)


def test_observed_mu_max_auto_is_documented():
    """``mu_max='auto'`` with gaps is ``1e7 mu_0`` for all three problems, as documented
    (outlier pursuit's ``1e9 mu_0`` holds on complete data)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3)) @ rng.normal(size=(3, 12))
    observed = rng.random(X.shape) > 0.1
    kwargs = {"lam": 0.5, "row_sparse": True, "tol": 1e-14, "max_iter": 80}
    auto = solve_observed(X, observed, rng=np.random.default_rng(0), **kwargs)
    mu0 = auto.info["mu"]
    capped = solve_observed(X, observed, mu_max=1e7 * mu0, rng=np.random.default_rng(0), **kwargs)
    np.testing.assert_array_equal(auto.info["low_rank"], capped.info["low_rank"])
    assert "10^7\\mu_0` with missing entries" in " ".join(OutlierPursuit.__doc__.split())
    for cls in (PrincipalComponentPursuit, OutlierPursuit, ConvexOptimalMeanPCA):
        assert "10^7\\mu_0` for all three with missing entries" in " ".join(cls.__doc__.split())


# -------------------------------------------------- bug 6: truncated_power_method's k
def test_truncated_power_method_n_nonzero():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(6, 6))
    A = B @ B.T
    v0 = rng.normal(size=6)
    full = truncated_power_method(A, v0, 6)
    for k in (7, 100):
        capped = truncated_power_method(A, v0, k)
        np.testing.assert_array_equal(capped.solution, full.solution)
        np.testing.assert_allclose(capped.objective[-1], np.linalg.eigvalsh(A)[-1], rtol=1e-9)
    for k in (0, -1):
        with pytest.raises(ValueError, match="n_nonzero"):
            truncated_power_method(A, v0, k)


# ------------------------------------------------- bug 7: fit(mask=...)'s docstring
def test_mask_docstring_matches_the_stopping_rule():
    doc = " ".join(MaskedFitMixin.fit.__doc__.split())
    assert "complete data only" not in doc
    assert "gap_tol" in doc and "callback" in doc
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 3)) @ rng.normal(size=(3, 15))
    X[rng.random(X.shape) < 0.1] += 5
    mask = rng.random(X.shape) > 0.1
    calls: list[int] = []
    model = PrincipalComponentPursuit(random_state=0, callback=lambda i, s: calls.append(i))
    model.fit(X, mask=mask)
    assert model.stop_reason_ == DUALITY_GAP
    assert len(calls) == model.n_iter_
