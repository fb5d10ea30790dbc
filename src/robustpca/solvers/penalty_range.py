"""Penalties of the convex programs beyond which their solution is known.

Past these bounds the solution no longer changes, while the ALM's arithmetic (its
thresholds, their squares) overflows for extreme values such as ``gamma=1e200``. The
estimators hand the solver the value clipped to a point inside the trivial region: the
same solution, in finite arithmetic. They report the objective with the value given
(:func:`reported_objective`), not with the clipped one.
"""

from __future__ import annotations

import numpy as np

#: how far past its bound a clipped penalty lies (any factor > 1 is exact). Above, just
#: past: the ALM converges slowly far into the region. Below, far: the default
#: ``gamma`` can lie a little under 1 on wide data, and must not move.
_ABOVE, _BELOW = 2.0, 1e6


def solver_gamma(gamma: float, n_samples: int) -> float:
    r"""``gamma`` of :math:`\lVert X - Z\rVert_{2,1} + \gamma\lVert Z\rVert_*`, clipped
    to where the solution is fixed.

    ``Z = X`` is optimal for :math:`\gamma \le 1` (the rows of :math:`UV^\top` have
    norms at most 1), and ``Z = 0`` for :math:`\gamma \ge \gamma_{\max} \le \sqrt n`
    (:func:`robustpca.solvers.alm.gamma_max`), with or without the mean.
    """
    return float(np.clip(gamma, 1.0 / _BELOW, _ABOVE * np.sqrt(n_samples)))


def solver_lam(lam: float, shape: tuple[int, int]) -> float:
    r"""``lam`` of PCP, :math:`\lVert L\rVert_* + \lambda\lVert S\rVert_1`, clipped to
    where the solution is fixed.

    ``S = 0`` is optimal for :math:`\lambda \ge 1` (the entries of :math:`UV^\top` are
    at most 1), and ``L = 0`` for :math:`\lambda \le 1/\sqrt{nd}` (the spectral norm of
    a sign matrix is at most :math:`\sqrt{nd}`).
    """
    return float(np.clip(lam, 1.0 / (_BELOW * np.sqrt(shape[0] * shape[1])), _ABOVE))


def reported_objective(parts: np.ndarray, weight: float, *, row_sparse: bool) -> np.ndarray:
    r"""The objective values of a fit with the user's penalty ``weight``, from the
    solver's ``info['objective_parts']`` (per iteration: the nuclear norm, then the l1
    or l2,1 term).

    The solver ran with the clipped penalty (:func:`solver_lam`, :func:`solver_gamma`):
    the same solution, but its own objective values weigh the terms by the clipped
    value. ``row_sparse``: :math:`\lVert E\rVert_{2,1} + \gamma\lVert Z\rVert_*` with
    ``weight`` :math:`\gamma`; else :math:`\lVert L\rVert_* + \lambda\lVert S\rVert_1`
    with ``weight`` :math:`\lambda`.
    """
    nuclear, sparse = parts[:, 0], parts[:, 1]
    return sparse + weight * nuclear if row_sparse else nuclear + weight * sparse
