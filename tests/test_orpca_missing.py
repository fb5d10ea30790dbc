"""OnlineRobustPCA with missing entries (Mardani, Mateos & Giannakis 2015): the split on
the observed coordinates, the per-feature basis step, the surrogate bound, planted
recovery, the stream API with gaps, and a real clip with pixels removed."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.solvers.orpca import ORPCAState, orpca_project, orpca_update
from robustpca.solvers.orpca_observed import orpca_project_observed, orpca_update_observed

from .conftest import projector
from .test_online_rpca import best_f_measure, load_highway, planted_stream

EXACT = {"max_iter": 20000, "tol": 1e-13}


def _state(L, A=None, lambda1=0.5, lambda2=0.3):
    r = L.shape[1]
    return ORPCAState(
        basis=L.copy(),
        A=np.eye(r) * 2.0 if A is None else A,
        B=L * 2.0,
        c=1.0,
        weight=2.0,
        lambda1=lambda1,
        lambda2=lambda2,
    )


def _observed_loss(z, seen, L, lambda1, lambda2):
    """l_Omega(z, L) by the split on the observed coordinates."""
    step = orpca_project_observed(z[None], seen[None], L, lambda1, lambda2, **EXACT)
    r, e, c = step.coefficients[0], step.sparse[0], step.clipped[0]
    ridge = lambda1 * np.sqrt(seen.sum() / seen.size)  # the ridge on the entries seen
    return 0.5 * c @ c + 0.5 * ridge * r @ r + lambda2 * np.abs(e).sum()


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_every_entry_observed_is_orpca(rank):
    """With no gap the split and the update are OR-PCA's own."""
    rng = np.random.default_rng(rank)
    Z = rng.normal(size=(40, 15)) + np.where(rng.random((40, 15)) < 0.1, 8.0, 0.0)
    L = rng.normal(size=(15, rank))
    seen = np.ones(Z.shape, dtype=bool)
    ours = orpca_project_observed(Z, seen, L, 0.7, 0.4, **EXACT)
    theirs = orpca_project(Z, L, 0.7, 0.4, **EXACT)
    np.testing.assert_allclose(ours.coefficients, theirs.coefficients, atol=1e-8)
    np.testing.assert_allclose(ours.sparse, theirs.sparse, atol=1e-7)
    a, _, loss_a = orpca_update_observed(_state(L), Z, seen, forgetting=0.97, **EXACT)
    b, _, loss_b = orpca_update(_state(L), Z, forgetting=0.97, **EXACT)
    np.testing.assert_allclose(a.basis, b.basis, atol=1e-8)
    np.testing.assert_allclose([a.c, loss_a], [b.c, loss_b], rtol=1e-9)
    np.testing.assert_allclose(a.A_rows, np.broadcast_to(b.A, a.A_rows.shape), atol=1e-9)
    assert a.surrogate() == pytest.approx(b.surrogate(), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rank=st.integers(1, 3),
    share=st.floats(0.0, 0.8),
    lambda1=st.floats(0.3, 5.0),
    lambda2=st.floats(0.3, 3.0),
)
def test_split_is_the_minimiser_on_the_observed_entries(seed, rank, share, lambda1, lambda2):
    """Each row's coefficients satisfy the optimality condition of its problem on the
    observed coordinates, lambda_O r = L_O' psi(z_O - L_O r) (psi the clipping at
    lambda2, lambda_O = lambda1 sqrt(|O| / p)); the low-rank part fills every entry and
    the sparse part is zero at the gaps, whatever is stored there. (Algorithm 2 is
    block-coordinate descent, linear at the rate of the clipped entries' share of the
    basis's energy against lambda1: a tiny lambda1 with most entries clipped would need
    more iterations than this test runs.)"""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(12, 9)) * 3
    L = rng.normal(size=(9, rank))
    seen = rng.random(Z.shape) >= share
    Z_gaps = np.where(seen, Z, np.nan)
    step = orpca_project_observed(Z_gaps, seen, L, lambda1, lambda2, **EXACT)
    R = step.coefficients
    residual = np.where(seen, Z - R @ L.T, 0.0)
    ridge = lambda1 * np.sqrt(seen.sum(axis=1) / seen.shape[1])
    gradient = ridge[:, None] * R - np.clip(residual, -lambda2, lambda2) @ L
    assert np.abs(gradient).max() <= 1e-7 * (1 + np.abs(Z).max() * np.abs(L).max())
    np.testing.assert_allclose(step.low_rank, R @ L.T, atol=1e-12)
    assert np.all(step.sparse[~seen] == 0) and np.all(step.clipped[~seen] == 0)
    np.testing.assert_allclose(step.sparse + step.clipped, residual, atol=1e-12)
    assert np.isfinite(step.low_rank).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rank=st.integers(1, 3), share=st.floats(0.0, 0.7))
def test_basis_step_minimises_the_per_feature_surrogate(seed, rank, share):
    """The update adds each row's coefficients to the statistics of the features it
    observes only, and each row of the new basis solves (A_j + lambda1 I) L_j = B_j, so
    the surrogate is no larger there than at the basis before the update."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(10, rank))
    state = _state(L)
    Z = rng.normal(size=(16, 10)) * 2
    seen = rng.random(Z.shape) >= share
    before, B0, decay = L.copy(), state.B.copy(), 0.9**16
    state, step, _ = orpca_update_observed(state, np.where(seen, Z, np.nan), seen, forgetting=0.9)
    R, fitted = step.coefficients, np.where(seen, Z - step.sparse, 0.0)
    A_rows = decay * 2.0 * np.eye(rank) + np.einsum("ij,ik,im->jkm", seen, R, R)
    np.testing.assert_allclose(state.A_rows, A_rows, atol=1e-10)
    np.testing.assert_allclose(state.B, decay * B0 + fitted.T @ R, atol=1e-10)
    lhs = np.einsum("jkm,jm->jk", state.A_rows + state.lambda1 * np.eye(rank), state.basis)
    np.testing.assert_allclose(lhs, state.B, atol=1e-9 * (1 + np.abs(state.B).max()))
    assert state.surrogate() <= state.surrogate(before) + 1e-12 * abs(state.surrogate(before))


@pytest.mark.parametrize("missing", [0.8, 0.95])
def test_a_sample_seen_on_few_entries_keeps_its_level(missing):
    """A rank-one stream at level 100-150 with noise 2, most entries missing. With the
    paper's ridge, the same lambda1 whatever a sample shows, the clipped residuals of 100
    observed entries could not balance a ridge sized for 2,000: the coefficients were
    capped, the scale estimate followed them up, and at 95% missing the background was
    0.001 of the truth. The ridge now follows the entries seen."""
    rng = np.random.default_rng(0)
    p, n = 2000, 300
    X = np.outer(1 + 0.02 * rng.normal(size=n), 100 + 50 * rng.random(p))
    X += rng.normal(0, 2, size=(n, p))
    Y = np.where(rng.random(X.shape) < missing, np.nan, X)
    model = OnlineRobustPCA(random_state=0)
    low = np.concatenate([model.partial_fit_decompose(Y[s : s + 32])[0] for s in range(0, n, 32)])
    assert abs(np.median(low[-50:] / X[-50:]) - 1) < 0.03
    assert model.scale_ < 3.0  # the noise, 2


def test_surrogate_upper_bounds_the_observed_loss():
    """Theorem 1's premise with gaps: with beta = 1, g_t(L) >= f_t(L), the mean observed
    loss of every sample so far plus lambda1 ||L||^2 / (2t), at the current basis (each
    sample's term of the surrogate is its loss at coefficients fitted to an older basis)."""
    X, _, _, _ = planted_stream(3, n=240, d=30, rank=2)
    rng = np.random.default_rng(0)
    seen = rng.random(X.shape) >= 0.3
    X_gaps = np.where(seen, X, np.nan)
    model = OnlineRobustPCA(2, forgetting_factor=1.0, burn_in=40, random_state=0)
    for start in range(0, 240, 40):
        model.partial_fit(X_gaps[start : start + 40])
        state = model._state
        L = state.basis.astype(np.float64)
        t = state.weight
        rows = range(0, start + 40)
        f = sum(_observed_loss(X[i], seen[i], L, state.lambda1, state.lambda2) for i in rows)
        f = (f + 0.5 * state.lambda1 * float(np.sum(L * L))) / t
        assert t == start + 40
        assert state.surrogate() >= f - 1e-9 * abs(f)


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("share", [0.2, 0.5])
def test_planted_subspace_and_gaps_recovered(rank, share):
    X, L, support, basis = planted_stream(1, rank=rank)
    gaps = np.random.default_rng(0).random(X.shape) < share
    model = OnlineRobustPCA(rank, n_passes=2, random_state=0).fit(np.where(gaps, np.nan, X))
    assert model.n_missing_ == gaps.sum()
    assert np.linalg.norm(projector(model.components_) - basis @ basis.T, 2) < 0.06
    low, sparse = model.decompose(np.where(gaps, np.nan, X)[:100])
    assert np.isfinite(low).all() and np.all(sparse[gaps[:100]] == 0)
    clean = ~support[:100]
    # the gaps are filled as well as the observed entries are fitted (noise 0.05)
    assert np.median(np.abs(low - L[:100])[gaps[:100] & clean]) < 0.05
    found = np.abs(sparse) > 10
    assert (found & support[:100]).sum() >= 0.97 * (support[:100] & ~gaps[:100]).sum()


def test_gaps_cost_orpca_less_than_grasta():
    """At half the entries missing, OR-PCA keeps the subspace that GRASTA, built for
    gaps, loses more of (same planted stream, defaults but the rank)."""
    X, _, _, basis = planted_stream(1, rank=2)
    X_gaps = np.where(np.random.default_rng(0).random(X.shape) < 0.5, np.nan, X)
    truth = basis @ basis.T
    ours = OnlineRobustPCA(2, random_state=0).fit(X_gaps)
    theirs = GRASTA(2, random_state=0).fit(X_gaps)
    err = [np.linalg.norm(projector(m.components_) - truth, 2) for m in (ours, theirs)]
    assert err[0] < 0.1 and err[0] < err[1]


def test_partial_fit_with_gaps_equals_fit():
    X = planted_stream(4, n=200, d=25)[0]
    X[np.random.default_rng(1).random(X.shape) < 0.25] = np.nan
    fitted = OnlineRobustPCA(2, batch_size=20, burn_in=40, random_state=0).fit(X)
    stream = OnlineRobustPCA(2, batch_size=20, burn_in=40, random_state=0)
    for start in range(0, 200, 20):
        stream.partial_fit(X[start : start + 20])
    np.testing.assert_allclose(stream.components_, fitted.components_, atol=1e-10)
    assert stream.n_missing_ == fitted.n_missing_ == np.isnan(X).sum()


def test_a_gap_after_complete_batches_switches_to_per_feature_statistics():
    """A stream without gaps keeps OR-PCA's r x r statistics (A_rows None); its first
    gap starts the per-feature ones from them, and the model survives pickling."""
    X = planted_stream(5, n=160, d=20)[0]
    model = OnlineRobustPCA(2, burn_in=40, random_state=0)
    for start in range(0, 120, 20):
        model.partial_fit(X[start : start + 20])
    assert model._state.A_rows is None
    gap = X[120:140].copy()
    gap[2, 3] = np.nan
    low, sparse = model.partial_fit_decompose(gap)
    assert model._state.A_rows.shape == (20, 2, 2) and sparse[2, 3] == 0
    assert np.isfinite(low).all()
    model.partial_fit(X[140:160])  # complete again: still per feature
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy._state.A_rows, model._state.A_rows)
    assert copy.n_missing_ == 1


def test_a_gap_in_the_burn_in_is_remembered():
    """A burn-in that ends on a complete batch still holds the earlier batch's gap: the
    start and the first update see it (no NaN comes out), as a fit on the same rows."""
    X = planted_stream(7, n=120, d=15)[0]
    X[5, 2] = np.nan
    model = OnlineRobustPCA(2, batch_size=20, burn_in=60, random_state=0)
    for start in range(0, 120, 20):
        low, sparse = model.partial_fit_decompose(X[start : start + 20])
        assert np.isfinite(low).all() and np.isfinite(sparse).all()
    assert np.isfinite(model.components_).all() and model.n_missing_ == 1
    fitted = OnlineRobustPCA(2, batch_size=20, burn_in=60, random_state=0).fit(X)
    np.testing.assert_allclose(model.components_, fitted.components_, atol=1e-10)


def test_residual_route_with_gaps_is_the_residual_of_the_split():
    """The route of ``subtract_background`` (residual instead of the parts) gives, on a
    batch with gaps, the split's ``X - low_rank``, NaN at the gaps as ``X`` is."""
    X = planted_stream(9, n=100, d=20)[0]
    X[np.random.default_rng(2).random(X.shape) < 0.2] = np.nan
    split = OnlineRobustPCA(2, batch_size=20, burn_in=40, random_state=0)
    routed = OnlineRobustPCA(2, batch_size=20, burn_in=40, random_state=0)
    for start in range(0, 100, 20):
        batch = X[start : start + 20]
        low, _ = split.partial_fit_decompose(batch)
        low_rank, residual = routed._partial_fit_residual(batch)
        np.testing.assert_allclose(low_rank(), low, atol=1e-10)
        np.testing.assert_allclose(residual, batch - low, atol=1e-10)  # NaN where batch is


@pytest.mark.parametrize("kind", ["zeros", "constant", "empty_row", "never_seen_column"])
def test_degenerate_gaps_give_no_nan(kind):
    X = np.zeros((80, 12)) if kind == "zeros" else np.full((80, 12), 7.0)
    X[::3, ::2] = np.nan
    if kind == "never_seen_column":
        X = planted_stream(6, n=80, d=12)[0]
        X[:, 4] = np.nan
    model = OnlineRobustPCA(2, batch_size=16, burn_in=32, random_state=0)
    for start in range(0, 80, 16):
        batch = X[start : start + 16].copy()
        if kind == "empty_row":
            batch[1] = np.nan
        low, sparse = model.partial_fit_decompose(batch)
        assert np.isfinite(low).all() and np.isfinite(sparse).all()
    assert np.isfinite(model.components_).all()
    for out in (model.transform(X[:10]), model.score_samples(X[:10]), model.decompose(X[:10])[0]):
        assert np.isfinite(out).all()
    if kind == "never_seen_column":  # no observation, no loading: its fill is zero
        assert np.all(model._state.basis[4] == 0)


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA], ids=lambda c: c.__name__)
def test_inputs_never_modified(cls):
    X = planted_stream(8, n=200)[0]
    X[::5, ::7] = np.nan
    copy = X.copy()
    model = cls(2, random_state=0).fit(X)
    model.partial_fit(X[:50])
    model.partial_fit_decompose(X[50:100])
    model.decompose(X[100:150])
    model.predict(X[150:])
    np.testing.assert_array_equal(X, copy)


@pytest.mark.realdata
@pytest.mark.parametrize("gaps", ["random20", "random50", "dead_block"])
def test_highway_with_pixels_missing(shared_data, gaps):
    """CDnet highway with pixels removed: the masks on the pixels still seen are as good
    as with every pixel (best F within 0.02), and randomly removed pixels of the road are
    filled with the background that the complete clip gives them."""
    X, labels = load_highway(shared_data)
    rng = np.random.default_rng(0)
    if gaps == "dead_block":  # a dead patch of the sensor, 10 x 20 pixels
        holes = np.zeros((100, 60, 80), dtype=bool)
        holes[:, 20:30, 30:50] = True
        holes = holes.reshape(X.shape)
    else:
        holes = rng.random(X.shape) < int(gaps[-2:]) / 100
    positive, negative = labels == 255, (labels == 0) | (labels == 50)

    def run(data):
        model = OnlineRobustPCA(random_state=0, burn_in=50)
        parts = [model.partial_fit_decompose(data[s : s + 25]) for s in range(0, 100, 25)]
        return np.concatenate([p[0] for p in parts])

    full = run(X)
    low = run(np.where(holes, np.nan, X).astype(np.float32))
    assert low.dtype == np.float32 and np.isfinite(low).all()
    seen = ~holes
    f_full = best_f_measure(np.abs(X - full)[seen], positive[seen], negative[seen])
    f_gaps = best_f_measure(np.abs(X - low)[seen], positive[seen], negative[seen])
    assert f_gaps > f_full - 0.02 and f_gaps > 0.72
    if gaps != "dead_block":
        road = holes & (labels == 0)
        assert np.median(np.abs(low - full)[road]) < 2.0  # grey levels of 0..255
