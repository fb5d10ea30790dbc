"""OR-PCA's residual scale with rows of zeros in the burn-in (black frames at the start
of a clip, a sensor that reports zeros while it warms up). Such rows are fitted exactly
by any basis, so when they were more than half the burn-in the residual's MAD was zero,
``scale_`` fell to its floor (about 1e-6 of the data) and every later entry was split
as sparse. The scale now comes from the rows with signal: it is that of the same
stream without the zero rows (from fewer rows), and the sparse share stays that of the
noise. With gaps, the zero rows also set the start's gap fill (a column median) to zero.
"""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.solvers.orpca_start import robust_residual_scale


def _stream(n=600, p=30, black=60, seed=0):
    rng = np.random.default_rng(seed)
    background = 100 + 50 * rng.random(p)
    X = np.outer(1 + 0.05 * rng.normal(size=n), background) + rng.normal(size=(n, p))
    X[:black] = 0.0
    return X


def _run(X, black):
    model = OnlineRobustPCA(1, burn_in=100, batch_size=20, random_state=0)
    for start in range(black, X.shape[0], 20):
        batch = X[start : start + 20]
        _, sparse = model.partial_fit_decompose(batch)
    return model, sparse


@pytest.mark.parametrize("gaps", [False, True])
def test_zero_rows_in_the_burn_in_leave_the_scale_of_the_noise(gaps):
    X = _stream()
    if gaps:
        rng = np.random.default_rng(1)
        X[rng.random(X.shape) < 0.1] = np.nan
    with_zeros, sparse = _run(X, 0)
    without, _ = _run(X, 60)
    # the unit noise (from 40 rows of signal against 100), not the floor
    assert 0.8 < with_zeros.scale_ < 1.5 and 0.8 < without.scale_ < 1.5
    # about the share of unit Gaussian noise beyond one scale, not every entry
    assert np.mean(sparse[~np.isnan(X[-20:])] != 0) < 0.5


def test_rows_of_zeros_do_not_enter_the_residual_scale():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(40, 12))
    W, U = np.zeros((40, 0)), np.zeros((12, 0))
    padded = np.vstack([np.zeros((60, 12)), Z])
    assert robust_residual_scale(padded, np.zeros((100, 0)), U, rng) == pytest.approx(
        robust_residual_scale(Z, W, U, rng)
    )
    # a row of zeros on its observed entries counts as zero, whatever its gaps hold
    observed = np.ones_like(padded, dtype=bool)
    observed[:60, :6] = False
    padded[:60, :6] = 5.0
    assert robust_residual_scale(padded, np.zeros((100, 0)), U, rng, observed) == pytest.approx(
        robust_residual_scale(Z, W, U, rng)
    )


def test_grasta_starts_from_the_rows_with_signal():
    """GRASTA's start fills the burn-in's gaps with column medians: zero rows set them to
    zero on the rows with signal, and the start basis, crooked by them, took hundreds of
    rows to straighten."""
    X = _stream()
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    model = GRASTA(1, burn_in=100, batch_size=20, random_state=0)
    errors = []
    for start in range(0, 200, 20):
        low, _ = model.partial_fit_decompose(X[start : start + 20])
        seen = ~np.isnan(X[start : start + 20])
        if start >= 100:
            batch = X[start : start + 20][seen]
            errors.append(np.linalg.norm(batch - low[seen]) / np.linalg.norm(batch))
    # the unit noise against a background about 125: about 0.01 from the start
    assert max(errors) < 0.013
