"""The observed-entries programs with every entry observed are the complete-data ones.

:func:`robustpca.solvers.alm_observed.solve_observed` documents its row-sparse problems
as outlier pursuit (``with_mean=False``, optionally centred) and CRPCA-OM
(``with_mean=True``) of Nie, Yuan & Huang (2014, problems 29-30), "``lam = 1 / gamma``"
of :func:`~robustpca.solvers.alm.solve_outlier_pursuit` and
:func:`~robustpca.solvers.alm.solve_crpca_om`. With nothing missing both solve the same
convex program, so both certified optima, their objectives and their low-rank parts
(with the mean) agree; ``tests/test_alm_observed.py`` checks this for PCP only.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.alm import solve_crpca_om, solve_outlier_pursuit
from robustpca.solvers.alm_observed import solve_observed


def _samples(seed=0, n=60, d=20, rank=2, n_out=6):
    """Rank-2 inliers about a far offset, plus a few outlying samples (rows)."""
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(d, rank)))[0]
    X = 3.0 * rng.normal(size=(n, rank)) @ U.T + 5.0 + 0.01 * rng.normal(size=(n, d))
    X[:n_out] = 3.0 * rng.normal(size=(n_out, d))
    return X


@pytest.mark.parametrize(
    ("observed_kwargs", "solver", "solver_kwargs"),
    [
        ({}, solve_outlier_pursuit, {}),
        ({"center": True}, solve_outlier_pursuit, {"center": True}),
        ({"with_mean": True}, solve_crpca_om, {}),
    ],
    ids=["outlier-pursuit", "outlier-pursuit-centred", "crpca-om"],
)
def test_fully_observed_row_sparse_programs_agree_with_the_complete_data_solvers(
    observed_kwargs, solver, solver_kwargs
):
    """Same optimum to the certified gap: the objective ``||E||_{2,1} + ||L||_* / lam``
    and the low-rank part (mean included)."""
    X = _samples()
    lam = 0.5
    everything = np.ones(X.shape, dtype=bool)
    common = {"gap_tol": 1e-7, "max_iter": 5000}
    masked = solve_observed(
        X,
        everything,
        lam=lam,
        row_sparse=True,
        rng=np.random.default_rng(0),
        **observed_kwargs,
        **common,
    )
    full = solver(X, gamma=1.0 / lam, rng=np.random.default_rng(0), **solver_kwargs, **common)
    assert masked.converged and full.converged
    np.testing.assert_allclose(masked.objective[-1], full.objective[-1], rtol=1e-6)
    scale = np.linalg.norm(X)
    assert np.linalg.norm(masked.info["low_rank"] - full.info["low_rank"]) < 1e-5 * scale
