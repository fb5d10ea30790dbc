r"""The Qn scale estimator of Rousseeuw & Croux (1993), with pcaPP's constants.

.. math::
    Q_n = d\, c_n \,\{|x_i - x_j|;\ i < j\}_{(\binom{h}{2})}, \qquad h = \lfloor n/2 \rfloor + 1,

the :math:`\binom{h}{2}`-th smallest of the pairwise distances, with the consistency
factor :math:`d = 2.21914446598508` (:math:`1/(\sqrt{2}\,\Phi^{-1}(5/8))`) and the
small-sample factors :math:`c_n` of Croux & Rousseeuw (1992) that pcaPP's ``qn`` uses
(tabulated for :math:`n \le 9`; :math:`n/(n+1.4)` for odd and :math:`n/(n+3.8)` for even
:math:`n` above), so that the projection-pursuit PCA with ``scale="qn"`` reproduces
pcaPP's ``PCAgrid(method="qn")`` and ``PCAproj(method="qn")``. (robustbase's ``Qn``
uses newer small-sample factors; the two differ by a few percent for small ``n``.)

For :math:`n \le 100` the order statistic is taken from all :math:`n(n-1)/2`
differences (columns in blocks, below about 64 MB); above, by the :math:`O(n \log n)`
time, :math:`O(n)` memory selection of Croux & Rousseeuw (1992) that pcaPP's ``qn_raw``
implements (weighted medians of the candidate rows, then counts of the differences
below and above the trial value), with the counts taken by binary search: comparing
:math:`y_l` with :math:`y_i - t` instead of :math:`y_i - y_l` with :math:`t` can only
misplace differences within a rounding error of the trial value, so the result agrees
with pcaPP's to a few units in the last place.

References
----------
P. J. Rousseeuw, C. Croux, "Alternatives to the median absolute deviation", Journal of
the American Statistical Association 88(424), 1993 (the Qn estimator).
C. Croux, P. J. Rousseeuw, "Time-efficient algorithms for two highly robust estimators
of scale", Computational Statistics 1, 1992.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_axis, real_array

__all__ = ["QN_CONSTANT", "qn"]

#: pcaPP's consistency factor of Qn at the normal distribution.
QN_CONSTANT = 2.21914446598508
_SMALL_N = (0.400, 0.993, 0.514, 0.845, 0.612, 0.859, 0.670, 0.874)  # n = 2..9
_BLOCK_ELEMENTS = 8_000_000
_DIRECT_MAX_N = 100  # above: Croux & Rousseeuw's O(n log n) selection


def qn_factor(n: int) -> float:
    """pcaPP's ``qn_corrN``: the consistency factor times the small-sample factor."""
    if n <= 9:
        return QN_CONSTANT * _SMALL_N[n - 2] if n >= 2 else QN_CONSTANT
    return QN_CONSTANT * n / (n + (1.4 if n % 2 else 3.8))


def _weighted_high_median(values: np.ndarray, weights: np.ndarray) -> float:
    """pcaPP's ``whimed``: the smallest value whose weight up to it exceeds half (equal
    values are one value, so their order in the sort does not matter: not stable, which
    is faster)."""
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order[np.searchsorted(2 * cumulative, cumulative[-1], side="right")]])


def _qn_raw_sorted(y: np.ndarray) -> float:
    """Croux & Rousseeuw's selection (pcaPP ``qn_raw``) on sorted ``y``, uncorrected."""
    n = y.size
    h = n // 2 + 1
    k = h * (h - 1) // 2
    left = n - np.arange(n)
    right = np.full(n, n)
    jhelp = n * (n + 1) // 2
    knew = k + jhelp
    n_left, n_right = jhelp, n * n
    rows = np.arange(1, n)
    while n_right - n_left > 4 * n:  # pcaPP: > n; the rest is partitioned
        i = rows[left[1:] < right[1:]]
        weight = right[i] - left[i]
        work = y[i] - y[n - (left[i] + weight // 2) - 1]
        trial = _weighted_high_median(work, weight)
        below = y - trial
        P = n - np.searchsorted(y, below, side="right")  # #{l: y_i - y_l < trial}
        Q = n - np.searchsorted(y, below, side="left")  # #{l: y_i - y_l <= trial}
        sum_p, sum_q = int(P.sum()), int(Q.sum())
        if knew <= sum_p:
            right, n_right = P, sum_p
        elif knew > sum_q:
            left, n_left = Q, sum_q
        else:
            return trial
    i = rows[left[1:] < right[1:]]
    counts = right[i] - left[i]
    owner = np.repeat(i, counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    jj = np.repeat(left[i], counts) + offsets
    work = y[owner] - y[n - 1 - jj]
    return float(np.partition(work, knew - n_left - 1)[knew - n_left - 1])


def qn(x, axis: int = 0) -> np.ndarray:
    """Qn scale of ``x`` along ``axis`` (pcaPP's ``qn``; module docstring).

    Parameters
    ----------
    x : array-like
        Finite real values; the pairwise distances along ``axis`` are ranked, ties
        included.
    axis : int, default=0
        The axis of the samples: one scale per other index.

    Returns
    -------
    ndarray or float
        Consistent for the standard deviation at the normal distribution; 0 for fewer
        than two values.

    Examples
    --------
    >>> from robustpca.qn_scale import qn
    >>> round(float(qn([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 100.0])), 6)
    3.937192
    """
    a = real_array(x, "x")
    a = np.moveaxis(a, check_axis(axis, a.ndim), -1) if a.ndim else a[None]
    if not np.isfinite(a).all():  # NaN would stall the selection's counts
        raise ValueError("x contains NaN or infinity; Qn needs finite values.")
    n = a.shape[-1]
    if n < 2:
        none = np.zeros(a.shape[:-1])
        return none if a.ndim > 1 else np.float64(0.0)  # type: ignore[return-value]
    flat = a.reshape(-1, n)
    out = np.zeros(flat.shape[0])
    if n > _DIRECT_MAX_N:
        for r, row in enumerate(flat):
            out[r] = _qn_raw_sorted(np.sort(row))
        out *= qn_factor(n)
    elif n >= 2:
        h = n // 2 + 1
        k = h * (h - 1) // 2  # 1-based rank of the order statistic
        iu, ju = np.triu_indices(n, 1)
        block = max(1, _BLOCK_ELEMENTS // iu.size)
        for start in range(0, flat.shape[0], block):
            rows = flat[start : start + block]
            diffs = np.abs(rows[:, iu] - rows[:, ju])
            out[start : start + block] = np.partition(diffs, k - 1, axis=1)[:, k - 1]
        out *= qn_factor(n)
    return out.reshape(a.shape[:-1]) if a.ndim > 1 else np.float64(out[0])  # type: ignore[return-value]
