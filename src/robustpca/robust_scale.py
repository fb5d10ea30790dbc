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

from ._validation import check_axis, check_row_selection, real_array

__all__ = ["MAD_CONSTANT", "mad", "medcouple", "medcouple_columns", "skewed_cutoff", "skewed_fence"]

#: R's ``mad`` constant, ``1 / Phi^{-1}(3/4)`` rounded as R rounds it (``constant = 1.4826``).
MAD_CONSTANT = 1.4826


#: Rows of at most this many values are sorted rather than partitioned: NumPy's sort of
#: 25 rows of 38 takes 3.0 microseconds, its partition and the minimum above it 5.2
#: (the same two order statistics either way); from about 500 values the partition wins.
_SORTED_MEDIAN_MAX = 256


def _median_rows(P: np.ndarray) -> np.ndarray:
    """Row medians of the 2-D ``P`` (m, n >= 1), partitioning (or sorting) ``P`` in place.

    One selection per row even for even ``n``: after the partition at the lower middle
    order statistic, the upper one is the smallest entry above it. NumPy selects a
    single ``kth`` by a vectorised quickselect where the CPU has one (AVX-512 or AVX2
    since NumPy 2.0) and a list of them by its generic introselect, several times slower
    (``docs/design-notes/robust-scales.md``). The values are the same two
    order statistics, so the medians equal :func:`numpy.median`'s to the bit (which
    partitions at a list: the middle ones and the last, for NaN).
    """
    n = P.shape[1]
    half = (n - 1) // 2
    if n <= _SORTED_MEDIAN_MAX:  # short rows: one sort, both middle values in place
        P.sort(axis=1)
        upper = P[:, half + 1] if n % 2 == 0 else None
    else:
        P.partition(half, axis=1)
        upper = P[:, half + 1 :].min(axis=1) if n % 2 == 0 else None
    if upper is None:
        return P[:, half].copy()
    return (P[:, half] + upper) / 2


#: Columns transposed at a time by :func:`_column_medians`: a block of ``n`` rows of this
#: many values stays in cache, and the work buffer is small (a transposed copy of a
#: whole video batch was a third of a stream's first-batch time, most of it page faults).
_COLUMN_BLOCK = 512


def _column_medians(Z: np.ndarray) -> np.ndarray:
    """Column medians of the 2-D ``Z`` (n >= 1 rows), :func:`numpy.median` along axis 0
    to the bit, by :func:`_median_rows` on blocks of transposed columns (one reused
    buffer of :data:`_COLUMN_BLOCK` rows). ``Z`` is not modified; no NaN handling (the
    callers' data are finite)."""
    n, p = Z.shape
    if p == 0:
        return np.empty(0, dtype=np.result_type(Z.dtype, np.float16))
    buf = np.empty((min(_COLUMN_BLOCK, p), n), dtype=Z.dtype)
    first = _median_rows(_transposed(Z, 0, buf))
    out = np.empty(p, dtype=first.dtype)
    out[: first.size] = first
    for start in range(first.size, p, _COLUMN_BLOCK):
        block = _transposed(Z, start, buf)
        out[start : start + block.shape[0]] = _median_rows(block)
    return out


def _transposed(Z: np.ndarray, start: int, buf: np.ndarray) -> np.ndarray:
    """Columns ``start:start + len(buf)`` of ``Z`` as the rows of (a prefix of) ``buf``."""
    block = buf[: min(buf.shape[0], Z.shape[1] - start)]
    block[...] = Z[:, start : start + block.shape[0]].T
    return block


def _median(x: np.ndarray, axis: int | None = 0, keepdims: bool = False):
    """:func:`numpy.median` of a float64 array along ``axis``, to the bit, by
    :func:`_median_rows` on a copy; NumPy's own where ``x`` holds NaN (which it
    propagates), is empty or of another dtype, or ``axis`` is None. ``x`` is not
    modified."""
    if axis is None or x.dtype != np.float64 or x.ndim == 0 or x.size == 0 or np.isnan(x).any():
        return np.median(x, axis=axis, keepdims=keepdims)
    moved = np.moveaxis(x, axis, -1)
    lanes = np.array(moved.reshape(-1, moved.shape[-1]), copy=True)
    med = _median_rows(lanes).reshape(moved.shape[:-1])
    if keepdims:
        med = np.expand_dims(med, axis)
    return med if med.ndim else med[()]


def _nan_median(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """The median along ``axis`` of the entries of ``x`` that are not NaN (NaN where a
    lane has none), read off a sorted copy (NaN sort last): :func:`numpy.nanmedian`'s
    values several times faster, and without its warning on an empty lane."""
    lanes = np.sort(np.moveaxis(x, axis, -1), axis=-1)
    count = np.count_nonzero(~np.isnan(lanes), axis=-1)[..., None]
    lo = np.take_along_axis(lanes, np.maximum(count - 1, 0) // 2, axis=-1)[..., 0]
    hi = np.take_along_axis(lanes, np.minimum(count // 2, lanes.shape[-1] - 1), axis=-1)[..., 0]
    with np.errstate(invalid="ignore"):
        mid = (lo + hi) / 2  # numpy.median's mean of the middle two, to the bit
    return np.where(count[..., 0] > 0, mid, np.nan).astype(x.dtype, copy=False)


#: relative rounding of a cumulative weight that still counts as half the total
_MEDIAN_RTOL = 1e-10


def median_positions(total: float) -> tuple[float, float]:
    """The weight positions of the two middle values of a weighted sample: a value is
    at position ``q`` when it is the first whose cumulative weight exceeds ``q``.

    The lower middle value is the first whose cumulative weight reaches half the total,
    the upper one the first that exceeds it. With whole (frequency) weights they are the
    two middle values of the rows repeated ``w_i`` times; for any weights, scaling them
    all by a constant leaves them unchanged. A cumulative weight within rounding of half
    the total counts as half (weights of 0.01 sum to 0.5 only to rounding); the margin
    stays below the half unit that separates whole cumulative weights from it.
    """
    half = 0.5 * float(total)
    margin = min(_MEDIAN_RTOL * half, 0.25)
    return half - margin, half + margin


def weighted_median(x: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Column medians; with weights, the mean of the two middle values of
    :func:`median_positions` (with frequency weights, the median of the data with each
    row repeated ``w_i`` times)."""
    if w is None:
        return np.median(x, axis=0)
    x2 = x.reshape(x.shape[0], -1)
    positions = median_positions(w.sum())
    out = np.empty(x2.shape[1])
    for j in range(x2.shape[1]):
        order = np.argsort(x2[:, j], kind="stable")
        cum = np.cumsum(w[order])
        picks = [
            order[min(int(np.searchsorted(cum, q, side="right")), cum.size - 1)] for q in positions
        ]
        out[j] = 0.5 * (x2[picks[0], j] + x2[picks[1], j])
    return out.reshape(x.shape[1:])


def weighted_mad(x: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The MAD (times :data:`MAD_CONSTANT`) with frequency weights, by :func:`weighted_median`."""
    return MAD_CONSTANT * weighted_median(np.abs(x - weighted_median(x, w)), w)


def mad(x, axis: int | None = 0) -> np.ndarray:
    """Median absolute deviation about the median, times 1.4826 (R's ``mad``).

    Parameters
    ----------
    x : array-like
        Real values (a NaN gives NaN, as in NumPy's median).
    axis : int or None, default=0
        Median and deviations are taken along this axis (None: all the values).

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
    x = real_array(x, "x")
    x = x if x.ndim else x[None]  # one value
    if axis is not None:
        axis = check_axis(axis, x.ndim)
    if x.size == 0 or (axis is not None and x.ndim and x.shape[axis] == 0):
        raise ValueError("mad needs at least one value along axis.")
    med = _median(x, axis=axis, keepdims=True)
    return MAD_CONSTANT * _median(np.abs(x - med), axis=axis)


def _finite_values(x) -> np.ndarray:
    """``x`` as a float array, refused with a ``ValueError`` naming it if not finite."""
    values = real_array(x, "x")
    if not np.all(np.isfinite(values)):
        raise ValueError("x must be finite (no NaN or inf): the medcouple is undefined.")
    return values


def medcouple(x) -> float:
    r"""The medcouple: a robust measure of skewness in ``[-1, 1]`` (Brys et al. 2004).

    .. math::
        MC = \operatorname{med}_{x_i \ge m \ge x_j}
        \frac{(x_i - m) - (m - x_j)}{x_i - x_j},

    with :math:`m` the median; pairs with :math:`x_i = x_j = m` take the values
    :math:`-1, 0, +1` of Brys et al.'s eq. (2.3) so that ties at the median count as
    symmetric. Where the median is the sample's minimum the medcouple is +1, where it is
    the maximum -1 (0 for a constant sample), as ``robustbase::mc`` returns them. Exact,
    in :math:`O(n \log^2 n)` time and :math:`O(n)` memory: the kernel is increasing
    along the rows and columns of the sorted pairs, so an order statistic is found by
    weighted medians of row medians (Brys et al., sec. 3, after Johnson &
    Mizoguchi) with row counts by one sorted search of the rows' bounds, each confirmed
    on the kernel as computed (``_row_counts``); the kernel values at the median (tied
    samples) are counted in closed form, which is much faster than a binary search of
    the computed kernel per row. The median of the kernel values
    is the usual one (mean of the two middle values), as ``robustbase::mc`` returns it
    for ``n <= 100``; for larger ``n`` robustbase returns the high median, which differs
    from this by at most the gap between two neighbouring kernel values.

    Parameters
    ----------
    x : array-like of shape (n,)
        At least one value, none NaN or infinite (robustbase's ``mc`` refuses missing
        values too; a NaN sorted among the values would give a valid-looking skewness).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``x`` is empty or holds NaN or an infinite value.

    Examples
    --------
    >>> from robustpca.robust_scale import medcouple
    >>> medcouple([1.0, 2.0, 3.0, 4.0, 5.0]), medcouple([1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 9.0, 10.0])
    (0.0, 0.75)
    """
    y = _finite_values(x)
    if y.ndim > 1:
        raise ValueError(
            f"x must be a 1-D array, got shape {y.shape} (medcouple_columns takes a "
            "medcouple of every column)."
        )
    y = np.sort(y.ravel())
    if y.size == 0:
        raise ValueError("medcouple needs at least one value.")
    z = y - np.median(y)
    above, below = z[z > 0.0], z[z < 0.0]  # ascending
    if not below.size or not above.size:  # the median at an end: robustbase's +1 or -1
        return float(np.sign(above.size - below.size))
    ties = int(z.size - above.size - below.size)
    # kernel values: the core (a > 0 > b) in (-1, 1); -1 for (0, b < 0); +1 for (a > 0, 0);
    # the t x t tied block: t zeros, t(t - 1)/2 of -1 and of +1
    n_minus = ties * below.size + ties * (ties - 1) // 2
    n_plus = ties * above.size + ties * (ties - 1) // 2
    n_core = above.size * below.size
    total = n_minus + n_plus + n_core + ties

    def order_statistic(k: int) -> float:
        if k < n_minus:
            return -1.0
        if k >= total - n_plus:
            return 1.0
        k -= n_minus  # within the core and the t zeros
        if ties:
            negative = _core_count(above, below, 0.0, strict=True)
            if k < negative:
                return _core_select(above, below, k)
            if k < negative + ties:
                return 0.0
            k -= ties
        return _core_select(above, below, k)

    half = total // 2
    with np.errstate(over="ignore"):  # b / a beyond the floats in _kernel: -1, its limit
        if total % 2:
            return float(order_statistic(half))
        return float(0.5 * (order_statistic(half - 1) + order_statistic(half)))


#: Columns up to this length go through the all-pairs route of :func:`medcouple_columns`,
#: where it is still cheaper than :func:`medcouple` per column
#: (``docs/design-notes/robust-scales.md``).
_PAIRS_MAX_N = 500


def skewed_fence(q1: float, q3: float, mc: float) -> float:
    """The upper fence of rrcov's ``.crit.od(method="skewed")`` (the adjusted boxplot's,
    Hubert & Vandervieren 2008, with the factor 1 for a negative medcouple).

    Parameters
    ----------
    q1, q3 : float
        First and third quartiles of the values.
    mc : float
        Their medcouple (:func:`medcouple`).

    Returns
    -------
    float
    """
    return float(q3 + 1.5 * (np.exp(3.0 * mc) if mc >= 0 else 1.0) * (q3 - q1))


def skewed_cutoff(values: np.ndarray, sample: np.ndarray | None = None) -> float:
    """rrcov's ``.crit.od(method="skewed")``: the largest value below :func:`skewed_fence`
    of the values' quartiles and medcouple, or the fence where no value is below it.

    Parameters
    ----------
    values : ndarray of shape (n,)
        The values to cut (the outlier diagnostics' distances).
    sample : ndarray of bool of shape (n,), ndarray of int, or None, default=None
        If given, the medcouple is that of the values where this mask holds (or at
        these indices); the quartiles are always those of all the values.

    Returns
    -------
    float
    """
    values = real_array(values, "values")
    if values.ndim != 1:
        raise ValueError(f"values must be a 1-D array, got shape {values.shape}.")
    if sample is not None:
        sample = check_row_selection(sample, values.shape[0], "sample")
    mc = medcouple(values if sample is None else values[sample])
    q1, q3 = np.quantile(values, [0.25, 0.75])
    fence = skewed_fence(q1, q3, mc)
    below = values[values < fence]
    return float(below.max()) if below.size else float(fence)


def medcouple_columns(Y) -> np.ndarray:
    """:func:`medcouple` of every column of ``Y`` (2-D), the same values, faster in bulk.

    Columns of at most 500 values are done together from all their kernel values
    (``n^2`` per column, in batches of about four million); longer ones one at a time
    by :func:`medcouple`. The skew-adjusted outlyingness needs one medcouple per
    direction, hundreds per fit.

    Parameters
    ----------
    Y : array-like of shape (n, m)
        Finite values: like :func:`medcouple`, NaN and infinite values are refused with a
        ``ValueError``, as is an ``Y`` that is not 2-D.

    Returns
    -------
    ndarray of shape (m,)
    """
    Y = real_array(Y, "Y")
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D array, got shape {Y.shape}.")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y must be finite (no NaN or inf): the medcouple is undefined.")
    n, m = Y.shape
    if n > _PAIRS_MAX_N or n == 0:
        return np.array([medcouple(Y[:, j]) for j in range(m)])
    out = np.empty(m)
    batch = max(1, 4_000_000 // (n * n))
    for lo in range(0, m, batch):
        out[lo : lo + batch] = _medcouple_pairs(Y[:, lo : lo + batch])
    return out


def _medcouple_pairs(Y: np.ndarray) -> np.ndarray:
    """All-pairs medcouple of each column (the counting of :func:`medcouple`)."""
    Z = np.sort(Y, axis=0)
    Z = Z - np.median(Z, axis=0)
    above, below = (Z > 0.0).sum(axis=0), (Z < 0.0).sum(axis=0)
    # the core pairs (a > 0 > b) lie in the top `above` and bottom `below` rows
    a = Z[Z.shape[0] - int(above.max()) :, None, :]
    b = Z[None, : int(below.max()), :]
    core = (a > 0.0) & (b < 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        H = np.where(core, _kernel(a, b), np.inf).reshape(-1, Z.shape[1])
    ties = Z.shape[0] - above - below
    n_minus = ties * below + ties * (ties - 1) // 2
    n_plus = ties * above + ties * (ties - 1) // 2
    negative = (H < 0.0).sum(axis=0)
    total = n_minus + n_plus + above * below + ties
    half = total // 2

    def core_index(k: np.ndarray) -> np.ndarray:
        inner = k - n_minus
        return np.clip(np.where(inner < negative, inner, inner - ties), 0, H.shape[0] - 1)

    low = np.maximum(half - 1, 0)
    wanted = np.unique(np.concatenate([core_index(half), core_index(low)]))
    H = np.partition(H, wanted, axis=0) if H.shape[0] else H
    cols = np.arange(Z.shape[1])

    def order_statistic(k: np.ndarray) -> np.ndarray:
        inner = k - n_minus
        if H.shape[0]:
            value = H[core_index(k), cols]
        else:
            value = np.zeros(Z.shape[1])
        value = np.where((inner >= negative) & (inner < negative + ties), 0.0, value)
        value = np.where(k < n_minus, -1.0, value)
        return np.where(k >= total - n_plus, 1.0, value)

    odd = order_statistic(half)
    even = 0.5 * (order_statistic(low) + odd)
    mc = np.where(total % 2 == 1, odd, even)
    end = (above == 0) | (below == 0)  # the median at an end of the column (medcouple)
    return np.where(end, np.sign(above - below).astype(float), mc)


def _kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The medcouple kernel :math:`(a + b) / (a - b)` for :math:`a > 0 > b`, computed as
    :math:`2 / (1 - b / a) - 1`: each step is monotone in its inputs, so the computed
    values increase along rows and columns of the sorted pairs, as the selection
    assumes. The quotient form is not: where ``a`` is at rounding next to ``|b|`` (values
    tied at the median up to rounding), it turns back along a row by an ulp. A ratio
    ``b / a`` beyond the floats gives -1, its limit (the callers silence the overflow)."""
    return 2.0 / (1.0 - b / a) - 1.0


#: :func:`_core_select` takes the order statistic of the remaining candidates directly
#: (one partition) once they are at most this many per row: the last pivots cost two
#: count passes each for a few times fewer candidates (the fastest of the values tried).
_SELECT_ROWS = 4
#: Steps by one from the predicted count before :func:`_row_counts` falls back to a
#: binary search (the prediction is off by rounding, one entry as a rule).
_COUNT_STEPS = 3


def _row_counts(above, below, value: float, *, strict: bool) -> np.ndarray:
    """Per row ``i``: the number of ``j`` with ``h(above[i], below[j]) < value`` (strict)
    or ``<= value``; rows are increasing, so a row's count is where its test turns false.

    For ``a > 0 > b`` and ``-1 < v < 1``, :math:`h(a, b) < v` exactly when :math:`b <
    a (v - 1) / (v + 1)`, so one :func:`numpy.searchsorted` of those bounds in ``below``
    predicts every count. A prediction stands where the kernel as computed, :math:`(a +
    b) / (a - b)` in floating point, confirms it on both sides (the entry before passes
    the test, the entry at it does not); elsewhere (values within rounding of the bound)
    it moves by one towards the turn, up to ``_COUNT_STEPS`` times, and then a
    vectorised binary search on the computed kernel decides, so the counts are those of
    the computed kernel either way (on rows along which it increases, as the search
    assumes too).
    """
    q = below.size
    test = np.less if strict else np.less_equal
    if -1.0 < value < 1.0:
        bound = above * ((value - 1.0) / (value + 1.0))
        count = np.searchsorted(below, bound, side="left" if strict else "right")
    else:
        count = np.zeros(above.size, dtype=np.int64) if value <= -1.0 else np.full(above.size, q)
    count = count.astype(np.int64, copy=False)
    rows = np.arange(above.size)
    for _ in range(_COUNT_STEPS):  # confirm, or move by one towards the turn
        guess = count[rows]
        high = (guess > 0) & ~test(_kernel(above[rows], below[np.maximum(guess - 1, 0)]), value)
        low = (guess < q) & test(_kernel(above[rows], below[np.minimum(guess, q - 1)]), value)
        off = high | low
        if not off.any():
            return count
        rows = rows[off]
        count[rows] += low[off].astype(np.int64) - high[off]
    count[rows] = _binary_counts(above[rows], below, value, test)
    return count


def _binary_counts(above, below, value: float, test) -> np.ndarray:
    """:func:`_row_counts` by a vectorised binary search on the computed kernel."""
    q = below.size
    lo = np.zeros(above.size, dtype=np.int64)
    hi = np.full(above.size, q, dtype=np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        active = lo < hi
        inside = test(_kernel(above, below[np.minimum(mid, q - 1)]), value)
        lo = np.where(active & inside, mid + 1, lo)
        hi = np.where(active & ~inside, mid, hi)
    return lo


def _core_count(above, below, value: float, *, strict: bool) -> int:
    if above.size == 0 or below.size == 0:
        return 0
    return int(_row_counts(above, below, value, strict=strict).sum())


def _core_select(above: np.ndarray, below: np.ndarray, k: int) -> float:
    """The ``k``-th smallest (0-based) of ``h(a, b)`` over ``above x below``."""
    p, q = above.size, below.size
    left = np.zeros(p, dtype=np.int64)  # candidates of row i: columns left[i]..right[i]
    right = np.full(p, q - 1, dtype=np.int64)
    remaining = p * q
    while remaining > max(_SELECT_ROWS * p, 32):
        rows = np.flatnonzero(left <= right)
        mid = (left[rows] + right[rows]) // 2
        medians = _kernel(above[rows], below[mid])
        weights = (right[rows] - left[rows] + 1).astype(np.float64)
        order = np.argsort(medians)  # ties hold one value: any order gives the pivot
        cum = np.cumsum(weights[order])
        pivot = medians[order][np.searchsorted(cum, 0.5 * cum[-1])]
        smaller = _row_counts(above, below, pivot, strict=True)
        not_larger = _row_counts(above, below, pivot, strict=False)
        if k < smaller.sum():
            right = np.minimum(right, smaller - 1)
        elif k >= not_larger.sum():
            left = np.maximum(left, not_larger)
        else:
            return float(pivot)
        before, remaining = remaining, int(np.sum(right - left + 1))
        if remaining >= before:  # no progress (counts not monotone along a row, never
            break  # seen): select among all the candidates left, as below
    rows = np.flatnonzero(left <= right)
    lengths = right[rows] - left[rows] + 1  # the candidates of each row, row by row
    start = np.repeat(np.cumsum(lengths) - lengths, lengths)
    columns = np.repeat(left[rows], lengths) + (np.arange(start.size) - start)
    candidates = _kernel(above[np.repeat(rows, lengths)], below[columns])
    return float(np.partition(candidates, k - int(left.sum()))[k - int(left.sum())])


def _medcouple_naive(x) -> float:
    """All pairs (``O(n^2)`` memory): the definition, kept to test :func:`medcouple`
    (with robustbase's +1 or -1 where the median is the sample's minimum or maximum)."""
    y = np.sort(real_array(x, "x").ravel())
    z = y - np.median(y)
    if not np.any(z < 0.0) or not np.any(z > 0.0):
        return float(np.sign(np.sum(z > 0.0) - np.sum(z < 0.0)))
    lower = z[z <= 0.0]
    upper = z[z >= 0.0][:, None]
    tied = np.logical_and(upper == 0.0, lower == 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a = 0, b = 0: below
        h = np.where(tied, 0.0, _kernel(upper, lower))
    h = np.where(lower == 0.0, 1.0, np.where(upper == 0.0, -1.0, h))
    n_ties = int(np.sum(lower == 0.0))
    if n_ties:
        i, j = np.indices((n_ties, n_ties))
        h[:n_ties, -n_ties:] = np.sign(i + j - (n_ties - 1))
    return float(np.median(h))


def scores_scale(scores: np.ndarray, centre: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The (weighted) MAD of each score column, and where it is zero the mean absolute
    deviation from ``centre`` scaled to a normal's standard deviation (the scale of the
    diagnostics' "scores" rule)."""
    scale = weighted_mad(scores, w)
    deviation = np.abs(scores - centre)
    mean_dev = np.average(deviation, axis=0, weights=w)
    return np.where(scale > 0, scale, np.sqrt(np.pi / 2.0) * mean_dev)


def is_whole(w):
    """Elementwise, whether a weight is a whole number (a frequency: NaN and infinity
    are not); NumPy or dask arrays."""
    return (w == np.floor(w)) & np.isfinite(w)


def variance_count(w: np.ndarray) -> float:
    """The count ``n`` of a weighted variance's ``n - 1`` divisor.

    The total weight for whole (frequency) weights, as if each row were repeated ``w_i``
    times; otherwise Kish's effective count :math:`(\\sum_i w_i)^2 / \\sum_i w_i^2`,
    which makes :math:`W (n - 1) / n = W - \\sum_i w_i^2 / W` the divisor of the
    unbiased variance under reliability weights (NumPy's ``aweights``). It does not
    change when every weight is scaled by a constant (weights normalised to sum 1
    included), and is the number of rows where the positive weights are equal.
    """
    if np.all(is_whole(w)):
        return float(w.sum())
    top = float(np.max(w))
    if not top > 0:
        return 0.0
    u = w / top  # in [0, 1]: the squares neither overflow nor underflow
    return effective_count(float(np.sum(u)), float(np.sum(u * u)))


def effective_count(total: float, square: float, whole: bool = False) -> float:
    """:func:`variance_count` from the sums of the weights and of their squares: the
    total ``W`` for ``whole`` (frequency) weights, else Kish's effective count
    :math:`W^2 / \\sum_i w_i^2` (0 where either sum is 0). The chunked and streaming
    statistics carry these sums instead of the weights."""
    if whole:
        return float(total)
    if not total > 0 or not square > 0:
        return 0.0
    return float(total / np.sqrt(square)) ** 2


def od_location_scale(od23: np.ndarray, w: np.ndarray | None, rule: str) -> tuple[float, float]:
    """Location and scale of the training :math:`OD^{2/3}`: the (weighted) mean and
    standard deviation for the "classical" rule, the median and MAD otherwise."""
    if rule == "classical":
        count = od23.size if w is None else variance_count(w)
        location = float(np.average(od23, weights=w))
        sq = np.average((od23 - location) ** 2, weights=w) * count
        return location, float(np.sqrt(sq / (count - 1))) if count > 1 else 0.0
    if w is None:
        return float(np.median(od23)), float(mad(od23))
    return float(weighted_median(od23, w)), float(weighted_mad(od23, w))
