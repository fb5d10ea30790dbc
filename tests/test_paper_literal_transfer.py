"""The paper-literal R-T-PCA (Guo 2013, Algorithm 1) runs the iteration of robustpca's solver.

``benchmarks/bench_transfer.py`` times ``paper_literal_transfer.rtpca_paper_literal``
against ``RobustTransferPCA`` and reports their objective histories side by side; the
speed-up only means something if both run the same proximal projected gradient steps
(16)-(17) with ``eta = 3 max(alpha_s, alpha_t)`` and the same stopping test. With exact
rank-k projections (``exact_svd=True``) our solver is that iteration, so the two must
agree to rounding, iterate by iterate; and Guo's Lemma 1 makes objective (13)
non-increasing. No other test imports the literal transfer code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from robustpca.solvers.transfer import solve_robust_transfer_pca

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal_transfer import rtpca_paper_literal

RANKS = {"kc": 3, "ks": 2, "kt": 2}


def task(seed=0):
    """A shared rank-4 structure, a source (20 x 30) and a target (15 x 30) with 5% of
    its entries grossly corrupted."""
    rng = np.random.default_rng(seed)
    basis = rng.normal(size=(4, 30))
    source = rng.normal(size=(20, 4)) @ basis + 0.05 * rng.normal(size=(20, 30))
    target = rng.normal(size=(15, 4)) @ basis + 0.05 * rng.normal(size=(15, 30))
    target[rng.random(target.shape) < 0.05] += 5.0
    return source, target


def ours(source, target, tol, max_iter, weights=None):
    kwargs = {}
    if weights is not None:
        a_s, a_t, b_s, b_t = weights
        kwargs = {
            "alpha_source": a_s,
            "alpha_target": a_t,
            "beta_source": b_s,
            "beta_target": b_t,
        }
    return solve_robust_transfer_pca(
        target,
        source,
        n_shared=RANKS["kc"],
        n_source=RANKS["ks"],
        n_target=RANKS["kt"],
        n_components=sum(RANKS.values()),
        rng=np.random.default_rng(0),
        tol=tol,
        max_iter=max_iter,
        exact_svd=True,
        **kwargs,
    )


@pytest.mark.parametrize("weights", [(1.0, 2.0, 0.1, 0.2), (3.0, 1.0, 0.3, 0.05)])
def test_literal_transfer_runs_our_iterations(weights):
    """Unequal weights, so that a swapped alpha or beta, or a wrong step ``1/eta``,
    changes the iterates: the objective histories and every block agree to rounding."""
    source, target = task()
    lit = rtpca_paper_literal(source, target, **RANKS, weights=weights, max_iter=40, tol=0.0)
    res = ours(source, target, tol=0.0, max_iter=40, weights=weights)
    assert lit["n_iter"] == res.n_iter == 40
    np.testing.assert_allclose(lit["objective"], res.objective, rtol=1e-10)
    assert lit["eta"] == pytest.approx(res.info["eta"], rel=1e-12)
    scale = np.linalg.norm(target)
    for name, key in [("low_rank", "low_rank"), ("Et", "sparse"), ("Es", "source_sparse")]:
        assert np.linalg.norm(lit[name] - res.info[key]) < 1e-9 * scale, name


def test_literal_transfer_objective_never_increases():
    """Guo's Lemma 1: with ``eta = 3 max(alpha_s, alpha_t)`` every step decreases (13)."""
    source, target = task(1)
    lit = rtpca_paper_literal(
        source, target, **RANKS, weights=(2.0, 1.0, 0.2, 0.1), max_iter=60, tol=0.0
    )
    hist = np.asarray(lit["objective"])
    assert np.all(np.diff(hist) <= 1e-12 * hist[0])
    assert lit["low_rank"].shape == target.shape


def test_literal_transfer_stops_like_ours_with_the_default_weights():
    """The benchmark passes the ranks, ``tol`` and ``max_iter`` but leaves the weights at
    their defaults on both sides: the defaults agree, and so do the stopping tests (the
    relative change of (13) at most ``tol``) and thus the iteration counts."""
    source, target = task(2)
    lit = rtpca_paper_literal(source, target, **RANKS, max_iter=500, tol=1e-4)
    res = ours(source, target, tol=1e-4, max_iter=500)
    assert 1 < lit["n_iter"] < 500
    assert lit["n_iter"] == res.n_iter == len(lit["objective"])
    np.testing.assert_allclose(lit["objective"], res.objective, rtol=1e-10)
