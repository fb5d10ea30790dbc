"""Ye's own GLRAM (uncentred images, ``L_0 = (I_k1, 0)^T``) in the literal code and ours.

``test_paper_literal.py`` checks the literal GLRAM only with our defaults (centred
images, the 2DPCA start). Ye's Algorithm GLRAM, which ``robustpca.GLRAM`` offers as
``center=False, init='identity'``, starts from ``L_0 = (I_k1, 0)^T`` and updates ``R``
first; the literal code's ``center`` and ``init`` options must run that iteration, and
its objective :math:`\\sum_i \\lVert L^\\top A_i R\\rVert_F^2` never decreases (each
half-sweep maximises it exactly).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustpca as rp
from robustpca.solvers.two_d import kron_components

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal_two_d import glram_paper_literal


def sin_angle(U, V):
    s = np.linalg.svd(np.linalg.qr(U)[0].T @ np.linalg.qr(V)[0], compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - s.min() ** 2)))


@pytest.mark.parametrize("center", [False, True], ids=["ye", "centred"])
def test_glram_literal_from_yes_start_matches_ours(center):
    rng = np.random.default_rng(1)
    base = np.outer(np.arange(12), np.arange(10)) / 10
    images = base + rng.normal(size=(40, 12, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = rp.GLRAM(
            (3, 4), image_shape=(12, 10), center=center, init="identity", max_iter=6, tol=0.0
        ).fit(images.reshape(40, -1))
    lit = glram_paper_literal(images, 3, 4, model.n_iter_, center=center, init="identity")
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-10)
    hist = np.asarray(lit["objective"])
    assert np.all(np.diff(hist) >= -1e-12 * hist[-1])
    np.testing.assert_allclose(lit["mean"].ravel(), model.mean_, atol=1e-12)
    assert center or not lit["mean"].any()
    ours = kron_components(model.left_components_, model.right_components_, 12).T
    assert sin_angle(ours, kron_components(lit["left"], lit["right"], 12).T) < 1e-6
