r"""ROBPCA (Hubert, Rousseeuw & Vanden Branden 2005) over row chunks, in passes.

:func:`solve_robpca_chunked` is :func:`~robustpca.solvers.robpca.solve_robpca` step for
step (its module docstring lists the steps), with the data seen only in passes (each one
``dask.compute`` in the Dask route) and nothing ``n``-sized on the client:

1. **first pass**: the mean and the triangular factor of the centred rows (their SVD is
   that of the data, :class:`~robustpca.solvers.chunked_moments.QRMoments`), and, gathered
   by index, the rows that span the directions (rrcov's deterministic pairs, or pairs
   drawn from ``random_state`` exactly as in memory) and the pilot rows that set the
   bins of the counting passes;
2. **outlyingness**: the univariate MCD of the projections on every direction at once
   (:func:`~robustpca.solvers.chunked_unimcd.univariate_mcd_chunked`: four
   passes), then the ``h`` least outlying rows (their ``h``-th outlyingness by counting
   passes, their mean and factor gathered in the next pass);
3. **orthogonal distances** (when ``k`` is below the rank): the univariate MCD of
   :math:`OD^{2/3}` (four passes) and the rows within the cutoff (one pass);
4. **C-steps in k dimensions** (one pass each: the ``h`` rows of least distance in a
   guessed bracket; the first C-step's pass also gathers a large sample of the rows'
   ``k`` coordinates, from which the next ones guess,
   :class:`~robustpca.solvers.chunked_sample.SampleCollector`) and the reweighted MCD
   (:func:`~robustpca.solvers.chunked_mcd.mcd_chunked`, FAST-MCD's starts on
   robustbase's random subsample gathered by index).

The per-sample results (outlyingness, h-subset, MCD support) are recipes evaluated chunk
by chunk, never held. The skew-adjusted variant (``skew=True``) is
:mod:`robustpca.solvers.chunked_skew`.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np
from scipy import stats

from .chunked import by_value_blocks, sub_blocks, value_blocks
from .chunked_mcd import AffineRows, _moments_below_pass, mcd_chunked, subsample_indices
from .chunked_moments import QRMoments
from .chunked_order_statistics import gather_rows_pass, pilot_indices
from .chunked_sample import SampleCollector, sample_stride, sample_values
from .chunked_shared import SharedPasses
from .chunked_smallest_subsets import smallest_subsets
from .chunked_unimcd import univariate_mcd_chunked
from .mcd import h_alpha_n, sorted_eigh
from .outlyingness import ZERO_SCALE, rrcov_pairs
from .robpca import _ClassPC, _log_det, _resolve_k, centred_rank, data_unit, od_rounding

__all__ = [
    "ROBPCAChunkedResult",
    "class_pca_of",
    "first_pass",
    "solve_robpca_chunked",
]


def first_pass(x, rows=None, *, wanted) -> dict:
    """The :class:`QRMoments` of the rows and the rows ``wanted`` (by global index);
    raises ``ValueError`` on a chunk that is not finite (validation costs no pass).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray of int of shape (n_rows,)
        The chunk's global row numbers (needed, despite the default).
    wanted : ndarray of int
        The sorted global indices of the rows to gather.

    Returns
    -------
    dict
        ``qr`` (:class:`QRMoments`) and ``rows``, the records ``[index, x...]`` of the
        rows gathered.
    """
    if not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; a dask fit of ROBPCA or CovariancePCA needs "
            "finite data."
        )
    total = None
    for a, b in sub_blocks(*x.shape):
        part = QRMoments.of(x[a:b])
        total = part if total is None else total + part
    return {"qr": total, **gather_rows_pass(x, rows, wanted=wanted)}


def class_pca_of(moments: QRMoments) -> _ClassPC:
    """:func:`~robustpca.solvers.robpca.class_pca` of the rows behind ``moments``.

    Parameters
    ----------
    moments : QRMoments
        The mean and triangular factor of the centred rows.
    """
    n, p = moments.count, moments.mean.size
    if moments.R.shape[0] == 0:
        return _ClassPC(moments.mean, np.zeros((p, 0)), np.zeros(0))
    _, s, vt = np.linalg.svd(moments.R, full_matrices=False)
    rank = centred_rank(s, int(n), p)
    return _ClassPC(moments.mean, vt[:rank].T, s[:rank] ** 2 / max(n - 1, 1))


@dataclass(frozen=True)
class Projections:
    """The rows' coordinates ``coords(x)`` projected on the unit ``directions`` (m, k)."""

    coords: AffineRows
    directions: np.ndarray

    def __call__(self, x):
        return by_value_blocks(lambda b: self.coords(b) @ self.directions.T, x)


@dataclass(frozen=True)
class Outlyingness:
    """Stahel-Donoho outlyingness: the largest ``|y - location| / scale`` over the
    directions (as :func:`~robustpca.solvers.outlyingness.outlyingness`), (b, 1), formed
    by blocks of rows so that its temporaries do not grow with the chunk."""

    projections: Projections
    location: np.ndarray
    scale: np.ndarray

    def __call__(self, x):
        out = np.zeros((x.shape[0], 1))
        if self.scale.size == 0:
            return out
        for a, b in value_blocks(x):  # rows x directions: blocks
            Y = self.projections(x[a:b])
            out[a:b, 0] = (np.abs(Y - self.location) / self.scale).max(axis=1)
        return out


@dataclass(frozen=True)
class OrthogonalDistance:
    """``OD ** (2 / 3)`` of the rows to the affine subspace ``centre + span(basis)`` of
    the coordinates (step 4 of ROBPCA), (b, 1); ``power=1`` gives the OD."""

    coords: AffineRows
    centre: np.ndarray
    basis: np.ndarray
    power: float = 2.0 / 3.0

    def __call__(self, x):
        return by_value_blocks(self._of_block, x)

    def _of_block(self, x):
        centred = self.coords(x) - self.centre
        od = np.linalg.norm(centred - (centred @ self.basis) @ self.basis.T, axis=1)
        return (od**self.power)[:, None]


@dataclass(frozen=True)
class DiagonalDistance:
    """``sum_j z_j^2 / eigenvalue_j`` (robpca's ``_mahalanobis_diag``), (b, 1)."""

    coords: AffineRows
    eigenvalues: np.ndarray

    def __call__(self, x):
        return self.of_coords(self.coords(x))

    def of_coords(self, z):
        """The distances of rows already mapped by ``coords``."""
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.sum(z * z / self.eigenvalues, axis=1)
        return np.where(np.isfinite(d), d, np.inf)[:, None]


@dataclass(frozen=True)
class ROBPCAChunkedResult:
    """Outcome of :func:`solve_robpca_chunked`: the estimates of
    :class:`~robustpca.solvers.robpca.ROBPCAResult`, with the per-sample ones as recipes
    evaluated chunk by chunk.

    Attributes
    ----------
    components : ndarray of shape (k, n_features)
        Orthonormal robust loadings, by decreasing robust eigenvalue.
    mean : ndarray of shape (n_features,)
        Robust centre.
    eigenvalues : ndarray of shape (k,)
        Robust eigenvalues.
    n_components : int
        ``k``, as given or chosen.
    rank : int
        Rank of the centred data.
    h : int
        Size of the h-subset.
    initial_eigenvalues : ndarray
        Eigenvalues of the h-subset's PCA (rrcov's ``eig0``).
    outlyingness : callable or None
        ``outlyingness(x)``, of shape ``(n_rows, 1)``: the outlyingness of step 3 (the
        adjusted one with ``skew=True``); None in the MCD shortcut.
    h_subset : object or None
        The h-subset, as ``h_subset.member(x, index)`` (the MCD's raw subset in the
        shortcut).
    support : callable or None
        ``support(x, index)``: the rows kept by the final reweighted MCD (the final
        h-subset's with ``skew=True``).
    n_passes : int
        The passes run.
    pilot_rows : ndarray of shape (n_pilot, n_features) or None, default=None
        The pilot rows gathered by the first pass (``pilot_indices(n)``), which the
        training diagnostics' counting passes reuse.
    adjusted : SkewModel or None, default=None
        With ``skew=True`` (:mod:`~robustpca.solvers.chunked_skew`): the adjusted
        outlyingness in the k-dimensional space.
    medcouple_rows : ndarray of int or None, default=None
        With ``skew=True``: the rows of the medcouples above ``MEDCOUPLE_ROWS`` (as
        :class:`~robustpca.solvers.robpca.ROBPCAResult`'s).
    n_directions : tuple of int or None, default=None
        With ``skew=True``: the hyperplane directions found for the two adjusted
        outlyingnesses, as ``ROBPCAResult``'s.
    negative_eigenvalue : float, default=0.0
        As ``ROBPCAResult``'s: the final MCD covariance's most negative eigenvalue.
    """

    components: np.ndarray
    mean: np.ndarray
    eigenvalues: np.ndarray
    n_components: int
    rank: int
    h: int
    initial_eigenvalues: np.ndarray
    outlyingness: Any
    h_subset: Any
    support: Any
    n_passes: int
    pilot_rows: np.ndarray | None = None
    adjusted: Any = None
    medcouple_rows: np.ndarray | None = None
    n_directions: tuple[int, int] | None = None
    negative_eigenvalue: float = 0.0


def _pairs(n: int, max_directions: int, direction_rng):
    if comb(n, 2) <= max_directions:
        first, second = np.triu_indices(n, k=1)
        return np.column_stack([first, second])
    if direction_rng is None:
        return rrcov_pairs(n, max_directions)
    first = direction_rng.integers(0, n, size=max_directions)
    second = (first + direction_rng.integers(1, n, size=max_directions)) % n
    return np.column_stack([first, second])


class _Counter:
    def __init__(self):
        self.n = 0

    def add(self, used: int):
        self.n += used


def solve_robpca_chunked(
    run,
    row_index,
    n: int,
    p: int,
    n_components="auto",
    *,
    alpha: float | None = None,
    kmax: int = 10,
    mcd: bool = True,
    max_directions: int = 250,
    n_starts: int = 500,
    rng: np.random.Generator,
    direction_rng: np.random.Generator | None = None,
) -> ROBPCAChunkedResult:
    """ROBPCA of the ``n x p`` rows seen by ``run`` (module docstring): the estimates of
    :func:`~robustpca.solvers.robpca.solve_robpca` with the same arguments (``skew`` is
    not available).

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global index of the rows, split like them: the runner's ``rows``.
    n : int
        The number of rows.
    p : int
        The number of features.
    n_components : int, float in (0, 1) or "auto", default="auto"
        ``k``, as for ``solve_robpca``.
    alpha : float or None, default=None
        Coverage, with rrcov's two conventions (as for ``solve_robpca``).
    kmax : int, default=10
        The largest ``k``.
    mcd : bool, default=True
        rrcov's shortcut of step 2 for data of small rank: the MCD of the scores.
    max_directions : int, default=250
        The most directions of the outlyingness.
    n_starts : int, default=500
        FAST-MCD starts.
    rng : numpy.random.Generator
        Seeds FAST-MCD.
    direction_rng : numpy.random.Generator or None, default=None
        Draws the directions; None takes rrcov's deterministic pairs.

    Returns
    -------
    ROBPCAChunkedResult
    """
    count = _Counter()
    pilot = pilot_indices(n)
    pairs = _pairs(n, max_directions, copy.deepcopy(direction_rng))
    # FAST-MCD's subsample, as its rng will draw it: before or after the random pairs
    subsample = [subsample_indices(n, rng)]
    if direction_rng is rng:
        after_pairs = copy.deepcopy(rng)
        _pairs(n, max_directions, after_pairs)
        subsample.append(subsample_indices(n, after_pairs))
    wanted = np.unique(np.concatenate([pilot, pairs.ravel(), *subsample]))
    out = run(first_pass, row_index, wanted=wanted)
    count.add(1)
    records = out["rows"].values
    records = records[np.argsort(records[:, 0], kind="stable")]
    rows_at = {int(i): r for i, r in zip(records[:, 0], records[:, 1:], strict=True)}
    pilot_x = np.array([rows_at[int(i)] for i in pilot])
    full = class_pca_of(out["qr"])
    rank = full.rank
    if rank == 0:
        return ROBPCAChunkedResult(
            np.zeros((0, p)),
            full.center,
            np.zeros(0),
            0,
            0,
            n,
            np.zeros(0),
            None,
            None,
            None,
            count.n,
            pilot_x,
        )
    scores = AffineRows(full.center, full.loadings, np.zeros(rank))
    kmax = max(min(int(kmax), rank), 1)
    auto = not isinstance(n_components, int | np.integer)
    k_given = kmax if auto else min(int(n_components), kmax)
    if alpha is None:
        h = min(h_alpha_n(0.75, n, kmax), n)
        alpha = h / n
    else:
        h = min(h_alpha_n(alpha, n, k_given), n)

    if mcd and rank <= min(n // 5, kmax):  # rrcov's shortcut: the MCD of the scores
        fit, used = mcd_chunked(
            run, row_index, scores, rank, n, alpha, n_starts=n_starts, rng=rng, pilot_x=pilot_x,
            prefetched=rows_at,
        )  # fmt: skip
        count.add(used)
        values, vectors, negative = sorted_eigh(fit.covariance)
        k = _resolve_k(n_components, values, kmax, rank) if auto else min(k_given, rank)
        return ROBPCAChunkedResult(
            components=(full.loadings @ vectors[:, :k]).T,
            mean=full.center + fit.location @ full.loadings.T,
            eigenvalues=values[:k],
            n_components=k,
            rank=rank,
            h=fit.h,
            initial_eigenvalues=values,
            outlyingness=None,
            h_subset=fit.raw_subset,
            support=fit.support_mask,
            n_passes=count.n,
            pilot_rows=pilot_x,
            negative_eigenvalue=negative,
        )

    if direction_rng is not None:  # advance it as the in-memory draw did
        _pairs(n, max_directions, direction_rng)
    pair_x = np.array([[rows_at[int(i)] for i in pair] for pair in pairs])
    B = scores(pair_x[:, 0]) - scores(pair_x[:, 1])
    zero = ZERO_SCALE * data_unit(full)  # as outlyingness in memory
    norms = np.linalg.norm(B, axis=1)
    B = B[norms > zero] / norms[norms > zero, None]
    projections = Projections(scores, B)
    location, scale, used = univariate_mcd_chunked(
        run, row_index, projections, B.shape[0], n, h, projections(pilot_x)
    )
    count.add(used)
    keep = scale >= zero
    outl = Outlyingness(Projections(scores, B[keep]), location[keep], scale[keep])
    (h_subset,), (moments,), used = smallest_subsets(run, row_index, scores, outl, h, pilot_x)
    count.add(used)
    sub = class_pca_of(moments)
    initial_eigenvalues = sub.eigenvalues  # the h-subset's (rrcov's eig0)
    kmax = min(sub.rank, kmax)
    k = _resolve_k(n_components, sub.eigenvalues, kmax, sub.rank) if auto else k_given
    if k != rank:
        k = min(sub.rank, k)
        od23 = OrthogonalDistance(scores, sub.center, sub.loadings[:, :k])
        loc, sc, used = univariate_mcd_chunked(run, row_index, od23, 1, n, h, od23(pilot_x))
        count.add(used)
        cutoff = max((loc[0] + sc[0] * stats.norm.ppf(0.975)) ** 1.5, od_rounding(sub))
        od = OrthogonalDistance(scores, sub.center, sub.loadings[:, :k], power=1.0)
        kept = run(
            _moments_below_pass,
            row_index,
            values=od,
            cutoff=np.nextafter(cutoff, np.inf),  # od <= cutoff
            coords=scores,
        )
        count.add(1)
        sub = class_pca_of(kept["m"])
        k = min(sub.rank, k)
    X2 = scores.then(sub.center, sub.loadings[:, :k])
    centre2, rot2, values, fit, negative = _projected_mcd(
        run, row_index, X2, sub.eigenvalues, k, n, alpha, h, rng, n_starts, pilot_x, count,
        rows_at,
    )  # fmt: skip
    projected = sub.loadings[:, : centre2.shape[0]]
    rot = full.loadings @ projected
    centre = full.center + (sub.center + centre2 @ projected.T) @ full.loadings.T
    support = fit.support_mask if fit is not None else None
    return ROBPCAChunkedResult(
        components=(rot @ rot2).T,
        mean=centre,
        eigenvalues=values,
        n_components=values.size,
        rank=rank,
        h=h,
        initial_eigenvalues=initial_eigenvalues,
        outlyingness=outl,
        h_subset=h_subset,
        support=support,
        n_passes=count.n,
        pilot_rows=pilot_x,
        negative_eigenvalue=negative,
    )


def _projected_mcd(
    run, row_index, X2, ev, k, n, alpha, h, rng, n_starts, pilot_x, count, prefetched
):
    """robpca's ``_projected_mcd`` (rrcov's ``projectMCD``) over chunks: C-steps from
    the h-subset fit, one pass each (their brackets guessed from the sample the first
    one gathers), then the reweighted MCD of the rotated scores.

    The MCD is affine equivariant, and the C-steps only rotate and shift the scores
    (while they keep their rank): FAST-MCD runs on the scores before the C-steps, in
    the same passes (:class:`~robustpca.solvers.chunked_shared.SharedPasses`), and its
    fit is rotated after them. Where a C-step loses rank, that fit is dropped and
    FAST-MCD runs after them, as in memory."""
    d = X2.A.shape[1]
    shared = SharedPasses(run, 2)
    ahead_rng = copy.deepcopy(rng)
    ahead: dict = {}

    def fast_mcd():
        ahead["fit"] = mcd_chunked(
            shared.runner(1), row_index, X2, d, n, alpha, n_starts=n_starts, rng=ahead_rng,
            pilot_x=pilot_x, prefetched=prefetched,
        )  # fmt: skip

    worker = threading.Thread(target=shared.serve, args=(1, fast_mcd), daemon=True)
    worker.start()
    try:
        steps = shared.serve(0, _c_steps, shared.runner(0), row_index, X2, ev, k, n, h, pilot_x)
    except BaseException:
        worker.join()
        shared.check()  # the first error, whichever computation raised it
        raise
    worker.join()
    shared.check()  # FAST-MCD's error, where the C-steps ended first
    count.add(shared.passes)
    X2, shift, rot, on_sample, sample, ranked = steps
    if not ranked:
        return shift, rot, np.zeros(0), None, 0.0
    if X2.A.shape[1] == d:  # the C-steps rotated the scores: FAST-MCD's fit rotates
        mcd_fit, _ = ahead["fit"]
        rng.bit_generator.state = ahead_rng.bit_generator.state
        A = on_sample.A
        location = on_sample(mcd_fit.location[None, :])[0]
        covariance = A.T @ mcd_fit.covariance @ A
    else:
        if sample is not None:  # in X2's coordinates, only where FAST-MCD runs again
            sample = sample_values(on_sample, sample)
        mcd_fit, used = mcd_chunked(
            run, row_index, X2, X2.A.shape[1], n, alpha, n_starts=n_starts, rng=rng,
            pilot_x=pilot_x, prefetched=prefetched, sample=sample,
        )  # fmt: skip
        count.add(used)
        location, covariance = mcd_fit.location, mcd_fit.covariance
    values, vectors, negative = sorted_eigh(covariance)
    centre = shift + location @ rot.T
    return centre, rot @ vectors, values, mcd_fit, negative


def _c_steps(run, row_index, X2, ev, k, n, h, pilot_x):
    """ROBPCA's C-steps in ``k`` dimensions until the determinant settles: the rotated
    coordinates, their shift and rotation, the map of the sample's coordinates to them,
    the sample (in the first coordinates), and whether they kept a positive rank."""
    d = X2.A.shape[1]
    shift = np.zeros(d)
    rot = np.eye(d)
    distance = DiagonalDistance(X2, ev[:k])
    old = _log_det(ev[:k])
    # the first C-step's pass gathers a sample of the rows' coordinates (X2's), from
    # which the next C-steps guess their brackets: ``on_sample`` maps it to theirs
    collect = SampleCollector(run, X2, sample_stride(n, d))
    on_sample = AffineRows(np.zeros(d), np.eye(d), np.zeros(d))
    for _ in range(100):
        guide = None
        if collect.sample is not None:
            guide = sample_values(DiagonalDistance(on_sample, distance.eigenvalues), collect.sample)
        _, (moments,), _ = smallest_subsets(
            collect, row_index, X2, distance, h, pilot_x, guide=guide
        )
        fit = _class(moments)
        obj = _log_det(fit.eigenvalues)
        X2 = X2.then(fit.center, fit.loadings)
        on_sample = on_sample.then(fit.center, fit.loadings)
        shift = shift + fit.center @ rot.T
        rot = rot @ fit.loadings
        if fit.rank == 0:
            return X2, shift, rot, on_sample, None, False
        distance = DiagonalDistance(X2, fit.eigenvalues)
        if fit.rank == k and (obj == old or abs(old - obj) < 1e-12):
            break
        old = obj
        k = min(k, fit.rank)
    return X2, shift, rot, on_sample, collect.sample, True


def _class(moments: QRMoments) -> _ClassPC:
    return class_pca_of(moments)
