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

The order statistic is taken exactly from all :math:`n(n-1)/2` differences, in
:math:`O(n^2)` time and memory per column (columns are processed in blocks so that the
memory stays below about 64 MB); the :math:`O(n \log n)` algorithm of Croux &
Rousseeuw (1992) would be faster for large ``n``.

References
----------
P. J. Rousseeuw, C. Croux, "Alternatives to the median absolute deviation", Journal of
the American Statistical Association 88(424), 1993, eq. (3.1).
C. Croux, P. J. Rousseeuw, "Time-efficient algorithms for two highly robust estimators
of scale", Computational Statistics 1, 1992.
"""

from __future__ import annotations

import numpy as np

__all__ = ["QN_CONSTANT", "qn"]

#: pcaPP's consistency factor of Qn at the normal distribution.
QN_CONSTANT = 2.21914446598508
_SMALL_N = (0.400, 0.993, 0.514, 0.845, 0.612, 0.859, 0.670, 0.874)  # n = 2..9
_BLOCK_ELEMENTS = 8_000_000


def qn_factor(n: int) -> float:
    """pcaPP's ``qn_corrN``: the consistency factor times the small-sample factor."""
    if n <= 9:
        return QN_CONSTANT * _SMALL_N[n - 2] if n >= 2 else QN_CONSTANT
    return QN_CONSTANT * n / (n + (1.4 if n % 2 else 3.8))


def qn(x, axis: int = 0) -> np.ndarray:
    """Qn scale of ``x`` along ``axis`` (pcaPP's ``qn``; module docstring).

    Parameters
    ----------
    x : array-like
    axis : int, default=0

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
    a = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    n = a.shape[-1]
    flat = a.reshape(-1, n)
    out = np.zeros(flat.shape[0])
    if n >= 2:
        h = n // 2 + 1
        k = h * (h - 1) // 2  # 1-based rank of the order statistic
        iu, ju = np.triu_indices(n, 1)
        block = max(1, _BLOCK_ELEMENTS // iu.size)
        for start in range(0, flat.shape[0], block):
            rows = flat[start : start + block]
            diffs = np.abs(rows[:, iu] - rows[:, ju])
            out[start : start + block] = np.partition(diffs, k - 1, axis=1)[:, k - 1]
        out *= qn_factor(n)
    return out.reshape(a.shape[:-1]) if a.ndim > 1 else float(out[0])
