r"""The Gram matrix of the SVT step with its small part in single precision.

For data stored in single precision, the Gram route of :mod:`robustpca.solvers.alm_svt`
may form most of its ``syrk`` in single precision, at twice the speed, without losing
more than the data's own rounding. With ``A`` the argument ``M`` (wide data) or its
transpose (tall data) and ``U`` an orthonormal basis of the short side (the previous
step's singular vectors), ``B = U^T A`` and the residual ``R = A - U B``,

.. math::

    A A^\top = U (B B^\top) U^\top + U (B R^\top) + (R B^\top) U^\top + R R^\top

exactly. Everything but :math:`R R^\top` (``k`` thin products) is in double precision;
:math:`R R^\top` in single precision has a rounding of order
:math:`\epsilon_{32}\lVert R\rVert_2^2` instead of :math:`\epsilon_{64}\lVert A\rVert_2^2`.
A singular value at the threshold :math:`\tau` then moves by about
:math:`\epsilon_{32}\lVert R\rVert_2^2 / \tau`, and the thresholded matrix as much. Once
``U`` holds the leading singular vectors, :math:`\lVert R\rVert_2` is the first singular
value left out, near :math:`\tau` at a converging iterate, so that is of order
:math:`\epsilon_{32}\tau`, far below :math:`\epsilon_{32}\lVert X\rVert`, by which the
single-precision data themselves are uncertain (the SVT is 1-Lipschitz). The step
returns :math:`\lVert R\rVert_2^2` so that its caller can check that bound
(:data:`robustpca.solvers.alm_svt.SINGLE_GRAM_RATIO`) and take the double-precision
Gram matrix where it fails (a stale basis, a rank that jumps).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import eigsh

__all__: list[str] = []  # private step of the ALM solvers

#: Bytes of a block of rows of ``A`` when the residual is formed (a block of ``R`` and
#: its products stay in cache).
BLOCK_BYTES = 1 << 20
#: Relative tolerance of the Lanczos estimate of ``||R||_2^2``: it is compared with a
#: bound that has a wide margin, so a few digits suffice.
NORM_RTOL = 1e-3


def single_precision_gram(
    M: np.ndarray, U: np.ndarray, out: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """The Gram matrix of the short side of ``M`` with its part off ``span(U)`` in single
    precision, and the squared spectral norm of that part's factor ``R``.

    ``U``: ``side x k`` with orthonormal columns, ``side = min(M.shape)``. ``M`` is
    neither copied nor modified; holds a ``side x max(M.shape)`` single-precision ``R``
    (``out``, when given: a buffer of that shape kept across steps, so that its pages
    are not faulted in again each step) and ``side``-square matrices. Returns
    ``(G, r2)``: ``G`` in double precision (``A A^T`` of ``A = M`` or ``M^T``, the
    rounding of ``R R^T`` aside) and ``r2``, an estimate of ``||R||_2^2`` to
    :data:`NORM_RTOL`.
    """
    A = M if M.shape[0] <= M.shape[1] else M.T
    side = A.shape[0]
    B = U.T @ A  # k x long
    cross = np.empty((U.shape[1], side))  # B R^T
    R = np.empty(A.shape, dtype=np.float32) if out is None else out
    step = max(1, BLOCK_BYTES // (8 * A.shape[1]))
    for start in range(0, side, step):
        rows = slice(start, min(start + step, side))
        block = A[rows] - U[rows] @ B
        np.matmul(B, block.T, out=cross[:, rows])
        R[rows] = block
    RR = R @ R.T  # NumPy's syrk, in single precision
    del R
    r2 = _top_eigenvalue(RR)
    G = RR.astype(np.float64)
    del RR
    UC = U @ cross
    G += UC
    G += UC.T
    G += (U @ (B @ B.T)) @ U.T
    return G, r2


def _top_eigenvalue(S: np.ndarray) -> float:
    """The largest eigenvalue of the symmetric positive semidefinite ``S`` (Lanczos,
    from a fixed start so that fits repeat bit for bit)."""
    if S.shape[0] <= 2:
        return float(np.linalg.eigvalsh(S)[-1])
    v0 = np.random.default_rng(0).standard_normal(S.shape[0])
    top = eigsh(S, k=1, which="LA", v0=v0, tol=NORM_RTOL, return_eigenvectors=False)
    return float(max(top[0], 0.0))
