"""Kwak's PCA-L1, written literally, stops with a sample exactly at the mean.

A fixed bug: ``l1_pca_paper_literal`` applied step 4(b) of Kwak's box ("if some w^T x_i = 0, perturb
w and go to step 2") to every exact zero of ``w^T x_i``, including that of a sample equal
to the mean, which is zero once centred whatever ``w`` is: no perturbation can remove
it, so the loop never reached 4(c) and each direction ran ``max_iter`` iterations (with
the box's missing cap it would never stop). The module docstring (and
``test_l1_literal_matches_l1pca``) say a direction takes exactly one more iteration
than ``robustpca.L1PCA``; here L1PCA stops after one, the literal code after
``max_iter``, so ``run_all.py``'s per-iteration timing and iteration counts stop being
comparable. Kwak's 4(b) is about samples on the hyperplane ``w^T x = 0``; a zero sample
contributes nothing to the L1 dispersion and does not need it: such samples are now
left out of 4(b)'s test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robustpca as rp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal_l1 import l1_pca_paper_literal


def test_l1_literal_stops_with_a_sample_at_the_mean():
    rng = np.random.default_rng(0)
    A = np.round(rng.normal(size=(20, 6)) * [50, 30, 20, 10, 10, 10])
    X = np.vstack([np.zeros((1, 6)), A, -A]) + np.array([3.0, 1, 4, 1, 5, 9])
    assert np.array_equal(X[0], X.mean(axis=0))  # the first sample is the mean, exactly
    model = rp.L1PCA(2).fit(X)
    lit = l1_pca_paper_literal(X, 2, 50, np.random.default_rng(0))
    np.testing.assert_array_equal(
        np.asarray(lit["n_iter_per_component"]), model.n_iter_per_component_ + 1
    )
