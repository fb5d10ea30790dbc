r"""A large sample of the rows, gathered in a pass over row chunks, from which the chunked
C-steps guess their brackets.

The C-steps of FAST-MCD (Rousseeuw & Van Driessen 1999) over row chunks
(:mod:`robustpca.solvers.chunked_mcd`, ROBPCA's in :mod:`robustpca.solvers.chunked_rrcov`)
each need the ``h`` rows of least distance under a fit, gathered in a bracket around the
``h``-th smallest distance (:mod:`robustpca.solvers.chunked_smallest_subsets`). A bracket
guessed from a pilot of ``P`` rows holds about ``8 n sqrt(q (1 - q) / P)`` rows, too many
to gather as ``n`` grows. So the first C-step's pass also brings back the ``k`` coordinates
of every ``stride``-th row (:class:`SampleCollector`, :func:`with_sample`), whose distances
(:func:`sample_values`) give the next C-steps brackets ``sqrt(P)`` times narrower
(:func:`sample_brackets`): one pass each. Its counts still prove each bracket (else
counting passes follow), so the results are exact whatever the sample.
"""

from __future__ import annotations

import numpy as np

from .chunked import Rows

__all__ = [
    "SAMPLE_FITS",
    "SAMPLE_VALUES",
    "SAMPLE_Z",
    "SAMPLE_Z_LEAST",
    "SampleCollector",
    "sample_brackets",
    "sample_stride",
    "sample_values",
    "with_sample",
]


#: The sample of the C-steps (:class:`SampleCollector`) and its distances under ten fits
#: (single precision, on the client for the whole fit) take at most this many values.
SAMPLE_VALUES = 1 << 26
#: Fits whose distances to the sample are held at once (FAST-MCD's candidates).
SAMPLE_FITS = 10
#: A bracket guessed from the sample spans this many standard errors of its quantile
#: each side (a miss costs the counting passes it replaces), fewer down to
#: :data:`SAMPLE_Z_LEAST` where the brackets would hold more rows than allowed.
SAMPLE_Z = 4.0
SAMPLE_Z_LEAST = 3.0


def sample_stride(n: int, width: int) -> int:
    """Every ``stride``-th row makes the sample: with its distances under
    :data:`SAMPLE_FITS` fits, at most :data:`SAMPLE_VALUES` values.

    Parameters
    ----------
    n : int
        The number of rows.
    width : int
        The coordinates the sample keeps of each of its rows.

    Returns
    -------
    int
        The stride, at least 1.
    """
    return max(1, -(-n * (max(width, 1) + SAMPLE_FITS) // SAMPLE_VALUES))


def with_sample(x, rows=None, *, inner, sample_coords, every, **params) -> dict:
    """``inner``'s result for the chunk, with ``sample``: ``sample_coords`` of its rows
    whose global index is a multiple of ``every``, in single precision.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray of int of shape (n_rows,)
        The chunk's global row numbers (needed, despite the default).
    inner : callable
        The pass's kernel, run as ``inner(x, rows, **params)``.
    sample_coords : callable
        Maps rows of ``x`` to the coordinates the sample keeps.
    every : int
        The sample's stride: rows whose global index is a multiple of it are kept.
    **params : dict
        The keyword arguments of ``inner``.

    Returns
    -------
    dict
        ``inner``'s result, and ``"sample"``: the kept rows' coordinates as
        :class:`~robustpca.solvers.chunked.Rows` (float32).
    """
    out = inner(x, rows, **params)
    keep = np.asarray(rows) % every == 0
    out["sample"] = Rows((np.asarray(sample_coords(x[keep]), dtype=np.float32),))
    return out


class SampleCollector:
    """A pass runner that also gathers the sample (:func:`with_sample`) in its first pass:
    ``sample`` is then the ``coords`` of every ``stride``-th row (float32), else None.

    Parameters
    ----------
    run : callable
        The pass runner the passes run on.
    coords : callable
        Maps rows of the data to the coordinates the sample keeps.
    stride : int
        The sample's stride, by global row number (:func:`sample_stride`).
    """

    def __init__(self, run, coords, stride: int):
        self.run, self.coords, self.stride = run, coords, stride
        self.sample: np.ndarray | None = None

    def __call__(self, kernel, rows=None, **params):
        if self.sample is not None:
            return self.run(kernel, rows, **params)
        out = self.run(
            with_sample,
            rows,
            inner=kernel,
            sample_coords=self.coords,
            every=self.stride,
            **params,
        )
        parts = out.pop("sample").parts
        self.sample = np.concatenate([p for p in parts if p.size] or parts[:1])
        return out


def sample_values(values, sample: np.ndarray, block: int = 1 << 16) -> np.ndarray:
    """``values`` (a function of rows of coordinates) of the ``sample``, by blocks of
    rows, in single precision (beyond its range: inf, a guide's bound all the same).

    Parameters
    ----------
    values : callable
        A function of rows of coordinates (given in float64), of shape ``(n_rows, B)``.
    sample : ndarray of shape (P, k)
        The sample's coordinates (the ``sample`` of a :class:`SampleCollector`).
    block : int, default=65536
        Rows per block.

    Returns
    -------
    ndarray of float32 of shape (P, B)
    """
    with np.errstate(over="ignore"):
        parts = [
            np.asarray(values(sample[a : a + block].astype(np.float64)), dtype=np.float32)
            for a in range(0, max(sample.shape[0], 1), block)
        ]
    return np.concatenate(parts)


def sample_brackets(values: np.ndarray, h: int, n: int, rows: float):
    """Brackets ``[low, high)`` (one per column of ``values``, a sample's values from
    all ``n`` rows) around the ``h``-th smallest value: the sample's order statistics
    :data:`SAMPLE_Z` standard errors each side of its ``h / n`` quantile (fewer, down
    to :data:`SAMPLE_Z_LEAST`, to hold at most ``rows`` rows in all by the sample's
    count). None where the sample is small or no such brackets fit.

    Parameters
    ----------
    values : ndarray of shape (P, B)
        A sample's values, drawn from all ``n`` rows; a bracket per column.
    h : int
        The wanted rank, from 1.
    n : int
        The number of rows.
    rows : float
        The most rows the brackets may hold in all, by the sample's count.

    Returns
    -------
    low, high : ndarray of shape (B,)
        The brackets' ends (``-inf`` or ``inf`` where the order statistic falls outside
        the sample), or None.
    """
    P, B = values.shape
    if P < 64:
        return None
    q = (h - 0.5) / n
    error = np.sqrt(q * (1 - q) * P)
    z = min(SAMPLE_Z, (rows / (n * B) * P / 2 - 3) / max(error, 1e-300))
    if z < SAMPLE_Z_LEAST:
        return None
    spread = z * error + 2
    lo, hi = int(np.floor(q * P - spread)), int(np.ceil(q * P + spread))
    if (min(hi, P) - max(lo, 0)) / P * n * B > rows:
        return None
    low, high = np.full(B, -np.inf), np.full(B, np.inf)
    at = [i for i in (lo, hi) if 0 <= i < P]
    for j in range(B):
        if not at:
            break
        part = np.partition(values[:, j], at)
        if lo >= 0:
            low[j] = part[lo]
        if hi < P:
            high[j] = part[hi]
    return low, high
