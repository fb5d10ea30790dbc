r"""The consistency and small-sample factors of the MCD covariance, as robustbase's.

:func:`mcd_consistency` makes the covariance of the ``alpha`` central fraction of a
normal sample consistent (Croux & Haesbroeck 1999); :func:`mcd_small_sample` corrects
its bias in small samples (Pison, Van Aelst & Willems 2002), with robustbase's fitted
coefficients and, where robustbase has them, its simulated factors.
:func:`~robustpca.solvers.mcd.minimum_covariance_determinant` scales its estimates by
both.

References
----------
C. Croux, G. Haesbroeck, "Influence function and efficiency of the minimum covariance
determinant scatter matrix estimator", Journal of Multivariate Analysis 71, 1999.
G. Pison, S. Van Aelst, G. Willems, "Small sample corrections for LTS and MCD",
Metrika 55, 2002.
M. Maechler et al., robustbase: ``.MCDcons``, ``.MCDcnp2``, ``.MCDcnp2.rew``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["mcd_consistency", "mcd_small_sample"]


def mcd_consistency(p: int, alpha: float) -> float:
    r"""Consistency factor of a covariance of the ``alpha`` central fraction of a normal.

    :math:`\alpha / F_{\chi^2_{p+2}}(\chi^2_{p,\alpha})` (Croux & Haesbroeck 1999;
    robustbase's ``.MCDcons``).

    Parameters
    ----------
    p : int
        Number of variables.
    alpha : float
        The fraction; at least 1 gives the factor 1.

    Returns
    -------
    float
    """
    if alpha >= 1.0:
        return 1.0
    q = stats.chi2.ppf(alpha, p)
    return float(alpha / stats.gamma.cdf(q / 2.0, p / 2.0 + 1.0))


# Pison, Van Aelst & Willems (2002): coefficients of the fitted small-sample factors at
# alpha = 0.5 and 0.875, raw (index 0) and reweighted (index 1), as in robustbase.
_CNP2_P_GT_2 = (
    ((-1.42764571687802, 1.26263336932151, 2), (-1.06141115981725, 1.28907991440387, 3)),
    ((-1.02842572724793, 1.67659883081926, 2), (-0.26800273450853, 1.35968562893582, 3)),
)
_CNP2_P_GT_2_875 = (
    ((-0.455179464070565, 1.11192541278794, 2), (-0.294241208320834, 1.09649329149811, 3)),
    ((-0.544482443573914, 1.25994483222292, 2), (-0.343791072183285, 1.25159004257133, 3)),
)
# p = 1 and p = 2: (a500, b500, a875, b875) with fp = 1 - exp(a) / n**b
_CNP2_SMALL_P = {
    (1, 0): (0.262024211897096, 0.604756680630497, -0.351584646688712, 1.01646567502486),
    (2, 0): (0.673292623522027, 0.691365864961895, 0.446537815635445, 1.06690782995919),
    (1, 1): (1.11098143415027, 1.5182890270453, -0.66046776772861, 0.88939595831888),
    (2, 1): (3.11101712909049, 1.91401056721863, 0.79473550581058, 1.10081930350091),
}


# robustbase's simulated factors at alpha = 0.5 (``MCDcnp2s``: ``sim.0`` raw, ``sim.rew``
# reweighted), which replace the fitted formula for the (p, n) they cover; written by
# tests/reference/rrcov_robust/make_mcd_simulated.R, and checked against its CSV.
_SIMULATED_CNP2 = {
    (1, 1): (1.0, 1.0),
    (1, 2): (3.075819, 0.984724),
    (2, 4): (3.15342, 2.216302),
    (2, 5): (1.799889, 1.418526),
    (2, 6): (2.258497, 1.635601),
    (3, 6): (2.12777, 1.73511),
    (3, 7): (2.718898, 2.06681),
    (3, 8): (1.993509, 1.545905),
    (3, 9): (2.220433, 1.659655),
    (3, 10): (1.820585, 1.456835),
    (4, 8): (2.950549, 2.388892),
    (4, 9): (2.145387, 1.847626),
    (4, 10): (2.382224, 1.96998),
    (4, 11): (1.927077, 1.630723),
    (4, 12): (2.032489, 1.701272),
    (4, 13): (1.8371, 1.521008),
    (5, 10): (2.229573, 1.968153),
    (5, 11): (2.494447, 2.168931),
    (5, 12): (2.016117, 1.784373),
    (5, 13): (2.190061, 1.894409),
    (5, 14): (1.877996, 1.667912),
    (5, 15): (1.978964, 1.693007),
    (5, 16): (1.767284, 1.545176),
    (6, 12): (2.580264, 2.275891),
    (6, 13): (2.109121, 1.866587),
    (6, 14): (2.240741, 2.014249),
    (6, 15): (1.944719, 1.750567),
    (6, 16): (2.043397, 1.829363),
    (6, 17): (1.821808, 1.650019),
    (6, 18): (1.89725, 1.689043),
    (7, 14): (2.165233, 1.95771),
    (7, 15): (2.320281, 2.074066),
    (7, 16): (2.007836, 1.847385),
    (7, 17): (2.086471, 1.905408),
    (7, 18): (1.884052, 1.71393),
    (7, 19): (1.950563, 1.768425),
    (7, 20): (1.76926, 1.63908),
    (8, 16): (2.340443, 2.164121),
    (8, 17): (2.048262, 1.871024),
    (8, 18): (2.161097, 1.979485),
    (8, 19): (1.926082, 1.782417),
    (8, 20): (1.995422, 1.84489),
    (9, 18): (2.093386, 1.938822),
    (9, 19): (2.185793, 2.050409),
    (9, 20): (1.948989, 1.834863),
}


def _fp_fit(coeffs, p: int, n: int) -> float:
    (a1, b1, c1), (a2, b2, c2) = coeffs
    y = np.log([-a1 / p**b1, -a2 / p**b2])
    A = np.array([[1.0, -np.log(c1 * p * p)], [1.0, -np.log(c2 * p * p)]])
    c0, c1_ = np.linalg.solve(A, y)
    return float(1.0 - np.exp(c0) / n**c1_)


def mcd_small_sample(p: int, n: int, alpha: float, *, reweighted: bool = False) -> float:
    """Small-sample correction factor of the MCD covariance (robustbase's ``.MCDcnp2``).

    Pison, Van Aelst & Willems (2002). At exactly ``alpha = 0.5``, for the small samples
    robustbase simulated (``p <= 9`` and at most 2 to 20 samples, by ``p``), its simulated
    factor replaces the fit, as in robustbase (where the two differ, the simulation is
    what robustbase uses; ``docs/design-notes/rrcov-family.md``).

    Parameters
    ----------
    p : int
        Number of variables.
    n : int
        Number of samples.
    alpha : float
        Coverage; the factor is interpolated linearly between the fits at 0.5 and 0.875
        (and to 1 at ``alpha = 1``).
    reweighted : bool, default=False
        The factor of the reweighted estimate (``.MCDcnp2.rew``) instead of the raw one.

    Returns
    -------
    float
    """
    index = int(reweighted)
    if p > 2:
        fp500 = _fp_fit(_CNP2_P_GT_2[index], p, n)
        fp875 = _fp_fit(_CNP2_P_GT_2_875[index], p, n)
    else:
        a5, b5, a8, b8 = _CNP2_SMALL_P[(p, index)]
        fp500 = 1.0 - np.exp(a5) / n**b5
        fp875 = 1.0 - np.exp(a8) / n**b8
    if alpha == 0.5 and (p, n) in _SIMULATED_CNP2:
        fp500 = 1.0 / _SIMULATED_CNP2[(p, n)][index]
    if alpha <= 0.875:
        fp = fp500 + (fp875 - fp500) / 0.375 * (alpha - 0.5)
    else:
        fp = fp875 + (1.0 - fp875) / 0.125 * (alpha - 0.875)
    return float(1.0 / fp)
