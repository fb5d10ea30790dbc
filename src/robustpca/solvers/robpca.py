r"""ROBPCA: Hubert, Rousseeuw & Vanden Branden (2005), as rrcov's ``PcaHubert`` computes it.

Steps (the paper's sec. 3; rrcov 1.7-2 ``PcaHubert.default``, ``projectMCD``):

1. Reduce the data to their affine span: centre by the mean and keep the ``r`` singular
   directions (this is what makes ``p > n`` work; Hubert et al. sec. 3.1).
2. When the rank is small (``r <= min(n / 5, kmax)``) and ``mcd`` is on, the
   reweighted MCD of the reduced data gives the centre and scatter directly (rrcov's
   shortcut).
3. Otherwise: the Stahel-Donoho outlyingness over directions through pairs of points
   (:func:`~robustpca.solvers.outlyingness.outlyingness`); the ``h`` least outlying
   samples; PCA of them, whose eigenvalues choose ``k`` when it is automatic.
4. When ``k`` is below the rank, an extra reweighting: the samples whose orthogonal
   distance to that k-dimensional fit is within the cutoff (univariate MCD of
   :math:`OD^{2/3}`, rrcov's ``"umcd"`` rule) are refitted by classical PCA. Our
   choice beyond rrcov: the cutoff is at least the ODs' rounding (:func:`od_rounding`),
   so that where most samples lie on the fit exactly, all of them are kept.
5. In the k-dimensional score space: C-steps from the h-subset (Hubert et al. sec.
   3.3, "the covariance of the h points with the smallest Mahalanobis distance"), then
   the reweighted MCD (:func:`~robustpca.solvers.mcd.minimum_covariance_determinant`)
   whose eigen-decomposition gives the final loadings, eigenvalues and centre.

rrcov compares the MCD's criterion (a log-determinant) with the C-steps' determinant to
decide whether to use the MCD or a reweighting of the C-step fit; a log-determinant is
below a determinant whenever the two are of comparable size, so rrcov in effect always
uses the MCD, and so does this implementation (the choice is documented in
:class:`~robustpca.ROBPCA`).

References
----------
M. Hubert, P. J. Rousseeuw, K. Vanden Branden, "ROBPCA: a new approach to robust
principal component analysis", Technometrics 47(1), 2005.
V. Todorov, P. Filzmoser, "An object-oriented framework for robust multivariate
analysis", Journal of Statistical Software 32(3), 2009 (rrcov).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..linalg import svd_right
from ..rank_selection import select_n_components
from ..robust_scale import skewed_cutoff
from .mcd import h_alpha_n, minimum_covariance_determinant, sorted_eigh
from .outlyingness import (
    AdjustedOutlyingness,
    fit_adjusted_outlyingness,
    medcouple_rows,
    outlyingness,
    univariate_mcd,
)

__all__ = [
    "NO_DIRECTIONS",
    "ROBPCAResult",
    "SkewModel",
    "centred_rank",
    "class_pca",
    "directionless",
    "every_sample_kept",
    "not_nonnegative_definite",
    "solve_robpca",
]

#: The estimators' warning where a skew fit's adjusted outlyingness found no direction
#: (a 0 in ``n_directions``). The greedy subsets find one wherever the rows they draw
#: from span the space, so this needs a sample of the rows (above ``GREEDY_POOL_VALUES``
#: values) that misses the few rows carrying some direction.
NO_DIRECTIONS = (
    "ROBPCA(skew=True) found no hyperplane through linearly independent rows for its "
    "{} adjusted outlyingness: the rows it drew from do not span the space, some of whose "
    "directions only a few rows carry. Every row's outlyingness is then 0, and the "
    "h-subset the first h rows in order. Fit with skew=False, or first reduce the data to "
    "the directions most rows share."
)


def directionless(n_directions: tuple[int, int] | None) -> str | None:
    """The :data:`NO_DIRECTIONS` warning for a fit's ``n_directions``, or None.

    Parameters
    ----------
    n_directions : tuple of (int, int) or None
        ``ROBPCAResult.n_directions``: the directions found by the first and the final
        adjusted outlyingness; a 0 gives the warning, None (no ``skew``) none.

    Returns
    -------
    str or None
    """
    if n_directions is None or all(n_directions):
        return None
    return NO_DIRECTIONS.format("first" if not n_directions[0] else "final")


def not_nonnegative_definite(negative: float, n_samples: int, n_components: int) -> str:
    """The estimators' warning where the final MCD's covariance had an eigenvalue
    ``negative`` < 0 (``ROBPCAResult.negative_eigenvalue``).

    Parameters
    ----------
    negative : float
        The most negative eigenvalue.
    n_samples : int
        The rows of the fit.
    n_components : int
        The columns of the final MCD (the components it estimated).

    Returns
    -------
    str
    """
    return (
        f"ROBPCA: the final MCD's covariance of the {n_components} components is not "
        f"non-negative definite (eigenvalue {negative:.3g}): robustbase's small-sample "
        f"correction is negative for {n_samples} samples (rrcov returns the negative "
        "eigenvalues). They are set to 0, and the eigenvalues and distances of this fit "
        "do not describe the data: use fewer components or more samples (at least twice "
        "as many samples as components)."
    )


def every_sample_kept(n_samples: int, kmax: int) -> str:
    """The estimators' warning where the h-subset is every sample (``h = n`` with
    ``alpha < 1``): the fit is classical PCA. rrcov stops here ("n == p+1 is too small
    sample size for MCD").

    Parameters
    ----------
    n_samples : int
        The rows of the fit.
    kmax : int
        The ``kmax`` that set ``h`` (raised to an int ``n_components`` above it).

    Returns
    -------
    str
    """
    return (
        f"ROBPCA: the h-subset holds all {n_samples} samples (h = n, from kmax = {kmax}, "
        f"raised to an int n_components above it), so this fit is classical PCA and "
        "resists no outlier (rrcov refuses it). Ask for at most n_samples - 2 components, "
        "or use n_components='auto' with a smaller kmax."
    )


@dataclass(frozen=True)
class ROBPCAResult:
    """Outcome of :func:`solve_robpca`.

    Attributes
    ----------
    components : ndarray of shape (k, n_features)
        Orthonormal robust loadings, by decreasing robust eigenvalue.
    mean : ndarray of shape (n_features,)
        Robust centre.
    eigenvalues : ndarray of shape (k,)
        Robust eigenvalues (variances of the scores).
    n_components : int
        ``k``, as given or chosen.
    rank : int
        Rank of the centred data.
    h : int
        Size of the h-subset.
    h_subset : ndarray of int
        The ``h`` least outlying samples of step 3 (all samples' MCD subset in the
        shortcut of step 2).
    initial_eigenvalues : ndarray
        Eigenvalues of the h-subset's PCA (rrcov's ``eig0``), from which an automatic
        ``k`` is chosen.
    outlyingness : ndarray of shape (n_samples,) or None
        Stahel-Donoho outlyingness of step 3 (None in the MCD shortcut).
    mcd_support : ndarray of bool, shape (n_samples,)
        Samples kept by the final reweighted MCD (the final h-subset when ``skew``).
    adjusted : SkewModel or None
        With ``skew``: the adjusted outlyingness in the k-dimensional score space, for
        any sample (rrcov's ``@ao`` on the training data).
    medcouple_rows : ndarray of int or None
        With ``skew`` on more than ``MEDCOUPLE_ROWS`` samples: the rows whose medcouples
        stand for all (:func:`~robustpca.solvers.outlyingness.medcouple_rows`), also
        those of the diagnostics' cutoffs.
    n_directions : tuple of int or None
        With ``skew``: the hyperplane directions found for the two adjusted
        outlyingnesses (in the data's span, then in the ``k``-dimensional space). 0 where
        the rows drawn from do not span that space (:data:`NO_DIRECTIONS`).
    negative_eigenvalue : float
        The most negative eigenvalue of the final MCD's covariance, set to 0 in
        ``eigenvalues`` (:func:`~robustpca.solvers.mcd.sorted_eigh`); 0 where it is
        non-negative definite.
    """

    components: np.ndarray
    mean: np.ndarray
    eigenvalues: np.ndarray
    n_components: int
    rank: int
    h: int
    h_subset: np.ndarray
    initial_eigenvalues: np.ndarray
    outlyingness: np.ndarray | None
    mcd_support: np.ndarray
    adjusted: SkewModel | None = None
    medcouple_rows: np.ndarray | None = None
    n_directions: tuple[int, int] | None = None
    negative_eigenvalue: float = 0.0


@dataclass(frozen=True)
class SkewModel:
    """Adjusted outlyingness of samples in the k-dimensional space of skewed ROBPCA;
    ``model(X)`` gives that of each row of ``X``.

    Attributes
    ----------
    origin : ndarray of shape (n_features,)
        Subtracted from a sample before the rotation.
    rotation : ndarray of shape (n_features, k)
        ``(x - origin) @ rotation`` are a sample's coordinates in that space (those the
        final step computed its outlyingness in).
    outlyingness : AdjustedOutlyingness
        The fitted directions (:class:`~robustpca.solvers.outlyingness.AdjustedOutlyingness`).
    """

    origin: np.ndarray
    rotation: np.ndarray
    outlyingness: AdjustedOutlyingness

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return self.outlyingness((X - self.origin) @ self.rotation)


@dataclass(frozen=True)
class _ClassPC:
    center: np.ndarray
    loadings: np.ndarray  # (p, rank)
    eigenvalues: np.ndarray  # (rank,)

    @property
    def rank(self) -> int:
        return self.eigenvalues.size


def class_pca(X: np.ndarray) -> _ClassPC:
    """Classical PCA by the SVD of the centred data, with rrcov's rank tolerance.

    The rank is :func:`centred_rank`'s; eigenvalues have divisor ``n - 1``.

    Parameters
    ----------
    X : ndarray of shape (n, p)

    Returns
    -------
    _ClassPC
        ``center`` (the column means), ``loadings`` of shape (p, rank) and ``eigenvalues``
        of shape (rank,).
    """
    n, p = X.shape
    center = X.mean(axis=0)
    s, vt = svd_right(X - center)
    rank = centred_rank(s, n, p)
    return _ClassPC(center, vt[:rank].T, s[:rank] ** 2 / max(n - 1, 1))


def centred_rank(s: np.ndarray, n: int, p: int) -> int:
    """The rank of ``n`` centred rows of ``p`` values from their singular values ``s``.

    The singular values at least ``max(n, p) * eps * s_1`` (robustbase's ``rankMM``),
    and at most ``n - 1``: centred rows span at most ``n - 1`` directions, and a further
    singular value is the rounding of the centring, which grows with the distance of the
    data from the origin (on wide data rrcov's rule alone made the fit, and skew
    ROBPCA's flags, move with a translation).

    Parameters
    ----------
    s : ndarray of shape (m,)
        The singular values, largest first.
    n, p : int
        The shape of the rows.

    Returns
    -------
    int
    """
    if not s.size or not s[0] > 0:
        return 0
    tol = max(n, p) * np.finfo(np.float64).eps * s[0]
    return min(int(np.sum(s >= tol)), max(n - 1, 0))


def od_rounding(sub: _ClassPC) -> float:
    """Step 4's least OD cutoff: the rounding level of the ODs (sqrt(eps) times the
    h-subset's centre norm and spread). Where most samples lie on the k-dimensional fit
    exactly, their ODs are rounding, and so is a cutoff taken of them: it kept those
    whose rounding fell below it, which differ by route (in memory, chunked)."""
    spread = float(np.linalg.norm(sub.center)) + float(np.sqrt(np.sum(sub.eigenvalues)))
    return float(np.sqrt(np.finfo(np.float64).eps)) * spread


def data_unit(full) -> float:
    """The data's scale for rrcov's zero thresholds: the deviation along the first
    principal axis (1 for data without one)."""
    top = float(full.eigenvalues[0]) if full.eigenvalues.size else 0.0
    return float(np.sqrt(top)) if top > 0 else 1.0


def _resolve_k(n_components, eigenvalues: np.ndarray, kmax: int, rank: int) -> int:
    """``k`` given (an integer, NumPy's included), or chosen by the share or rule."""
    if isinstance(n_components, int | np.integer):
        return int(n_components)
    return select_n_components(eigenvalues, n_components, kmax=kmax, rank=rank)


def _mahalanobis_diag(scores: np.ndarray, eigenvalues: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.sum(scores * scores / eigenvalues, axis=1)
    return np.where(np.isfinite(d), d, np.inf)


def _log_det(eigenvalues: np.ndarray) -> float:
    """Log of the product of ``eigenvalues`` (``-inf`` at a zero), without its overflow."""
    with np.errstate(divide="ignore"):
        return float(np.sum(np.log(np.maximum(eigenvalues, 0.0))))


def _projected_mcd(X2: np.ndarray, ev: np.ndarray, k: int, alpha: float, h: int, rng, n_starts):
    """rrcov's ``projectMCD``: C-steps from the h-subset fit, then the reweighted MCD.

    Returns the centre and the rotation in the coordinates of ``X2`` (``k`` of them; the
    rotation has a column per eigenvalue, fewer where an h-subset of lower rank reduced
    ``k``), the eigenvalues and the MCD's support. Where an h-subset is a single point
    (more than half the samples coincide), the C-steps stop there with no eigenvalue:
    rrcov fails on such data (``outl``: "invalid 'length' argument").

    The C-steps stop when the determinant changes by less than a relative 1e-12 (its
    log by less than 1e-12). rrcov compares the products of the eigenvalues with an
    absolute 1e-12: in a small unit that stops at the first step, in a large one never
    before the 100th, and from entries of about 1e77 (with ``k = 2``) the product
    overflows and the difference is NaN.
    """
    n = X2.shape[0]
    shift = np.zeros(X2.shape[1])
    rot = np.eye(X2.shape[1])
    mah = _mahalanobis_diag(X2, ev[:k])
    old = _log_det(ev[:k])
    for _ in range(100):
        subset = np.argsort(mah, kind="stable")[:h]
        fit = class_pca(X2[subset])
        obj = _log_det(fit.eigenvalues)
        X2 = (X2 - fit.center) @ fit.loadings
        shift = shift + fit.center @ rot.T
        rot = rot @ fit.loadings
        if fit.rank == 0:  # the h-subset is one point: an exact fit, no scatter left
            exact = np.zeros(n, dtype=bool)
            exact[subset] = True
            return shift, rot, np.zeros(0), exact, 0.0
        mah = _mahalanobis_diag(X2, fit.eigenvalues)
        if fit.rank == k and (obj == old or abs(old - obj) < 1e-12):
            break
        old = obj
        k = min(k, fit.rank)
    mcd = minimum_covariance_determinant(X2, alpha, n_starts=n_starts, random_state=rng)
    values, vectors, negative = sorted_eigh(mcd.covariance)
    centre = shift + mcd.location @ rot.T
    support = mcd.support if mcd.support.size == n else None
    return centre, rot @ vectors, values, support, negative


def solve_robpca(
    X: np.ndarray,
    n_components="auto",
    *,
    alpha: float | None = None,
    kmax: int = 10,
    mcd: bool = True,
    skew: bool = False,
    max_directions: int = 250,
    n_starts: int = 500,
    rng: np.random.Generator | None = None,
    direction_rng: np.random.Generator | None = None,
) -> ROBPCAResult:
    """ROBPCA of ``X`` (module docstring for the steps).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int, float in (0, 1) or "auto"
        ``k``; a share or ``"auto"`` is resolved on the h-subset's eigenvalues with
        :func:`~robustpca.rank_selection.select_n_components` (rrcov's ``k = 0``).
    alpha : float or None, default=None
        Coverage, with rrcov's two conventions. None is ``PcaHubert``'s default: ``h =
        h_alpha_n(0.75, n, kmax)`` whether or not ``k`` is given, and the coverage of
        the MCD steps ``h / n``. A float is an ``alpha`` given to ``PcaHubert``: ``h =
        h_alpha_n(alpha, n, k)`` (``kmax`` when ``k`` is chosen) and the MCD steps at
        ``alpha``.
    kmax : int, default=10
    mcd : bool, default=True
        rrcov's shortcut of step 2 for data of small rank (off when ``skew``, as in rrcov).
    skew : bool, default=False
        Skew-adjusted ROBPCA (Hubert, Rousseeuw & Verdonck 2009): the adjusted
        outlyingness (random hyperplane directions drawn from ``direction_rng``, or
        ``rng`` when it is None) in steps 3 and 5, the medcouple cutoff in step 4, and
        the mean and covariance of the ``h`` least outlying samples in place of the MCD.
        Above ``MEDCOUPLE_ROWS`` samples the medcouples are those of a random sample of
        rows from the same generator (:func:`~.outlyingness.medcouple_rows`).
    max_directions : int, default=250
    n_starts : int, default=500
        FAST-MCD starts.
    rng : numpy.random.Generator or None
        Seeds FAST-MCD.
    direction_rng : numpy.random.Generator or None
        Draws the directions; None takes rrcov's deterministic pairs.

    Returns
    -------
    ROBPCAResult
    """
    n, p = X.shape
    full = class_pca(X)
    rank = full.rank
    if rank == 0:  # every sample is the same point: no direction has any variance
        return ROBPCAResult(
            components=np.zeros((0, p)),
            mean=full.center,
            eigenvalues=np.zeros(0),
            n_components=0,
            rank=0,
            h=n,
            h_subset=np.arange(n),
            initial_eigenvalues=np.zeros(0),
            outlyingness=None,
            mcd_support=np.ones(n, dtype=bool),
        )
    scores = (X - full.center) @ full.loadings
    kmax = max(min(int(kmax), rank), 1)
    auto = not isinstance(n_components, int | np.integer)
    k_given = kmax if auto else min(int(n_components), kmax)  # (kmax: unused when auto)
    if alpha is None:  # rrcov's default: kmax, also when k is given; coverage h / n
        h = min(h_alpha_n(0.75, n, kmax), n)
        alpha = h / n
    else:  # an alpha given to rrcov: h from k when k is given
        h = min(h_alpha_n(alpha, n, k_given), n)

    if mcd and not skew and rank <= min(n // 5, kmax):
        fit = minimum_covariance_determinant(scores, alpha, n_starts=n_starts, random_state=rng)
        values, vectors, negative = sorted_eigh(fit.covariance)
        k = _resolve_k(n_components, values, kmax, rank) if auto else min(k_given, rank)
        centre = full.center + fit.location @ full.loadings.T
        return ROBPCAResult(
            components=(full.loadings @ vectors[:, :k]).T,
            mean=centre,
            eigenvalues=values[:k],
            n_components=k,
            rank=rank,
            h=fit.h,
            h_subset=np.flatnonzero(fit.raw_support),
            initial_eigenvalues=values,
            outlyingness=None,
            mcd_support=fit.support,
            negative_eigenvalue=negative,
        )

    skew_rng = direction_rng if direction_rng is not None else rng
    if skew_rng is None:
        skew_rng = np.random.default_rng(0)
    sample = medcouple_rows(n, skew_rng) if skew else None
    if skew:
        first = fit_adjusted_outlyingness(
            scores, n_directions=max_directions, rng=skew_rng, sample=sample, columns=X
        )
        outl = first(scores)
    else:
        outl = outlyingness(
            scores, h, max_directions=max_directions, rng=direction_rng, unit=data_unit(full)
        )
    h_subset = np.argsort(outl, kind="stable")[:h]
    sub = class_pca(scores[h_subset])
    initial_eigenvalues = sub.eigenvalues  # the h-subset's (rrcov's eig0)
    kmax = min(sub.rank, kmax)
    k = _resolve_k(n_components, sub.eigenvalues, kmax, sub.rank) if auto else k_given
    if k != rank:
        k = min(sub.rank, k)
        centred = scores - sub.center
        basis = sub.loadings[:, :k]
        od = np.linalg.norm(centred - (centred @ basis) @ basis.T, axis=1)
        if skew:
            cutoff = skewed_cutoff(od, sample)  # as the Dask route's and the diagnostics'
        else:
            od23 = (od ** (2.0 / 3.0))[:, None]
            location, scale = univariate_mcd(od23, h)
            cutoff = (location[0] + scale[0] * stats.norm.ppf(0.975)) ** 1.5
        sub = class_pca(scores[od <= max(cutoff, od_rounding(sub))])
        k = min(sub.rank, k)
    X2 = ((scores - sub.center) @ sub.loadings)[:, :k]
    adjusted = n_directions = None
    negative = 0.0  # the skew branch's covariance is a classical one
    if skew and X2.shape[1]:  # rrcov's projectAO: the h least outlying samples' mean, covariance
        k = X2.shape[1]  # the h-subset may have a lower rank than a k given as the rank
        model = fit_adjusted_outlyingness(
            X2, n_directions=max_directions, rng=skew_rng, sample=sample
        )
        ao = model(X2)
        kept = np.zeros(n, dtype=bool)
        kept[np.argsort(ao, kind="stable")[:h]] = True
        centre2 = X2[kept].mean(axis=0)
        values, rot2 = np.linalg.eigh(np.cov(X2[kept], rowvar=False).reshape(k, k))
        order = np.argsort(values, kind="stable")[::-1]
        values, rot2, support = np.clip(values[order], 0.0, None), rot2[:, order], kept
        origin = full.center + sub.center @ full.loadings.T
        adjusted = SkewModel(origin, full.loadings @ sub.loadings[:, :k], model)
        n_directions = (first.directions.shape[1], model.directions.shape[1])
    elif skew:  # the h-subset is one point: no scores to model, its rows the support
        centre2, rot2, values = np.zeros(0), np.zeros((0, 0)), np.zeros(0)
        support = np.zeros(n, dtype=bool)
        support[h_subset] = True
    else:
        centre2, rot2, values, support, negative = _projected_mcd(
            X2, sub.eigenvalues, k, alpha, h, rng, n_starts
        )
    # centre2 and rot2 live in the k columns of X2; values may be fewer (a C-step of
    # lower rank), and so are the components
    projected = sub.loadings[:, : centre2.shape[0]]
    k = values.size
    rot = full.loadings @ projected
    centre = full.center + (sub.center + centre2 @ projected.T) @ full.loadings.T
    return ROBPCAResult(
        components=(rot @ rot2).T,
        mean=centre,
        eigenvalues=values,
        n_components=k,
        rank=rank,
        h=h,
        h_subset=np.sort(h_subset),
        initial_eigenvalues=initial_eigenvalues,
        outlyingness=outl,
        mcd_support=support if support is not None else np.ones(n, dtype=bool),
        adjusted=adjusted,
        medcouple_rows=sample,
        n_directions=n_directions,
        negative_eigenvalue=negative,
    )
