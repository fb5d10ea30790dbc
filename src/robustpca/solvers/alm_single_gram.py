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

from ..linalg.blocked import _symmetric_from_upper, _syrk_upper

__all__: list[str] = []  # private step of the ALM solvers

#: Bytes of a block of columns of ``R`` in single precision: it is formed, multiplied
#: and added to ``R R^T`` while it stays in cache, so no ``R`` of the data's size exists.
BLOCK_BYTES = 1 << 21
#: Relative tolerance of the Lanczos estimate of ``||R||_2^2``: it is compared with a
#: bound that has a wide margin, so a few digits suffice.
NORM_RTOL = 1e-3


def single_precision_gram(M: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, float]:
    """The Gram matrix of the short side of ``M`` with its part off ``span(U)`` in single
    precision, and the squared spectral norm of that part's factor ``R``.

    ``U``: ``side x k`` with orthonormal columns, ``side = min(M.shape)``. ``M`` is
    neither copied nor modified; ``R`` is formed by blocks of :data:`BLOCK_BYTES` along
    the long side, each added to ``R R^T`` by a single-precision ``syrk`` (upper
    triangle), so the step holds ``side``-square matrices and ``k x long`` factors only.
    Returns ``(G, r2)``: ``G`` in double precision (``A A^T`` of ``A = M`` or ``M^T``,
    the rounding of ``R R^T`` aside) and ``r2``, an estimate of ``||R||_2^2`` to
    :data:`NORM_RTOL`.
    """
    A = M if M.shape[0] <= M.shape[1] else M.T
    side, long = A.shape
    B = U.T @ A  # k x long
    cross = np.zeros((U.shape[1], side))  # B R^T
    RR = np.zeros((side, side), dtype=np.float32, order="F")
    step = max(1, BLOCK_BYTES // (4 * side))
    block = np.empty((side, min(step, long)), dtype=np.float32)
    for start in range(0, long, step):
        cols = slice(start, min(start + step, long))
        exact = A[:, cols] - U @ B[:, cols]  # in double precision: B R^T from it
        cross += B[:, cols] @ exact.T
        R = block[:, : cols.stop - cols.start]
        R[...] = exact
        RR = _syrk_upper(RR, R.T, trans=1)  # RR += R R^T
    RR = _symmetric_from_upper(RR)
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
