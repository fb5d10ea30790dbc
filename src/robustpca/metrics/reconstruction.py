"""Reconstruction errors: total and mean (Nie 2014), projection (Nie & Huang eq. 37-38),
weighted (Zhang & Tong 2019) and RMSE (Guo 2013)."""

from __future__ import annotations

import numpy as np

from .._validation import real_array
from .subspaces import _row_basis

__all__ = [
    "mean_reconstruction_error",
    "projection_reconstruction_error",
    "rmse",
    "total_reconstruction_error",
    "weighted_reconstruction_error",
]


def _finite_pair(A, B, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Two finite 2-D float arrays of the same shape with at least one row."""
    A = real_array(A, names[0])
    B = real_array(B, names[1])
    if A.ndim != 2 or A.shape != B.shape or A.shape[0] == 0:
        raise ValueError(
            f"{names[0]} and {names[1]} must be non-empty 2-D arrays of the same shape, got "
            f"{A.shape} and {B.shape}."
        )
    for name, M in zip(names, (A, B), strict=True):
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} must be finite (no NaN or inf).")
    return A, B


def _scaled_difference(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, float]:
    """``D`` and ``s`` with ``A - B = s * D``, for finite ``A`` and ``B``.

    ``s`` is a power of two (so the scaling is exact) that brings the largest entry of
    ``D`` near 1 where the squares of ``A - B`` would overflow or underflow, and 1 for
    differences of ordinary size.
    """
    with np.errstate(over="ignore"):
        D = A - B
    scale = 1.0
    if not np.all(np.isfinite(D)):  # finite inputs: an overflow of the difference
        D, scale = 0.5 * A - 0.5 * B, 2.0
    top = float(np.max(np.abs(D))) if D.size else 0.0
    if top == 0.0 or 1e-100 <= top <= 1e100:
        return D, scale
    step = float(np.ldexp(1.0, int(np.frexp(top)[1]) - 1))  # D / step: entries below 2
    return D / step, scale * step


def _row_errors(reconstructed, clean) -> np.ndarray:
    """The l2 distance of each row, for finite inputs of the same 2-D shape."""
    R, C = _finite_pair(reconstructed, clean, ("reconstructed", "clean"))
    D, scale = _scaled_difference(R, C)
    with np.errstate(over="ignore"):  # beyond the floats: inf
        return scale * np.linalg.norm(D, axis=1)


def total_reconstruction_error(reconstructed, clean) -> float:
    r"""Sum over samples of the l2 distance between reconstruction and clean sample.

    .. math::
        \sum_{i=1}^n \lVert \hat x_i - x_i^{\text{clean}} \rVert_2 ,

    the reconstruction error of Nie, Yuan & Huang (2014, sec. 5.1), where
    :math:`\hat x_i = UU^\top (x_i - b) + b` is reconstructed from the *corrupted*
    sample and compared with the clean one.

    Parameters
    ----------
    reconstructed : array-like of shape (n_samples, n_features)
        Reconstructions, e.g. ``estimator.reconstruct(X_corrupted)``.
    clean : array-like of shape (n_samples, n_features)
        The uncorrupted samples.

    Returns
    -------
    float
        In the units of the data; 0 for a perfect reconstruction.

    Raises
    ------
    ValueError
        If the shapes differ, the arrays are empty, or an entry is NaN or infinite
        (as :func:`rmse` and :func:`weighted_reconstruction_error`).

    References
    ----------
    F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component analysis",
    ICML 2014, sec. 5.1.

    Examples
    --------
    >>> from robustpca.metrics import total_reconstruction_error
    >>> total_reconstruction_error([[3.0, 4.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]])
    6.0
    """
    errors = _row_errors(reconstructed, clean)
    with np.errstate(over="ignore"):
        return float(errors.sum())


def mean_reconstruction_error(reconstructed, clean) -> float:
    r"""Mean over samples of the l2 distance between reconstruction and clean sample.

    .. math::
        \frac{1}{n} \sum_{i=1}^n \lVert x_i^{\text{clean}} - \hat x_i \rVert_2 ,

    equation (37) of Nie & Huang (with :math:`\hat x_i = WW^\top x_i` on centred data);
    the :func:`total_reconstruction_error` divided by ``n_samples``.

    Parameters
    ----------
    reconstructed, clean : array-like of shape (n_samples, n_features)
        As in :func:`total_reconstruction_error`.

    Returns
    -------
    float
        ``total_reconstruction_error(reconstructed, clean) / n_samples``.

    Raises
    ------
    ValueError
        As :func:`total_reconstruction_error`.

    References
    ----------
    F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
    analysis", arXiv:1603.08293, eq. (37).

    Examples
    --------
    >>> from robustpca.metrics import mean_reconstruction_error
    >>> R, C = [[3.0, 4.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]
    >>> mean_reconstruction_error(R, C)
    3.0
    """
    return float(_row_errors(reconstructed, clean).mean())


def rmse(recovered, clean) -> float:
    r"""Root mean square error over all entries, the score of Guo (2013), sec. 5.

    .. math::
        \operatorname{RMSE} = \sqrt{\frac{1}{nd} \sum_{i,j} (\hat X_{ij} - X^0_{ij})^2} .

    Parameters
    ----------
    recovered : array-like of any shape
        The recovered matrix :math:`\hat X`.
    clean : array-like of the same shape
        The true (uncorrupted) matrix :math:`X^0`.

    Returns
    -------
    float
        In the units of the data.

    Raises
    ------
    ValueError
        If the shapes differ or the arrays are empty.

    References
    ----------
    Y. Guo, "Robust Transfer Principal Component Analysis with Rank Constraints",
    NIPS 2013, sec. 5.

    Examples
    --------
    >>> from robustpca.metrics import rmse
    >>> rmse([[1.0, 3.0]], [[0.0, 0.0]])
    2.23606797749979
    """
    R = real_array(recovered, "recovered")
    C = real_array(clean, "clean")
    if R.shape != C.shape:
        raise ValueError(f"recovered and clean must have the same shape, got {R.shape}, {C.shape}.")
    if R.size == 0:
        raise ValueError("recovered and clean are empty.")
    for name, M in (("recovered", R), ("clean", C)):
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} must be finite (no NaN or inf).")
    D, scale = _scaled_difference(R, C)
    with np.errstate(over="ignore"):  # beyond the floats: inf
        return float(scale * np.sqrt(np.mean(D * D)))


def weighted_reconstruction_error(reconstructed, clean, weights=None) -> float:
    r"""Weighted sum of squared reconstruction errors, weights normalised to sum to one.

    .. math::
        \sum_{i=1}^n p_i \lVert x_i^r - x_i^o \rVert_2^2, \qquad
        p_i = \frac{w_i}{\sum_j w_j},

    the score of Zhang & Tong (2019, sec. 5.2, Table 2), with :math:`x_i^r` the i-th
    reconstructed image and :math:`x_i^o` the original one. The paper normalises the
    weights "for the fair comparison"; methods without weights get uniform ones, which
    makes the score the mean squared row error.

    Parameters
    ----------
    reconstructed : array-like of shape (n_samples, n_features)
        Reconstructions, e.g. ``estimator.reconstruct(X_occluded)``.
    clean : array-like of shape (n_samples, n_features)
        The original (non-occluded) samples.
    weights : array-like of shape (n_samples,) or None, default=None
        Non-negative sample weights with a positive sum (e.g. a fitted ``weights_``);
        None gives uniform weights.

    Returns
    -------
    float
        In squared units of the data.

    Raises
    ------
    ValueError
        If the shapes differ, or ``weights`` has the wrong length, a negative or
        non-finite entry, or a zero sum.

    References
    ----------
    R. Zhang and H. Tong, "Robust principal component analysis with adaptive neighbors",
    NeurIPS 2019, sec. 5.2.

    Examples
    --------
    >>> from robustpca.metrics import weighted_reconstruction_error
    >>> R, C = [[3.0, 4.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]
    >>> weighted_reconstruction_error(R, C)
    13.0
    >>> weighted_reconstruction_error(R, C, weights=[0.0, 2.0])
    1.0
    """
    R, C = _finite_pair(reconstructed, clean, ("reconstructed", "clean"))
    n = R.shape[0]
    if weights is None:
        p = np.full(n, 1.0 / n)
    else:
        w = real_array(weights, "weights")
        if w.shape != (n,):
            raise ValueError(f"weights must have shape ({n},) (one per sample), got {w.shape}.")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("weights must be finite and non-negative.")
        top = w.max()
        if top <= 0:
            raise ValueError("weights must have a positive sum.")
        w = w / top  # in [0, 1]: the sum neither overflows nor underflows
        p = w / w.sum()
    D, scale = _scaled_difference(R, C)
    with np.errstate(over="ignore"):  # beyond the floats: inf
        return float(scale * (scale * (p @ np.einsum("ij,ij->i", D, D))))


def projection_reconstruction_error(components, X_train, clean, mean=None) -> float:
    r"""Mean l2 error of reconstructing clean samples from the training samples' projections.

    Equations (37)-(38) of Nie & Huang:

    .. math::
        e(m) = \frac{1}{n} \sum_{i=1}^n
        \bigl\lVert (x_i^o - \mu) - W W^\top (x_i - \mu) \bigr\rVert_2 ,

    with :math:`W \in \mathbb{R}^{d \times m}` the learned directions (``components.T``),
    :math:`x_i` the i-th sample used in training (e.g. occluded) and :math:`x_i^o` the
    same sample without corruption.

    Centring. The paper writes :math:`x_i^o - WW^\top x_i` for data that are
    "centralized" before training (its Algorithms take a centred ``X``), so both
    :math:`x_i` and :math:`x_i^o` are measured from the centre :math:`\mu` of the
    training data. Equivalently, the reconstruction :math:`\mu + WW^\top(x_i - \mu)` is
    compared with :math:`x_i^o` in the original coordinates, which is what
    ``estimator.reconstruct`` returns with :math:`\mu =` ``estimator.mean_``. Without
    the offset the score would charge every method for the (large, method-independent)
    distance of the images from the origin. ``mean=None`` takes :math:`\mu` as the
    column mean of ``X_train``, exact for eq. (37) where ``X_train`` is the whole
    training set; for eq. (38), where the sum runs over the training images without the
    appended outliers, pass the centre used in training (the mean of the stacked data,
    or the estimator's ``mean_`` for methods that estimate their own centre).

    Parameters
    ----------
    components : array-like of shape (m, n_features)
        Orthonormal rows, the layout of ``components_`` (the paper's :math:`W^\top`).
    X_train : array-like of shape (n_samples, n_features)
        The samples as used in training (corrupted).
    clean : array-like of shape (n_samples, n_features)
        The same samples without corruption.
    mean : array-like of shape (n_features,), float or None, default=None
        The centre :math:`\mu`; None is ``X_train.mean(axis=0)``, ``0`` disables
        centring.

    Returns
    -------
    float
        The mean over samples of the l2 error, in the units of the data.

    Raises
    ------
    ValueError
        If shapes disagree, an input is not finite, or the rows of ``components`` are
        not orthonormal (tolerance ``1e-6``).

    See Also
    --------
    mean_reconstruction_error : the same mean, from precomputed reconstructions.

    References
    ----------
    F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
    analysis", arXiv:1603.08293, sec. V, eq. (37)-(38).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import projection_reconstruction_error
    >>> W = np.array([[1.0, 0.0]])
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> projection_reconstruction_error(W, X, X, mean=0.0)  # (2 + 4) / 2
    3.0
    >>> projection_reconstruction_error(W, X, X)  # centred: residuals -1 and 1
    1.0
    """
    X, C = _finite_pair(X_train, clean, ("X_train", "clean"))
    W = _row_basis(components, "components")
    d = X.shape[1]
    if W.shape[1] != d:
        raise ValueError(
            f"components has {W.shape[1]} columns but X_train has {d} features; they must match."
        )
    if not np.allclose(W @ W.T, np.eye(W.shape[0]), rtol=0.0, atol=1e-6):
        raise ValueError("components must have orthonormal rows (W^T W = I in eq. 37).")
    if mean is None:
        mu = X.mean(axis=0)
    else:
        mu = real_array(mean, "mean")
        if mu.ndim > 1 or (mu.ndim == 1 and mu.shape != (d,)):
            raise ValueError(f"mean must be a float or have shape ({d},), got shape {mu.shape}.")
        if not np.all(np.isfinite(mu)):
            raise ValueError("mean must be finite.")
    # in units of a power of two near the largest entry: exact, and no square overflows
    top = max(float(np.max(np.abs(a), initial=0.0)) for a in (X, C, np.atleast_1d(mu)))
    unit = float(np.ldexp(1.0, int(np.frexp(top)[1]) - 1)) if top > 0 else 1.0
    X, C, mu = X / unit, C / unit, mu / unit
    Xc = X - mu
    residual = (C - mu) - (Xc @ W.T) @ W
    with np.errstate(over="ignore"):  # beyond the floats: inf
        return float(unit * np.linalg.norm(residual, axis=1).mean())
