r"""The minimum covariance determinant estimator as R's robustbase computes it.

:func:`minimum_covariance_determinant` gives the reweighted MCD location and scatter of
``robustbase::covMcd`` (and so of rrcov's ``CovMcd``, which ROBPCA, ``PcaHubert``, and
``PcaCov`` call): the h-subset with the smallest covariance determinant is searched by
FAST-MCD (Rousseeuw & Van Driessen 1999) with robustbase's 500 random starts
(:func:`fast_mcd_subset`), and the estimates are then scaled as robustbase scales them.

scikit-learn's :class:`~sklearn.covariance.MinCovDet` is not used: its FAST-MCD tries 30
starts, and on the rrcov tables it stops at a worse h-subset than robustbase (hbk at
``alpha = 0.5``: log-determinant -0.938 against -1.048; wood at 0.75: -33.61 against
-33.96, with the four documented outliers inside the subset). It also scales differently:

* the raw covariance of the h-subset (divisor ``h - 1``) times the consistency factor
  :func:`mcd_consistency` and the small-sample factor :func:`mcd_small_sample`
  (Pison, Van Aelst & Willems 2002); scikit-learn instead rescales by the median of the
  squared distances;
* the reweighting keeps the samples with squared distance below
  :math:`\chi^2_{p, 0.975}` (robustbase's ``"01.original"`` weights), takes their
  mean and covariance (divisor ``n_w - 1``) and scales it again by both factors for the
  kept fraction; scikit-learn keeps the maximum-likelihood covariance unscaled.

With the same h-subset the estimates are robustbase's to rounding. FAST-MCD is a
randomised search and neither implementation is certain to find the global optimum, so
on hard problems the two may stop at different h-subsets; on the data sets of the tests
they agree.

References
----------
P. J. Rousseeuw, K. Van Driessen, "A fast algorithm for the minimum covariance
determinant estimator", Technometrics 41(3), 1999.
G. Pison, S. Van Aelst, G. Willems, "Small sample corrections for LTS and MCD",
Metrika 55, 2002.
M. Maechler et al., robustbase: ``covMcd``, ``.MCDcons``, ``.MCDcnp2``, ``.MCDcnp2.rew``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy import linalg, stats

from .exact_fit import AffineHull, coordinate_plane
from .mcd_factors import mcd_consistency, mcd_small_sample

__all__ = [
    "MCDResult",
    "fast_mcd_subset",
    "h_alpha_n",
    "mcd_consistency",
    "mcd_small_sample",
    "minimum_covariance_determinant",
    "sorted_eigh",
]


def h_alpha_n(alpha: float, n: int, p: int) -> int:
    """Size of the h-subset for coverage ``alpha`` (robustbase's ``h.alpha.n``).

    ``h = floor(2 n2 - n + 2 (n - n2) alpha)`` with ``n2 = (n + p + 1) // 2``.

    Parameters
    ----------
    alpha : float
        Coverage, in ``[1/2, 1]``: ``1/2`` gives ``h = (n + p + 1) // 2``, the largest
        breakdown point, and 1 gives ``h = n``.
    n : int
        Number of samples.
    p : int
        Number of variables.

    Returns
    -------
    int
    """
    n2 = (n + p + 1) // 2
    return int(np.floor(2 * n2 - n + 2 * (n - n2) * alpha))


@dataclass(frozen=True)
class MCDResult:
    """The MCD estimates of :func:`minimum_covariance_determinant`.

    Attributes
    ----------
    location, covariance : ndarray
        Reweighted location and (consistency- and small-sample-corrected) scatter.
    raw_location, raw_covariance : ndarray
        Mean and corrected covariance of the h-subset (for one variable, robustbase's
        ``rfmcduni``: its sum of squares divided by ``h``, not ``h - 1``); on an exact
        fit, of every sample on its hull, as the reweighted ones.
    raw_support : ndarray of bool, shape (n_samples,)
        The h-subset; every sample on the hyperplane where a coordinate holds ``h``
        equal values (robustbase's exact fit before its search, which has no h-subset;
        :func:`~robustpca.solvers.exact_fit.coordinate_plane`).
    support : ndarray of bool, shape (n_samples,)
        The samples kept by the reweighting step; on an exact fit, every sample on the
        h-subset's affine hull (robustbase's weights).
    log_det : float
        Log-determinant of the h-subset's covariance (divisor ``h - 1``): robustbase's
        ``crit``, ``-inf`` on an exact fit.
    h : int
        Size of the h-subset.
    hull : AffineHull or None
        On an exact fit, the h-subset's affine hull (:mod:`~robustpca.solvers.exact_fit`).
    """

    location: np.ndarray
    covariance: np.ndarray
    raw_location: np.ndarray
    raw_covariance: np.ndarray
    raw_support: np.ndarray
    support: np.ndarray
    log_det: float
    h: int
    hull: AffineHull | None = None


def _mahalanobis_sq(X: np.ndarray, location: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """Squared distances under ``covariance``: by its Cholesky factor (one triangular
    solve, far cheaper than a least-squares solve on tall data), or, where it is not
    positive definite (an exact fit), by least squares."""
    centred = X - location
    try:
        factor = linalg.cholesky(covariance, lower=True, check_finite=False)
    except linalg.LinAlgError:
        solved = np.linalg.lstsq(covariance, centred.T, rcond=None)[0]
        return np.einsum("ij,ji->i", centred, solved)
    whitened = linalg.solve_triangular(factor, centred.T, lower=True, check_finite=False)
    return np.einsum("ij,ij->j", whitened, whitened)


def _cov(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    location = X.mean(axis=0)
    centred = X - location
    return location, centred.T @ centred / max(X.shape[0] - 1, 1)


#: The fits of a batch are computed together, in chunks of about this many numbers
#: (256 KiB of float64), which stay in cache: chunks of 200,000 numbers were 2-4x
#: slower per fit on 300 x 5 data.
_VECTORISED = 32_768

#: Up to this many features, the distances of a chunk of fits are formed in (B', p, n)
#: layout and summed over the p coordinates in passes over (B', n) arrays; with more,
#: the p passes cost more than one GEMM and one row-wise dot product per fit.
_FEW_FEATURES = 12


def _chunks(n_fits: int, per_fit: int):
    """Slices of ``range(n_fits)`` of about :data:`_VECTORISED` numbers (a fit at least)."""
    step = max(1, _VECTORISED // max(per_fit, 1))
    return (slice(lo, min(lo + step, n_fits)) for lo in range(0, n_fits, step))


def _batched_cov(X: np.ndarray, subsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Means (B, p) and covariances (B, p, p) of the rows ``subsets`` (B, m) of ``X``.

    Gathered (m, B', p) a chunk of fits at a time, the mean is NumPy's fast reduction
    over the first axis, which adds a subset's rows in their order, as
    ``X[rows].mean(axis=0)`` does (the same bits); each covariance is one product of
    its centred (m, p) subset. A fit is computed alike in any batch."""
    n_fits, m = subsets.shape
    p = X.shape[1]
    means = np.empty((n_fits, p))
    covs = np.empty((n_fits, p, p))
    for part in _chunks(n_fits, m * p):
        rows = np.take(X, subsets[part].T, axis=0)
        means[part] = rows.sum(axis=0) / m
        rows -= means[part]
        centred = rows.transpose(1, 0, 2).copy()
        np.matmul(centred.transpose(0, 2, 1), centred, out=covs[part])
    covs /= max(m - 1, 1)
    return means, covs


def _distances(X: np.ndarray, means: np.ndarray, precisions: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances (B, n) of the samples under B fits.

    With few features, formed in (B', p, n) layout a chunk of fits at a time (the
    broadcasts run along the samples) and summed over the coordinates in their order;
    with more, one GEMM per fit. The route depends on ``X`` only, so a fit's distances
    are the same bits in any batch (the last C-steps go on with the moving fits only).
    Under the precision of a subset of one point (:func:`ridged_precisions`) the samples
    off it are at an infinite distance, and it overflows there without a warning."""
    with np.errstate(over="ignore"):
        return _distances_of(X, means, precisions)


def _distances_of(X: np.ndarray, means: np.ndarray, precisions: np.ndarray) -> np.ndarray:
    n, p = X.shape
    distances = np.empty((means.shape[0], n))
    if p <= _FEW_FEATURES:
        features = np.ascontiguousarray(X.T)
        for part in _chunks(means.shape[0], X.size):
            centred = features[None, :, :] - means[part, :, None]
            products = np.matmul(precisions[part].transpose(0, 2, 1), centred)
            chunk = np.multiply(products[:, 0], centred[:, 0], out=distances[part])
            for j in range(1, p):
                chunk += products[:, j] * centred[:, j]
    else:
        for b in range(means.shape[0]):
            centred = X - means[b]
            distances[b] = np.einsum("ij,ij->i", centred @ precisions[b], centred)
    return distances


def _c_step(X: np.ndarray, means, covs, h: int):
    """One concentration step for a batch of fits: the h samples of smallest
    Mahalanobis distance under each fit (:func:`_distances`), and their means and
    covariances (:func:`_batched_cov`)."""
    distances = _distances(X, means, ridged_precisions(covs))
    subsets = np.sort(np.argpartition(distances, h - 1, axis=1)[:, :h], axis=1)
    return (subsets, *_batched_cov(X, subsets))


def ridged_precisions(covs: np.ndarray) -> np.ndarray:
    """The inverses of a batch of covariances ``(B, p, p)``, each with a ridge of
    ``1e-12`` of its mean variance (never below the smallest normal float, so that a
    subset of one point gives distances 0 and large, not NaN): the C-steps' metric."""
    p = covs.shape[-1]
    ridge = np.maximum(1e-12 * np.trace(covs, axis1=1, axis2=2) / p, np.finfo(np.float64).tiny)
    return np.linalg.inv(covs + ridge[:, None, None] * np.eye(p))


def raw_log_det(cov: np.ndarray) -> float:
    """The log-determinant of a raw MCD covariance, ``-inf`` where it is singular to
    rounding (a rank below ``p`` at numpy's ``matrix_rank`` tolerance): an exact fit
    (robustbase's "on.hyperplane"), whichever way the covariance was summed. A
    determinant's sign alone would leave that to rounding: the h-subset of rows on a
    line can give a tiny positive one summed directly, a zero or negative one by QR."""
    sign, log_det = np.linalg.slogdet(cov)
    if sign <= 0 or np.linalg.matrix_rank(cov, hermitian=True) < cov.shape[0]:
        return -np.inf
    return float(log_det)


def _log_dets(covs: np.ndarray) -> np.ndarray:
    sign, log_det = np.linalg.slogdet(covs)
    return np.where(sign > 0, log_det, -np.inf)


def _univariate_mcd_subset(x: np.ndarray, h: int) -> np.ndarray:
    """The exact univariate MCD: the h contiguous order statistics of least variance;
    where several windows attain it (equally spaced or integer data), the middle one,
    robustbase's ``slutn((ndup + 1) / 2)`` in ``rfmcduni`` (ties within a relative 1e-12,
    as :func:`~robustpca.solvers.outlyingness.univariate_mcd`)."""
    order = np.argsort(x, kind="stable")
    y = x[order]
    c1 = np.concatenate([[0.0], np.cumsum(y)])
    c2 = np.concatenate([[0.0], np.cumsum(y * y)])
    sums = c1[h:] - c1[:-h]
    ss = (c2[h:] - c2[:-h]) - sums * sums / h
    ss_min = float(ss.min())
    tied = np.flatnonzero(ss <= ss_min + 1e-12 * max(abs(ss_min), 1e-300))
    start = int(tied[(tied.size + 1) // 2 - 1])
    support = np.zeros(x.size, dtype=bool)
    support[order[start : start + h]] = True
    return support


#: robustbase's ``replow``: the largest ``n`` at which FAST-MCD starts from every
#: (p+1)-subset instead of ``nsamp`` random ones, by ``p + 1`` (``rffastmcd.f``: at
#: most C(22, 3) = 1,540 to C(14, 6) = 3,003 starts).
EXHAUSTIVE_MAX_N = {2: 50, 3: 22, 4: 17, 5: 15, 6: 14}


def _exhaustive(n: int, p: int) -> bool:
    """Whether robustbase starts from every (p+1)-subset of ``n`` samples."""
    return n <= EXHAUSTIVE_MAX_N.get(p + 1, 0)


def _enlarged_starts(X: np.ndarray, h: int, m: int, count: int, rng):
    """Means and covariances of ``count`` starts in place of singular ones, as robustbase
    enlarges them: a random order of the samples each, its first ``size`` samples for the
    least ``size`` above ``m`` whose covariance is regular (the first ``h`` if none is:
    singular data stay singular). The orders are drawn one start after another, as one
    start at a time would draw them; the sizes are tried for all the starts at once."""
    n = X.shape[0]
    orders = np.array([rng.permutation(n) for _ in range(count)])
    means, covs = _batched_cov(X, orders[:, :h])
    pending = np.arange(count)
    for size in range(m + 1, h):
        if not pending.size:
            break
        trial_means, trial_covs = _batched_cov(X, orders[pending, :size])
        regular = np.isfinite(_log_dets(trial_covs))
        means[pending[regular]], covs[pending[regular]] = trial_means[regular], trial_covs[regular]
        pending = pending[~regular]
    return means, covs


def _distinct_best(subsets: np.ndarray, dets: np.ndarray, n_best: int) -> np.ndarray:
    """Indices of the ``n_best`` fits of least determinant among those of distinct
    h-subsets (ties by position). robustbase stores a solution only if it differs from
    those stored (``rffastmcd.f``, ``rfstore1``/``rfstore2``): starts that reach the same
    subset would otherwise fill the best ten with copies of one local optimum and
    leave out the others, and the search would miss the optimum more often."""
    order = np.argsort(dets, kind="stable")
    _, first = np.unique(subsets[order], axis=0, return_index=True)
    return order[np.sort(first)][:n_best]


def _best_starts(X: np.ndarray, h: int, n_starts: int, n_best: int, rng):
    """(p+1)-subsets, two C-steps each: the ``n_best`` distinct fits of least
    determinant (:func:`_distinct_best`).

    The starts are ``n_starts`` random subsets, or every one of them on data as small
    as robustbase searches exhaustively (:data:`EXHAUSTIVE_MAX_N`), in lexicographic
    order, as its ``rfgenpn`` enumerates them."""
    n, p = X.shape
    m = min(p + 1, h)
    if _exhaustive(n, p):
        starts = np.array(list(itertools.combinations(range(n), m)), dtype=np.intp)
    else:  # n_starts random m-subsets: the m smallest of n uniform keys per start
        starts = np.argpartition(rng.random((n_starts, n)), m - 1, axis=1)[:, :m]
    batch = max(1, int(2e6 // max(n * p, 1)))
    kept_subsets, kept_means, kept_covs, kept_dets = [], [], [], []
    for lo in range(0, starts.shape[0], batch):
        means, covs = _batched_cov(X, starts[lo : lo + batch])
        singular = np.flatnonzero(~np.isfinite(_log_dets(covs)))
        for part in range(0, singular.size, max(1, int(2e6 // n))):
            fits = singular[part : part + max(1, int(2e6 // n))]
            means[fits], covs[fits] = _enlarged_starts(X, h, m, len(fits), rng)
        for _ in range(2):
            subsets, means, covs = _c_step(X, means, covs, h)
        kept_subsets.append(subsets)
        kept_means.append(means)
        kept_covs.append(covs)
        kept_dets.append(_log_dets(covs))
    top = _distinct_best(np.concatenate(kept_subsets), np.concatenate(kept_dets), n_best)
    return np.concatenate(kept_means)[top], np.concatenate(kept_covs)[top]


#: Nested extension (Rousseeuw & Van Driessen 1999, sec. 3.3; robustbase's ``nmini = 300``,
#: ``kmini = 5``): from ``2 * NMINI`` samples the starts run in disjoint random groups
#: (:func:`_group_sizes`), then on their union, then on all the data.
NMINI, KMINI = 300, 5


def _group_sizes(n: int) -> list[int]:
    """robustbase's subdatasets (``rffastmcd.f``'s ``mini``) of ``n >= 2 * NMINI``
    samples: ``n // NMINI`` groups sharing all the samples below ``KMINI * NMINI``
    (the first of size ``n // groups``, one more in as many of the next as the remainder
    needs), ``KMINI`` groups of ``NMINI`` from there."""
    groups = n // NMINI
    if groups >= KMINI:
        return [NMINI] * KMINI
    base, extra = divmod(n, groups)
    sizes = [base] * groups
    for g in range(1, 1 + extra):
        sizes[g] += 1
    return sizes


def fast_mcd_subset(
    X: np.ndarray, h: int, *, n_starts: int = 500, n_best: int = 10, max_steps: int = 100, rng
) -> np.ndarray:
    """The h-subset of FAST-MCD (Rousseeuw & Van Driessen 1999, sec. 3).

    ``n_starts`` random (p+1)-subsets, enlarged by random samples while their covariance is
    singular, two C-steps each, then the ``n_best`` lowest determinants of distinct
    subsets iterated to convergence on all the data; C-steps never increase
    the determinant (the paper's Theorem 1). From ``2 * NMINI`` samples (and for
    ``NMINI > 2 (p + 1)``, so that a group can hold several starts) the paper's
    nested extension, as robustbase runs it: the starts are split over disjoint random
    groups (2 to 4 sharing all the samples below 1,500, else ``KMINI`` of ``NMINI``;
    :func:`_group_sizes`) with ``h`` scaled to each as robustbase truncates it, the
    ``n_best`` of each group take two C-steps on the union of the groups, and the
    ``n_best`` of those go on to all the data. The starts are processed in batches with
    vectorised linear algebra. Univariate data get the exact MCD.

    One deliberate difference from robustbase: its last stage (``rffastmcd.f``, stage
    3) iterates only the best candidate above 5,000 samples, and above
    ``n p = 100,000`` takes 10 down to 1 C-steps rather than going on to convergence.
    Here all ``n_best`` go on until none moves, as robustbase does on smaller data: a
    determinant as low or lower, for somewhat more time (``docs/rrcov.md``,
    ``docs/design-notes/rrcov-family.md``, ``benchmarks/bench_mcd.py``).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    h : int
        Size of the subset (:func:`h_alpha_n`).
    n_starts : int, default=500
        Random (p+1)-subsets to start from (robustbase's ``nsamp``); on data as small as
        robustbase searches exhaustively (:data:`EXHAUSTIVE_MAX_N`), every one instead.
    n_best : int, default=10
        Fits of least determinant (of distinct subsets) kept from a stage for the next.
    max_steps : int, default=100
        Most C-steps of the last stage on all the data, which stops once no fit moves.
    rng : numpy.random.Generator
        Draws the starts, their enlargements and the groups.

    Returns
    -------
    ndarray of bool of shape (n_samples,)
        The h-subset of least determinant found.
    """
    n, p = X.shape
    if p == 1:
        return _univariate_mcd_subset(X[:, 0], h)
    if n >= 2 * NMINI and NMINI > 2 * (p + 1):
        sizes = _group_sizes(n)
        fraction = h / n  # robustbase's percen: h of a group is int(size * percen)
        h_group = max(p + 1, int(sizes[0] * fraction))
        drawn = rng.permutation(n)[: sum(sizes)]
        bounds = np.cumsum([0, *sizes])
        found = [
            _best_starts(X[drawn[lo:hi]], h_group, max(n_starts // len(sizes), 1), n_best, rng)
            for lo, hi in itertools.pairwise(bounds)
        ]
        means = np.concatenate([f[0] for f in found])
        covs = np.concatenate([f[1] for f in found])
        merged = X[drawn]
        h_merged = max(p + 1, int(merged.shape[0] * fraction))
        for _ in range(2):
            subsets, means, covs = _c_step(merged, means, covs, h_merged)
        top = _distinct_best(subsets, _log_dets(covs), n_best)
        means, covs = means[top], covs[top]
    else:
        means, covs = _best_starts(X, h, n_starts, n_best, rng)
    subsets, means, covs = _c_step(X, means, covs, h)
    # A fit whose subset did not move is at a fixed point of the C-step (the same subset,
    # mean and covariance again): only the others go on, each computed as in the whole
    # batch, so every fit ends as when all went on together. CovariancePCA at 50,000 x
    # 20: 13 full-data steps, the last four with 5, 4, 2 and 0 of 10 fits moving.
    moving = np.arange(means.shape[0])
    for _ in range(max_steps - 1):
        new_subsets, new_means, new_covs = _c_step(X, means[moving], covs[moving], h)
        moved = ~np.all(new_subsets == subsets[moving], axis=1)
        subsets[moving], means[moving], covs[moving] = new_subsets, new_means, new_covs
        if not moved.any():
            break
        moving = moving[moved]
    dets = _log_dets(covs)
    support = np.zeros(n, dtype=bool)
    support[subsets[int(np.argmin(dets))]] = True
    return support


def minimum_covariance_determinant(
    X: np.ndarray, alpha: float = 0.5, *, n_starts: int = 500, random_state=None
) -> MCDResult:
    """Reweighted MCD of ``X`` with robustbase's corrections (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    alpha : float, default=0.5
        Coverage: the h-subset has ``h_alpha_n(alpha, n, p)`` samples.
    n_starts : int, default=500
        Random starts of FAST-MCD (robustbase's ``nsamp``).
    random_state : int, Generator or None
        Seeds FAST-MCD's random starts.

    Returns
    -------
    MCDResult
    """
    n, p = X.shape
    h = min(h_alpha_n(alpha, n, p), n)
    plane = coordinate_plane(X, h) if 1 < p and h < n else None
    if h >= n:
        raw_support = np.ones(n, dtype=bool)
    elif plane is not None:  # robustbase's exact fit before any search (no seed decides);
        raw_support = plane.contains(X)  # it has no h-subset: every row on the plane
    else:
        rng = (
            np.random.default_rng(random_state)
            if not isinstance(random_state, np.random.Generator)
            else random_state
        )
        raw_support = fast_mcd_subset(X, h, n_starts=n_starts, rng=rng)
    raw_location, raw_cov = _cov(X[raw_support])
    log_det = raw_log_det(raw_cov)
    if h >= n and not np.isfinite(log_det):  # singular classical estimates: nothing to
        return MCDResult(  # reweight with
            raw_location, raw_cov, raw_location, raw_cov, raw_support, raw_support, log_det, h
        )
    if h < n:  # (h = n: the classical estimates are the raw ones, then reweighted, as
        # robustbase's covMcd does; no factor applies to them)
        hull = None
        if plane is not None:
            hull = plane
        elif not np.isfinite(log_det):  # an exact fit: every sample on the subset's hull
            hull = AffineHull.of(raw_location, raw_cov, h)
        if hull is not None:
            on = hull.contains(X)
            raw_location, raw_cov = _cov(X[on])
        raw_cov = raw_cov * mcd_consistency(p, h / n) * mcd_small_sample(p, n, alpha)
        if p == 1:  # robustbase's univariate MCD (rfmcduni) divides the h-subset's sum of
            raw_cov = raw_cov * ((h - 1) / h)  # squares by h, its crit by h - 1
        if hull is not None:  # robustbase's "on.hyperplane": the raw estimates of those rows
            return MCDResult(
                raw_location, raw_cov, raw_location, raw_cov, raw_support, on, log_det, h, hull
            )
    cutoff = stats.chi2.ppf(0.975, p)
    support = _mahalanobis_sq(X, raw_location, raw_cov) < cutoff
    n_kept = int(support.sum())
    if n_kept <= p:  # too few kept to reweight: robustbase keeps the raw estimates
        return MCDResult(
            raw_location, raw_cov, raw_location, raw_cov, raw_support, raw_support, log_det, h
        )
    location, covariance = _cov(X[support])
    if n_kept != n:
        covariance = (
            covariance
            * mcd_consistency(p, n_kept / n)
            * mcd_small_sample(p, n, alpha, reweighted=True)
        )
    return MCDResult(location, covariance, raw_location, raw_cov, raw_support, support, log_det, h)


def sorted_eigh(covariance: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The eigendecomposition of an MCD covariance, for the PCA built on it.

    robustbase's small-sample factor (:func:`mcd_small_sample`) is a fit that turns
    negative for few samples per variable (from ``p = 7`` at ``n < 2 p``), and the
    reweighted covariance then has negative eigenvalues; rrcov returns them (and NaN
    distances). They are set to 0 here and the most negative is returned, for the
    estimators to warn.

    Parameters
    ----------
    covariance : ndarray of shape (p, p)
        A symmetric covariance estimate.

    Returns
    -------
    values : ndarray of shape (p,)
        The eigenvalues in decreasing order (ties in eigh's order), clipped at 0.
    vectors : ndarray of shape (p, p)
        Their eigenvectors, as columns.
    negative : float
        The smallest eigenvalue where it is below ``-p eps`` times the largest absolute
        one (the covariance is not non-negative definite), else 0.
    """
    values, vectors = np.linalg.eigh(covariance)
    order = np.argsort(values, kind="stable")[::-1]
    values, vectors = values[order], vectors[:, order]
    top = float(np.abs(values).max(initial=0.0))
    low = float(values.min(initial=0.0))
    negative = low if low < -values.size * np.finfo(np.float64).eps * top else 0.0
    return np.clip(values, 0.0, None), vectors, negative
