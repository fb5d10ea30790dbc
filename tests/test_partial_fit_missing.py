"""partial_fit with missing entries (NaN) for PCA and the reweighting estimators.

The guarantees tested: a batch is completed at the anchor, so a later pass with
``new_pass=True`` is one iteration of the batch fit with missing entries from the fit at
its start (for PCA one EM step), the observed objective never increases from pass to
pass, and the passes reach the batch fit; a first batch with gaps starts from its own
fit on the observed entries; the stream API keeps its contracts with gaps.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.base import clone

from robustpca import HQPCA, PCA, OptimalMeanPCA
from robustpca.losses import L21Loss, RobustLoss, WelschLoss
from robustpca.metrics import projector_distance
from robustpca.solvers.missing import MissingPCAProblem, complete, observed_fit

from .conftest import SEEDS, load_table, occluded_faces, planted_outlier_data, random_gaps
from .test_partial_fit import projector_gap, stream


def with_gaps(X, share, seed=0, keep=1):
    """``X`` with a ``share`` of its cells NaN, every row keeping at least ``keep``
    entries."""
    Xm = X.copy()
    rng = np.random.default_rng(seed)
    mask = rng.random(X.shape) < share
    kept = np.argsort(rng.random(X.shape), axis=1)[:, :keep]  # random columns per row
    mask[np.arange(X.shape[0])[:, None], kept] = False
    Xm[mask] = np.nan
    return Xm


def observed_objective(X, model, loss) -> float:
    """The batch objective with missing entries, sum of rho(r_O) over the rows."""
    missing = np.isnan(X)
    return float(loss.rho(observed_fit(X, missing, model.mean_, model.components_)[2]).sum())


def one_batch_iteration(X, mean, components, loss):
    """One iteration of the batch fit with missing entries from ``(mean, components)``
    (:class:`MissingPCAProblem`): complete at it, weight by the loss at the observed
    residuals, weighted PCA (rows with at most k observed coordinates left out)."""
    missing = np.isnan(X)
    problem = MissingPCAProblem(X, missing, components.shape[0], np.random.default_rng(0))
    problem.X, r = complete(X, missing, mean, components)
    return problem.solve(loss.weights(r), residuals=False)


class SquaredLoss(RobustLoss):
    """PCA's loss, r^2 (unit weights)."""

    def rho(self, r):
        return r * r

    def weights(self, r):
        return np.ones_like(r)


CASES = [
    (PCA(2), SquaredLoss()),
    (OptimalMeanPCA(2, epsilon=1e-9), L21Loss(epsilon=1e-9)),
    (HQPCA(2, kernel_width=2.0), WelschLoss(kernel_width=2.0)),
]


@pytest.mark.parametrize(("estimator", "loss"), CASES, ids=["PCA", "OptimalMeanPCA", "HQPCA"])
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS)
def test_a_later_pass_is_one_batch_iteration_with_gaps(estimator, loss, seed):
    """With ``new_pass``, the fit at the end of a pass is one iteration of the batch fit
    with missing entries from the fit at its start, to rounding. 35% of the cells are
    missing on 6 columns, so some rows keep at most k = 2 (the rule that leaves them
    out is exercised); their residuals make the weights of the l2,1 loss span many
    orders of magnitude, hence a looser rounding bound than without gaps. The first pass
    sees the rows complete, so the first checked pass starts from a fit without gaps and
    the second from one with gaps (a first batch with gaps would start from its own EM
    fit, most of the time here: ``test_a_first_batch_with_gaps_starts_from_its_own_fit``
    tests that start)."""
    X, _, _ = planted_outlier_data(seed % 1000, n_samples=120, n_features=6, n_components=2)
    Xm = with_gaps(X, 0.35, seed)
    model = clone(estimator)
    stream(model, X, 4)
    for _ in range(2):
        start = (model.mean_.copy(), model.components_.copy())
        stream(model, Xm, 4, new_pass_first=True)
        expected = one_batch_iteration(Xm, *start, loss)
        assert projector_gap(model.components_, expected.basis().T) < 1e-5
        scale = np.nanmax(np.abs(Xm))
        np.testing.assert_allclose(model.mean_, expected.mean(), rtol=0, atol=1e-7 * scale)


@pytest.mark.parametrize(("estimator", "loss"), CASES, ids=["PCA", "OptimalMeanPCA", "HQPCA"])
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS)
def test_passes_never_increase_the_observed_objective(estimator, loss, seed):
    """Theorem 1 of Nie et al. (2014) with missing entries: each pass is a
    majorise-minimise step of the observed objective, which never increases from pass to
    pass. Every row keeps k + 1 entries: a row with at most k is fitted exactly only
    where its observed loadings are regular, and the batch rule that leaves it out
    assumes so. The first pass sees the rows complete (the step is a majorise-minimise
    one from any fit; a first batch with gaps would start from its own EM fit, most of
    the time here)."""
    X, _, _ = planted_outlier_data(seed % 1000, n_samples=120, n_features=6, n_components=2)
    Xm = with_gaps(X, 0.35, seed, keep=3)
    model = clone(estimator)
    stream(model, X, 4)
    objective = [observed_objective(Xm, model, loss)]
    for _ in range(3):
        stream(model, Xm, 4, new_pass_first=True)
        objective.append(observed_objective(Xm, model, loss))
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(objective)), objective


@pytest.mark.parametrize("Estimator", [OptimalMeanPCA, HQPCA])
def test_passes_reach_the_batch_fit_through_outliers_and_gaps(Estimator):
    """15% planted outliers and 20% of the cells missing: the passes approach the batch
    fit with the same gaps, and recover the planted subspace."""
    X, basis, _ = planted_outlier_data(0, n_samples=600, n_features=20)
    Xm = with_gaps(X, 0.2)
    batch = Estimator(3, random_state=0).fit(Xm)
    after = stream(Estimator(3, random_state=0), Xm, 6, n_passes=6)
    gaps = [projector_distance(c, batch.components_) for c in after]
    assert gaps[-1] < 1e-2 and gaps[-1] < gaps[0]
    assert projector_distance(after[-1], basis.T) < 0.2
    assert projector_distance(PCA(3).fit(X).components_, basis.T) > 0.5  # PCA breaks


def test_a_first_batch_with_gaps_starts_from_its_own_fit():
    """One batch with gaps: PCA's stream is PCA's fit on the observed entries (EM), and
    a reweighting estimator's weights are those of that fit."""
    X, _, _ = planted_outlier_data(1, n_samples=200, n_features=10, outlier_fraction=0.0)
    Xm = with_gaps(X, 0.2)
    stream_fit = PCA(3, random_state=0).partial_fit(Xm)
    batch = PCA(3, random_state=0).fit(Xm)
    assert projector_gap(stream_fit.components_, batch.components_) < 1e-6
    # the stream completes the batch with the fit's components (the completion's axes,
    # within the EM's tolerance of its last iterate): the means agree to that tolerance
    np.testing.assert_allclose(stream_fit.mean_, batch.mean_, atol=1e-5)
    hq = HQPCA(3, random_state=0).partial_fit(Xm)
    assert np.isfinite(hq.weights_).all() and hq.residuals_.shape == (200,)


def test_complete_batches_then_gaps():
    """A stream that starts complete takes gaps later, and its fit stays on the
    planted subspace; the attributes count the missing entries seen."""
    X, basis, _ = planted_outlier_data(2, n_samples=400, n_features=12, outlier_fraction=0.1)
    Xm = X.copy()
    Xm[200:] = with_gaps(X[200:], 0.3)
    model = OptimalMeanPCA(3, random_state=0)
    for rows in np.array_split(np.arange(400), 4):
        model.partial_fit(Xm[rows])
    assert model.n_missing_ == int(np.isnan(Xm).sum())
    assert model.n_samples_seen_ == 400
    assert projector_distance(model.components_, basis.T) < 0.2


@pytest.mark.parametrize("estimator", [PCA(2), OptimalMeanPCA(2), HQPCA(2)], ids=repr)
def test_the_stream_api_with_gaps(estimator):
    """Inputs never modified; float32 kept; the outlier API scores rows with gaps on
    their observed coordinates with finite values; an empty row is named; a sample
    weight works with gaps."""
    X, _, _ = planted_outlier_data(3, n_samples=90, n_features=6, n_components=2)
    Xm = with_gaps(X, 0.25).astype(np.float32)
    copy = Xm.copy()
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rows in np.array_split(np.arange(90), 3):
            model.partial_fit(Xm[rows], sample_weight=np.full(rows.size, 2.0))
        scores = model.decision_function(Xm)
        labels = model.predict(Xm)
    np.testing.assert_array_equal(Xm, copy)  # NaN in the same places, the rest unchanged
    assert model.components_.dtype == np.float32
    assert np.isfinite(scores).all() and set(np.unique(labels)) <= {-1, 1}
    assert np.isfinite(model.transform(Xm)).all()
    empty = Xm[:5].copy()
    empty[2] = np.nan
    with pytest.raises(ValueError, match=r"no observed entry.*row\(s\) 2"):
        model.partial_fit(empty)
    assert model.n_samples_seen_ == 90


# -- real data -----------------------------------------------------------------------------


@pytest.mark.realdata
def test_faces_with_gaps_passes_lower_the_observed_objective(orl):
    """The occluded AT&T faces with a fifth of the pixels removed, in four batches: each
    pass of OptimalMeanPCA lowers the observed l2,1 objective, which ends within 0.2% of
    the batch fit's (the objective is flat across the subspaces near its minimum, so
    the subspaces are not compared)."""
    X, _ = occluded_faces(orl)
    X = X[np.random.default_rng(0).permutation(X.shape[0])]
    Xm = with_gaps(X, 0.2, seed=1)
    loss = L21Loss(epsilon=0.0)
    batch = observed_objective(Xm, OptimalMeanPCA(10, random_state=0).fit(Xm), loss)
    model = OptimalMeanPCA(10, random_state=0)
    objective = []
    for _ in stream(model, Xm, 4, n_passes=4):
        objective.append(observed_objective(Xm, model, loss))
    assert all(b <= a for a, b in itertools.pairwise(objective)), objective
    assert objective[-1] < 1.002 * batch


@pytest.mark.realdata
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("Estimator", [OptimalMeanPCA, HQPCA])
def test_hbk_with_gaps_streamed_flags_the_documented_outliers(shared_data, seed, Estimator):
    """rrcov's hbk with a tenth of its cells removed, streamed in
    three batches over ten passes: the 14 documented outliers are all flagged, as by the
    batch fit with the same gaps."""
    Xm, _ = random_gaps(load_table(shared_data, "hbk"), seed)
    model = Estimator(2, random_state=0)
    for p in range(10):
        for i, rows in enumerate(np.array_split(np.arange(Xm.shape[0]), 3)):
            model.partial_fit(Xm[rows], new_pass=p > 0 and i == 0)
    flagged = set(np.flatnonzero(model.predict(Xm) == -1) + 1)
    assert set(range(1, 15)) <= flagged
    assert set(range(1, 15)) <= set(np.flatnonzero(Estimator(2).fit(Xm).predict(Xm) == -1) + 1)


def _first_batches():
    X = np.random.default_rng(0).normal(size=(10, 5))
    one = X[:1].copy()
    one[0, 2] = np.nan
    column = X.copy()
    column[:, 3] = np.nan  # a feature the first batch never sees
    sparse = with_gaps(X, 0.7)
    constant = np.ones((10, 5))
    constant[0, 1] = np.nan
    return {"one row": one, "empty column": column, "70% missing": sparse, "constant": constant}


@pytest.mark.parametrize("name", list(_first_batches()))
@pytest.mark.parametrize("estimator", [PCA(2), OptimalMeanPCA(2), HQPCA(2)], ids=repr)
def test_degenerate_first_batches_with_gaps_give_no_nan(estimator, name):
    """A first batch of one row, with a feature never seen, mostly missing, or
    constant: later batches with gaps fit, and every output is finite, with no warning."""
    first = _first_batches()[name]
    later = with_gaps(np.random.default_rng(1).normal(size=(30, 5)), 0.3)
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.partial_fit(first).partial_fit(later)
        outputs = [model.decision_function(later), model.transform(later), model.score(later)]
    for value in [model.components_, model.mean_, *outputs]:
        assert np.isfinite(value).all()


@pytest.mark.parametrize("name", ["OptimalMeanPCA", "HQPCA"])
def test_a_first_batch_with_gaps_drops_its_rows_of_weight_zero(name):
    """A row of weight 0 is no row: the robust start of a first batch with gaps took no
    weights, and 8 gross outliers of weight 0 moved the fit (projector 0.4 off)."""
    import robustpca

    rng = np.random.default_rng(0)
    B = np.linalg.qr(rng.normal(size=(6, 2)))[0]
    X = 3 + rng.normal(size=(40, 2)) * 4 @ B.T + 0.1 * rng.normal(size=(40, 6))
    rng = np.random.default_rng(1)
    X[:8] = 50 * rng.normal(size=(8, 6))
    X[rng.random(X.shape) < 0.1] = np.nan
    w = np.r_[np.zeros(8), np.ones(32)]
    cls = getattr(robustpca, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = cls(n_components=2).partial_fit(X, sample_weight=w)
        dropped = cls(n_components=2).partial_fit(X[8:])
    P = weighted.components_.T @ weighted.components_
    Q = dropped.components_.T @ dropped.components_
    np.testing.assert_allclose(P, Q, atol=1e-10)
    np.testing.assert_allclose(weighted.mean_, dropped.mean_, atol=1e-9)
