r"""Image algebra shared by the 2D solvers: images visited by blocks, products with the
two bases, residuals, and the GLRAM eigen-updates.

Split from :mod:`robustpca.solvers.two_d` (issue 15) so that the 2D solvers
(:mod:`~robustpca.solvers.two_d`, :mod:`~robustpca.solvers.robust_two_d`,
:mod:`~robustpca.solvers.l21_two_d`) sit above it with no cycle; every name here stays
importable from :mod:`robustpca.solvers.two_d`. References are in that module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from .._docstrings import as_in_source
from ..linalg import WeightedPCAProblem, _row_slices, complete_orthonormal, flip_component_signs
from ._result import IterationState, SolverResult

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
        """Stack ``fn(block)`` over the blocks.

        Holds the output and one block (plus what ``fn`` allocates for one block).

        Parameters
        ----------
        fn : callable
            Maps a block of ``m`` images, ``(m, h, w)``, to an array ``(m, ...)``; the
            block is a reused buffer, valid only during the call.

        Returns
        -------
        ndarray of shape (n_samples, ...)
        """
        out = None
        for rows, block in self.blocks():
            part = fn(block)
            if out is None:
                out = np.empty((self.images.shape[0], *part.shape[1:]), dtype=part.dtype)
            out[rows] = part
        assert out is not None, "the image stack has at least one block"
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
    """``L^T E_i R`` for every image (``E_i R`` when ``left`` is None).

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width)
        The images.
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None is the identity.
    right : ndarray of shape (width, k2)
        Right basis ``R``.

    Returns
    -------
    ndarray of shape (n_samples, k1, k2)
        ``(n_samples, height, k2)`` when ``left`` is None.
    """
    Z = E @ right
    return Z if left is None else np.matmul(left.T, Z)


def reconstruct_images(Z: np.ndarray, left: np.ndarray | None, right: np.ndarray) -> np.ndarray:
    """``L Z_i R^T`` for every coefficient matrix (``Z_i R^T`` when ``left`` is None).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, k1, k2)
        Coefficient matrices (:func:`project_images`).
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None is the identity (then ``k1`` is ``height``).
    right : ndarray of shape (width, k2)
        Right basis ``R``.

    Returns
    -------
    ndarray of shape (n_samples, height, width)
    """
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

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width) or CentredImages
        The (centred) images.
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None is the identity.
    right : ndarray of shape (width, k2)
        Right basis ``R``.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    images = E if isinstance(E, CentredImages) else CentredImages(E)
    return images.map(lambda block: _residual_norms(block, left, right))


def glram_objective(
    E: np.ndarray | CentredImages, left: np.ndarray | None, right: np.ndarray
) -> float:
    r"""GLRAM's objective :math:`\sum_i \lVert L^\top E_i R\rVert_F^2`.

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width) or CentredImages
        The (centred) images.
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None is the identity.
    right : ndarray of shape (width, k2)
        Right basis ``R``.

    Returns
    -------
    float
    """
    Z = _per_image(E, lambda block: project_images(block, left, right))
    return float(np.einsum("nij,nij->", Z, Z))


def kron_components(left: np.ndarray | None, right: np.ndarray, height: int) -> np.ndarray:
    r"""Rows of the equivalent linear map on C-ordered flattened images.

    ``(L kron R)^T`` of shape ``(k1 k2, h w)``; with ``left=None`` it is
    ``(I_h kron R)^T`` of shape ``(h k2, h w)`` (2DPCA). Orthonormal rows whenever ``L``
    and ``R`` have orthonormal columns, and ``components @ vec(E) = vec(L^T E R)``.

    Parameters
    ----------
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None is the identity ``I_h``.
    right : ndarray of shape (width, k2)
        Right basis ``R``.
    height : int
        Image height ``h`` (needed when ``left`` is None).

    Returns
    -------
    ndarray of shape (k1 * k2, height * width)
        ``(height * k2, height * width)`` when ``left`` is None.
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

    Parameters
    ----------
    Y : ndarray of shape (m, p)
        The vectors ``y_j``, as rows.
    k : int
        Number of directions.
    rng : numpy.random.Generator
        Completes the basis when the rows span fewer than ``k`` directions.
    weights : ndarray of shape (m,) or None, default=None
        The weights ``w_j``; None weighs every row 1.

    Returns
    -------
    basis : ndarray of shape (p, k)
        Orthonormal basis.
    eigenvalues : ndarray of shape (r,)
        The positive eigenvalues found, decreasing.
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

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width) or CentredImages
        The (centred) images.
    right : ndarray of shape (width, k2)
        Right basis ``R``.
    k1 : int
        Number of columns of ``L``.
    rng : numpy.random.Generator
        Completes ``L`` when the products span fewer than ``k1`` directions.
    weights : ndarray of shape (n_samples,) or None, default=None
        The image weights ``d_i``; None weighs every image 1.

    Returns
    -------
    left : ndarray of shape (height, k1)
    eigenvalues : ndarray of shape (r,)
        The positive eigenvalues found, decreasing.
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

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width) or CentredImages
        The (centred) images.
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None is the identity.
    k2 : int
        Number of columns of ``R``.
    rng : numpy.random.Generator
        Completes ``R`` when the products span fewer than ``k2`` directions.
    weights : ndarray of shape (n_samples,) or None, default=None
        The image weights ``d_i``; None weighs every image 1.

    Returns
    -------
    right : ndarray of shape (width, k2)
    eigenvalues : ndarray of shape (r,)
        The positive eigenvalues found, decreasing.
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

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width) or CentredImages
        The (centred) images.
    k1, k2 : int
        Numbers of columns of the left and right bases.
    rng : numpy.random.Generator
        Completes a basis when the images span fewer directions.

    Returns
    -------
    left : ndarray of shape (height, k1)
    right : ndarray of shape (width, k2)
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

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width) or CentredImages
        The (centred) images.
    left : ndarray of shape (height, k1) or None
        Left basis ``L``; None stays None (2DPCA).
    right : ndarray of shape (width, k2)
        Right basis ``R``.
    weights : ndarray of shape (n_samples,) or None, default=None
        The image weights ``d_i``; None weighs every image 1.

    Returns
    -------
    left : ndarray of shape (height, k1) or None
    right : ndarray of shape (width, k2)
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


def _callback_stops(callback, iteration: int, objective: float, mean_2d, left, right) -> bool:
    """Call ``callback(iteration, state)`` of an alternating 2D solver, when there is one;
    True when it asks to stop."""
    if callback is None:
        return False
    view = _state_view(lambda: mean_2d, left, right, mean_2d.shape[0])
    return bool(callback(iteration, IterationState(iteration, objective, None, *view)))


def _alternating_result(
    E, left, right, mean_2d, history, converged, stop_reason, dense_components, **info
) -> SolverResult:
    """The result of an alternating 2D solver (GLRAM, L21-2DPCA): the bases normalised
    (:func:`normalize_bases`), ``objective`` the value after each sweep, and ``info``
    with ``left_components``, ``right_components`` and the extra ``info``."""
    left, right = normalize_bases(E, left, right)
    return SolverResult(
        components=_result_components(left, right, mean_2d.shape, dense_components),
        mean=mean_2d.ravel(),
        weights=None,
        n_iter=len(history),
        converged=converged,
        stop_reason=stop_reason,
        objective=np.asarray(history),
        info={"left_components": left, "right_components": right, **info},
    )


_DENSE_COMPONENTS = """\
    dense_components : bool, default=True
        Build ``components`` (:func:`kron_components`: ``k1 k2 x h w``, with ``L = I_h``
        for 2DPCA), which can be as large as the data; ``False`` returns an empty
        ``(0, h w)`` array instead (the estimators, which derive it on demand, pass
        ``False``).
"""

_Solver = TypeVar("_Solver", bound=Callable)


def _documents_dense_components(solver: _Solver) -> _Solver:
    """Put the ``dense_components`` parameter, shared by the 2D solvers, in place of the
    line ``{dense_components}`` of ``solver``'s docstring."""
    if solver.__doc__:
        solver.__doc__ = as_in_source(solver.__doc__).replace(
            "    {dense_components}\n", _DENSE_COMPONENTS
        )
    return solver
