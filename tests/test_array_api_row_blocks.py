"""The passes by blocks of rows of :class:`robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`.

Every pass over the data of the in-namespace problem (the weighted scatter, the explicitly
centred products of the Gram route, the loss's scale, the explicit residuals) runs over
blocks of at most :data:`robustpca.array_api_linalg.BLOCK_ROWS` rows. The other tests use
fewer rows than one block, so the accumulation over several blocks is never exercised;
here ``BLOCK_ROWS`` is lowered so that the data span several blocks (the last one short),
and the solve must equal the NumPy :class:`robustpca.linalg.WeightedPCAProblem`.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context

import robustpca.array_api_linalg as device_linalg
from robustpca._array_api import get_namespace_and_device
from robustpca.linalg import WeightedPCAProblem

xps = pytest.importorskip("array_api_strict")

#: Rows per block in these tests: 47 rows give blocks of 7, ..., 7, 5.
SMALL_BLOCK = 7


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    monkeypatch.setattr(device_linalg, "BLOCK_ROWS", SMALL_BLOCK)


def projector(U):
    return U @ U.T


def _solve_both(X, k, route, w):
    X_xp = xps.asarray(X)
    with config_context(array_api_dispatch=True):
        xp, _, device = get_namespace_and_device(X_xp)
        problem = device_linalg.ArrayAPIWeightedPCAProblem(
            X_xp, k, np.random.default_rng(0), xp, device, route=route
        )
        sub = problem.solve(w)
    ref_problem = WeightedPCAProblem(X, k, np.random.default_rng(0), route=route)
    return problem, sub, ref_problem, ref_problem.solve(w)


def test_row_blocks_partition_the_rows():
    """The blocks cover every row once, in order, none longer than BLOCK_ROWS."""
    for n in (1, 6, 7, 8, 47, 49):
        blocks = device_linalg._row_blocks(n, 5)
        rows = np.concatenate([np.arange(n)[b] for b in blocks])
        np.testing.assert_array_equal(rows, np.arange(n))
        assert all(b.stop - b.start <= SMALL_BLOCK for b in blocks)


@pytest.mark.parametrize(
    ("route", "n", "d", "offset"),
    [("scatter", 47, 6, 1.0), ("gram", 47, 60, 1e5)],
    ids=["scatter", "gram-centred-by-blocks"],
)
def test_solve_over_several_blocks_equals_the_numpy_problem(route, n, d, offset):
    """Scatter route (47 x 6) and the Gram route on data 1e5 from the origin, whose Gram
    matrix is formed from explicitly centred rows (by blocks) and whose extreme weight
    forces the explicit residuals (by blocks): residuals, squared distances to the mean,
    the weighted total scatter (the objective's first term), the mean, the basis and the
    loss's scale equal the NumPy problem's."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) + 0.1 * rng.normal(size=(n, d))
    X += offset
    w = rng.uniform(0.2, 2.0, n)
    if route == "gram":
        w[-1] = 1e6  # an extreme weight in the short last block: explicit residuals
    problem, sub, ref_problem, ref = _solve_both(X, 3, route, w)
    assert len(device_linalg._row_blocks(n, d)) > 2
    scale = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert problem.mean_sq_distance() == pytest.approx(scale, rel=1e-9)
    assert problem.mean_sq_distance() == pytest.approx(ref_problem.mean_sq_distance(), rel=1e-9)
    b = ref.mean()
    np.testing.assert_allclose(sub.mean(), b, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(sub.sq_norms, np.sum((X - b) ** 2, axis=1), rtol=1e-7, atol=1e-9)
    assert sub.total_scatter == pytest.approx(ref.total_scatter, rel=1e-8)
    np.testing.assert_allclose(sub.residuals(), ref.residuals(), rtol=1e-6, atol=1e-8)
    assert np.abs(projector(sub.basis()) - projector(ref.basis())).max() < 1e-8
