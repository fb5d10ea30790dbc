"""The start of OR-PCA (:mod:`.orpca`): the first batch gives the initial basis and the
data's residual scale, from which the penalties left to the data are set."""

from __future__ import annotations

import numpy as np

from ..robust_scale import _column_medians, _median, _nan_median
from .orpca import MAD_CONSTANT, ORPCAState, _left, basis_step, orpca_clipped
from .orpca_observed import accumulate_rows, orpca_project_observed, rows_basis_step

__all__ = [
    "feature_median",
    "fill_gaps",
    "initial_directions",
    "observed_median",
    "orpca_initialize",
    "robust_residual_scale",
    "rows_with_signal",
]

#: At most this many entries enter the median of :func:`robust_residual_scale`.
SCALE_SAMPLE = 50_000
#: Floor of a data scale, relative to the root mean square of the data: exactly
#: low-rank or constant data have no residual scale, and a zero threshold stalls.
SCALE_FLOOR = 1e-6
#: The start's residual is clipped at this many robust scales before its top directions
#: are taken (:func:`initial_directions`).
CLIP_SCALES = 3.0


def rows_with_signal(Z: np.ndarray, observed: np.ndarray | None = None) -> np.ndarray | None:
    """The indices of the rows of ``Z`` with an observed entry other than zero, or None
    where every row has one.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
    observed : ndarray of shape (n_samples, n_features) or None, default=None
        Boolean, True where an entry is observed (None: all are).
    """
    signal = Z != 0 if observed is None else (Z != 0) & observed
    keep = np.flatnonzero(signal.any(axis=1))
    return None if keep.size == Z.shape[0] else keep


def robust_residual_scale(
    Z: np.ndarray,
    W: np.ndarray,
    U: np.ndarray,
    rng: np.random.Generator,
    observed: np.ndarray | None = None,
) -> float:
    """The MAD scale (about zero) of the entries of the residual ``Z - W U'``, from at most
    :data:`SCALE_SAMPLE` of them (the residual is formed on those only), floored at
    :data:`SCALE_FLOOR` times their root mean square of ``Z``; 1.0 when ``Z`` is zero
    (any positive value serves: nothing is left to scale).

    Rows of zeros (on their observed entries) are left out: the projection fits them
    exactly whatever the basis, so a start on black frames or on a sensor that reports
    zeros would otherwise have a MAD of zero, penalties at the floor, and every later
    entry sparse.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_samples, n_components)
        The rows' coefficients.
    U : ndarray of shape (n_features, n_components)
        The basis.
    rng : numpy.random.Generator
        Draws the entries (with replacement) where there are more than
        :data:`SCALE_SAMPLE`.
    observed : ndarray of shape (n_samples, n_features) or None, default=None
        Boolean; when given, restricts the entries to those it marks.
    """
    keep = rows_with_signal(Z, observed)
    if keep is not None:  # a row of zeros is fitted exactly: it says nothing of the scale
        Z, W = Z[keep], W[keep]
        observed = None if observed is None else observed[keep]
    n, p = Z.shape
    if observed is not None:
        flat = np.flatnonzero(observed)
        if flat.size > SCALE_SAMPLE:
            flat = flat[rng.integers(0, flat.size, SCALE_SAMPLE)]
        rows, cols = np.divmod(flat, p)
    elif n * p > SCALE_SAMPLE:
        flat = rng.integers(0, n * p, SCALE_SAMPLE)
        rows, cols = np.divmod(flat, p)
    else:
        rows, cols = np.divmod(np.arange(n * p), p)
    values = Z[rows, cols].astype(np.float64)
    residual = values - np.einsum("ij,ij->i", W[rows], U[cols])
    rms = float(np.sqrt(np.mean(values * values))) if values.size else 0.0
    if not rms > 0:
        return 1.0
    # about zero, not the entries' median: a residual is centred at zero, and the median
    # of pooled entries would change with the signs of the features
    mad = MAD_CONSTANT * float(_median(np.abs(residual), axis=0))
    return max(mad, SCALE_FLOOR * rms)


def feature_median(Z: np.ndarray) -> np.ndarray:
    """The per-feature (column) median of ``Z``, :func:`numpy.median` along axis 0 to the
    bit (:func:`~robustpca.robust_scale._column_medians`: blocks of columns selected at
    one ``kth``, or sorted when short, instead of NumPy's selection at two order
    statistics along the first axis).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
    """
    return _column_medians(Z)


def fill_gaps(Z: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """``Z`` with each entry not observed at its feature's median over the observed
    ones (0 for a feature observed nowhere): a start for the directions, not a fit.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The batch (not modified; any value at the gaps).
    observed : ndarray of shape (n_samples, n_features)
        Boolean, True where an entry is observed.
    """
    return np.where(observed, Z, observed_median(Z, observed)).astype(Z.dtype, copy=False)


def observed_median(Z: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Each feature's median over its observed entries of ``Z`` (0 for a feature observed
    nowhere), in ``Z``'s dtype: the fill of :func:`fill_gaps`.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Any value at the gaps.
    observed : ndarray of shape (n_samples, n_features)
        Boolean, True where an entry is observed.
    """
    if not Z.shape[0]:
        return np.zeros(Z.shape[1], dtype=Z.dtype)
    centre = _nan_median(np.where(observed, Z, np.nan), axis=0)
    return np.where(np.isnan(centre), 0, centre).astype(Z.dtype)


def initial_directions(Z: np.ndarray, n_components: int, rng: np.random.Generator) -> np.ndarray:
    r"""An orthonormal (p, r) start from a batch: the direction of the per-feature median,
    then the top directions of what its projection leaves, clipped at three MAD scales
    of its entries so that gross sparse entries do not take them (from the ``b x b``
    Gram matrix), completed by random orthonormal directions where the batch has fewer.

    The median's direction is kept only where it is among the top ``r`` directions of
    the batch's robust second moment (the median's energy :math:`b\lVert m\rVert^2`
    at least the ``r``-th eigenvalue of the clipped remainder), as for a video's
    background. Otherwise (a centred stream, whose median is noise) the start is the
    top ``r`` directions of the clipped batch itself.

    A median of zero is replaced by the batch's top singular direction.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The batch, complete.
    n_components : int
        The number ``r`` of directions.
    rng : numpy.random.Generator
        Draws the entries of the MAD scale and the completing directions.
    """
    median = feature_median(Z).astype(np.float64)
    norm = float(np.linalg.norm(median))
    energy = Z.shape[0] * norm * norm
    if not norm > 0:  # a median of zero: the top singular direction in its place
        Zf = Z.astype(np.float64)
        vals, vecs = np.linalg.eigh(Zf @ Zf.T)
        median = Zf.T @ vecs[:, -1]
        norm, energy = float(np.linalg.norm(median)), np.inf
    basis = np.zeros((Z.shape[1], 0))
    if norm > 0:
        u = median[:, None] / norm
        vals, V = _clipped_top_directions(Z, u, n_components - 1, rng)
        threshold = vals[n_components - 1] if vals.size >= n_components else 0.0
        if energy >= threshold:  # the median is among the top r
            basis = np.hstack([u, np.linalg.qr(V)[0]]) if V.shape[1] else u
    if not basis.shape[1] and n_components:
        V = _clipped_top_directions(Z, None, n_components, rng)[1]
        basis = np.linalg.qr(V)[0] if V.shape[1] else V
    if basis.shape[1]:
        basis = np.linalg.qr(basis)[0]
    from ..linalg.eigen import complete_orthonormal

    return complete_orthonormal(basis, n_components, rng)


def _clipped_top_directions(
    Z: np.ndarray, u: np.ndarray | None, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """All the eigenvalues (descending, above rounding) and the top ``count`` directions
    (p, <= count; float64, not normalised) of ``Z`` less its projection on the unit column
    ``u`` (None: nothing), clipped at :data:`CLIP_SCALES` MAD scales of its entries
    (from the ``b x b`` Gram matrix)."""
    # in the data's dtype (float32 video: half the memory traffic)
    rest = np.array(Z, copy=True)
    if u is not None:
        uz = u.astype(Z.dtype)
        rest -= (rest @ uz) @ uz.T
    # gross entries would take the top directions: clip at three robust scales
    bound = CLIP_SCALES * robust_residual_scale(
        rest, np.zeros((rest.shape[0], 0)), np.zeros((rest.shape[1], 0)), rng
    )
    np.clip(rest, -bound, bound, out=rest)
    if u is not None:
        rest -= (rest @ uz) @ uz.T  # clipping brings back some of u
    vals, vecs = np.linalg.eigh((rest @ rest.T).astype(np.float64))
    vals, vecs = vals[::-1], vecs[:, ::-1]
    vals = vals[vals > 1e-12 * max(vals.max(initial=0.0), 1e-300)]
    top = vecs[:, : min(count, vals.size)].astype(Z.dtype)
    V = (rest.T @ top).astype(np.float64)
    if u is not None:
        V -= u @ (u.T @ V)
    return vals, V


def orpca_initialize(
    Z: np.ndarray,
    n_components: int,
    *,
    lambda1: float | None,
    lambda2: float | None,
    rng: np.random.Generator,
    n_iter: int = 3,
    max_iter: int = 20,
    tol: float = 1e-4,
    work: np.ndarray | None = None,
    observed: np.ndarray | None = None,
) -> tuple[ORPCAState, float]:
    r"""The state before the first batch ``Z``, and the data's residual scale.

    The start :func:`initial_directions` ``U`` is scaled to a balanced factorisation of
    the batch (:math:`ZU = P\Sigma Q^\top`, :math:`L = UQ\Sigma^{1/2}`), then refined by
    ``n_iter`` alternations of problem (3) on the batch (project; :math:`L \leftarrow
    B(A + \lambda_1 I)^{-1}` with the batch's statistics). The residual scale
    :math:`\hat\sigma` (:func:`robust_residual_scale` of ``Z - Z U U'``, then of the
    last alternation's residual, where the start's subspace was crude) gives the
    penalties left as None: :math:`\lambda_1 = \hat\sigma\sqrt p` and
    :math:`\lambda_2 = \hat\sigma` (:class:`~robustpca.OnlineRobustPCA`, Notes).
    The statistics start at zero: the first update counts the batch once. Rows of zeros
    (on their observed entries) are left out of the start where others have signal.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The first batch.
    n_components : int
        The rank ``r`` of the basis.
    lambda1 : float or None
        :math:`\lambda_1`; None sets it from the residual scale.
    lambda2 : float or None
        :math:`\lambda_2`; None sets it from the residual scale.
    rng : numpy.random.Generator
        For :func:`initial_directions` and :func:`robust_residual_scale`.
    n_iter : int, default=3
        The alternations of problem (3) on the batch.
    max_iter : int, default=20
        As in :func:`~.orpca.orpca_project`, for each alternation's projection.
    tol : float, default=1e-4
        As in :func:`~.orpca.orpca_project`.
    work : ndarray or None, default=None
        The alternations' work space, as in :func:`~.orpca.orpca_project` (a stream
        passes the array its first update will use).
    observed : ndarray of shape (n_samples, n_features) or None, default=None
        Boolean, True where an entry is observed. When given, ``U`` is that of ``Z``
        with its gaps filled (:func:`fill_gaps`), the scales are those of the observed
        entries, the alternations are :mod:`.orpca_observed`'s, and the state holds
        per-feature statistics (zero).
    """
    dtype = Z.dtype
    keep = rows_with_signal(Z, observed)
    if keep is not None and keep.size:
        # rows of zeros (black frames) add nothing to the statistics, and would set the
        # start's median, clip and scale to zero
        Z, work = Z[keep], None
        observed = None if observed is None else observed[keep]
    filled = fill_gaps(Z, observed) if observed is not None else Z
    U = initial_directions(filled, n_components, rng)
    W = (filled @ U.astype(dtype)).astype(np.float64)
    scale = robust_residual_scale(filled, W, U, rng, observed)
    lam1 = scale * np.sqrt(Z.shape[1]) if lambda1 is None else float(lambda1)
    lam2 = scale if lambda2 is None else float(lambda2)
    _, s, Qt = np.linalg.svd(W, full_matrices=False)
    L = U @ (Qt.T[:, : s.size] * np.sqrt(s))
    if L.shape[1] < n_components:
        L = np.hstack([L, np.zeros((L.shape[0], n_components - L.shape[1]))])
    L = L.astype(dtype)
    r = n_components
    for k in range(n_iter):
        if observed is not None:
            step = orpca_project_observed(Z, observed, L, lam1, lam2, max_iter=max_iter, tol=tol)
            coefficients, clipped = step.coefficients, step.clipped
        else:
            coefficients, clipped = orpca_clipped(
                Z, L, lam1, lam2, max_iter=max_iter, tol=tol, work=work
            )
        R = coefficients.astype(np.float64)
        if k == n_iter - 1 and (lambda1 is None or lambda2 is None):
            # the penalties from the scale of the refined fit's residual
            scale = robust_residual_scale(filled, R, L.astype(np.float64), rng, observed)
            lam1 = scale * np.sqrt(Z.shape[1]) if lambda1 is None else lam1
            lam2 = scale if lambda2 is None else lam2
        if observed is not None:
            low = step.parts()[0].astype(np.float64)
            A_rows = np.zeros((Z.shape[1], r, r))
            accumulate_rows(A_rows, observed, R)
            B = np.where(observed, low + clipped, 0.0).T @ R
            L = rows_basis_step(A_rows, B, lam1).astype(dtype)
            continue
        RtR = R.T @ R
        B = L.astype(np.float64) @ RtR + _left(coefficients, clipped)
        del clipped  # the next projection's work space takes its memory
        L = basis_step(RtR, B, lam1).astype(dtype)
    state = ORPCAState(
        basis=L,
        A=np.zeros((r, r)),
        B=np.zeros((Z.shape[1], r)),
        c=0.0,
        weight=0.0,
        lambda1=lam1,
        lambda2=lam2,
        A_rows=None if observed is None else np.zeros((Z.shape[1], r, r)),
    )
    return state, scale
