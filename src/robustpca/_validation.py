"""Input validation shared by every estimator.

The checks here raise ``ValueError``/``TypeError`` whose messages name the offending
parameter, so that a user who passes, say, ``n_components=0`` reads ``n_components``
in the error rather than a failure deep inside an eigensolver.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import numpy as np
from scipy.sparse import issparse
from sklearn.utils import check_random_state

__all__ = [
    "as_generator",
    "check_bool",
    "check_coordinates",
    "check_enough_observed",
    "check_finite_sums",
    "check_gap_tol",
    "check_magnitude",
    "check_n_components",
    "check_observed",
    "check_positive_int",
    "check_rho",
    "check_sample_weight",
    "column_ranges",
    "is_dask_collection",
    "missing_mask",
    "names_checked",
    "real_array",
    "resolve_epsilon",
]


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong kind for its value, e.g. ``n_components=2.5`` (a float is
    a share of the variance, in ``(0, 1)``): both a ``ValueError`` and a ``TypeError``, as
    scikit-learn's own ``InvalidParameterError``."""


def check_n_components(
    n_components,
    n_samples: int,
    n_features: int,
    *,
    allow_auto: bool = False,
    owner: str | None = None,
) -> int | float | str:
    """Return the number of components to fit, validated against the data shape.

    ``None`` means ``min(n_samples, n_features)`` (the scikit-learn convention). With
    ``allow_auto``, a float in ``(0, 1)`` (a share of the variance) and ``"auto"``
    (rrcov's rule) are returned as they are, for the estimator to resolve on a spectrum
    (:func:`robustpca.rank_selection.select_n_components`); without it they raise a
    ``ValueError`` saying so (naming ``owner``, the estimator, when given).
    """
    upper = min(n_samples, n_features)
    if n_components is None:
        return upper
    is_share = isinstance(n_components, numbers.Real) and not isinstance(
        n_components, (bool, numbers.Integral)
    )
    if isinstance(n_components, str) or is_share:
        if not allow_auto:
            where = "here" if owner is None else f"by {owner}"
            raise InvalidParameterError(
                f"n_components={n_components!r}: a variance share or 'auto' is not "
                f"supported {where} (it fixes or chooses its rank itself); pass an int "
                "(or None)."
            )
        if isinstance(n_components, str) and n_components != "auto":
            raise ValueError(
                f"n_components must be an int, a float in (0, 1), 'auto' or None, got "
                f"{n_components!r}."
            )
        if is_share and not 0.0 < float(n_components) < 1.0:
            raise InvalidParameterError(
                f"n_components={n_components!r} as a float must lie in (0, 1) (the share "
                "of the variance to keep)."
            )
        return n_components
    if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral):
        raise TypeError(
            f"n_components must be an int or None, got {type(n_components).__name__} "
            f"({n_components!r})."
        )
    if not 1 <= cast(int, n_components) <= upper:
        raise ValueError(
            f"n_components={n_components} must be between 1 and "
            f"min(n_samples, n_features)={upper} (n_samples={n_samples}, "
            f"n_features={n_features})."
        )
    return int(n_components)


#: The largest count of things a fit allocates at once (angles, random starts): NumPy's
#: sizes are 64-bit, and larger counts overflow in its index arithmetic before they
#: reach the allocator, with errors that name no parameter.
MAX_ALLOCATED_COUNT = 2**31 - 1


def check_positive_int(
    value: int, name: str, *, minimum: int = 1, maximum: int | None = None
) -> int:
    """Validate an integer parameter such as ``max_iter`` (``maximum``: for counts that
    size arrays, such as :data:`MAX_ALLOCATED_COUNT`)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r}).")
    if value < minimum:
        raise ValueError(f"{name}={value} must be >= {minimum}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value} must be <= {maximum}.")
    return int(value)


def check_image_pair(
    image_shape,
    n_features: int,
    *,
    name: str = "image_shape",
    of: str = "images",
    not_a_pair: type[Exception] = ValueError,
) -> tuple[int, int]:
    """``(height, width)`` as ints: a pair of positive integers (no silent truncation of
    floats) whose product is ``n_features``, the number of columns of ``of``; a
    ``ValueError`` naming ``name`` otherwise (``not_a_pair`` where it is no pair of
    ints, a ``TypeError`` for the estimators, as scikit-learn's checks expect)."""
    try:
        pair = tuple(image_shape)
    except TypeError:
        pair = ()
    if len(pair) != 2 or not all(
        isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in pair
    ):
        raise not_a_pair(f"{name} must be a pair (height, width) of ints, got {image_shape!r}.")
    h, w = int(pair[0]), int(pair[1])
    if h <= 0 or w <= 0 or h * w != n_features:
        raise ValueError(
            f"{name}={(h, w)} must be positive with height * width equal to the "
            f"number of columns of {of} ({n_features})."
        )
    return h, w


def real_array(value, name: str) -> np.ndarray:
    """``value`` as a float64 array; a ``TypeError`` naming ``name`` for complex values
    (NumPy's cast would drop the imaginary parts with a warning) and a ``ValueError`` for
    what is not numeric."""
    array = np.asarray(value)
    if array.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got complex values.")
    try:
        return array.astype(np.float64, copy=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be numeric: {error}") from None


def check_axis(axis, ndim: int) -> int:
    """Validate an ``axis`` argument of an array of ``ndim`` dimensions (negative counts
    from the end, as in NumPy); the normalised axis."""
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an int, got {type(axis).__name__} ({axis!r}).")
    if not -max(ndim, 1) <= cast(int, axis) < max(ndim, 1):
        raise ValueError(f"axis={axis} is out of bounds for an array of {ndim} dimension(s).")
    return int(axis) % max(ndim, 1)


def check_bool(value, name: str, *, also: str = "") -> bool:
    """Validate a flag such as ``center``: a Python or NumPy bool, not any truthy value
    (``also``: the message's other valid values, such as ``" or 'median'"``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool{also}, got {type(value).__name__} ({value!r}).")
    return bool(value)


def check_nonnegative_float(value: float, name: str, *, strict: bool = False) -> float:
    """Validate a real, finite, non-negative (or positive) parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} ({value!r}).")
    value = float(value)
    if not np.isfinite(value) or value < 0 or (strict and value == 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name}={value!r} must be finite and {bound}.")
    return value


def check_positive_or_auto(value, name: str) -> float | None:
    """A positive float, or ``None`` for ``"auto"`` (the solver's default then)."""
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be 'auto' or a positive float, got {value!r}.")
        return None
    return check_nonnegative_float(value, name, strict=True)


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Validate per-sample weights: 1-D, finite, non-negative, not all zero.

    Returns a new float64 array (the caller's array is never modified).
    """
    if sample_weight is None:
        return np.ones(n_samples)
    # no complex weights (NumPy would drop the imaginary part), no text; the dtype of
    # another array namespace (no kind) is checked by the conversion below
    dtype = getattr(sample_weight, "dtype", None)
    kind = np.asarray(sample_weight).dtype.kind if dtype is None else getattr(dtype, "kind", None)
    if kind is not None and kind not in "biufO":
        raise TypeError(f"sample_weight must hold real numbers, got dtype {kind!r}.")
    try:
        w = np.array(sample_weight, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"sample_weight must be an array of real numbers: {exc}") from exc
    if w.ndim == 0:
        w = np.full(n_samples, float(w))
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight must have shape ({n_samples},), got {np.shape(sample_weight)}."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative; negative weights were given.")
    if not np.any(w > 0):
        raise ValueError(
            "sample_weight must have at least one positive entry (all weights are zero)."
        )
    return w


def weighted_rows(sample_weight, n_samples: int) -> int:
    """The rows that ``sample_weight`` makes of ``n_samples`` (the bound of
    ``n_components=None``): the total weight where every weight is a whole number (each
    row repeated ``w_i`` times), else the rows of positive weight; ``n_samples`` without
    weights."""
    if sample_weight is None:
        return n_samples
    w = check_sample_weight(sample_weight, n_samples)
    if np.all(w == np.floor(w)):
        return max(int(min(w.sum(), np.iinfo(np.int64).max)), 1)
    return max(int(np.count_nonzero(w > 0)), 1)


def resolve_epsilon(epsilon: float | str, scale: float) -> float:
    """Turn the ``epsilon`` parameter into the absolute smoothing constant.

    ``"auto"`` gives ``1e-12 * scale`` where ``scale`` is the mean squared norm of the
    centred data, so the smoothing is invariant to the units of the data.
    """
    if isinstance(epsilon, str):
        if epsilon != "auto":
            raise ValueError(f"epsilon must be 'auto' or a non-negative float, got {epsilon!r}.")
        return 1e-12 * scale if scale > 0 else 1e-12
    return check_nonnegative_float(epsilon, "epsilon")


def missing_mask(X) -> np.ndarray | None:
    """Boolean mask of the NaN entries of a validated NumPy ``X``, or None without NaN."""
    mask = np.isnan(X)
    return mask if mask.any() else None


def _listed(indices: np.ndarray, limit: int = 10) -> str:
    shown = ", ".join(str(int(i)) for i in indices[:limit])
    return shown + (f", ... ({indices.size} in all)" if indices.size > limit else "")


def check_observed(missing: np.ndarray, n_components: int | None, *, where: str = "X") -> None:
    """Raise a ``ValueError`` naming the rows (and, at fit, the columns) of ``where``
    with no observed entry, or when fewer entries are observed than a rank
    ``n_components`` affine model has parameters (``n_components=None``: transforms,
    rows only).

    A rank-``k`` affine subspace of ``R^d`` fitted to ``n`` rows has ``d`` (centre) +
    ``k (d - k)`` (subspace) + ``n k`` (scores) free parameters; with fewer observed
    entries the fit is not identified. With ``k = n_features`` there is no subspace
    to identify (every completion is fitted exactly) and only the empty rows and
    columns are refused.
    """
    empty_rows = np.flatnonzero(missing.all(axis=1))
    if empty_rows.size:
        raise ValueError(
            f"{where} has rows with no observed entry (all NaN): row(s) {_listed(empty_rows)} "
            "(0-based); drop them or give at least one value per row."
        )
    if n_components is None:
        return
    empty_cols = np.flatnonzero(missing.all(axis=0))
    if empty_cols.size:
        raise ValueError(
            f"{where} has columns with no observed entry (all NaN): column(s) "
            f"{_listed(empty_cols)} (0-based); drop them."
        )
    n, d = missing.shape
    check_enough_observed(int(missing.size - missing.sum()), n, d, int(n_components), where)


def check_enough_observed(observed: int, n: int, d: int, k: int, where: str = "X") -> None:
    """Raise :func:`check_observed`'s ``ValueError`` when ``observed`` entries of ``n x d``
    data with NaN are fewer than the parameters of a rank-``k`` affine model (the
    chunked routes, which count the NaN in a pass)."""
    if k >= d:  # the subspace is the whole space: every completion fits exactly
        return
    needed = d + k * (d - k) + n * k
    if observed < needed:
        raise ValueError(
            f"{where} has NaN (missing entries) and only {observed} observed entries, "
            f"fewer than the {needed} parameters "
            f"of a rank-{k} affine model of {n} x {d} data (d + k(d - k) + nk): "
            "reduce n_components or observe more entries."
        )


#: Entries up to this fraction of the overflow bound pass (centring can double them).
_HEADROOM = 0.5


def magnitude_limit(dtype, size: int) -> float:
    r"""Largest magnitude of the entries of ``size`` values of ``dtype`` whose squares,
    centred and summed, stay finite: :math:`\tfrac12 \sqrt{\text{max} / \text{size}}`.

    2.1e149 for 10^9 float64 values, 9.2e15 for 10^6 float32 values (float32 data are
    fitted in float64, but their variances, distances and scores are float32)."""
    return float(_HEADROOM * np.sqrt(np.finfo(dtype).max / max(int(size), 1)))


def overflow_message(name: str, dtype, size: int | None, magnitude: float | None = None) -> str:
    """The ``ValueError`` message of :func:`check_magnitude` and :func:`check_finite_sums`
    (``size`` None: not known where the overflow was found)."""
    dtype = np.dtype(dtype)
    held = "" if magnitude is None else f" of magnitude up to {magnitude:.3g}"
    advice = ""
    if dtype == np.float32:
        advice = " or pass it as float64 (float32 data give float32 variances)"
    over = "" if size is None else f" over its {size} entries"
    bound = "sqrt(max / size) / 2" if size is None else f"{magnitude_limit(dtype, size):.3g} here"
    return (
        f"{name} holds entries{held} whose squares, summed{over}, overflow {dtype.name}: "
        "variances, distances and Gram matrices are sums of squares, so the entries must "
        f"stay below {bound}. Rescale {name}{advice}. A fill value (netCDF's 9.97e36, say) "
        "marks a missing entry: set it to NaN where the estimator takes missing values."
    )


def check_finite_sums(sums: np.ndarray, *, name: str = "X") -> None:
    """Raise :func:`check_magnitude`'s ``ValueError`` when the scatter or Gram matrix
    ``sums`` of a first pass over ``name`` (float64, finite data) overflowed: the Dask
    route's check, which costs no pass of its own."""
    if not np.all(np.isfinite(sums)):
        raise ValueError(overflow_message(name, np.float64, None))


def check_coordinates(Z, width: int, xp, dtype):
    """The coordinates ``Z`` of ``inverse_transform`` as real floats of shape
    ``(n_samples, width)``: a ``ValueError`` for complex, non-numeric, NaN or infinite
    values, or another shape (``xp`` its array namespace, ``dtype`` that of integers);
    a ``TypeError`` for sparse data, as scikit-learn's."""
    if issparse(Z):
        raise TypeError(
            "Sparse data was passed for X of inverse_transform, but dense data is required. "
            "Use '.toarray()' to convert to a dense numpy array."
        )
    Z = xp.asarray(Z)
    if not xp.isdtype(Z.dtype, ("real floating", "integral", "bool")):
        raise ValueError(f"X of inverse_transform must hold real numbers, got dtype {Z.dtype}.")
    if not xp.isdtype(Z.dtype, "real floating"):
        Z = xp.astype(Z, dtype)
    if Z.ndim != 2 or Z.shape[1] != width:
        raise ValueError(
            f"X must have shape (n_samples, {width}) for inverse_transform, got {tuple(Z.shape)}."
        )
    if not bool(xp.all(xp.isfinite(Z))):
        raise ValueError("X of inverse_transform contains NaN or infinity.")
    return Z


@contextmanager
def names_checked(model) -> Iterator[None]:
    """While ``model`` rescores its training data, already validated at ``fit`` (a NumPy
    copy of a DataFrame whose names ``fit`` checked), ``feature_names_in_`` is hidden,
    so that scikit-learn does not warn that the array has no feature names."""
    names = model.__dict__.pop("feature_names_in_", None)
    try:
        yield
    finally:
        if names is not None:
            model.feature_names_in_ = names


_RANGE_BLOCK_ELEMENTS = 1 << 16  # 512 KiB of float64: a block of rows in L2 cache


def column_ranges(X) -> tuple[np.ndarray, np.ndarray] | None:
    """The column minima and maxima of a validated 2-D NumPy ``X``, or None where ``X``
    holds a NaN (they propagate it) or is no such array. A fit with no NaN takes its
    magnitude check (:func:`check_magnitude`), its NaN mask and its constant columns
    from them: two passes over the data instead of five."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.size == 0:
        return None
    # C-ordered data by blocks of rows that stay in cache, so that the maximum reads what
    # the minimum read (F-ordered columns are each read in one contiguous sweep)
    step = X.shape[0] if X.flags.f_contiguous else max(1, _RANGE_BLOCK_ELEMENTS // X.shape[1])
    low, high = np.minimum.reduce(X[:step], axis=0), np.maximum.reduce(X[:step], axis=0)
    for start in range(step, X.shape[0], step):
        block = X[start : start + step]
        np.minimum(low, np.minimum.reduce(block, axis=0), out=low)
        np.maximum(high, np.maximum.reduce(block, axis=0), out=high)
    if np.isnan(low).any() or np.isnan(high).any():
        return None
    return low, high


def check_magnitude(
    X, *, name: str = "X", ranges: tuple[np.ndarray, np.ndarray] | None = None
) -> None:
    """Raise a ``ValueError`` naming ``name`` when the squares of the validated floating
    array ``X`` (NumPy or array API; NaN ignored) could overflow its dtype when summed,
    or when even its largest square underflows (every fit would see zeros: a silently
    arbitrary subspace).

    Every estimator squares the data somewhere, and past that bound a fit ended in a
    ``LinAlgError``, an ``OverflowError`` or infinite scores, depending on the estimator
    (one row at 1e160 among standard normal ones; float32 data at 1e20). The bound,
    :func:`magnitude_limit`, depends only on the dtype and the size;
    ``tests/test_input_magnitude.py`` fits every estimator at 0.99 of it with no
    overflow. ``ranges``: :func:`column_ranges` of ``X``, where the caller has them.
    """
    size = int(np.prod(X.shape))
    if size == 0:
        return
    if isinstance(X, np.ndarray):
        if ranges is not None:
            bottom, top = ranges[0].min(), ranges[1].max()
        else:
            top = np.fmax.reduce(X, axis=None)  # NaN skipped, no copy
            bottom = np.fmin.reduce(X, axis=None)
        magnitude = float(np.nan_to_num(max(abs(top), abs(bottom)), nan=0.0))
        dtype = X.dtype
    else:
        import array_api_compat

        xp = array_api_compat.array_namespace(X)
        if callable(getattr(X, "detach", None)):  # PyTorch: a check, not part of the graph
            X = X.detach()
        size_of = xp.abs(X)
        # (array-api-strict 2.2 takes no Python scalar in where)
        magnitude = float(xp.max(xp.where(xp.isnan(size_of), xp.zeros_like(size_of), size_of)))
        dtype = np.float32 if X.dtype == xp.float32 else np.float64
    if magnitude > magnitude_limit(dtype, size):
        raise ValueError(overflow_message(name, dtype, size, magnitude))
    least = float(np.sqrt(np.finfo(dtype).tiny))
    if 0.0 < magnitude < least:
        raise ValueError(
            f"{name} holds entries of magnitude at most {magnitude:.3g}, whose squares "
            f"underflow {np.dtype(dtype).name}: variances, distances and Gram matrices are "
            f"sums of squares, so the largest entry must be at least {least:.3g}. Rescale "
            f"{name}."
        )


def is_dask_collection(X) -> bool:
    """Whether ``X`` is a dask array or dataframe, checked without importing dask."""
    return type(X).__module__.split(".")[0] == "dask"


def as_generator(random_state) -> np.random.Generator:
    """Turn ``random_state`` (None, int, RandomState or Generator) into one Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, numbers.Integral):
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state!r}.")
        return np.random.default_rng(None if random_state is None else int(random_state))
    try:
        state = check_random_state(random_state)
    except ValueError as exc:  # scikit-learn's message does not name the parameter
        raise ValueError(f"random_state: {exc}") from exc
    seed = state.randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)


#: ``mu * max|X|`` outside ``[1/_MU_RANGE, _MU_RANGE]`` overflows the ALM's steps
_MU_RANGE = 1e100


def check_mu_scale(X, mu: float | None, mu_max: float | None) -> None:
    """Refuse an ALM penalty whose steps overflow on data of the scale of ``X``: ``mu``
    does not change the solution, only the path to it."""
    scale = float(np.nanmax(np.abs(X), initial=0.0))
    if scale == 0.0:
        return
    for name, value in (("mu", mu), ("mu_max", mu_max)):
        if value is not None and not 1.0 / _MU_RANGE <= value * scale <= _MU_RANGE:
            raise ValueError(
                f"{name}={value!r} is out of range for data whose largest entry is "
                f"{scale:.3g}: {name} * max|X| must lie in [1e-100, 1e100]; 'auto' (the "
                "default) scales it to the data."
            )


def check_threshold(threshold) -> float:
    """A scalar threshold (a Python or NumPy real, or a 0-d array of one) as a float."""
    if isinstance(threshold, np.ndarray) and threshold.ndim == 0:
        threshold = threshold[()]  # a 0-d array: its NumPy scalar, checked as one
    if isinstance(threshold, bool | np.bool_) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a real number, got {threshold!r}.")
    if not np.isfinite(float(threshold)) or threshold < 0:
        raise ValueError(f"threshold={threshold!r} must be finite and >= 0.")
    return float(threshold)


def check_matrix(X) -> np.ndarray:
    """``X`` as a 2-D float64 array (a matrix: the operators of :mod:`robustpca.prox`
    act on its singular values or rows)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (a matrix), got shape {X.shape}.")
    return X


def check_threshold_array(threshold, shape: tuple[int, ...]) -> np.ndarray:
    """An array of thresholds broadcastable to ``shape`` without enlarging it."""
    t = np.asarray(threshold)
    if t.dtype.kind not in "iuf":
        raise TypeError(f"threshold must hold real numbers, got dtype {t.dtype}.")
    t = t.astype(np.float64, copy=False)
    try:
        broadcast = np.broadcast_shapes(t.shape, shape)
    except ValueError:
        broadcast = None
    if broadcast != shape:
        raise ValueError(f"threshold of shape {t.shape} must broadcast to the shape {shape} of X.")
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("threshold must be finite and >= 0 everywhere.")
    return t


def check_row_selection(sample, n: int, name: str) -> np.ndarray:
    """A selection of some of ``n`` values: a bool mask of shape ``(n,)`` or an array of
    indices in range, selecting at least one; a ``ValueError`` naming ``name`` otherwise."""
    sample = np.asarray(sample)
    mask = sample.dtype == bool and sample.shape == (n,)
    indices = sample.dtype.kind in "iu" and sample.ndim == 1
    if not (mask or indices):
        raise ValueError(
            f"{name} must be a bool mask of the values' shape ({n},) or an array of "
            f"indices, got dtype {sample.dtype} and shape {sample.shape}."
        )
    if indices and sample.size and not (-n <= sample.min() and sample.max() < n):
        raise ValueError(f"{name} holds indices beyond the {n} values.")
    if not np.count_nonzero(sample) and not (indices and sample.size):
        raise ValueError(f"{name} selects no value: the medcouple needs at least one.")
    return sample


def check_rho(rho, *, upper: float | None) -> float:
    """The ALM's penalty growth factor ``rho``: finite and > 1, below ``upper`` if given."""
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho must be a real number, got {type(rho).__name__} ({rho!r}).")
    rho = float(rho)
    if upper is None and not (np.isfinite(rho) and rho > 1):
        raise ValueError(f"rho={rho!r} must be finite and > 1.")
    if upper is not None and not 1 < rho < upper:
        raise ValueError(f"rho={rho!r} must lie in (1, {upper:g}) (Nie et al. 2014, Alg. 3).")
    return rho


def check_gap_tol(gap_tol) -> float | None:
    """``gap_tol``: None (no certified-gap stop) or a float in (0, 1) (a relative gap of
    1 holds at any iterate, whose dual value 0 bounds the optimum: it certifies nothing)."""
    if gap_tol is None:
        return None
    value = check_nonnegative_float(gap_tol, "gap_tol", strict=True)
    if not value < 1:
        raise ValueError(
            f"gap_tol={value!r} must lie in (0, 1): a relative duality gap of 1 or more "
            "certifies nothing (None stops on Lin et al.'s rule alone)."
        )
    return value
