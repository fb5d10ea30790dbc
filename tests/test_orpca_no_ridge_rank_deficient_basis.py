"""OR-PCA's split with no ridge on a rank-deficient basis of several columns.

``lambda1 = 0`` is allowed by the solver (``orpca_project``: the ridge operators and
the basis step add a tiny ridge where ``L'L + lambda1 I`` is positive definite only
through ``lambda1``). The rank-one path is tested with a zero basis
(``test_orpca_projection.py``); with more columns, a basis whose columns are dependent
(a zero column, as the start pads a short one with) must still give the split on the
columns it has, not a singular solve.
"""

import numpy as np

from robustpca.solvers.orpca import ORPCAState, orpca_project, orpca_update


def test_no_ridge_with_a_zero_column_splits_on_the_other_column():
    rng = np.random.default_rng(0)
    u = rng.normal(size=20)
    Z = np.outer(rng.normal(size=8) * 3, u) + rng.normal(size=(8, 20))
    Z[rng.random(Z.shape) < 0.1] += 10.0
    basis = np.column_stack([u, np.zeros(20)])
    step = orpca_project(Z, basis, 0.0, 0.5, max_iter=2000, tol=1e-12)
    assert np.isfinite(step.coefficients).all()
    assert np.all(step.coefficients[:, 1] == 0)
    one = orpca_project(Z, u[:, None], 0.0, 0.5, max_iter=200, tol=1e-12)
    np.testing.assert_allclose(step.coefficients[:, 0], one.coefficients[:, 0], rtol=1e-6)
    np.testing.assert_allclose(step.low_rank + step.sparse + step.clipped, Z, atol=1e-10)


def test_no_ridge_update_with_a_zero_column_keeps_a_finite_basis():
    """The basis step ``L = B (A + lambda1 I)^{-1}`` with ``lambda1 = 0`` and a zero column
    of coefficients (``A`` singular) takes the small ridge: the column stays zero and
    the other is the least-squares one."""
    rng = np.random.default_rng(1)
    u = rng.normal(size=20)
    Z = np.outer(rng.normal(size=8) * 3, u) + 0.1 * rng.normal(size=(8, 20))
    state = ORPCAState(
        basis=np.column_stack([u, np.zeros(20)]),
        A=np.zeros((2, 2)),
        B=np.zeros((20, 2)),
        c=0.0,
        weight=0.0,
        lambda1=0.0,
        lambda2=0.5,
    )
    state, step, _ = orpca_update(state, Z, forgetting=1.0)
    assert np.isfinite(state.basis).all()
    assert np.all(state.basis[:, 1] == 0)
    R = step.coefficients[:, :1]
    fitted = Z - step.sparse
    expected = fitted.T @ R / (R.T @ R)
    np.testing.assert_allclose(state.basis[:, :1], expected, rtol=1e-8)
