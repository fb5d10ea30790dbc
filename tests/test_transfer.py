"""R-T-PCA (Guo 2013): Lemma 1, the closed-form proximal step, recovery and the Yale claim.

The smooth part ``f`` of objective (13), its gradient and the quadratic model ``Q_eta``
of (16) are re-implemented here with the explicit matrices ``A_s = [I, 0]`` and
``A_t = [0, I]`` of the paper, independently of the solver's stacked layout.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from robustpca.datasets import load_yale
from robustpca.estimators._transfer import RankConstrainedRobustPCA, RobustTransferPCA
from robustpca.solvers import StopReason
from robustpca.solvers.rank_projection import RankProjector
from robustpca.solvers.transfer import (
    lipschitz_constant,
    solve_robust_transfer_pca,
    transfer_objective,
)
from robustpca.transfer import (
    COMPARISON_METHODS,
    add_salt_noise,
    pca_recover,
    r_2step_pca,
    r_pca,
    r_t_pca,
    recover_target,
    rmse,
    s_pca,
)

from .conftest import SEEDS


# --------------------------------------------------------------------------- helpers
def truncate(Y, k):
    """Best rank-k approximation by a full SVD (Eckart-Young)."""
    U, s, Vt = np.linalg.svd(Y, full_matrices=False)
    return (U[:, :k] * s[:k]) @ Vt[:k]


def soft(Y, tau):
    return np.sign(Y) * np.maximum(np.abs(Y) - tau, 0.0)


def low_rank(rng, m, d, k, scale=1.0):
    return scale * rng.normal(size=(m, k)) @ rng.normal(size=(k, d)) if k else np.zeros((m, d))


class Model:
    """f, grad f, g and Q_eta of Guo (2013), eqs. (13)-(16), written with A_s and A_t."""

    def __init__(self, Xs, Xt, a_s, a_t, b_s, b_t):
        ns, nt = len(Xs), len(Xt)
        self.Xs, self.Xt, self.a_s, self.a_t, self.b_s, self.b_t = Xs, Xt, a_s, a_t, b_s, b_t
        self.As = np.hstack([np.eye(ns), np.zeros((ns, nt))])
        self.At = np.hstack([np.zeros((nt, ns)), np.eye(nt)])

    def f(self, th):
        Mc, Ms, Mt, Es, Et = th
        Rs = self.As @ Mc + Ms + Es - self.Xs
        Rt = self.At @ Mc + Mt + Et - self.Xt
        return 0.5 * self.a_s * np.sum(Rs**2) + 0.5 * self.a_t * np.sum(Rt**2)

    def grad(self, th):
        Mc, Ms, Mt, Es, Et = th
        Gs = self.a_s * (self.As @ Mc + Ms + Es - self.Xs)
        Gt = self.a_t * (self.At @ Mc + Mt + Et - self.Xt)
        return [self.As.T @ Gs + self.At.T @ Gt, Gs, Gt, Gs, Gt]

    def g(self, th):
        return self.b_s * np.abs(th[3]).sum() + self.b_t * np.abs(th[4]).sum()

    def F(self, th):
        return self.f(th) + self.g(th)

    def Q(self, th, tilde, eta):
        diff = [a - b for a, b in zip(th, tilde, strict=True)]
        inner = sum(np.vdot(a, b) for a, b in zip(diff, self.grad(tilde), strict=True))
        sq = sum(np.vdot(a, a) for a in diff)
        return self.f(tilde) + inner + 0.5 * eta * sq + self.g(th)


def feasible(rng, ns, nt, d, kc, ks, kt, scale=1.0):
    return [
        low_rank(rng, ns + nt, d, kc, scale),
        low_rank(rng, ns, d, ks, scale),
        low_rank(rng, nt, d, kt, scale),
        scale * rng.normal(size=(ns, d)) * (rng.random((ns, d)) < 0.3),
        scale * rng.normal(size=(nt, d)) * (rng.random((nt, d)) < 0.3),
    ]


problems = st.fixed_dictionaries(
    {
        "ns": st.integers(2, 12),
        "nt": st.integers(2, 12),
        "d": st.integers(2, 12),
        "a_s": st.floats(0.1, 3.0),
        "a_t": st.floats(0.1, 3.0),
        "b_s": st.floats(0.0, 1.0),
        "b_t": st.floats(0.0, 1.0),
        "seed": SEEDS,
    }
)


def ranks_for(p, rng):
    kc = int(rng.integers(0, min(p["ns"] + p["nt"], p["d"]) + 1))
    ks = int(rng.integers(0, min(p["ns"], p["d"]) + 1))
    kt = int(rng.integers(0 if kc else 1, min(p["nt"], p["d"]) + 1))
    return kc, ks, kt


# --------------------------------------------------------------------------- Lemma 1
@settings(max_examples=40, deadline=None)
@given(problems)
def test_lemma1_quadratic_model_majorizes_objective(p):
    """Lemma 1: F(Theta) <= Q_eta(Theta, Theta~) for every feasible pair, eta = 3 max(alpha)."""
    rng = np.random.default_rng(p["seed"])
    ns, nt, d = p["ns"], p["nt"], p["d"]
    model = Model(
        rng.normal(size=(ns, d)),
        rng.normal(size=(nt, d)),
        *[p[k] for k in "a_s a_t b_s b_t".split()],
    )
    eta = lipschitz_constant(p["a_s"], p["a_t"])
    assert eta == 3 * max(p["a_s"], p["a_t"])
    kc, ks, kt = ranks_for(p, rng)
    for _ in range(5):
        th = feasible(rng, ns, nt, d, kc, ks, kt, scale=3.0)
        tilde = feasible(rng, ns, nt, d, kc, ks, kt, scale=3.0)
        F, Q = model.F(th), model.Q(th, tilde, eta)
        assert F <= Q + 1e-9 * max(1.0, abs(Q))


def hessian_norm(a_s, a_t, kc, ks, kt, ns=3, nt=2):
    """Largest eigenvalue of the Hessian of f in (14) on one column (the variables are
    vectors and the Hessian is small), the variables present being M_c (kc > 0), M_s
    (ks > 0), M_t (kt > 0), E_s and E_t: the residual [R_s; R_t] is L theta + const."""
    rows = {"c": (0, ns + nt), "s": (0, ns), "t": (ns, nt), "Es": (0, ns), "Et": (ns, nt)}
    present = ["c"] * (kc > 0) + ["s"] * (ks > 0) + ["t"] * (kt > 0) + ["Es", "Et"]
    L = []
    for name in present:
        start, n = rows[name]
        part = np.zeros((ns + nt, n))
        part[start : start + n] = np.eye(n)
        L.append(part)
    L = np.hstack(L)
    weights = np.r_[np.full(ns, a_s), np.full(nt, a_t)]
    return np.linalg.eigvalsh(L.T @ (weights[:, None] * L)).max()


@pytest.mark.parametrize(("a_s", "a_t"), [(1.0, 1.0), (0.5, 2.0), (3.0, 1.0)])
def test_lemma1_eta_is_the_smallest_valid_step(a_s, a_t):
    """eta = 3 max(alpha) is attained: moving M_c, M_j and E_j of the heavier matrix j
    together gives F = Q exactly, and any smaller eta breaks F <= Q for that pair."""
    rng = np.random.default_rng(0)
    ns, nt, d = 4, 5, 6
    model = Model(rng.normal(size=(ns, d)), rng.normal(size=(nt, d)), a_s, a_t, 0.3, 0.3)
    D = np.outer(rng.normal(size=nt if a_t >= a_s else ns), rng.normal(size=d))  # rank one
    zero = [np.zeros((ns + nt, d)), np.zeros((ns, d)), np.zeros((nt, d))]
    zero += [np.zeros((ns, d)), np.zeros((nt, d))]
    th = [z.copy() for z in zero]
    if a_t >= a_s:
        th[0][ns:], th[2], th[4] = D, D, D
    else:
        th[0][:ns], th[1], th[3] = D, D, D
    eta = lipschitz_constant(a_s, a_t)
    assert model.F(th) == pytest.approx(model.Q(th, zero, eta), rel=1e-12)
    assert model.F(th) > model.Q(th, zero, 0.99 * eta)


@settings(max_examples=25, deadline=None)
@given(
    a_s=st.floats(0.1, 3.0),
    a_t=st.floats(0.1, 3.0),
    n_source=st.integers(0, 2),
    n_target=st.integers(0, 2),
)
def test_lipschitz_constant_is_the_hessian_norm(a_s, a_t, n_source, n_target):
    """The Hessian of f (a constant matrix) has norm max_j alpha_j c_j, as used for eta."""
    norm = hessian_norm(a_s, a_t, 1, n_source, n_target)
    assert norm == pytest.approx(
        lipschitz_constant(a_s, a_t, n_source=n_source, n_target=n_target), rel=1e-12
    )


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(problems, st.booleans())
def test_objective_never_increases(p, accelerate):
    """Lemma 1, eq. (21): F(Theta_k+1) <= F(Theta_k), plain and restarted-momentum runs."""
    rng = np.random.default_rng(p["seed"])
    ns, nt, d = p["ns"], p["nt"], p["d"]
    kc, ks, kt = ranks_for(p, rng)
    Xs = low_rank(rng, ns, d, 2) + rng.normal(size=(ns, d))
    Xt = low_rank(rng, nt, d, 2) + 5.0 * rng.normal(size=(nt, d)) * (rng.random((nt, d)) < 0.2)
    model = RobustTransferPCA(
        n_shared=kc,
        n_source=ks,
        n_target=kt,
        alpha_source=p["a_s"],
        alpha_target=p["a_t"],
        beta_source=p["b_s"],
        beta_target=p["b_t"],
        accelerate=accelerate,
        max_iter=150,
        tol=0.0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xt, source=Xs)
    history = np.r_[model.initial_objective_, model.objective_history_]
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    # the history is objective (13) of the returned variables
    last = transfer_objective(
        Xs,
        Xt,
        model.shared_,
        model.source_private_,
        model.target_private_,
        model.source_sparse_,
        model.sparse_,
        alpha_source=p["a_s"],
        alpha_target=p["a_t"],
        beta_source=p["b_s"],
        beta_target=p["b_t"],
    )
    assert last == pytest.approx(history[-1], rel=1e-10, abs=1e-12)
    for M, k in [(model.shared_, kc), (model.source_private_, ks), (model.target_private_, kt)]:
        assert np.linalg.matrix_rank(M) <= k


# --------------------------------------------------------------------------- (16)-(17)
def test_first_step_is_the_closed_form_prox_from_zero():
    """One iteration from Theta = 0 is p(eta, 0) of (16)-(17): truncated SVDs of
    -grad/eta and soft thresholding at beta/eta."""
    rng = np.random.default_rng(1)
    Xs, Xt = rng.normal(size=(7, 9)), rng.normal(size=(6, 9))
    a_s, a_t, b_s, b_t = 0.5, 2.0, 0.2, 0.7
    with pytest.warns(ConvergenceWarning):
        model = RobustTransferPCA(
            n_shared=3,
            n_source=2,
            n_target=1,
            alpha_source=a_s,
            alpha_target=a_t,
            beta_source=b_s,
            beta_target=b_t,
            max_iter=1,
        ).fit(Xt, source=Xs)
    eta = 3 * max(a_s, a_t)
    assert model.eta_ == eta
    Mc = truncate(np.vstack([a_s * Xs, a_t * Xt]) / eta, 3)
    np.testing.assert_allclose(model.shared_, Mc, atol=1e-12)
    np.testing.assert_allclose(model.source_private_, truncate(a_s * Xs / eta, 2), atol=1e-12)
    np.testing.assert_allclose(model.target_private_, truncate(a_t * Xt / eta, 1), atol=1e-12)
    np.testing.assert_allclose(model.source_sparse_, soft(a_s * Xs / eta, b_s / eta), atol=1e-15)
    np.testing.assert_allclose(model.sparse_, soft(a_t * Xt / eta, b_t / eta), atol=1e-15)
    np.testing.assert_allclose(model.low_rank_, Mc[7:] + truncate(a_t * Xt / eta, 1), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(problems)
def test_prox_step_minimizes_the_quadratic_model(p):
    """(16): p(eta, 0) minimises Q_eta(., 0) over the rank-constrained set C; random
    feasible points and rank-preserving perturbations of p never do better."""
    rng = np.random.default_rng(p["seed"])
    ns, nt, d = p["ns"], p["nt"], p["d"]
    kc, ks, kt = ranks_for(p, rng)
    Xs, Xt = rng.normal(size=(ns, d)), rng.normal(size=(nt, d))
    a = [p[k] for k in "a_s a_t b_s b_t".split()]
    model = Model(Xs, Xt, *a)
    res = solve_robust_transfer_pca(
        Xt,
        Xs,
        n_shared=kc,
        n_source=ks,
        n_target=kt,
        n_components=1,
        max_iter=1,
        tol=0.0,
        rng=rng,
        alpha_source=a[0],
        alpha_target=a[1],
        beta_source=a[2],
        beta_target=a[3],
    )
    info = res.info
    prox = [info["shared"], info["source_private"], info["target_private"]]
    prox += [info["source_sparse"], info["sparse"]]
    zero = [np.zeros_like(x) for x in prox]
    eta = info["eta"]
    best = model.Q(prox, zero, eta)
    for _ in range(10):
        other = feasible(rng, ns, nt, d, kc, ks, kt, scale=float(rng.choice([0.1, 1.0])))
        assert best <= model.Q(other, zero, eta) + 1e-12
        nudged = [x * (1 + 0.01 * rng.normal()) for x in prox]  # scaling keeps the rank
        nudged[3] = prox[3] + 1e-3 * rng.normal(size=prox[3].shape)
        assert best <= model.Q(nudged, zero, eta) + 1e-12


@settings(max_examples=30, deadline=None)
@given(m=st.integers(12, 60), d=st.integers(12, 60), k=st.integers(1, 4), seed=SEEDS)
def test_warm_started_projection_is_eckart_young(m, d, k, seed):
    """The warm-started Rayleigh-Ritz projection tracks the exact rank-k truncation of a
    slowly moving sequence (and the exact fallback handles the first and jumpy steps)."""
    rng = np.random.default_rng(seed)
    spectrum = np.r_[np.linspace(10.0, 5.0, k), 0.5 * rng.random(min(m, d) - k)]
    U = np.linalg.qr(rng.normal(size=(m, min(m, d))))[0]
    V = np.linalg.qr(rng.normal(size=(d, min(m, d))))[0]
    Y = (U * spectrum) @ V.T
    project = RankProjector(k, (m, d))
    for step in range(8):
        Y = Y + (0.01 if step != 4 else 3.0) * rng.normal(size=(m, d))  # one jump
        M = project(Y)
        assert np.linalg.norm(M - truncate(Y, k)) <= 1e-6 * np.linalg.norm(Y)
    assert project.n_steps + project.n_exact >= 8


def test_a_new_dominant_direction_outside_the_warm_start_is_found():
    """Converged Ritz pairs are eigenpairs but not necessarily the top ones: a dominant
    direction orthogonal to the warm start was never seen, and the projection (residual
    100.9) was not the truncated SVD (16.5)."""
    n, d, k = 200, 100, 2
    project = RankProjector(k, (n, d))
    Y = np.zeros((n, d))
    Y[np.arange(k + 5), np.arange(k + 5)] = 10.0 - np.arange(k + 5)
    project(Y)  # exact on the first call; keeps the warm start
    Y[50, 60] = 100.0  # orthogonal to it
    np.testing.assert_allclose(project(Y), truncate(Y, k), atol=1e-9)


def test_projection_of_degenerate_matrices():
    project = RankProjector(3, (40, 30))
    np.testing.assert_array_equal(project(np.zeros((40, 30))), 0.0)
    Y = np.outer(np.arange(40.0), np.ones(30))  # rank one, below the bound
    for _ in range(3):
        np.testing.assert_allclose(project(Y), Y, atol=1e-10)
    assert np.all(np.isfinite(project(np.zeros((40, 30)))))


# --------------------------------------------------------------------------- recovery
def planted(seed, *, share=True, n=60, d=50, kc=4, k=2, fraction=0.1, scale=0.25):
    """Source and target with a shared row space B_c, private parts, salt errors.

    ``X_s = N_s B_c + Z_s B_s`` (clean) and ``X_t = N_t B_c + Z_t B_t`` with a fraction of
    its entries set to the maximum (Guo's sec. 5 corruption); entries have std ``scale``.
    With ``share=False`` the source has its own, unrelated B_c.
    """
    rng = np.random.default_rng(seed)
    Bc, Bs, Bt = (rng.normal(size=(r, d)) for r in (kc, k, k))
    B_source = Bc if share else rng.normal(size=(kc, d))
    f = scale / np.sqrt(kc + k)
    source = f * (rng.normal(size=(n, kc)) @ B_source + rng.normal(size=(n, k)) @ Bs)
    clean = f * (rng.normal(size=(n, kc)) @ Bc + rng.normal(size=(n, k)) @ Bt)
    noisy, _ = add_salt_noise(clean, fraction, random_state=rng)
    return source, noisy, clean


RANKS = {"n_shared": 4, "n_source": 2, "n_target": 2}


@pytest.mark.parametrize("seed", range(4))
def test_planted_shared_subspace_helps(seed):
    """A clean source sharing B_c: R-T-PCA recovers the target better than R-PCA with
    rank kc + kt = 6 (10% salt, Guo's alpha = 1, beta = 0.1). Measured over seeds 0-9:
    RMSE 0.0191 against 0.0226 on average, R-T-PCA ahead on every seed (ratio <= 0.88),
    both far below PCA (0.23)."""
    source, noisy, clean = planted(seed)
    transfer = rmse(r_t_pca(source, noisy, **RANKS), clean)
    alone = rmse(r_pca(source, noisy, **RANKS), clean)
    assert transfer < 0.92 * alone
    assert transfer < 0.1 * 0.25  # 10% of the signal's standard deviation
    assert alone < 0.5 * rmse(pca_recover(source, noisy, **RANKS), clean)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_planted_unrelated_source_hurts(seed):
    """The gain comes from the shared subspace: with a source whose B_c is unrelated,
    forcing kc = 4 shared directions makes R-T-PCA worse than R-PCA (measured: RMSE
    0.128 against 0.024 on average over seeds 0-9)."""
    source, noisy, clean = planted(seed, share=False)
    transfer = rmse(r_t_pca(source, noisy, **RANKS), clean)
    assert transfer > 2.0 * rmse(r_pca(source, noisy, **RANKS), clean)


def test_acceleration_reaches_the_plain_objective_sooner():
    """Restarted momentum reaches the final objective of the plain Algorithm 1 in fewer
    iterations on the planted problem (measured on seeds 0-4: 48-62 against 104-124)."""
    source, noisy, _ = planted(0)
    plain = RobustTransferPCA(**RANKS).fit(noisy, source=source)
    target = plain.objective_history_[-1]
    fast = RobustTransferPCA(
        **RANKS,
        accelerate=True,
        tol=0.0,
        max_iter=plain.n_iter_,
        callback=lambda it, state: state.objective <= target,
    ).fit(noisy, source=source)
    assert fast.stop_reason_ == "stopped by callback"
    assert fast.objective_history_[-1] <= target
    assert fast.n_iter_ < 0.6 * plain.n_iter_


# --------------------------------------------------------------------------- estimator
def test_fit_without_source_is_rank_constrained_rpca():
    """fit(X) solves the target-only problem: R-PCA (6) with rank n_components."""
    rng = np.random.default_rng(2)
    X, _ = add_salt_noise(low_rank(rng, 30, 20, 3), 0.1, random_state=0)
    a = RobustTransferPCA(n_components=4, alpha_target=2.0, beta_target=0.3).fit(X)
    b = RankConstrainedRobustPCA(n_components=4, alpha=2.0, beta=0.3).fit(X)
    np.testing.assert_array_equal(a.low_rank_, b.low_rank_)
    np.testing.assert_array_equal(a.sparse_, b.sparse_)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert a.eta_ == b.eta_ == 4.0  # 2 alpha: one low-rank block and E
    np.testing.assert_array_equal(a.shared_, a.low_rank_)
    assert a.source_private_.shape == (0, 20) and not a.target_private_.any()
    default = RobustTransferPCA(n_shared=2, n_target=1).fit(X)
    assert default.n_components_ == 3 and np.linalg.matrix_rank(default.low_rank_) == 3


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(nt=st.integers(3, 25), ns=st.integers(1, 25), d=st.integers(3, 25), seed=SEEDS)
def test_fitted_model_follows_the_subspace_contract(nt, ns, d, seed):
    """components_ are orthonormal top right singular vectors of low_rank_; mean_ = 0."""
    rng = np.random.default_rng(seed)
    X, source = rng.normal(size=(nt, d)), rng.normal(size=(ns, d))
    X_copy, source_copy = X.copy(), source.copy()
    kc = min(2, ns + nt, d)
    model = RobustTransferPCA(n_shared=kc, n_source=min(1, ns), n_target=1, max_iter=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, source=source)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(source, source_copy)
    k = model.n_components_
    assert k == min(kc + 1, nt, d)
    W = model.components_
    np.testing.assert_allclose(W @ W.T, np.eye(k), atol=1e-10)
    np.testing.assert_array_equal(model.mean_, 0.0)
    L = model.low_rank_
    np.testing.assert_allclose(L @ W.T @ W, L, atol=1e-8 * max(1.0, np.abs(L).max()))
    np.testing.assert_allclose(model.transform(X), X @ W.T, atol=1e-12)
    assert model.shared_.shape == (ns + nt, d) and model.sparse_.shape == (nt, d)


@pytest.mark.slow
@pytest.mark.parametrize(
    "data",
    [
        np.zeros((10, 8)),
        np.full((10, 8), 3.0),
        np.tile(np.arange(8.0), (10, 1)),  # duplicate rows
        np.c_[np.zeros((10, 1)), np.random.default_rng(0).normal(size=(10, 7))],
    ],
    ids=["zeros", "constant", "duplicate-rows", "constant-feature"],
)
@pytest.mark.parametrize("accelerate", [False, True])
def test_degenerate_data_gives_finite_fits(data, accelerate):
    """No NaN, no RuntimeWarning (an error in this suite) on degenerate data."""
    source = data[:6] + 1.0
    transfer = RobustTransferPCA(n_shared=2, n_source=1, n_target=1, accelerate=accelerate)
    rpca = RankConstrainedRobustPCA(n_components=3, accelerate=accelerate)
    for fit in (transfer.fit(data, source=source), rpca.fit(data)):
        for name in ("low_rank_", "sparse_", "components_", "objective_history_"):
            assert np.all(np.isfinite(getattr(fit, name))), name
        assert fit.converged_
    zero = RankConstrainedRobustPCA(n_components=2).fit(np.zeros((5, 4)))
    assert zero.stop_reason_ == StopReason.EXACT
    assert zero.n_iter_ == 1 and not zero.low_rank_.any()


def test_max_iter_warns_and_callback_sees_components():
    rng = np.random.default_rng(0)
    X, source = rng.normal(size=(12, 9)), rng.normal(size=(8, 9))
    seen = []

    def callback(iteration, state):
        seen.append((iteration, state.objective, state.components.shape))

    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        model = RobustTransferPCA(
            n_shared=2, n_source=1, n_target=1, max_iter=3, tol=0.0, callback=callback
        ).fit(X, source=source)
    assert [s[0] for s in seen] == [1, 2, 3]
    assert [s[1] for s in seen] == list(model.objective_history_)
    assert all(s[2] == (3, 9) for s in seen)
    stop = RobustTransferPCA(callback=lambda it, state: True, n_shared=2, n_target=1)
    assert stop.fit(X, source=source).n_iter_ == 1


BAD_PARAMS = [
    ({"n_shared": -1}, ValueError, "n_shared"),
    ({"n_source": 1.5}, TypeError, "n_source"),
    ({"n_target": True}, TypeError, "n_target"),
    ({"n_shared": 0, "n_target": 0}, ValueError, "n_shared \\+ n_target"),
    ({"n_shared": 21}, ValueError, "n_shared=21 exceeds"),
    ({"n_source": 9}, ValueError, "n_source=9 exceeds"),
    ({"n_target": 13}, ValueError, "n_target=13 exceeds"),
    ({"alpha_source": 0.0}, ValueError, "alpha_source"),
    ({"alpha_target": -1.0}, ValueError, "alpha_target"),
    ({"beta_source": -0.1}, ValueError, "beta_source"),
    ({"beta_target": np.inf}, ValueError, "beta_target"),
    ({"beta_target": "0.1"}, TypeError, "beta_target"),
    ({"eta": 2.9}, ValueError, "eta=2.9 is below the Lipschitz constant 3.0"),
    ({"eta": 0.0}, ValueError, "eta"),
    ({"eta": "auto"}, TypeError, "eta"),
    ({"accelerate": "yes"}, TypeError, "accelerate"),
    ({"n_components": 13}, ValueError, "n_components"),
    ({"max_iter": 0}, ValueError, "max_iter"),
    ({"tol": -1.0}, ValueError, "tol"),
]


@pytest.mark.parametrize(("params", "error", "match"), BAD_PARAMS)
def test_bad_parameters_name_the_parameter(params, error, match):
    rng = np.random.default_rng(0)
    X, source = rng.normal(size=(12, 20)), rng.normal(size=(8, 20))  # kc <= 20, ks <= 8
    with pytest.raises(error, match=match):
        RobustTransferPCA(**params).fit(X, source=source)


def test_bad_source_is_named():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 20))
    model = RobustTransferPCA(n_shared=2, n_source=1, n_target=1)
    with pytest.raises(ValueError, match="source has 19 columns but X has 20"):
        model.fit(X, source=rng.normal(size=(8, 19)))
    bad = rng.normal(size=(8, 20))
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="source"):
        model.fit(X, source=bad)
    with pytest.raises(ValueError, match="source"):
        model.fit(X, source=np.ones(20))  # 1-D
    with pytest.raises(ValueError, match="n_components"):  # target-only rank 11 > 8
        RobustTransferPCA().fit(rng.normal(size=(8, 30)))


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"alpha": 0.0}, ValueError, "alpha"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"eta": 1.0}, ValueError, "eta=1.0 is below the Lipschitz constant 2.0"),
        ({"accelerate": 1}, TypeError, "accelerate"),
    ],
)
def test_rank_constrained_rpca_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        RankConstrainedRobustPCA(n_components=2, **params).fit(np.ones((5, 4)))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_larger_eta_is_allowed_and_still_monotone():
    rng = np.random.default_rng(4)
    X, source = rng.normal(size=(15, 10)), rng.normal(size=(10, 10))
    model = RobustTransferPCA(n_shared=2, n_source=1, n_target=1, eta=10.0, max_iter=300)
    model.fit(X, source=source)
    assert model.eta_ == 10.0
    assert np.all(np.diff(model.objective_history_) <= 1e-12 * model.initial_objective_)


# --------------------------------------------------------------------------- registry
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_comparison_methods_by_name():
    rng = np.random.default_rng(0)
    source, clean = low_rank(rng, 20, 16, 3), low_rank(rng, 18, 16, 3)
    noisy, _ = add_salt_noise(clean, 0.05, random_state=1)
    params = {"n_shared": 2, "n_source": 1, "n_target": 1, "beta": 0.2, "max_iter": 200}
    out = {name: recover_target(name, source, noisy, **params) for name in COMPARISON_METHODS}
    assert list(COMPARISON_METHODS) == [
        "R-T-PCA",
        "R-S-PCA",
        "R-PCA",
        "S-PCA",
        "PCA",
        "R-2Step-PCA",
    ]
    for name, rec in out.items():
        assert rec.shape == noisy.shape and np.all(np.isfinite(rec)), name
    # the two PCA baselines are the closed form (3): truncated SVDs, no centring
    np.testing.assert_allclose(out["PCA"], truncate(noisy, 3), atol=1e-10)
    np.testing.assert_allclose(
        out["S-PCA"], truncate(np.vstack([source, noisy]), 3)[20:], atol=1e-10
    )
    rpca = RankConstrainedRobustPCA(n_components=3, beta=0.2, max_iter=200).fit(noisy)
    np.testing.assert_array_equal(out["R-PCA"], rpca.low_rank_)
    shared = RankConstrainedRobustPCA(n_components=2, beta=0.2, max_iter=200)
    shared = shared.fit(np.vstack([source, noisy])).low_rank_[20:]
    rest = RankConstrainedRobustPCA(n_components=1, beta=0.2, max_iter=200).fit(noisy - shared)
    np.testing.assert_allclose(out["R-2Step-PCA"], shared + rest.low_rank_)
    assert np.linalg.matrix_rank(out["R-2Step-PCA"]) <= 3
    np.testing.assert_array_equal(out["R-T-PCA"], r_t_pca(source, noisy, **params))
    np.testing.assert_array_equal(out["PCA"], pca_recover(source, noisy, **params))
    np.testing.assert_array_equal(out["S-PCA"], s_pca(source, noisy, **params))
    np.testing.assert_array_equal(out["R-2Step-PCA"], r_2step_pca(source, noisy, **params))
    with pytest.raises(ValueError, match="method='RPCA' is not one of"):
        recover_target("RPCA", source, noisy)
    with pytest.raises(ValueError, match="source has 15 columns but target has 16"):
        recover_target("PCA", source[:, :15], noisy)


@pytest.mark.parametrize("method", sorted(COMPARISON_METHODS))
def test_comparison_methods_name_the_ranks_too_large_for_the_data(method):
    """R-PCA, R-S-PCA and R-2Step-PCA said "n_components=11 must be between ...", a
    parameter the caller never passed; every method names n_shared / n_target."""
    rng = np.random.default_rng(0)
    source, target = rng.random((20, 4)), rng.random((20, 4))  # ranks 8 + 3 > 4 columns
    with pytest.raises(ValueError, match="n_shared") as info:
        recover_target(method, source, target)
    assert "n_components" not in str(info.value)
    if method in ("R-PCA", "R-S-PCA", "S-PCA", "PCA"):
        assert "n_shared + n_target = 11 exceeds the rank" in str(info.value)
    if method == "R-2Step-PCA":  # each step's rank against the matrix that step fits
        assert "n_shared = 8 exceeds the rank a 40 x 4 matrix" in str(info.value)
        with pytest.raises(ValueError, match="n_target = 3 exceeds the rank a 2 x 16 matrix"):
            recover_target(method, rng.random((30, 16)), rng.random((2, 16)), n_shared=0)


@pytest.mark.parametrize("method", sorted(COMPARISON_METHODS))
def test_comparison_methods_take_the_same_keywords(method):
    """S-PCA and PCA took ``**_`` and silently ignored a misspelt keyword that the four
    robust methods refused; all six take the same keywords and refuse any other."""
    rng = np.random.default_rng(1)
    source, target = rng.random((20, 16)), rng.random((20, 16))
    ranks = {"n_shared": 2, "n_source": 1, "n_target": 1}
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_sharde'"):
        recover_target(method, source, target, **ranks, n_sharde=5, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out = recover_target(
            method,
            source,
            target,
            **ranks,
            alpha=1.0,
            beta=0.1,
            accelerate=True,
            max_iter=5,
            tol=1e-6,
        )
    assert out.shape == target.shape


def test_salt_noise_protocol():
    X = np.arange(200.0).reshape(10, 20)
    X_copy = X.copy()
    noisy, mask = add_salt_noise(X, 0.05, random_state=3)
    np.testing.assert_array_equal(X, X_copy)
    assert mask.sum() == 10 and np.all(noisy[mask] == 199.0)
    np.testing.assert_array_equal(noisy[~mask], X[~mask])
    again, _ = add_salt_noise(X, 0.05, random_state=3)
    np.testing.assert_array_equal(again, noisy)
    assert add_salt_noise(X, 0.0)[1].sum() == 0 and add_salt_noise(X, 1.0, value=-1)[0].max() == -1
    with pytest.raises(ValueError, match="fraction"):
        add_salt_noise(X, 1.5)
    with pytest.raises(TypeError, match="fraction"):
        add_salt_noise(X, "5%")
    with pytest.raises(ValueError, match="value"):
        add_salt_noise(X, 0.1, value=np.nan)
    assert rmse(X, X) == 0.0
    with pytest.raises(ValueError, match="same shape"):
        rmse(X, X.T)


# --------------------------------------------------------------------------- fixed points
def test_stationary_errors_are_the_soft_thresholded_residual():
    """At a fixed point of (17), E_j = soft(X_j - (low-rank part), beta_j / alpha_j): for
    fixed M the problem is an entrywise Huber fit with threshold beta/alpha."""
    source, noisy, _ = planted(0)
    model = RobustTransferPCA(
        **RANKS, alpha_target=2.0, beta_target=0.3, tol=1e-12, max_iter=5000, accelerate=True
    ).fit(noisy, source=source)
    assert model.converged_
    assert model.sparse_.any()
    np.testing.assert_allclose(model.sparse_, soft(noisy - model.low_rank_, 0.15), atol=1e-6)
    source_low = model.shared_[:60] + model.source_private_
    np.testing.assert_allclose(model.source_sparse_, soft(source - source_low, 0.1), atol=1e-6)


def test_tracked_and_exact_projections_give_the_same_fit():
    """The warm-started projection changes the iterates only at rounding-like levels
    (measured: same 167 iterations, objectives 6e-11 apart, low-rank parts 5e-8)."""
    source, noisy, _ = planted(0)
    common = dict(**RANKS, n_components=6, max_iter=5000, rng=np.random.default_rng(0), tol=1e-8)
    exact = solve_robust_transfer_pca(noisy, source, exact_svd=True, **common)
    tracked = solve_robust_transfer_pca(noisy, source, **common)
    assert tracked.n_iter == pytest.approx(exact.n_iter, rel=0.02)
    assert tracked.objective[-1] == pytest.approx(exact.objective[-1], rel=1e-9)
    scale = np.linalg.norm(exact.info["low_rank"])
    assert np.linalg.norm(tracked.info["low_rank"] - exact.info["low_rank"]) < 1e-6 * scale


# --------------------------------------------------------------------------- Yale, sec. 5.1
YALE_SUBJECTS = (1, 5, 9, 13)


@pytest.fixture(scope="module")
def yale_intra_subject(shared_data):
    """Guo's intra-subject protocol on 64x64 Yale faces (Figure 1's size), pixels / 255:
    the subject's first image with 5% of its pixels set to 1 (the maximum) is the
    target, its second image the source; kc, ks, kt = 8, 3, 3, alpha = 1, beta = 0.1."""
    yale = load_yale(shared_data, resolution="64x64")
    images = yale.images / 255.0
    scores = {name: [] for name in COMPARISON_METHODS}
    for subject in YALE_SUBJECTS:
        first, second = np.flatnonzero(yale.target == subject)[:2]
        clean = images[first]
        noisy, _ = add_salt_noise(clean, 0.05, value=1.0, random_state=subject)
        for name, method in COMPARISON_METHODS.items():
            scores[name].append(rmse(method(images[second], noisy, tol=1e-5), clean))
    return {name: np.mean(values) for name, values in scores.items()}


@pytest.mark.realdata
def test_yale_transfer_beats_target_only_methods(yale_intra_subject):
    """Table 1's order where it reproduces: R-T-PCA recovers the clean face with a lower
    RMSE than R-PCA, PCA, S-PCA and R-2Step-PCA. Mean RMSE over the 4 tasks here
    (tol=1e-5 for speed; the default 1e-6 changes these by < 3%): R-T-PCA 0.0454,
    R-S-PCA 0.0442, R-2Step-PCA 0.0565, R-PCA 0.0637, S-PCA 0.0936, PCA 0.1014. Over the
    full protocol (15 tasks x 10 sources x 5 noise draws, defaults; ``python
    benchmarks/bench_transfer.py --table1``): 0.0486, 0.0488, 0.0560, 0.0682, 0.0930,
    0.1021, and R-T-PCA has the lowest mean on all 15 tasks against R-PCA, PCA, S-PCA and
    R-2Step-PCA. (Table 1's values, 0.134 to 0.523, are on a scale the paper does not
    state; only the order is compared.)"""
    s = yale_intra_subject
    for other in ("R-PCA", "PCA", "S-PCA", "R-2Step-PCA"):
        assert s["R-T-PCA"] < s[other], other
    assert s["R-T-PCA"] < 0.8 * s["R-PCA"]
    assert s["R-T-PCA"] < 0.5 * s["PCA"]


@pytest.mark.realdata
def test_yale_transfer_ties_with_shared_robust_pca(yale_intra_subject):
    """Where the claim does not reproduce: Table 1 has R-T-PCA well ahead of R-S-PCA
    (0.143 against 0.185 on Task-1, ahead on all 15 tasks); here the two are within a
    few percent: 0.0454 against 0.0442 on these 4 tasks (R-S-PCA ahead on 2), 0.0486
    against 0.0488 over the full protocol (R-T-PCA ahead on 8 of 15 tasks)."""
    s = yale_intra_subject
    assert 0.9 < s["R-T-PCA"] / s["R-S-PCA"] < 1.1


def test_a_source_with_other_column_names_is_refused():
    """The source's columns are matched with the target's by position: a DataFrame
    source whose names or order differ from the target's was fitted silently."""
    import pandas as pd

    rng = np.random.default_rng(0)
    names = [f"f{j}" for j in range(6)]
    X = pd.DataFrame(rng.standard_normal((30, 6)), columns=names)
    source = pd.DataFrame(rng.standard_normal((20, 6)), columns=names)
    model = RobustTransferPCA(n_shared=2, n_source=1, n_target=1, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, source=source)
        model.fit(X, source=source.to_numpy())  # no names: matched by position
        with pytest.raises(ValueError, match="source must have the columns of X"):
            model.fit(X, source=source[names[::-1]])
        with pytest.raises(ValueError, match="source must have the columns of X"):
            model.fit(X, source=source.rename(columns={"f0": "g0"}))
