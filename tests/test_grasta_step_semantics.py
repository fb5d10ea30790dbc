"""The documented semantics of one GRASTA step (He, Balzano & Szlam 2012;
:mod:`robustpca.solvers.grasta`), one property per test:

* ``grasta_step``'s ``low_out`` is ``U w`` "with the basis before its step" (a sample is
  split with the model as it was when the sample arrived);
* a constant step ``t`` turns the subspace by the angle ``t`` along the geodesic;
* the adaptive rule's first step is ``pi (1 + mu_min) / (2 (1 + mu))`` scaled by
  ``2 ** -level`` (the rule's constant is fixed by the first gradient);
* the ADMM iterations that the rule raises at deeper levels never exceed ``max_iter``;
* the geodesic update keeps ``U`` orthonormal by itself (eq. (10)), without the periodic
  re-orthonormalisation, which is only against rounding drift.
"""

import numpy as np
import pytest

from robustpca.solvers.grasta import (
    MAX_STEP,
    GrastaState,
    adaptive_step,
    grasta_process,
    grasta_step,
)


def _stream(seed=0, n=99, p=60, r=2):
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(p, r)))[0]
    truth = np.linalg.qr(rng.normal(size=(p, r)))[0]
    Z = rng.normal(size=(n, r)) * 5 @ truth.T + 0.1 * rng.normal(size=(n, p))
    Z[rng.random(Z.shape) < 0.1] += 10.0
    return U, Z, rng


def test_low_rank_part_is_taken_with_the_basis_before_the_step():
    U, Z, _ = _stream()
    state = GrastaState.start(U.copy(), 5)
    before = state.basis.copy()
    low = np.empty(U.shape[0])
    w = grasta_step(state, Z[0], np.arange(U.shape[0]), constant_step=0.3, low_out=low)
    assert not np.allclose(state.basis, before)  # the step moved the basis
    np.testing.assert_allclose(low, before @ w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("t", [0.01, 0.2, 0.7])
def test_a_constant_step_turns_the_subspace_by_that_angle(t):
    U, Z, _ = _stream(r=1)
    state = GrastaState.start(U.copy(), 20)
    grasta_step(state, Z[0], np.arange(U.shape[0]), constant_step=t)
    cosine = abs(float(U[:, 0] @ state.basis[:, 0]))
    assert np.arccos(min(cosine, 1.0)) == pytest.approx(t, rel=1e-9)


@pytest.mark.parametrize("level", [1, 3, 10])
def test_the_first_adaptive_step_at_a_level(level):
    rng = np.random.default_rng(level)
    state = GrastaState.start(np.linalg.qr(rng.normal(size=(30, 2)))[0], 5, level=level)
    gamma, w = rng.normal(size=30), rng.normal(size=2)
    sigma = float(np.linalg.norm(gamma) * np.linalg.norm(w))
    t = adaptive_step(state, gamma, w, sigma, min_iter=5, max_iter=60)
    # mu stays at its minimum on a first gradient (no previous one to compare with)
    assert t == pytest.approx(min(np.pi / 2 * 2.0**-level, MAX_STEP), rel=1e-12)


@pytest.mark.parametrize(("level", "max_iter"), [(12, 10), (13, 10), (12, 60)])
def test_deeper_levels_raise_the_admm_iterations_up_to_max_iter(level, max_iter):
    rng = np.random.default_rng(0)
    state = GrastaState.start(np.linalg.qr(rng.normal(size=(30, 2)))[0], 5, level=level)
    gamma, w = rng.normal(size=30), rng.normal(size=2)
    sigma = float(np.linalg.norm(gamma) * np.linalg.norm(w))
    state.step_scale, state.first_sigma = 1.0 / sigma, sigma  # past the first gradient
    # opposite consecutive gradients push mu over its maximum: one level deeper
    state.last_gamma, state.last_w, state.mu = -gamma, w, 15.0
    adaptive_step(state, gamma, w, sigma, min_iter=5, max_iter=max_iter)
    assert state.level == level + 1
    assert state.admm_iter <= max_iter
    assert state.admm_iter == (min(5 * 8, max_iter) if state.level < 14 else max_iter)


def test_geodesic_steps_keep_the_basis_orthonormal_without_reorthonormalising():
    U, Z, rng = _stream()
    state = GrastaState.start(U.copy(), 5)
    grasta_process(state, Z, rng, subsample=0.3, reorthonormalize=0)
    B = state.basis
    np.testing.assert_allclose(B.T @ B, np.eye(B.shape[1]), atol=1e-10)
