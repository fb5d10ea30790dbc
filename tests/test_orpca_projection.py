"""The per-batch split of OR-PCA (Feng, Xu & Yan 2013, problem (3) / Algorithm 2):
the one-component root finding gives the alternation's minimiser, the loss's shortcuts
equal its direct sums, degenerate bases give no NaN."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.solvers.orpca import _alternate, orpca_loss, orpca_project


def heavy_batch(seed, n=40, p=300, dtype=np.float64, foreground=0.3):
    """Rows ``c_i l + noise`` with a large share of gross entries (foreground), where
    many entries are clipped at lambda2 and the alternation crawls."""
    rng = np.random.default_rng(seed)
    level = 100 + 40 * rng.random(p)
    Z = np.outer(1 + 0.1 * rng.normal(size=n), level) + rng.normal(scale=2.0, size=(n, p))
    gross = rng.random((n, p)) < foreground * rng.random((n, 1))
    Z[gross] += rng.choice([-60.0, 80.0], size=gross.sum())
    basis = (level / np.linalg.norm(level) * 1.3 * np.linalg.norm(level) ** 0.5)[:, None]
    return Z.astype(dtype), basis.astype(dtype)


def objective(Z, R, basis, lambda1, lambda2):
    """Problem (3) per row, minimised over the sparse part (the Huber loss)."""
    T = Z - R @ basis.T
    C = np.clip(T, -lambda2, lambda2)
    return np.sum(C * (T - C / 2), axis=1) + 0.5 * lambda1 * np.sum(R * R, axis=1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lambda2", [0.5, 2.0, 20.0])
def test_rank_one_root_is_the_alternations_minimiser(seed, lambda2):
    Z, basis = heavy_batch(seed)
    lambda1 = 2.0 * np.sqrt(Z.shape[1])
    step = orpca_project(Z, basis, lambda1, lambda2, max_iter=50, tol=1e-10)
    reference, n_iter = _alternate(Z, basis, lambda1, -lambda2, lambda2, 20_000, 1e-13)
    assert n_iter < 20_000
    np.testing.assert_allclose(step.coefficients, reference, rtol=1e-9)
    assert step.n_iter < 30  # the root finding needs few evaluations where clipping is heavy
    # the minimum: no perturbation of a coefficient lowers the objective
    f = objective(Z, step.coefficients, basis, lambda1, lambda2)
    for delta in (1e-4, -1e-4):
        assert np.all(objective(Z, step.coefficients + delta, basis, lambda1, lambda2) >= f)


def test_rank_one_stops_at_the_alternations_tolerance_in_float32():
    Z, basis = heavy_batch(5, dtype=np.float32)
    lambda1, lambda2 = 30.0, 2.0
    step = orpca_project(Z, basis, lambda1, lambda2)  # defaults: tol 1e-4, 20 evaluations
    reference = _alternate(
        Z.astype(np.float64), basis.astype(np.float64), lambda1, -lambda2, lambda2, 20_000, 1e-12
    )[0]
    moved = np.abs(step.coefficients[:, 0] - reference[:, 0]) * np.linalg.norm(basis)
    assert np.all(moved <= 1e-4 * np.linalg.norm(Z, axis=1))
    assert step.coefficients.dtype == step.low_rank.dtype == step.sparse.dtype == np.float32
    # the parts: Z = low + sparse + clipped, the clipped residual within lambda2
    np.testing.assert_allclose(step.low_rank + step.sparse + step.clipped, Z, rtol=1e-5)
    assert np.abs(step.clipped).max() <= lambda2


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    lambda1=st.floats(1e-3, 1e4),
    lambda2=st.floats(1e-2, 1e2),
    sign=st.sampled_from([1.0, -1.0]),
)
def test_rank_one_coefficient_solves_the_optimality_condition(seed, lambda1, lambda2, sign):
    """At the split, lambda1 r = l' clip(z - l r) (the gradient of problem (3) in r),
    whatever the signs of the loadings and the scale of the penalties."""
    rng = np.random.default_rng(seed)
    basis = sign * rng.normal(size=(50, 1)) * rng.choice([0.1, 10.0])
    Z = rng.normal(size=(6, 50)) * 5 + rng.normal(size=(6, 1)) * basis.T
    step = orpca_project(Z, basis, lambda1, lambda2, max_iter=200, tol=1e-12)
    r = step.coefficients[:, 0]
    gradient = lambda1 * r - np.clip(Z - np.outer(r, basis), -lambda2, lambda2) @ basis[:, 0]
    slope = lambda1 + np.sum(basis**2)
    assert np.all(np.abs(gradient) <= 1e-8 * slope * (np.abs(r) + 1) + 1e-9 * lambda2)


@pytest.mark.parametrize("lambda1", [0.0, 1.0])
def test_zero_basis_gives_zero_coefficients(lambda1):
    Z = np.random.default_rng(0).normal(size=(5, 20))
    step = orpca_project(Z, np.zeros((20, 1)), lambda1, 0.5)
    assert np.all(step.coefficients == 0) and np.isfinite(step.sparse).all()
    np.testing.assert_allclose(step.low_rank + step.sparse + step.clipped, Z)


def test_no_ridge_and_all_entries_clipped_give_finite_coefficients():
    # lambda1 = 0 and a tiny lambda2: phi is flat over a stretch; any point of it serves
    Z, basis = heavy_batch(6, n=8, p=40)
    step = orpca_project(Z, basis, 0.0, 1e-6, max_iter=50)
    assert np.isfinite(step.coefficients).all()


@pytest.mark.parametrize("rank", [1, 2])
def test_loss_shortcuts_equal_the_direct_sums(rank):
    Z, basis = heavy_batch(7)
    if rank == 2:
        basis = np.hstack([basis, np.random.default_rng(1).normal(size=(basis.shape[0], 1))])
    lambda1, lambda2 = 15.0, 2.0
    step = orpca_project(Z, basis, lambda1, lambda2, max_iter=100, tol=1e-10)
    R, E, C = step.coefficients, step.sparse, step.clipped
    clean = Z - E
    constant = 0.5 * np.sum(clean**2) + 0.5 * lambda1 * np.sum(R**2) + lambda2 * np.abs(E).sum()
    loss = 0.5 * np.sum(C**2) + 0.5 * lambda1 * np.sum(R**2) + lambda2 * np.abs(E).sum()
    for CtR in (None, C.T @ R):
        got = orpca_loss(step, basis, lambda1, lambda2, CtR)
        np.testing.assert_allclose(got, (constant, loss), rtol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 300),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_feature_median_is_numpys_to_the_bit(seed, n, dtype):
    from robustpca.solvers.orpca_start import feature_median

    Z = np.round(np.random.default_rng(seed).normal(size=(n, 9)), 1).astype(dtype)  # ties
    np.testing.assert_array_equal(feature_median(Z), np.median(Z, axis=0))


def test_feature_median_leaves_a_fortran_ordered_input_alone():
    """The selection runs in place on rows: a Fortran-ordered batch, whose transpose is a
    C-ordered view, must be copied first (it once was not, and a column permutation of
    the data changed OR-PCA's fit)."""
    from robustpca.solvers.orpca_start import feature_median

    Z = np.asfortranarray(np.random.default_rng(0).normal(size=(7, 5)))
    before = Z.copy()
    np.testing.assert_array_equal(feature_median(Z), np.median(before, axis=0))
    np.testing.assert_array_equal(Z, before)


@pytest.mark.parametrize("rank", [1, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clipped_only_projection_equals_the_full_one(rank, dtype):
    """``orpca_clipped`` (the start's refinement: no parts) gives ``orpca_project``'s
    coefficients and clipped residual exactly."""
    from robustpca.solvers.orpca import orpca_clipped

    rng = np.random.default_rng(rank)
    basis = rng.normal(size=(60, rank)).astype(dtype)
    Z = (rng.normal(size=(25, rank)) @ basis.T.astype(float)).astype(dtype)
    Z[rng.random(Z.shape) < 0.1] += dtype(30.0)
    before = Z.copy()
    step = orpca_project(Z, basis, 3.0, 1.5)
    R, clipped = orpca_clipped(Z, basis, 3.0, 1.5)
    np.testing.assert_array_equal(R, step.coefficients)
    np.testing.assert_array_equal(clipped, step.clipped)
    assert clipped.dtype == dtype and np.abs(clipped).max() <= dtype(1.5)
    np.testing.assert_array_equal(Z, before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_work_space_is_used_and_changes_nothing(dtype):
    """``work`` (one of the batch's shape and dtype) becomes ``clipped`` and the split is
    the one without it, whatever it held; one that overlaps the batch or does not fit
    is left alone."""
    Z, basis = heavy_batch(3, dtype=dtype)
    plain = orpca_project(Z, basis, 0.1, 5.0)
    work = np.full_like(Z, np.nan)
    step = orpca_project(Z, basis, 0.1, 5.0, work=work)
    assert step.clipped is work
    for name in ("coefficients", "low_rank", "sparse", "clipped"):
        assert np.array_equal(getattr(step, name), getattr(plain, name))
    Z_before = Z.copy()
    for bad in (Z, Z[:, ::-1], np.empty_like(Z[:-1]), np.empty(Z.shape, dtype=np.float16)):
        step = orpca_project(Z, basis, 0.1, 5.0, work=bad)
        assert step.clipped is not bad
        assert np.array_equal(step.sparse, plain.sparse)
    assert np.array_equal(Z, Z_before)


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_residual_route_gives_the_parts_residual_and_loss(rank, dtype):
    """``residual=True`` gives ``Z - low_rank`` (the parts' own subtraction, to the bit)
    over ``out`` where it fits, the same coefficients and clipped residual, and the loss
    of the parts to rounding (``<E, C>`` read as ``<D, C> - <C, C>``)."""
    from robustpca.solvers.orpca import orpca_low_rank

    Z, basis = heavy_batch(11, dtype=dtype)
    if rank == 2:
        basis = np.hstack([basis, np.random.default_rng(2).normal(size=(basis.shape[0], 1))])
        basis = basis.astype(dtype)
    before = Z.copy()
    plain = orpca_project(Z, basis, 15.0, 2.0)
    out = np.full_like(Z, np.nan)
    step = orpca_project(Z, basis, 15.0, 2.0, residual=True, out=out)
    assert step.residual is out and step.low_rank is None and step.sparse is None
    np.testing.assert_array_equal(step.residual, Z - plain.low_rank)
    np.testing.assert_array_equal(step.coefficients, plain.coefficients)
    np.testing.assert_array_equal(step.clipped, plain.clipped)
    np.testing.assert_array_equal(orpca_low_rank(step.coefficients, basis), plain.low_rank)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(
        orpca_loss(step, basis, 15.0, 2.0), orpca_loss(plain, basis, 15.0, 2.0), rtol=rtol
    )
    for bad in (Z, np.empty_like(Z[:-1]), None):
        other = orpca_project(Z, basis, 15.0, 2.0, residual=True, out=bad)
        assert other.residual is not bad and not np.may_share_memory(other.residual, Z)
        np.testing.assert_array_equal(other.residual, step.residual)
    np.testing.assert_array_equal(Z, before)
    # no clipping at all: the sparse part is the residual
    free = orpca_project(Z, basis, 15.0, 0.0, residual=True)
    np.testing.assert_allclose(
        orpca_loss(free, basis, 15.0, 0.0),
        orpca_loss(orpca_project(Z, basis, 15.0, 0.0), basis, 15.0, 0.0),
        rtol=rtol,
    )
