"""The evaluations of OR-PCA's rank-one root finder: bounded by ``max_iter``, and few on
a video-like batch.

``orpca_project``'s ``max_iter`` is documented as "the most iterations (with one
component: evaluations of the scalar function)": a hard batch stopped by the cap reports
at most ``max_iter`` evaluations and ran no more. The design note
(``docs/design-notes/video.md``) explains the median start, one alternation step, secant
steps then Illinois regula falsi by the number of evaluations on a clip's batches (3-4,
where the alternation took dozens): on a static background with noise and foreground,
a handful of evaluations must reach the tolerance.
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import orpca_project


def _hard_batch(seed=0, p=50, b=64):
    rng = np.random.default_rng(seed)
    Z = rng.standard_t(1.5, size=(b, p)) * 5 + rng.normal(size=(1, p)) * 5
    basis = rng.normal(size=(p, 1))
    return Z, basis


@pytest.mark.parametrize("max_iter", [1, 2, 3, 5])
def test_rank_one_evaluations_never_exceed_max_iter(max_iter):
    Z, basis = _hard_batch()
    step = orpca_project(Z, basis, 0.1, 0.2, max_iter=max_iter, tol=1e-12)
    assert 1 <= step.n_iter <= max_iter


def test_rank_one_reaches_the_tolerance_in_few_evaluations_on_a_video_like_batch():
    rng = np.random.default_rng(0)
    p, n = 4000, 100
    background = 100 + 50 * rng.random(p)
    Z = np.outer(1 + 0.03 * rng.normal(size=n), background) + rng.normal(0, 2, (n, p))
    foreground = rng.random((n, p)) < 0.1
    Z[foreground] = rng.uniform(0, 255, foreground.sum())
    # a balanced factorisation's scale, as the start gives (about the square root of the
    # batch's top singular value)
    top = np.linalg.norm(Z)
    basis = (background / np.linalg.norm(background) * np.sqrt(top))[:, None]
    step = orpca_project(Z, basis, 2 * np.sqrt(p), 2.0)  # defaults: tol 1e-4, 20 evaluations
    assert step.n_iter <= 6
