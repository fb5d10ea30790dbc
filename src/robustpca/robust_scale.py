r"""Robust univariate location, scale and skewness: median/MAD and the medcouple.

The constants and conventions are R's (``stats::mad``, ``robustbase::mc``), the ones
rrcov's outlier cutoffs are defined with, so that cutoffs computed here equal rrcov's.

References
----------
G. Brys, M. Hubert, A. Struyf, "A robust measure of skewness", Journal of Computational
and Graphical Statistics 13(4), 2004, eq. (2.1)-(2.3) (the medcouple).
M. Hubert, E. Vandervieren, "An adjusted boxplot for skewed distributions",
Computational Statistics & Data Analysis 52(12), 2008 (the ``exp(3 MC)`` fence).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAD_CONSTANT", "mad", "medcouple"]

#: R's ``mad`` constant, ``1 / Phi^{-1}(3/4)`` rounded as R rounds it (``constant = 1.4826``).
MAD_CONSTANT = 1.4826


def mad(x, axis: int = 0) -> np.ndarray:
    """Median absolute deviation about the median, times 1.4826 (R's ``mad``).

    Parameters
    ----------
    x : array-like
    axis : int, default=0

    Returns
    -------
    ndarray or float
        Consistent for the standard deviation at the normal distribution.

    Examples
    --------
    >>> from robustpca.robust_scale import mad
    >>> float(mad([1.0, 2.0, 3.0, 4.0, 100.0]))
    1.4826
    """
    x = np.asarray(x, dtype=np.float64)
    med = np.median(x, axis=axis, keepdims=True)
    return MAD_CONSTANT * np.median(np.abs(x - med), axis=axis)


def medcouple(x) -> float:
    r"""The medcouple: a robust measure of skewness in ``[-1, 1]`` (Brys et al. 2004).

    .. math::
        MC = \operatorname{med}_{x_i \ge m \ge x_j}
        \frac{(x_i - m) - (m - x_j)}{x_i - x_j},

    with :math:`m` the median; pairs with :math:`x_i = x_j = m` take the values
    :math:`-1, 0, +1` of Brys et al.'s eq. (2.3) so that ties at the median count as
    symmetric. This is the exact ("naive") evaluation over all pairs: :math:`O(n^2)`
    time and memory (``n = 10,000`` takes about 0.2 GB), enough for outlier cutoffs on
    the distances of a few thousand samples. The median of the kernel values is the
    usual one (mean of the two middle values), as ``robustbase::mc`` returns it for
    ``n <= 100``; for larger ``n`` robustbase's fast algorithm returns the high median,
    which differs from this by at most the gap between two neighbouring kernel values.

    Parameters
    ----------
    x : array-like of shape (n,)

    Returns
    -------
    float

    Examples
    --------
    >>> from robustpca.robust_scale import medcouple
    >>> medcouple([1.0, 2.0, 3.0, 4.0, 5.0]), medcouple([1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 9.0, 10.0])
    (0.0, 0.75)
    """
    y = np.sort(np.asarray(x, dtype=np.float64).ravel())
    if y.size == 0:
        raise ValueError("medcouple needs at least one value.")
    z = y - np.median(y)
    lower = z[z <= 0.0]  # ascending: the most negative first, the ties at the median last
    upper = z[z >= 0.0][:, None]  # ascending: the ties first
    width = upper - lower
    spread = upper + lower
    ties = np.logical_and(upper == 0.0, lower == 0.0)
    h = np.divide(spread, width, out=np.zeros_like(spread), where=~ties)
    n_ties = int(np.sum(lower == 0.0))
    if n_ties:
        # the tied block (top-right): -1 above its anti-diagonal, 0 on it, +1 below
        # (only the multiset matters for the median: as many -1 as +1)
        i, j = np.indices((n_ties, n_ties))
        h[:n_ties, -n_ties:] = np.sign(i + j - (n_ties - 1))
    return float(np.median(h))
