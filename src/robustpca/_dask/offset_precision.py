"""The warning of the Dask routes that take the decompositions of uncentred data from
``d x d`` Gram matrices (AccAltProj, GoDec, and PCP and outlier pursuit with
``center=False``), where a large common offset of the rows costs them digits.

The Gram matrix ``X^T X`` holds the offset squared: its rounding, about the float64
precision times ``||m||^2`` (``m`` the mean row), is a share ``eps ||m||^2 / s`` of the
spread ``s`` of the rows about ``m`` (their mean squared distance), and the fitted
structure lies in that spread. The in-memory fits work on ``X`` itself and lose only the
square root of that (``docs/dask.md``, "Data far from the origin").
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._warnings import external_stacklevel

__all__ = ["OFFSET_LOSS", "offset_loss", "warn_far_from_origin"]

#: Rows within this many units of rounding of their mean (relative to its norm) are
#: constant: the mean of identical rows is rounded, so their spread is not quite 0.
CONSTANT_ROUNDING = 16.0

#: The share of the spread lost to the Gram matrix's rounding above which a fit warns:
#: the fit may then keep fewer than six significant digits of the in-memory one.
OFFSET_LOSS = 1e-6


def offset_loss(mean: np.ndarray, spread: float) -> float:
    """``eps ||mean||^2 / spread``: the Gram matrix's rounding as a share of the spread.

    Parameters
    ----------
    mean : ndarray of shape (n_features,)
        The mean row of the data.
    spread : float
        The mean squared distance of the rows to ``mean``.

    Returns
    -------
    float
        The loss; 0 where the offset is 0, or where the rows do not spread beyond the
        rounding of their mean (constant rows: nothing to lose).
    """
    offset = float(np.dot(mean, mean))
    eps = float(np.finfo(np.float64).eps)
    if not np.isfinite(offset) or spread <= (CONSTANT_ROUNDING * eps) ** 2 * offset:
        return 0.0
    return eps * offset / spread


def warn_far_from_origin(est, mean: np.ndarray, spread: float, *, median: bool) -> None:
    """Warn, naming what to do, when :func:`offset_loss` passes :data:`OFFSET_LOSS`.

    Parameters
    ----------
    est : estimator
        The estimator fitted (its class names the method).
    mean, spread
        As for :func:`offset_loss`.
    median : bool
        Whether the estimator takes ``center="median"`` (PCP), which the message then
        suggests.
    """
    loss = offset_loss(mean, spread)
    if not loss > OFFSET_LOSS:
        return
    digits = max(0, math.floor(-math.log10(loss)))
    hint = ', or pass center="median"' if median else ""
    warnings.warn(
        f"{type(est).__name__} fits a dask array through d x d Gram matrices of the "
        f"uncentred data, and these rows lie far from the origin (the squared norm of "
        f"their mean is {loss / np.finfo(np.float64).eps:.1e} times their spread): the "
        f"fit may keep as few as {digits} significant digits of the in-memory fit. "
        f"Subtract a typical row (the column medians) before fitting{hint}.",
        UserWarning,
        stacklevel=external_stacklevel(),
    )
