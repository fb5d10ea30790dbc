r"""Projection outlyingness: Stahel-Donoho with a univariate MCD, and its skew-adjusted form.

The outlyingness of :math:`x_i` is the largest robustly standardised deviation over a set
of directions :math:`v` through pairs of data points (Hubert, Rousseeuw & Vanden Branden
2005, eq. (1)):

.. math::
    \operatorname{outl}(x_i) = \max_v
    \frac{|x_i^\top v - t_{MCD}(x_j^\top v)|}{s_{MCD}(x_j^\top v)},

with :math:`t_{MCD}, s_{MCD}` the reweighted univariate MCD location and scale of the
projections (:func:`univariate_mcd`, rrcov's ``unimcd``), over all pairs, rrcov's own
pairs (:func:`rrcov_pairs`, those of ``PcaHubert``) or pairs a NumPy generator draws.

:func:`fit_adjusted_outlyingness` is the skew-adjusted outlyingness of Hubert & Van der
Veeken (2008) that ROBPCA uses for skewed data (Hubert, Rousseeuw & Verdonck 2009). Its
parts that need not hold all the data are shared with the chunked fit
(:mod:`robustpca.solvers.chunked_skew`), which therefore draws and computes the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from scipy import stats

from .adjusted_boxplot import adjusted_fences, projection_rounding, snap_ties

__all__ = [
    "MEDCOUPLE_ROWS",
    "AdjustedOutlyingness",
    "SupportTest",
    "adjusted_fences",
    "affine_leverage",
    "draw_subsets",
    "draw_subsets_holding",
    "fit_adjusted_outlyingness",
    "forced_rows",
    "hyperplane_normals",
    "medcouple_rows",
    "outlyingness",
    "rrcov_pairs",
    "unit_normals",
    "univariate_mcd",
]


def rrcov_pairs(n: int, n_pairs: int) -> np.ndarray:
    """The index pairs of rrcov's ``extradir(all=FALSE)`` (0-based), shape (n_pairs, 2).

    rrcov draws them with its own linear congruential generator started at seed 0
    (``uniran``: ``seed <- (seed * 5761 + 999) mod 65536``), the second index redrawn
    while it equals the first; the same pairs for every call with the same ``n``.

    Parameters
    ----------
    n, n_pairs : int
    """
    pairs = np.empty((n_pairs, 2), dtype=np.intp)
    seed = 0
    for r in range(n_pairs):
        drawn: list[int] = []
        while len(drawn) < 2:
            seed = (seed * 5761 + 999) % 65536
            num = (seed * n) // 65536
            if num not in drawn:
                drawn.append(num)
        pairs[r] = drawn
    return pairs


def univariate_mcd(Y: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Reweighted univariate MCD location and scale of each column of ``Y`` (rrcov's ``unimcd``).

    The raw estimate is the mean of the ``h`` contiguous order statistics with the
    smallest variance (the middle one of tied windows); the raw variance is rescaled so
    that the h-th smallest squared residual is the :math:`\\chi^2_1(h/n)` quantile, and
    the samples within :math:`\\chi^2_{1,0.975}` are averaged (mean and standard
    deviation with divisor ``n_w - 1``).

    Parameters
    ----------
    Y : ndarray of shape (n, n_columns)
    h : int
        Coverage; ``h >= n`` gives the mean and standard deviation.

    Returns
    -------
    location, scale : ndarray of shape (n_columns,)
    """
    n, m = Y.shape
    if h >= n:
        return Y.mean(axis=0), Y.std(axis=0, ddof=1)
    y = np.sort(Y, axis=0)
    zero = np.zeros((1, m))
    c1 = np.concatenate([zero, np.cumsum(y, axis=0)])
    c2 = np.concatenate([zero, np.cumsum(y * y, axis=0)])
    sums = c1[h:] - c1[:-h]
    ss = (c2[h:] - c2[:-h]) - sums * sums / h
    ss_min = ss.min(axis=0)
    # the middle of the windows attaining the minimum, rrcov's floor((ndup + 1) / 2)-th
    ties = ss <= ss_min + 1e-12 * np.maximum(np.abs(ss_min), 1e-300)
    counts = ties.sum(axis=0)
    rank = np.cumsum(ties, axis=0)
    window = np.argmax(ties & (rank == ((counts + 1) // 2)), axis=0)
    cols = np.arange(m)
    init_mean = sums[window, cols] / h
    init_var = ss_min / (h - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = (Y - init_mean) ** 2 / init_var
        factor = np.partition(res, h - 1, axis=0)[h - 1] / stats.chi2.ppf(h / n, 1)
        res = res / factor
    weights = res < stats.chi2.ppf(0.975, 1)
    count = weights.sum(axis=0)
    location = (Y * weights).sum(axis=0) / np.maximum(count, 1)
    spread = ((Y - location) ** 2 * weights).sum(axis=0) / np.maximum(count - 1, 1)
    degenerate = ~(init_var > 0)
    location = np.where(degenerate, init_mean, location)
    return location, np.where(degenerate, 0.0, np.sqrt(spread))


#: rrcov's zero of a pair's difference and a projection's MCD scale, in units of ``unit``
ZERO_SCALE = 1e-12


def outlyingness(
    X: np.ndarray,
    h: int,
    *,
    max_directions: int = 250,
    rng=None,
    batch: int = 256,
    unit: float = 1.0,
) -> np.ndarray:
    """Stahel-Donoho outlyingness of the rows of ``X`` over directions through pairs.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    h : int
        Coverage of the univariate MCD.
    max_directions : int, default=250
        At most this many directions (rrcov's ``maxdir``); all pairs when there are no
        more than that.
    rng : numpy.random.Generator or None
        Draws the pairs when not all are used; None uses rrcov's deterministic pairs
        (:func:`rrcov_pairs`).
    batch : int, default=256
        Directions processed at once (memory ``n_samples * batch``).
    unit : float, default=1.0
        The data's scale: rrcov's zero thresholds (:data:`ZERO_SCALE`) are relative to it,
        so the result does not depend on the data's unit (ROBPCA passes the first
        component's deviation).

    Returns
    -------
    ndarray of shape (n_samples,)
        Directions of zero MCD scale (an exact fit) are skipped, as in rrcov.
    """
    n = X.shape[0]
    if comb(n, 2) <= max_directions:
        first, second = np.triu_indices(n, k=1)
        pairs = np.column_stack([first, second])
    elif rng is None:
        pairs = rrcov_pairs(n, max_directions)
    else:
        first = rng.integers(0, n, size=max_directions)
        second = (first + rng.integers(1, n, size=max_directions)) % n
        pairs = np.column_stack([first, second])
    zero = ZERO_SCALE * unit
    B = X[pairs[:, 0]] - X[pairs[:, 1]]
    norms = np.linalg.norm(B, axis=1)
    B = B[norms > zero] / norms[norms > zero, None]
    out = np.zeros(n)
    for lo in range(0, B.shape[0], batch):
        Y = X @ B[lo : lo + batch].T
        location, scale = univariate_mcd(Y, h)
        keep = scale >= zero
        if keep.any():
            z = np.abs(Y[:, keep] - location[keep]) / scale[keep]
            out = np.maximum(out, z.max(axis=1))
    return out


@dataclass(frozen=True)
class AdjustedOutlyingness:
    """The fitted directions and fences of :func:`fit_adjusted_outlyingness`.

    Attributes
    ----------
    directions : ndarray of shape (n_features, n_directions)
        Unit normals of hyperplanes through random ``n_features``-subsets of the data.
    median : ndarray of shape (n_directions,)
        Median of the projections on each direction.
    upper, lower : ndarray of shape (n_directions,)
        Distance from the median to the largest projection inside the upper adjusted fence,
        and to the smallest inside the lower (robustbase's ``y.up``, ``y.lo``): the scales.
    rounding : float
        The projections' rounding bound (:func:`~.adjusted_boxplot.projection_rounding`).
    """

    directions: np.ndarray
    median: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    rounding: float = 0.0  # deviations from the median up to it count as ties

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """Adjusted outlyingness of the rows of ``X`` (the same features as at fit)."""
        Y = snap_ties(X @ self.directions - self.median, self.rounding)
        scale = np.where(Y > 0, self.upper, self.lower)
        # a side with no spread (ties at the median): its rows are outlying beyond any
        # spread, measured against the ties' rounding (robustbase divides by 0, drops)
        scale = np.where(scale > 0, scale, self.rounding)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(Y != 0, np.abs(Y) / scale, 0.0)
        ratio = np.where(np.isfinite(ratio), ratio, -np.inf)
        out = ratio.max(axis=1) if ratio.shape[1] else np.zeros(X.shape[0])
        return np.where(np.isfinite(out), out, 0.0)


#: Above this many rows the medcouples (not the quartiles and medians) of the adjusted
#: outlyingness are those of a random sample of this many rows (:func:`medcouple_rows`).
MEDCOUPLE_ROWS = 1 << 16
#: Subsets drawn by ranking a batch's uniform keys while ``batch * n`` is at most this.
_KEYED_DRAW = 1 << 22


def medcouple_rows(n: int, rng: np.random.Generator) -> np.ndarray | None:
    r"""The rows whose medcouples stand for all ``n`` (None: all of them).

    robustbase's ``mc`` takes every value; ours takes :math:`O(n \log^2 n)` time per
    direction. Above :data:`MEDCOUPLE_ROWS` rows a uniform sample of that many gives the
    medcouples (standard error about :math:`1.3 / \sqrt{65536}`, far below the spread of
    the medcouples of skewed and symmetric data).

    Parameters
    ----------
    n : int
    rng : numpy.random.Generator
        Draws the sample, only above that size (smaller fits draw as before).
    """
    if n <= MEDCOUPLE_ROWS:
        return None
    return np.sort(rng.choice(n, size=MEDCOUPLE_ROWS, replace=False))


def draw_subsets(rng: np.random.Generator, batch: int, n: int, p: int) -> np.ndarray:
    """``batch`` uniform random ``p``-subsets of ``range(n)``, each sorted, (batch, p).

    The ``p`` least of uniform keys per row while ``batch * n`` is small (the draws so far),
    else ``rng.choice`` without replacement (Floyd's algorithm: memory of ``p``, not ``n``).

    Parameters
    ----------
    rng : numpy.random.Generator
    batch, n, p : int
    """
    if batch * n <= _KEYED_DRAW:
        return np.sort(np.argpartition(rng.random((batch, n)), p - 1, axis=1)[:, :p], axis=1)
    rows = np.empty((batch, p), dtype=np.intp)
    for i in range(batch):
        rows[i] = np.sort(rng.choice(n, size=p, replace=False))
    return rows


#: Rows whose affine leverage is within this of one are forced (:func:`forced_rows`).
FORCED_LEVERAGE_TOL = 1e-10


def affine_leverage(Z: np.ndarray, mean: np.ndarray, whitening: np.ndarray, n: int) -> np.ndarray:
    """Affine leverages ``1/n + ||(z - mean) @ whitening||^2`` of the rows ``Z`` of ``n``
    rows of mean ``mean`` whose centred scatter is ``inv(whitening @ whitening.T)``.

    Parameters
    ----------
    Z : ndarray of shape (m, p)
    mean : ndarray of shape (p,)
    whitening : ndarray of shape (p, r)
    n : int
    """
    return 1.0 / n + np.sum(((Z - mean) @ whitening) ** 2, axis=1)


def scatter_whitening(R: np.ndarray, n: int) -> np.ndarray:
    """The ``whitening`` of :func:`affine_leverage` from a factor ``R`` of the centred
    scatter (``R^T R``; the centred rows themselves do), on its numerical range."""
    _, s, vt = np.linalg.svd(R, full_matrices=False)
    tol = max(n, R.shape[1]) * np.finfo(np.float64).eps * (s[0] if s.size else 0.0)
    keep = s > tol
    return vt[keep].T / s[keep]


def forced_rows(leverage: np.ndarray) -> np.ndarray:
    r"""The rows whose affine leverage is one (to :data:`FORCED_LEVERAGE_TOL`).

    Row :math:`j` has affine leverage one when an affine function :math:`f_j` is one on
    it and zero on every other row. For two such rows :math:`j, l`, :math:`a_l f_j - a_j
    f_l` (:math:`a` the constant terms) is linear, not zero, and vanishes on every other
    row, so a subset that holds neither is singular: every regular subset holds all the
    forced rows but at most one. Sparse columns make many such rows.

    Parameters
    ----------
    leverage : ndarray of shape (n,)
        Affine leverages of all rows (:func:`affine_leverage`).
    """
    return np.flatnonzero(leverage >= 1.0 - FORCED_LEVERAGE_TOL)


def draw_subsets_holding(
    rng: np.random.Generator, batch: int, n: int, p: int, forced: np.ndarray
) -> np.ndarray:
    """``batch`` uniform random ``p``-subsets of ``range(n)`` among those that hold all
    the ``m`` rows ``forced`` but at most one, each sorted, (batch, p).

    A subset holds all ``m`` with probability ``C(n-m, p-m) / (C(n-m, p-m) + m C(n-m,
    p-m+1))``, else all but a uniform one; the other rows are uniform: uniform among the
    regular subsets (:func:`forced_rows`), without the singular draws missing two of them.

    Parameters
    ----------
    rng : numpy.random.Generator
    batch, n, p : int
    forced : ndarray of shape (m,)
    """
    m = forced.size
    free = np.setdiff1d(np.arange(n), forced)
    spare = p - m + 1  # rows beyond the forced ones when one forced row is left out
    extra = free[draw_subsets(rng, batch, n - m, spare)] if spare else np.empty((batch, 0), int)
    every = rng.random(batch) * (spare + m * (n - p)) < spare  # hold all m (see above)
    drop = np.where(every, m + rng.integers(0, max(spare, 1), batch), rng.integers(0, m, batch))
    rows = np.concatenate([np.broadcast_to(forced, (batch, m)), extra], axis=1)
    keep = np.ones(rows.shape, dtype=bool)
    keep[np.arange(batch), drop] = False
    return np.sort(rows[keep].reshape(batch, p), axis=1)


#: Values (rows x coordinates) gathered into the pool of :func:`greedy_subsets`: all rows
#: up to this many, else a uniform sample of rows of this many values.
GREEDY_POOL_VALUES = 1 << 24
#: Below this share of regular subsets among those drawn (the forced rows held),
#: :func:`hyperplane_normals` takes the rest of its subsets greedily.
GREEDY_RATE = 0.1


def greedy_subsets(rng: np.random.Generator, pool: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` subsets of ``p`` linearly independent rows of ``pool`` (m, p), as
    sorted indices (k, p), each the greedy basis of a uniform random order of the rows (a
    row is taken when its residual off those before is above ``1e-9`` of its norm): found
    where regular subsets are too rare for uniform draws, but not uniform among them.
    Fewer (none) where the rows do not span."""
    m, p = pool.shape
    tol = 1e-9 * np.linalg.norm(pool, axis=1)
    block = max(4 * p, 64)
    found = []
    for _ in range(count):
        order = rng.permutation(m)
        Q = np.zeros((p, p))  # orthonormal columns: the span of the rows taken
        taken: list[int] = []
        for start in range(0, m, block):
            idx = order[start : start + block]
            R = pool[idx]
            R -= (R @ Q[:, : len(taken)]) @ Q[:, : len(taken)].T
            j = 0
            while len(taken) < p and j < idx.size:
                above = np.linalg.norm(R[j:], axis=1) > tol[idx[j:]]
                if not above.any():
                    break
                j += int(above.argmax())
                r = len(taken)
                v = R[j] - Q[:, :r] @ (Q[:, :r].T @ R[j])  # once more: "twice is enough"
                Q[:, r] = v / np.linalg.norm(v)
                taken.append(int(idx[j]))
                j += 1
                R[j:] -= np.outer(R[j:] @ Q[:, r], Q[:, r])
            if len(taken) == p:
                break
        if len(taken) < p:  # the rows do not span: no order gives a basis
            break
        found.append(np.sort(taken))
    return np.array(found, dtype=np.intp).reshape(-1, p)


class SupportTest:
    """Which drawn subsets the data's own columns prove singular, before any SVD.

    A column's support is the set of rows where it differs from its most common value.
    A subset that misses the supports of two columns with different supports sees both
    columns constant, so a combination of the two centred columns vanishes on its rows,
    which are singular as coordinates of the data's span (the fit's scores); the SVD
    test would reject them too. The supports are found at the first call.

    Parameters
    ----------
    columns : ndarray of shape (n, q)
        The data, row for row as the subsets index them.
    """

    #: Booleans gathered at once (subsets x rows x supports).
    BLOCK = 1 << 24

    def __init__(self, columns: np.ndarray):
        self.columns = columns
        self.supports: np.ndarray | None = None

    def _build(self, p: int) -> np.ndarray:
        n = self.columns.shape[0]
        found = []
        for column in self.columns.T:
            _, inverse, counts = np.unique(column, return_inverse=True, return_counts=True)
            support = inverse.ravel() != counts.argmax()
            if 0 < support.sum() <= n - p:  # else no p-subset can miss it
                found.append(support)
        return np.unique(np.array(found).T, axis=1) if found else np.zeros((n, 0), bool)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        """True for the subsets (b, p) that miss two supports."""
        if self.supports is None:
            self.supports = self._build(rows.shape[1])
        out = np.zeros(rows.shape[0], dtype=bool)
        c = self.supports.shape[1]
        if c < 2:
            return out
        step = max(1, self.BLOCK // max(rows.shape[1] * c, 1))
        for a in range(0, rows.shape[0], step):
            missed = ~self.supports[rows[a : a + step]].any(axis=1)
            out[a : a + step] = missed.sum(axis=1) >= 2
        return out


def hyperplane_normals(
    shape: tuple[int, int], fetch, n_directions: int, rng, forced=None, singular=None
) -> np.ndarray:
    """Normals ``B = P^{-1} 1`` of hyperplanes through random p-subsets ``P`` of the rows.

    Each round draws ``2 * needed + 8`` subsets and factorizes them in order only until
    enough are regular; at most ``max(100, p)`` tries per direction, robustbase's bound.
    Once ``forced`` finds two or more rows, later rounds draw only subsets that hold them
    (:func:`draw_subsets_holding`), as uniform among the regular ones; where fewer than
    :data:`GREEDY_RATE` of the subsets looked at since are regular (after at least
    ``n_directions``), or their rate predicts too few within the bound (where robustbase
    stops with an error), the rest are :func:`greedy_subsets` of a pool of the rows.

    Parameters
    ----------
    shape : tuple of (int, int)
        Shape ``(n, p)`` of the data.
    fetch : callable
        ``fetch(rows)`` gives the rows (b, p, p) of indices (b, p) of the data
        (``X.__getitem__`` in memory; the chunked fit gathers them).
    n_directions : int
    rng : numpy.random.Generator
    forced : callable or None, default=None
        ``forced()`` gives the rows of affine leverage one (:func:`forced_rows`).
    singular : callable or None, default=None
        ``singular(rows)`` (a :class:`SupportTest`) marks subsets known to be singular, so
        they cost no SVD; used once ``forced`` has run (at the first singular subset).
    """
    n, p = shape
    max_tries = max(100, p) * n_directions
    found: list[np.ndarray] = []
    count, tries, held = 0, 0, None
    seen = regular_seen = 0  # subsets looked at since the forced rows are known
    while count < n_directions and tries < max_tries:
        known = held is not None
        batch = min(2 * (n_directions - count) + 8, max_tries - tries)
        tries += batch
        if held is None or held.size < 2 or p >= n:
            rows = draw_subsets(rng, batch, n, p)
        else:
            rows = draw_subsets_holding(rng, batch, n, p, held)
        start = 0
        while start < batch and count < n_directions:  # only as many as still needed
            sub = rows[start : start + n_directions - count]
            start += sub.shape[0]
            tried = np.ones(sub.shape[0], dtype=bool)
            if held is not None and singular is not None:
                tried = ~singular(sub)
            ok = np.zeros(sub.shape[0], dtype=bool)
            if tried.any():
                P = fetch(sub[tried])
                s = np.linalg.svd(P, compute_uv=False)
                regular = s[:, -1] > 1e-12 * np.maximum(s[:, 0], 1e-300)
                ok[tried] = regular
                if regular.any():
                    ones = np.ones((int(regular.sum()), p, 1))
                    found.append(np.linalg.solve(P[regular], ones)[:, :, 0])
                    count += int(regular.sum())
            if known:
                seen, regular_seen = seen + sub.shape[0], regular_seen + int(ok.sum())
                left = max_tries - tries + batch - start
                if (
                    count < n_directions
                    and seen >= n_directions
                    and (
                        regular_seen < GREEDY_RATE * seen
                        or count + regular_seen / seen * left < n_directions
                    )
                ):
                    found += _greedy_normals(fetch, n, p, n_directions - count, rng)
                    return np.concatenate(found).T if found else np.zeros((p, 0))
            if held is None and forced is not None and not ok.all():
                held = np.asarray(forced(), dtype=np.intp)
                if held.size >= 2:
                    tries -= batch - start  # the rest of the round is not tried
                    break
    return np.concatenate(found).T if found else np.zeros((p, 0))


def _greedy_normals(fetch, n: int, p: int, count: int, rng) -> list[np.ndarray]:
    """Normals of ``count`` :func:`greedy_subsets` of a pool of the rows (all rows up to
    :data:`GREEDY_POOL_VALUES` values, else a uniform sample), for
    :func:`hyperplane_normals`."""
    size = min(n, max(GREEDY_POOL_VALUES // p, p))
    pool = np.arange(n) if size == n else np.sort(rng.choice(n, size=size, replace=False))
    rows = fetch(pool[None, :])[0]
    subsets = greedy_subsets(rng, rows, count)
    if not subsets.size:
        return []
    P = rows[subsets]
    s = np.linalg.svd(P, compute_uv=False)
    regular = s[:, -1] > 1e-12 * np.maximum(s[:, 0], 1e-300)
    if not regular.any():
        return []
    ones = np.ones((int(regular.sum()), p, 1))
    return [np.linalg.solve(P[regular], ones)[:, :, 0]]


def unit_normals(B: np.ndarray, scale: float) -> np.ndarray:
    """The normals ``B`` (p, m) as unit columns, without those below rounding for data
    of typical magnitude ``scale`` (the mean absolute value).

    Parameters
    ----------
    B : ndarray of shape (p, m)
    scale : float
    """
    norms = np.linalg.norm(B, axis=0)
    keep = norms * scale > 1e-12
    return B[:, keep] / norms[keep]


def fit_adjusted_outlyingness(
    X: np.ndarray,
    *,
    n_directions: int = 250,
    rng: np.random.Generator,
    sample=None,
    columns: np.ndarray | None = None,
) -> AdjustedOutlyingness:
    r"""Skew-adjusted outlyingness (Hubert & Van der Veeken 2008; robustbase's ``adjOutlyingness``).

    For random directions :math:`v` (normals of hyperplanes through ``n_features``
    random samples), the projections :math:`y = x^\top v` are compared with their median
    on the side of each sample, scaled by the adjusted boxplot (:func:`adjusted_fences`):
    the scales are the distances from the median to the most extreme projection inside
    each fence; the outlyingness is the largest ratio over the directions. Quantiles of
    R's type 7 (NumPy's default); robustbase's ``clower = 4``, ``cupper = 3``, ``coef = 1.5``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_directions : int, default=250
    rng : numpy.random.Generator
        Draws the subsets behind the directions.
    sample : ndarray of int or None, default=None
        The rows whose medcouples stand for all (:func:`medcouple_rows`); None: all rows.
    columns : ndarray of shape (n_samples, q) or None, default=None
        The data whose centred rows ``X`` gives in coordinates of their span, if any, for
        :class:`SupportTest`.
    """
    from ..robust_scale import medcouple_columns

    def forced():
        mean = X.mean(axis=0)
        whitening = scatter_whitening(X - mean, X.shape[0])
        return forced_rows(affine_leverage(X, mean, whitening, X.shape[0]))

    singular = None if columns is None else SupportTest(columns)
    B = hyperplane_normals(X.shape, X.__getitem__, n_directions, rng, forced, singular)
    B = unit_normals(B, float(np.mean(np.abs(X if sample is None else X[sample]))))
    rounding = projection_rounding(X if sample is None else X[sample])
    Y = X @ B
    med = np.median(Y, axis=0)
    Y = snap_ties(Y - med, rounding)
    mc = medcouple_columns(Y if sample is None else Y[sample])
    q1, q3 = np.quantile(Y, [0.25, 0.75], axis=0)
    upper_fence, lower_fence = adjusted_fences(q1, q3, mc)
    upper = np.where(Y < upper_fence, Y, -np.inf).max(axis=0)
    lower = -np.where(Y > lower_fence, Y, np.inf).min(axis=0)
    return AdjustedOutlyingness(B, med, upper, lower, rounding)
