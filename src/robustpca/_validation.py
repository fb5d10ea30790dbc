"""Input validation shared by every estimator.

The checks here raise ``ValueError``/``TypeError`` whose messages name the offending
parameter, so that a user who passes, say, ``n_components=0`` reads ``n_components``
in the error rather than a failure deep inside an eigensolver.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = [
    "as_generator",
    "check_n_components",
    "check_observed",
    "check_positive_int",
    "check_sample_weight",
    "is_dask_collection",
    "missing_mask",
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
    if not 1 <= n_components <= upper:
        raise ValueError(
            f"n_components={n_components} must be between 1 and "
            f"min(n_samples, n_features)={upper} (n_samples={n_samples}, "
            f"n_features={n_features})."
        )
    return int(n_components)


def check_positive_int(value: int, name: str, *, minimum: int = 1) -> int:
    """Validate an integer parameter such as ``max_iter``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r}).")
    if value < minimum:
        raise ValueError(f"{name}={value} must be >= {minimum}.")
    return int(value)


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
    k = int(n_components)
    if k >= d:  # the subspace is the whole space: every completion fits exactly
        return
    needed = d + k * (d - k) + n * k
    observed = int(missing.size - missing.sum())
    if observed < needed:
        raise ValueError(
            f"{where} has NaN (missing entries) and only {observed} observed entries, "
            f"fewer than the {needed} parameters "
            f"of a rank-{k} affine model of {n} x {d} data (d + k(d - k) + nk): "
            "reduce n_components or observe more entries."
        )


def is_dask_collection(X) -> bool:
    """Whether ``X`` is a dask array or dataframe, checked without importing dask."""
    return type(X).__module__.split(".")[0] == "dask"


def as_generator(random_state) -> np.random.Generator:
    """Turn ``random_state`` (None, int, RandomState or Generator) into one Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, numbers.Integral):
        return np.random.default_rng(None if random_state is None else int(random_state))
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)
