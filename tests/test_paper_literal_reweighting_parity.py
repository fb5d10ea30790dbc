"""The reweighting baselines of ``bench_reweighting.py`` run the algorithms they time.

``paper_literal_reweighting`` holds the per-iteration baselines of PCA-GM (Oh & Kwak,
Algorithm 2) and R2DPCA (problem 5 of Zhang & Tong), written independently of the
validated references ``paper_literal_gm`` and ``paper_literal_two_d`` (which
``test_paper_literal.py`` checks against our estimators). A timing baseline is only
meaningful if it runs the same iteration, so the two transcriptions must agree:

* ``pca_gm_literal`` centres by the arithmetic mean, i.e. Algorithm 2 with ``m_G = m_S``
  (Algorithm 1 run for zero updates); its ``n_iter`` updates follow ``W_PCA``;
* ``r2dpca_literal`` starts from ``L = (I_k, 0)^T``, ``R = (I_k, 0)^T``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal_gm import pca_gm_paper_literal
from paper_literal_reweighting import pca_gm_literal, r2dpca_literal
from paper_literal_two_d import r2dpca_paper_literal


def sin_angle(U, V):
    s = np.linalg.svd(np.linalg.qr(U)[0].T @ np.linalg.qr(V)[0], compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - s.min() ** 2)))


def test_pca_gm_baseline_is_algorithm_2_about_the_arithmetic_mean():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 12)) * np.linspace(4, 1, 12)
    X[:8] += rng.normal(scale=15.0, size=(8, 12))
    for n_iter in (1, 4):
        W = pca_gm_literal(X, 3, 0.3, 1e-6, n_iter)
        ref = pca_gm_paper_literal(X, 3, 0.3, 1e-6, n_iter + 1, 0)
        assert sin_angle(W, ref["basis"]) < 1e-6
    # the reweighting does move the subspace away from PCA's
    assert sin_angle(W, pca_gm_paper_literal(X, 3, 0.3, 1e-6, 1, 0)["basis"]) > 1e-3


def test_r2dpca_baseline_is_the_reference_from_the_identity_start():
    rng = np.random.default_rng(1)
    base = np.outer(np.arange(9), np.arange(7)) / 7
    images = base + rng.normal(size=(30, 9, 7))
    images[:3] += 8.0 * rng.normal(size=(3, 9, 7))
    k, eps = 3, 1e-8
    L, R = r2dpca_literal(images, k, 4, eps)
    ref = r2dpca_paper_literal(images, k, k, 4, eps, init=(np.eye(9)[:, :k], np.eye(7)[:, :k]))
    assert sin_angle(L, ref["left"]) < 1e-6
    assert sin_angle(R, ref["right"]) < 1e-6
