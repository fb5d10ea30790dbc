"""The estimators ``run_all.py`` times, and how it runs their paper-literal counterparts.

``build_specs`` lists one :class:`Spec` per robustpca estimator: how to build ours for a
given number of iterations, the literal code of ``benchmarks/paper_literal*.py`` that
reproduces it, the bytes that code needs, and how the two fits are compared.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

SHAPES = ("att", "tall", "wide")


def quiet(fn):
    """``fn`` with scikit-learn's ConvergenceWarning silenced (fits run a fixed budget)."""
    from sklearn.exceptions import ConvergenceWarning

    def wrapped(*a, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return fn(*a, **kw)

    return wrapped


# ---------------------------------------------------------------------- estimators
@dataclass
class Spec:
    """One estimator: how to build ours, and its paper-literal counterpart."""

    name: str
    label: str
    make: Any  # (case, n_iter, callback) -> estimator
    literal: Any = None  # (case, ours, n) -> normalised dict
    literal_label: str = ""
    literal_bytes: Any = None  # case -> bytes the literal code needs (computed)
    shapes: tuple[str, ...] = SHAPES
    timebox: bool = True
    objective_scale: float | None = 1.0  # literal objective / ours' (None: not comparable)
    basis: Any = None  # (case, ours) -> (d, r) matrix compared with the literal's basis
    steady: bool = True  # iterations alike: compare steady per-iteration times, else fit / iters
    midway: bool = True  # objectives comparable before the last iteration (not for the ALMs,
    # whose partial SVDs make the early iterates differ from the literal full SVDs)
    reference: Any = None  # (case, n) -> the fit whose objectives the literal reproduces
    # (default: ours as timed; the ALMs: ours on Lin et al.'s schedule, gap_tol=None,
    # since with a gap target the penalty stops growing where the multiplier stalls)


def _nd(case):
    return case.X.shape


def _comp(case, est):
    return est.components_.T


def _kron(case, est):
    from robustpca.solvers.two_d import kron_components

    return kron_components(est.left_components_, est.right_components_, case.image_shape[0]).T


def _norm(basis=None, objective=None, iter_seconds=None, n_iter=None, **extra):
    obj = None if objective is None else [float(v) for v in objective]
    if n_iter is None:
        n_iter = len(obj) if obj is not None else len(iter_seconds or [])
    return {
        "basis": basis,
        "objective": obj,
        "iter_seconds": iter_seconds,
        "n_iter": n_iter,
        **extra,
    }


def _lit_pca(case, est, n):
    from paper_literal_pca import pca_paper_literal

    r = pca_paper_literal(case.X, case.k)
    return _norm(r["basis"], None, r["iter_seconds"], 1)


def _lit_om(case, est, n):
    from paper_literal import rpca_om_paper_literal

    U, _, hist = rpca_om_paper_literal(case.X, case.k, n, float(est.epsilon_))
    return _norm(U, hist)


def _lit_l21(case, est, n):
    from paper_literal_l21 import l21_pca_paper_literal

    r = l21_pca_paper_literal(case.X, case.k, n, case.sklearn_basis)
    return _norm(r["basis"], r["objective"], r["iter_seconds"])


def _lit_l1(case, est, n):
    from paper_literal_l1 import l1_pca_paper_literal

    r = l1_pca_paper_literal(case.X, case.k, est.max_iter, np.random.default_rng(0))
    return _norm(r["basis"], None, r["iter_seconds"], len(r["iter_seconds"]))


def _lit_r1(case, est, n):
    from paper_literal_r1 import r1_pca_paper_literal

    r = r1_pca_paper_literal(case.X, case.k, n)
    return _norm(r["basis"], r["objective"], r["iter_seconds"], setup=r["setup_seconds"])


def _lit_gm(case, est, n):
    from paper_literal_gm import pca_gm_paper_literal

    mean_iter = max(int(est.center_n_iter_) - 1, 0)
    r = pca_gm_paper_literal(case.X, case.k, float(est.p), float(est.delta_), n, mean_iter)
    return _norm(r["basis"], r["objective"], r["iter_seconds"], setup=r["setup_seconds"])


def _lit_hq(case, est, n):
    from paper_literal_hq import hq_pca_paper_literal

    r = hq_pca_paper_literal(case.X, case.k, n)
    return _norm(r["basis"], r["objective"], r["iter_seconds"])


def _lit_an(case, est, n):
    from paper_literal_reweighting import rwl_an_literal

    return _norm(rwl_an_literal(case.X, case.k, int(est.n_neighbors_), n), n_iter=n)


def _lit_2dpca(case, est, n):
    from paper_literal_two_d import two_d_pca_paper_literal

    r = two_d_pca_paper_literal(case.images, case.k2d)
    return _norm(r["right"], None, r["iter_seconds"], 1)


def _lit_glram(case, est, n):
    from paper_literal_two_d import glram_paper_literal
    from robustpca.solvers.two_d import kron_components

    k1, k2 = case.ranks2d
    r = glram_paper_literal(case.images, k1, k2, n)
    basis = kron_components(r["left"], r["right"], case.image_shape[0]).T
    return _norm(basis, r["objective"], r["iter_seconds"])


def _lit_r2d(case, est, n):
    from paper_literal_two_d import r2dpca_paper_literal
    from robustpca.solvers.two_d import kron_components

    k1, k2 = case.ranks2d
    r = r2dpca_paper_literal(case.images, k1, k2, n, float(est.epsilon_))
    basis = kron_components(r["left"], r["right"], case.image_shape[0]).T
    return _norm(basis, r["objective"], r["iter_seconds"])


def _lit_pcp(case, est, n):
    from paper_literal_convex import pcp_ialm_paper_literal

    _, _, hist = pcp_ialm_paper_literal(case.X, float(est.lam_), tol=float(est.tol), max_iter=n)
    return _norm(None, hist)


def _lit_crpca(with_mean):
    def run(case, est, n):
        from paper_literal_crpca import crpca_om_paper_literal

        mu = float(est.mu_)
        r = crpca_om_paper_literal(
            case.X,
            float(est.gamma_),
            mu=mu,
            mu_max=1e9 * mu,
            rho=float(est.rho),
            tol=float(est.tol),
            max_iter=n,
            with_mean=with_mean,
        )
        return _norm(None, r["objective"], r["iter_seconds"])

    return run


def _dd(extra_nd=2, extra_dd=4, extra_nn=0):
    """Bytes of a literal code whose largest arrays are n x d, d x d and n x n copies."""

    def need(case):
        n, d = _nd(case)
        return 8 * (extra_nd * n * d + extra_dd * d * d + extra_nn * n * n)

    return need


def build_specs(n_iter: int) -> list[Spec]:
    import robustpca as rp

    # one builder per family: the Spec's name is the estimator's class in robustpca
    def iterative(name, label, *literal, **kw):  # run for n iterations, basis = components_
        cls = getattr(rp, name)
        return Spec(
            name,
            label,
            lambda case, n, cb: cls(case.k, max_iter=n, tol=0.0, callback=cb),
            *literal,
            basis=_comp,
            **kw,
        )

    def two_d(name, label, *literal):  # AT&T faces only, basis = kron(left, right)
        cls = getattr(rp, name)
        return Spec(
            name,
            label,
            lambda case, n, cb: cls(
                case.ranks2d, image_shape=case.image_shape, max_iter=n, tol=0.0, callback=cb
            ),
            *literal,
            shapes=att,
            basis=_kron,
        )

    def convex(name, label, *literal):  # the convex programs run to their own tolerance
        cls = getattr(rp, name)
        return Spec(
            name,
            label,
            lambda case, n, cb: cls(random_state=0, callback=cb),
            *literal,
            shapes=att,
            midway=False,
            reference=quiet(
                lambda case, n: cls(random_state=0, gap_tol=None, max_iter=n).fit(case.X)
            ),
        )

    att = ("att",)
    return [
        Spec(
            "PCA",
            "PCA",
            lambda case, n, cb: rp.PCA(case.k),
            _lit_pca,
            "covariance (d x d) + full eigh",
            _dd(1, 4),
            objective_scale=None,
            basis=_comp,
        ),
        iterative(
            "OptimalMeanPCA", "RPCA-OM", _lit_om, "Alg. 1: n x n D, SVD of X H_d", _dd(5, 0, 6)
        ),
        iterative("L21PCA", "PCA-L21", _lit_l21, "Alg. 2: M = X alpha^T, thin SVD", _dd(3, 0)),
        Spec(
            "L1PCA",
            "PCA-L1",
            lambda case, n, cb: rp.L1PCA(case.k, callback=cb),
            _lit_l1,
            "Kwak's greedy algorithm",
            _dd(3, 0),
            timebox=False,
            objective_scale=None,
            basis=_comp,
            steady=False,
        ),
        iterative(
            "R1PCA",
            "R1-PCA",
            _lit_r1,
            "d x d C_w, C_w U, QR; PCA by full eigh",
            _dd(2, 4),
            objective_scale=2.0,
        ),
        iterative(
            "GeneralizedMeanPCA", "PCA-GM", _lit_gm, "Alg. 1-2: d x d S^_beta, full eigh", _dd(2, 5)
        ),
        iterative("HQPCA", "HQ-PCA", _lit_hq, "d x d weighted covariance, full eigh", _dd(3, 4)),
        iterative(
            "AdaptiveNeighborsPCA",
            "RWL-AN",
            _lit_an,
            "Alg. 2: n x n diag(p), d x d, full eigh",
            _dd(3, 4, 3),
            objective_scale=None,
        ),
        Spec(
            "TwoDPCA",
            "2DPCA",
            lambda case, n, cb: rp.TwoDPCA(case.k2d, image_shape=case.image_shape),
            _lit_2dpca,
            "image covariance by a loop, full eigh",
            _dd(2, 0),
            shapes=att,
            objective_scale=None,
            basis=lambda case, est: est.right_components_,
        ),
        two_d("GLRAM", "GLRAM", _lit_glram, "Ye's algorithm, loops over images", _dd(2, 0)),
        two_d("Robust2DPCA", "R2DPCA", _lit_r2d, "re-weighted GLRAM, loops over images", _dd(3, 0)),
        two_d("CappedRobust2DPCA", "capped R2DPCA"),
        two_d("L21TwoDPCA", "2-D PCA-L21"),
        convex(
            "PrincipalComponentPursuit", "PCP", _lit_pcp, "Lin et al. Alg. 5, full SVD", _dd(10, 0)
        ),
        convex(
            "OutlierPursuit",
            "outlier pursuit",
            _lit_crpca(False),
            "Nie et al. Alg. 3 (no mean), full SVD",
            _dd(12, 0, 2),
        ),
        convex(
            "ConvexOptimalMeanPCA",
            "CRPCA-OM",
            _lit_crpca(True),
            "Nie et al. Alg. 3, n x n H, full SVD",
            _dd(12, 0, 3),
        ),
    ]
