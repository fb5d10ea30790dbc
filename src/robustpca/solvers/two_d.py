r"""Two-dimensional (image) subspace solvers: 2DPCA, GLRAM (robust 2DPCA: robust_two_d).

The data are ``n`` images :math:`A_i \in \mathbb{R}^{h \times w}`, passed as an array of
shape ``(n, h, w)``. A two-sided model keeps a left basis :math:`L \in \mathbb{R}^{h
\times k_1}` and a right basis :math:`R \in \mathbb{R}^{w \times k_2}` (orthonormal
columns) and reconstructs :math:`M + LL^\top (A_i - M) RR^\top`. Flattened in C order,
:math:`\mathrm{vec}(L^\top E R) = (L \otimes R)^\top \mathrm{vec}(E)`, so the model is an
ordinary linear subspace of :math:`\mathbb{R}^{hw}` with the orthonormal basis
:math:`L \otimes R` (:func:`kron_components`) -- but every product here is computed
image by image, never with that ``hw x k1 k2`` matrix (the solvers build it for their
result only when asked, ``dense_components=True``).

Memory: the products accept the images either as an ``(n, h, w)`` array or as
:class:`CentredImages`, the differences :math:`A_i - M` formed block by block in one
reused buffer of about :data:`~robustpca.linalg.BLOCK_BYTES`; the residuals are always
formed by blocks. The robust solver keeps only the pre-centred images and the current
mean, so a fit holds about one copy of the data whatever the number of iterations.

* :func:`solve_two_d_pca` -- 2DPCA (Yang et al. 2004): :math:`R` = top eigenvectors of
  the image scatter :math:`G = \frac1n\sum_i (A_i-\bar A)^\top (A_i-\bar A)`, no left basis.
* :func:`solve_glram` -- GLRAM (Ye 2005): :math:`\max \sum_i \lVert L^\top (A_i - M) R
  \rVert_F^2` by alternating eigen-updates.
* :func:`solve_robust_two_d_pca` -- R2DPCA, problem (5) of Zhang & Tong (2019):
  :math:`\min_{M, L, R} \sum_i \rho(\lVert A_i - M - LL^\top (A_i - M) RR^\top\rVert_F)`
  by :func:`~robustpca.solvers.minimize_reweighted`; the l2,1 loss gives R2DPCA, the
  capped loss capped R2DPCA.

Each eigen-update is a weighted PCA of the columns of :math:`(A_i - M)R` (or of the
rows of :math:`L^\top (A_i-M)`) and is delegated to
:class:`~robustpca.linalg.WeightedPCAProblem`, which takes the Gram route when those
vectors are fewer than their dimension and completes rank-deficient bases.

References
----------
J. Yang, D. Zhang, A. F. Frangi and J.-Y. Yang, "Two-dimensional PCA: a new approach to
appearance-based face representation and recognition", IEEE TPAMI 26(1), 2004.

J. Ye, "Generalized low rank approximations of matrices", Machine Learning 61, 2005
(ICML 2004), Algorithm GLRAM and Theorem 3.1.

D. Zhang and Z.-H. Zhou, "(2D)^2PCA: two-directional two-dimensional PCA for efficient
face representation and recognition", Neurocomputing 69, 2005.

R. Zhang, F. Nie and X. Li, "Auto-weighted two-dimensional principal component analysis
with robust outliers", ICASSP 2017; problem (5) of R. Zhang and H. Tong, "Robust
principal component analysis with adaptive neighbors", NeurIPS 2019.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..linalg import WeightedPCAProblem, _row_slices, complete_orthonormal, flip_component_signs
from ._result import IterationState, SolverResult, StopReason, relative_change

__all__ = [
    "CentredImages",
    "glram_objective",
    "image_residuals",
    "initial_two_d_bases",
    "kron_components",
    "left_update",
    "normalize_bases",
    "project_images",
    "reconstruct_images",
    "right_update",
    "solve_glram",
    "solve_two_d_pca",
    "top_directions",
]


# --- images visited by blocks ------------------------------------------------------------


class CentredImages:
    r"""The images :math:`A_i - S` of an ``(n, h, w)`` array, visited by blocks of images.

    Holds only ``images`` and ``shift``: each block (about
    :data:`~robustpca.linalg.BLOCK_BYTES` of float64 pixels, or ``block_images`` images)
    is formed on demand in one buffer reused across the blocks of a pass, so no
    ``(n, h, w)`` difference is ever allocated. With ``shift=None`` the blocks are views
    of ``images``. Each block holds exactly the values of the rows of ``images - shift``.

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    shift : ndarray of shape (height, width), optional
    block_images : int, optional
        Images per block (default: as many as fit in about ``BLOCK_BYTES``).
    """

    def __init__(
        self, images: np.ndarray, shift: np.ndarray | None = None, block_images: int | None = None
    ) -> None:
        self.images = images
        self.shift = shift
        self.block_images = block_images

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.images.shape

    def _slices(self) -> list[slice]:
        n, h, w = self.images.shape
        if self.block_images is None:
            return _row_slices(n, h * w, minimum=1)
        step = max(1, int(self.block_images))
        return [slice(s, min(s + step, n)) for s in range(0, n, step)]

    @property
    def dtype(self) -> np.dtype:
        return self.images.dtype if self.shift is None else np.result_type(self.images, self.shift)

    def blocks(self):
        """Yield ``(rows, block)`` with ``block = images[rows] - shift`` (reused buffer)."""
        buffer = None
        for rows in self._slices():
            if self.shift is None:
                yield rows, self.images[rows]
                continue
            if buffer is None:
                shape = (rows.stop - rows.start, *self.images.shape[1:])
                buffer = np.empty(shape, dtype=self.dtype)
            block = buffer[: rows.stop - rows.start]
            np.subtract(self.images[rows], self.shift, out=block)
            yield rows, block

    def map(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Stack ``fn(block)`` over the blocks: ``fn`` maps ``(m, h, w)`` to ``(m, ...)``.

        Holds the output and one block (plus what ``fn`` allocates for one block).
        """
        out = None
        for rows, block in self.blocks():
            part = fn(block)
            if out is None:
                out = np.empty((self.images.shape[0], *part.shape[1:]), dtype=part.dtype)
            out[rows] = part
        return out

    def transposed(self) -> np.ndarray:
        r"""Every difference transposed, :math:`(A_i - S)^\top`: one ``(n, w, h)`` array."""
        n, h, w = self.images.shape
        out = np.empty((n, w, h), dtype=self.dtype)
        source = np.swapaxes(self.images, 1, 2)
        if self.shift is None:
            np.copyto(out, source)
        else:
            np.subtract(source, self.shift.T, out=out)
        return out


def _per_image(E: np.ndarray | CentredImages, fn: Callable[[np.ndarray], np.ndarray]):
    """``fn(E)`` for an array; stacked over the blocks for :class:`CentredImages`."""
    return E.map(fn) if isinstance(E, CentredImages) else fn(E)


# --- products with the two bases (``left=None`` is the identity, as in 2DPCA) ---------


def project_images(E: np.ndarray, left: np.ndarray | None, right: np.ndarray) -> np.ndarray:
    """``L^T E_i R`` for every image (``E_i R`` when ``left`` is None): (n, k1, k2)."""
    Z = E @ right
    return Z if left is None else np.matmul(left.T, Z)


def reconstruct_images(Z: np.ndarray, left: np.ndarray | None, right: np.ndarray) -> np.ndarray:
    """``L Z_i R^T`` for every coefficient matrix (``Z_i R^T`` when ``left`` is None)."""
    Y = Z if left is None else np.matmul(left, Z)
    return Y @ right.T


def _residual_norms(E: np.ndarray, left: np.ndarray | None, right: np.ndarray) -> np.ndarray:
    D = reconstruct_images(project_images(E, left, right), left, right)
    np.subtract(E, D, out=D)
    return np.sqrt(np.einsum("nij,nij->n", D, D))


def image_residuals(
    E: np.ndarray | CentredImages, left: np.ndarray | None, right: np.ndarray
) -> np.ndarray:
    r"""``||E_i - L L^T E_i R R^T||_F`` per image, formed explicitly (no cancellation).

    Computed by blocks of images (:class:`CentredImages`): holds one block-sized
    reconstruction, never an ``(n, h, w)`` one.
    """
    images = E if isinstance(E, CentredImages) else CentredImages(E)
    return images.map(lambda block: _residual_norms(block, left, right))


def glram_objective(
    E: np.ndarray | CentredImages, left: np.ndarray | None, right: np.ndarray
) -> float:
    r"""GLRAM's objective :math:`\sum_i \lVert L^\top E_i R\rVert_F^2`."""
    Z = _per_image(E, lambda block: project_images(block, left, right))
    return float(np.einsum("nij,nij->", Z, Z))


def kron_components(left: np.ndarray | None, right: np.ndarray, height: int) -> np.ndarray:
    r"""Rows of the equivalent linear map on C-ordered flattened images.

    ``(L kron R)^T`` of shape ``(k1 k2, h w)``; with ``left=None`` it is
    ``(I_h kron R)^T`` of shape ``(h k2, h w)`` (2DPCA). Orthonormal rows whenever ``L``
    and ``R`` have orthonormal columns, and ``components @ vec(E) = vec(L^T E R)``.
    """
    w, k2 = right.shape
    if left is None:
        # block diagonal: only the h blocks V^T are written, the zeros stay untouched
        out = np.zeros((height, k2, height, w))
        rows = np.arange(height)
        out[rows, :, rows, :] = right.T
        return out.reshape(height * k2, height * w)
    k1 = left.shape[1]
    return np.einsum("rp,cq->pqrc", left, right).reshape(k1 * k2, height * w)


# --- eigen-updates ----------------------------------------------------------------------


def top_directions(
    Y: np.ndarray, k: int, rng: np.random.Generator, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""Top-``k`` eigenvectors of :math:`\sum_j w_j y_j y_j^\top` over the rows of ``Y``.

    Returns ``(basis, eigenvalues)``: a (p, k) orthonormal basis (completed from ``rng``
    when the rows span fewer than ``k`` directions) and the positive eigenvalues found.
    """
    m = Y.shape[0]
    w = np.ones(m) if weights is None else weights
    # at most m directions carry data (WeightedPCAProblem assumes k <= n_samples); the
    # rest complete the basis inside the null space of the scatter
    sub = WeightedPCAProblem(Y, min(k, m), rng, center=False).solve(w, residuals=False)
    return complete_orthonormal(sub.basis(), k, rng), sub.eigvals


def left_update(
    E: np.ndarray | CentredImages,
    right: np.ndarray,
    k1: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""``L`` = top-``k1`` eigenvectors of :math:`\sum_i d_i E_i RR^\top E_i^\top` (h x h).

    Holds the products :math:`E_i R` (n x h x k2) and their transposed copy.
    """
    n, h, _ = E.shape
    k2 = right.shape[1]
    ER = _per_image(E, lambda block: block @ right)
    cols = np.swapaxes(ER, 1, 2).reshape(n * k2, h)  # the columns of E_i R as rows
    w = None if weights is None else np.repeat(weights, k2)
    return top_directions(cols, k1, rng, w)


def right_update(
    E: np.ndarray | CentredImages,
    left: np.ndarray | None,
    k2: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""``R`` = top-``k2`` eigenvectors of :math:`\sum_i d_i E_i^\top LL^\top E_i` (w x w).

    With ``left=None`` this is :math:`\sum_i d_i E_i^\top E_i`, the 2DPCA scatter. Holds
    the products :math:`L^\top E_i` (n x k1 x w); with ``left=None`` an array ``E`` is
    used in place, while :class:`CentredImages` would be materialised.
    """
    n, _, w_ = E.shape
    rows = _per_image(E, lambda block: block if left is None else np.matmul(left.T, block))
    k1 = rows.shape[1]
    w = None if weights is None else np.repeat(weights, k1)
    return top_directions(rows.reshape(n * k1, w_), k2, rng, w)


def initial_two_d_bases(
    E: np.ndarray | CentredImages, k1: int, k2: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    r"""(2D)^2PCA bases of Zhang & Zhou (2005): top eigenvectors of the row and column
    scatters :math:`\sum_i E_i E_i^\top` and :math:`\sum_i E_i^\top E_i`.

    Each scatter is a PCA of image rows, which needs them as one matrix: the left one
    holds a transposed copy of the images, the right one (for :class:`CentredImages`)
    the images themselves, one after the other, so about one copy of the data besides
    ``E``.
    """
    transposed = E.transposed() if isinstance(E, CentredImages) else np.swapaxes(E, 1, 2)
    left = right_update(transposed, None, k1, rng)[0]
    del transposed
    right = right_update(E, None, k2, rng)[0]
    return left, right


def normalize_bases(
    E: np.ndarray | CentredImages,
    left: np.ndarray | None,
    right: np.ndarray,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray | None, np.ndarray]:
    r"""Fix the bases within their spans: principal axes, then deterministic signs.

    Every objective here depends on :math:`L, R` only through their spans, so ``L`` is
    rotated to the eigenvectors of :math:`\sum_i d_i Z_i Z_i^\top` and ``R`` to those of
    :math:`\sum_i d_i Z_i^\top Z_i` (:math:`Z_i = L^\top E_i R`, decreasing order), and
    each column's largest entry is made positive. Then the rows of
    :func:`kron_components` have positive largest entries too.
    """
    Z = _per_image(E, lambda block: project_images(block, left, right))
    dZ = Z if weights is None else Z * weights[:, None, None]
    if left is not None:
        _, Q = np.linalg.eigh(np.tensordot(dZ, Z, axes=([0, 2], [0, 2])))
        left = flip_component_signs((left @ Q[:, ::-1]).T).T
    _, Q = np.linalg.eigh(np.tensordot(dZ, Z, axes=([0, 1], [0, 1])))
    right = flip_component_signs((right @ Q[:, ::-1]).T).T
    return left, right


def _state_view(mean_2d: Callable[[], np.ndarray], left, right, height: int):
    return (lambda: kron_components(left, right, height), lambda: mean_2d().ravel())


def _result_components(left, right, shape: tuple[int, int], dense: bool) -> np.ndarray:
    """:func:`kron_components`, or an empty ``(0, h w)`` array when ``dense`` is False."""
    h, w = shape
    return kron_components(left, right, h) if dense else np.empty((0, h * w))


# --- 2DPCA --------------------------------------------------------------------------------


def solve_two_d_pca(
    images: np.ndarray,
    n_components: int,
    *,
    rng: np.random.Generator,
    dense_components: bool = True,
) -> SolverResult:
    r"""2DPCA of Yang et al. (2004): the top-``k`` eigenvectors of the image scatter.

    .. math:: G = \frac1n \sum_{i=1}^n (A_i - \bar A)^\top (A_i - \bar A), \qquad
        V = \text{top-}k \text{ eigenvectors of } G,

    maximising the total scatter :math:`J(V) = \mathrm{tr}(V^\top G V)` of the projected
    feature matrices :math:`Y_i = A_i V` (their eqs. 3-6).

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    n_components : int
        Number of projection axes ``k``.
    rng : numpy.random.Generator
        Completes the basis when ``G`` has fewer than ``k`` positive eigenvalues.
    dense_components : bool, default=True
        Build ``components`` (``h k x h w``, for ``k`` close to ``n / h`` as large as the
        data); ``False`` returns an empty ``(0, h w)`` array instead.

    Returns
    -------
    SolverResult
        ``components`` are the rows of :math:`(I_h \otimes V)^\top`; ``objective`` holds
        :math:`J(V)`; ``info`` has ``right_components`` (V) and ``explained_variance``
        (the top-``k`` eigenvalues of ``G``).

    Notes
    -----
    Holds the centred images (one copy of the data) and blocks of the scatter pass.
    """
    n, h, w = images.shape
    mean = images.mean(axis=0, dtype=np.float64)
    E = images - mean
    V, vals = right_update(E, None, n_components, rng)
    _, V = normalize_bases(E, None, V)
    explained = np.zeros(n_components)
    explained[: min(vals.size, n_components)] = vals[:n_components] / n
    return SolverResult(
        components=_result_components(None, V, (h, w), dense_components),
        mean=mean.ravel(),
        weights=None,
        n_iter=1,
        converged=True,
        stop_reason=StopReason.CLOSED_FORM,
        objective=np.array([glram_objective(E, None, V) / n]),
        info={"right_components": V, "explained_variance": explained},
    )


# --- GLRAM --------------------------------------------------------------------------------


def solve_glram(
    images: np.ndarray,
    n_components: tuple[int, int],
    *,
    rng: np.random.Generator,
    center: bool = True,
    init: str = "2dpca",
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    dense_components: bool = True,
) -> SolverResult:
    r"""GLRAM (Ye 2005): :math:`\max_{L^\top L = I, R^\top R = I} \sum_i \lVert L^\top
    (A_i - M) R \rVert_F^2` by alternating eigen-updates.

    For fixed ``R`` the optimal ``L`` is formed by the top-``k1`` eigenvectors of
    :math:`M_L = \sum_i E_i RR^\top E_i^\top`, and for fixed ``L`` the optimal ``R`` by
    the top-``k2`` eigenvectors of :math:`M_R = \sum_i E_i^\top LL^\top E_i` (Ye,
    Theorem 3.3), so the objective never decreases.

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    n_components : (int, int)
        ``(k1, k2)``.
    rng : numpy.random.Generator
        Completes rank-deficient bases.
    center : bool, default=True
        ``M`` = the arithmetic mean image (the optimal mean of the squared loss, for
        any ``L, R``); ``False`` is Ye's uncentred GLRAM (``M = 0``).
    init : {'2dpca', 'identity'}, default='2dpca'
        Starting ``R``: the 2DPCA axes (top eigenvectors of :math:`\sum_i E_i^\top E_i`)
        or Ye's :math:`R_0 = (I_{k_2}, 0)^\top`.
    max_iter, tol
        Stop after ``max_iter`` sweeps or when the relative objective change is at most
        ``tol``.
    callback : callable, optional
        ``callback(iteration, state)``; returning ``True`` stops.
    dense_components : bool, default=True
        Build ``components`` (:func:`kron_components`); ``False`` returns an empty
        ``(0, h w)`` array instead.

    Returns
    -------
    SolverResult
        ``objective`` holds :math:`\sum_i \lVert L^\top E_i R\rVert_F^2` after each sweep
        (non-decreasing); ``info`` has ``left_components`` and ``right_components``.

    Notes
    -----
    Holds the centred images (one copy of the data) and products of ``n k h`` or
    ``n k w`` entries.
    """
    _, h, w = images.shape
    k1, k2 = n_components
    mean = images.mean(axis=0, dtype=np.float64) if center else np.zeros((h, w))
    E = images - mean
    right = right_update(E, None, k2, rng)[0] if init == "2dpca" else np.eye(w, k2)
    left = None
    history: list[float] = []
    stop_reason, converged = StopReason.MAX_ITER, False
    for iteration in range(1, max_iter + 1):
        left = left_update(E, right, k1, rng)[0]
        right = right_update(E, left, k2, rng)[0]
        history.append(glram_objective(E, left, right))
        if callback is not None:
            state = IterationState(
                iteration, history[-1], None, *_state_view(lambda: mean, left, right, h)
            )
            if callback(iteration, state):
                stop_reason = StopReason.CALLBACK
                break
        if history[-1] == 0.0:
            stop_reason, converged = StopReason.EXACT, True
            break
        if iteration > 1 and relative_change(history[-2], history[-1]) <= tol:
            stop_reason, converged = StopReason.TOLERANCE, True
            break
    left, right = normalize_bases(E, left, right)
    return SolverResult(
        components=_result_components(left, right, (h, w), dense_components),
        mean=mean.ravel(),
        weights=None,
        n_iter=len(history),
        converged=converged,
        stop_reason=stop_reason,
        objective=np.asarray(history),
        info={"left_components": left, "right_components": right},
    )


def __getattr__(name: str):
    """Keep ``robustpca.solvers.two_d.solve_robust_two_d_pca`` importable (moved to
    :mod:`robustpca.solvers.robust_two_d`); lazy, so that the two modules form no cycle."""
    if name == "solve_robust_two_d_pca":
        from .robust_two_d import solve_robust_two_d_pca

        return solve_robust_two_d_pca
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
