r"""Algorithm 1 of Guo (NIPS 2013), R-T-PCA, written as literally as the paper prints it.

Reference for ``benchmarks/bench_transfer.py`` only; robustpca does not use this code.

Problem (11) with objective (13):

.. math::
    F = \frac{\alpha_s}{2}\lVert A_s M_c + M_s + E_s - X_s\rVert_F^2
      + \frac{\alpha_t}{2}\lVert A_t M_c + M_t + E_t - X_t\rVert_F^2
      + \beta_s\lVert E_s\rVert_1 + \beta_t\lVert E_t\rVert_1 ,

with :math:`\operatorname{rank}(M_c) \le k_c`, :math:`\operatorname{rank}(M_s) \le k_s`,
:math:`\operatorname{rank}(M_t) \le k_t`. Algorithm 1 sets :math:`\eta = 3\max(\alpha_s,
\alpha_t)`, initialises every variable to zero and repeats the closed-form proximal step
(16)-(17):

* the constant matrices :math:`A_s = [I_{n_s}, O]` and :math:`A_t = [O, I_{n_t}]` are
  formed and multiplied as written;
* the gradient parts :math:`\nabla_{M_c} f = A_s^\top \alpha_s R_s + A_t^\top \alpha_t
  R_t`, :math:`\nabla_{M_s} f = \nabla_{E_s} f = \alpha_s R_s` and
  :math:`\nabla_{M_t} f = \nabla_{E_t} f = \alpha_t R_t` are computed at
  :math:`\Theta^{(k)}`;
* ":math:`U\Sigma V^\top = \mathrm{SVD}(\cdot)`" is a full SVD (``numpy.linalg.svd``,
  full U and V) of each of the three low-rank blocks, then :math:`U_k \Sigma_k V_k^\top`;
* :math:`E \leftarrow (|\hat E| - \beta/\eta)_+ \circ \mathrm{sign}(\hat E)`;
* objective (13) is evaluated from scratch after every iteration, for the stopping test
  (the paper's "while not converged": relative change of (13) at most ``tol``, the test
  robustpca uses).
"""

from __future__ import annotations

import numpy as np

__all__ = ["rtpca_paper_literal"]


def _objective(Xs, Xt, As, At, Mc, Ms, Mt, Es, Et, a_s, a_t, b_s, b_t) -> float:
    Rs = As @ Mc + Ms + Es - Xs
    Rt = At @ Mc + Mt + Et - Xt
    return float(
        a_s / 2 * np.linalg.norm(Rs, "fro") ** 2
        + a_t / 2 * np.linalg.norm(Rt, "fro") ** 2
        + b_s * np.abs(Es).sum()
        + b_t * np.abs(Et).sum()
    )


def _rank_k(Y: np.ndarray, k: int) -> np.ndarray:
    U, S, Vt = np.linalg.svd(Y)  # full SVD, as "U Sigma V^T = SVD(.)"
    return U[:, :k] @ np.diag(S[:k]) @ Vt[:k, :]


def rtpca_paper_literal(
    Xs: np.ndarray,
    Xt: np.ndarray,
    *,
    kc: int = 8,
    ks: int = 3,
    kt: int = 3,
    weights: tuple[float, float, float, float] = (1.0, 1.0, 0.1, 0.1),
    max_iter: int = 5000,
    tol: float = 1e-6,
) -> dict:
    """Run Algorithm 1 as printed; return the variables and the objective history.

    ``weights`` are ``(alpha_s, alpha_t, beta_s, beta_t)`` of objective (13), in the
    order :func:`_objective` takes them.

    Returns
    -------
    dict
        ``Mc, Ms, Mt, Es, Et``, ``low_rank`` (:math:`A_t M_c + M_t`), ``objective``
        (list, (13) after each iteration), ``n_iter`` and ``eta``.
    """
    ns, d = Xs.shape
    nt = Xt.shape[0]
    As = np.hstack([np.eye(ns), np.zeros((ns, nt))])
    At = np.hstack([np.zeros((nt, ns)), np.eye(nt)])
    alpha_s, alpha_t, beta_s, beta_t = weights
    eta = 3 * max(alpha_s, alpha_t)
    Mc = np.zeros((ns + nt, d))
    Ms, Es = np.zeros((ns, d)), np.zeros((ns, d))
    Mt, Et = np.zeros((nt, d)), np.zeros((nt, d))
    previous = _objective(Xs, Xt, As, At, Mc, Ms, Mt, Es, Et, *weights)
    history = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (reported)
        Rs = As @ Mc + Ms + Es - Xs
        Rt = At @ Mc + Mt + Et - Xt
        grad_Mc = As.T @ (alpha_s * Rs) + At.T @ (alpha_t * Rt)
        grad_Ms, grad_Es = alpha_s * Rs, alpha_s * Rs
        grad_Mt, grad_Et = alpha_t * Rt, alpha_t * Rt
        Mc_new = _rank_k(Mc - grad_Mc / eta, kc)
        Ms_new = _rank_k(Ms - grad_Ms / eta, ks)
        Mt_new = _rank_k(Mt - grad_Mt / eta, kt)
        Es_hat = Es - grad_Es / eta
        Et_hat = Et - grad_Et / eta
        Es_new = np.maximum(np.abs(Es_hat) - beta_s / eta, 0) * np.sign(Es_hat)
        Et_new = np.maximum(np.abs(Et_hat) - beta_t / eta, 0) * np.sign(Et_hat)
        Mc, Ms, Mt, Es, Et = Mc_new, Ms_new, Mt_new, Es_new, Et_new
        current = _objective(Xs, Xt, As, At, Mc, Ms, Mt, Es, Et, *weights)
        history.append(current)
        if abs(previous - current) <= tol * abs(previous):
            break
        previous = current
    return {
        "Mc": Mc,
        "Ms": Ms,
        "Mt": Mt,
        "Es": Es,
        "Et": Et,
        "low_rank": At @ Mc + Mt,
        "objective": history,
        "n_iter": n_iter,
        "eta": eta,
    }
