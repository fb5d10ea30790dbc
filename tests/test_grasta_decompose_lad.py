"""GRASTA's ``decompose`` of complete rows is the least absolute deviations fit on the
basis, row by row.

``GRASTA.decompose`` fits new rows "on all their observed entries by the same ADMM, the
basis unchanged" (:func:`~robustpca.solvers.grasta.admm_l1_rows`, every row at once):
each row's weights minimise ``||v - U w||_1``, and a row's fit does not depend on the
other rows of the batch (the batched ADMM runs until every row meets the tolerance).
"""

import numpy as np
from scipy.optimize import linprog

from robustpca import GRASTA


def _lad(U, v):
    """min_w ||v - U w||_1 as a linear programme: variables (w, t), |v - U w| <= t."""
    p, r = U.shape
    c = np.concatenate([np.zeros(r), np.ones(p)])
    A = np.block([[U, -np.eye(p)], [-U, -np.eye(p)]])
    b = np.concatenate([v, -v])
    res = linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * r + [(0, None)] * p)
    return res.fun


def _model_and_rows(seed=0, p=60, r=2):
    rng = np.random.default_rng(seed)
    truth = np.linalg.qr(rng.normal(size=(p, r)))[0]
    X = (rng.normal(size=(300, r)) * [10.0, 4.0] + [30.0, 0.0]) @ truth.T
    X += 0.1 * rng.normal(size=X.shape)
    model = GRASTA(r, subsample=0.5, random_state=0).fit(X)
    V = (rng.normal(size=(12, r)) * 5 + [30.0, 0.0]) @ truth.T + 0.1 * rng.normal(size=(12, p))
    V[rng.random(V.shape) < 0.2] += 10.0  # gross entries
    return model, V


def test_decompose_reaches_the_least_absolute_deviations_minimum():
    model, V = _model_and_rows()
    sparse = model.decompose(V)[1]
    U = model.components_.T
    for i, v in enumerate(V):
        best = _lad(U, v)
        # the ADMM with a growing penalty stops on the constraint: within 0.1% of the optimum
        assert np.abs(sparse[i]).sum() <= best * (1 + 1e-3)


def test_a_rows_fit_does_not_depend_on_its_batch():
    model, V = _model_and_rows(seed=1)
    alone = model.decompose(V)[0]
    with_zero = model.decompose(np.vstack([np.zeros(V.shape[1]), V]))[0]
    np.testing.assert_allclose(with_zero[1:], alone, rtol=1e-10, atol=1e-10)
    assert np.all(with_zero[0] == 0)
