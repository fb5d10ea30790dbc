r"""Spherical PCA (Locantore et al. 1999) over row chunks, in passes.

:func:`solve_spherical_pca_chunked` is :func:`~robustpca.solvers.spherical.
solve_spherical_pca` step for step with the data seen only in passes (each one
``dask.compute`` in the Dask route):

1. the coordinatewise median that starts rrcov's spatial median (its two middle order
   statistics per column by counting passes,
   :func:`~robustpca.solvers.chunked_order_statistics.select_ranks`);
2. each Weiszfeld step: the median distance to the iterate (the floor ``eps``), then one
   pass for the weighted sum of the rows, the number of rows within the floor and the
   row nearest the iterate (for Vardi & Zhang's test, :func:`~robustpca.solvers.
   spherical._at_a_sample`, one more pass where it is needed);
3. one pass for the mean and triangular factor of the sphered rows (their SVD);
4. the squared MAD of the scores on each axis (median, then median of the deviations).

Nothing ``n``-sized reaches the client.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .chunked import value_runs
from .chunked_moments import QRMoments
from .chunked_order_statistics import gather_rows_pass, pilot_indices, select_ranks
from .spherical import SphericalPCAResult

__all__ = ["solve_spherical_pca_chunked"]

#: R's ``mad`` constant (``robust_scale.MAD_CONSTANT``).
MAD_CONSTANT = 1.4826


@dataclass(frozen=True)
class _Columns:
    def __call__(self, x):
        return x


@dataclass(frozen=True)
class _Distance:
    """``||x - centre||`` of each row, (b, 1)."""

    centre: np.ndarray

    def __call__(self, x):
        return np.linalg.norm(x - self.centre, axis=1)[:, None]


@dataclass(frozen=True)
class Nearest:
    """The row nearest a point (smallest distance, then smallest index); ``+`` keeps the
    nearer of two."""

    distance: float
    index: float
    row: np.ndarray

    def __add__(self, other: Nearest) -> Nearest:
        if (other.distance, other.index) < (self.distance, self.index):
            return other
        return self


def weiszfeld_pass(x, rows=None, *, centre, eps) -> dict:
    """One Weiszfeld step's sums at ``centre`` with the floor ``eps`` (rrcov's weights
    ``1 / d``, ``eps`` within the floor), the rows within the floor and the nearest row."""
    total, weighted = 0.0, np.zeros(x.shape[1])
    close = 0
    best = Nearest(np.inf, np.inf, np.zeros(x.shape[1]))
    for a, b in value_runs(x, 1):
        xb = x[a:b]
        d = np.linalg.norm(xb - centre, axis=1)
        near = d <= eps
        w = np.where(near, eps, 1.0 / np.where(near, 1.0, d))
        total += float(w.sum())
        weighted += w @ xb
        close += int(near.sum())
        if d.size:
            i = int(np.argmin(d))
            best = best + Nearest(float(d[i]), float(rows[a + i]), xb[i].copy())
    return {"total": total, "weighted": weighted, "close": close, "nearest": best}


def nearest_pass(x, rows=None, *, centre) -> dict:
    """The row nearest ``centre``."""
    best = Nearest(np.inf, np.inf, np.zeros(x.shape[1]))
    d = np.linalg.norm(x - centre, axis=1)
    if d.size:
        i = int(np.argmin(d))
        best = Nearest(float(d[i]), float(rows[i]), x[i].copy())
    return {"nearest": best}


def pull_pass(x, rows=None, *, sample) -> dict:
    """Vardi & Zhang's pull at a sample: the sum of the unit vectors from it to the other
    rows, and how many rows coincide with it."""
    diff = x - sample
    norms = np.linalg.norm(diff, axis=1)
    other = norms > 0
    units = diff[other] / norms[other, None]
    return {"pull": units.sum(axis=0), "same": int(np.count_nonzero(~other))}


def _at_a_sample(run, row_index, centre, nearest=None):
    """:func:`~robustpca.solvers.spherical._at_a_sample` in passes (one or two)."""
    if nearest is None:
        nearest = run(nearest_pass, row_index, centre=centre)["nearest"]
    out = run(pull_pass, row_index, sample=nearest.row)
    return nearest.row.copy() if float(np.linalg.norm(out["pull"])) <= out["same"] else centre


def _medians(run, row_index, values, n: int, m: int, pilot):
    """The medians of the ``m`` columns of ``values`` (NumPy's: the mean of the two middle
    order statistics for even ``n``)."""
    lo, hi = (n - 1) // 2, n // 2
    ranks = np.tile([lo, hi], (m, 1))
    got, _ = select_ranks(run, row_index, values, ranks, pilot)
    return got[:, 0] if lo == hi else (got[:, 0] + got[:, 1]) / 2


@dataclass(frozen=True)
class _Sphered:
    """The rows ``(x - centre) / ||x - centre||`` (0 within ``eps``)."""

    centre: np.ndarray
    eps: float

    def __call__(self, x):
        centred = x - self.centre
        norms = np.linalg.norm(centred, axis=1)
        far = norms > self.eps
        Y = np.zeros_like(centred)
        Y[far] = centred[far] / norms[far, None]
        return Y


def sphered_pass(x, rows=None, *, sphered) -> dict:
    total = None
    for a, b in value_runs(x, 1):
        part = QRMoments.of(sphered(x[a:b]))
        total = part if total is None else total + part
    return {"qr": total}


@dataclass(frozen=True)
class _Scores:
    """Scores on the ``axes`` (r, p) of the sphered rows or of the centred ones."""

    centre: np.ndarray
    axes: np.ndarray
    sphered: _Sphered | None

    def __call__(self, x):
        z = self.sphered(x) if self.sphered is not None else x - self.centre
        return z @ self.axes.T


@dataclass(frozen=True)
class _Deviation:
    values: object
    centre: np.ndarray

    def __call__(self, x):
        return np.abs(self.values(x) - self.centre)


def _finite_rows_pass(x, rows=None, *, wanted: np.ndarray) -> dict:
    """The first pass: :func:`gather_rows_pass`, after a ``ValueError`` on a chunk that is
    not finite (a NaN was taken as data; validation costs no pass)."""
    if not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; SphericalPCA on dask needs finite data."
        )
    return gather_rows_pass(x, rows, wanted=wanted)


def solve_spherical_pca_chunked(
    run, row_index, n: int, p: int, *, scale_on: str = "data", delta: float = 1e-3,
    max_iter: int = 1000,
) -> tuple[SphericalPCAResult, int]:  # fmt: skip
    """Spherical PCA of the ``n x p`` rows seen by ``run`` (module docstring): the result
    of :func:`~robustpca.solvers.spherical.solve_spherical_pca`, and the passes run.

    Parameters
    ----------
    run : callable
        A row runner ``run(kernel, rows, **params) -> dict``
        (:class:`~robustpca.solvers.chunked.NumpyPassRunner` in memory).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global row numbers ``0, ..., n - 1``, chunked like the rows: the ``rows`` of
        every pass (pilot rows, ties broken by index).
    n : int
        Number of rows of the data.
    p : int
        Number of columns of the data.
    scale_on : {"data", "sphere"}, default="data"
        Scores whose MAD gives the eigenvalues, as in ``solve_spherical_pca``.
    delta : float, default=1e-3
        Tolerance of the spatial median: the distance floor is ``delta`` times the
        median distance, and the steps stop once one is at most ``delta * sqrt(p)``.
    max_iter : int, default=1000
        Weiszfeld steps at most.
    """
    count = [0]

    def go(kernel, **params):
        count[0] += 1
        return run(kernel, row_index, **params)

    pilot_rows = pilot_indices(n)
    got = go(_finite_rows_pass, wanted=pilot_rows)["rows"].values
    pilot = got[np.argsort(got[:, 0], kind="stable"), 1:]

    def counted(fn, *args):
        before = _Counter(run)
        out = fn(before, *args)
        count[0] += before.n
        return out

    mu = counted(lambda r: _medians(r, row_index, _Columns(), n, p, pilot))
    tol = delta * np.sqrt(p)
    eps, n_iter, centre = 0.0, max_iter, None
    for it in range(1, max_iter + 1):
        distance = _Distance(mu)
        med = counted(lambda r, d=distance: _medians(r, row_index, d, n, 1, d(pilot)))
        eps = delta * float(med[0])
        out = go(weiszfeld_pass, centre=mu, eps=eps)
        if out["close"] > 0:
            at = counted(lambda r, o=out, c=mu: _at_a_sample(r, row_index, c, o["nearest"]))
            if at is not mu:
                centre, n_iter = at, it
                break
        if not out["total"] > 0:
            centre, n_iter = mu, it
            break
        new = out["weighted"] / out["total"]
        step = float(np.linalg.norm(new - mu))
        mu = new
        if step <= tol:
            n_iter = it
            break
    if centre is None:
        centre = counted(lambda r: _at_a_sample(r, row_index, mu))
    sphered = _Sphered(centre, eps)
    moments = go(sphered_pass, sphered=sphered)["qr"]
    _, s, vt = np.linalg.svd(moments.R, full_matrices=False)
    tol_rank = max(n, p) * np.finfo(np.float64).eps * (s[0] if s.size else 0.0)
    rank = int(np.sum(s >= tol_rank)) if s.size and s[0] > 0 else 0
    axes = vt[:rank]
    if rank:
        scores = _Scores(centre, axes, sphered if scale_on == "sphere" else None)
        med = counted(lambda r: _medians(r, row_index, scores, n, rank, scores(pilot)))
        deviation = _Deviation(scores, med)
        mad = counted(lambda r: _medians(r, row_index, deviation, n, rank, deviation(pilot)))
        eigenvalues = (MAD_CONSTANT * mad) ** 2
    else:
        eigenvalues = np.zeros(0)
    order = np.argsort(-eigenvalues, kind="stable")
    result = SphericalPCAResult(
        components=axes[order],
        mean=centre,
        eigenvalues=eigenvalues[order],
        sphere_eigenvalues=s[:rank] ** 2 / max(n - 1, 1),
        rank=rank,
        n_iter=n_iter,
    )
    return result, count[0]


class _Counter:
    """A runner that counts the passes it runs (for the passes of helper steps)."""

    def __init__(self, run):
        self.run = run
        self.n = 0

    def __call__(self, kernel, rows=None, **params):
        self.n += 1
        return self.run(kernel, rows, **params)
