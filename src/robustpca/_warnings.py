"""The stack level of the library's warnings (the user's line, however deep the call),
and the warnings that an estimator's NumPy and Dask routes share."""

from __future__ import annotations

import inspect
import os
import warnings

import numpy as np

__all__ = ["external_stacklevel", "warn_if_few_samples_weighed", "warn_if_rank_below"]


def _library_folders() -> tuple[str, ...]:
    """The folders of robustpca, of scikit-learn (whose fit wrappers, meta-estimators and
    ``available_if`` methods call ours) and of joblib (which runs a search's fits)."""
    import joblib
    import sklearn

    folders = (os.path.dirname(__file__), *(os.path.dirname(m.__file__) for m in (sklearn, joblib)))
    return tuple(os.path.abspath(folder) + os.sep for folder in folders)


def external_stacklevel() -> int:
    """``stacklevel`` for :func:`warnings.warn` that names the first frame outside
    robustpca, scikit-learn and joblib: the user's line, whichever public method (``fit``,
    ``fit_predict``, a ``GridSearchCV``) led to the warning, as pandas'
    ``find_stack_level`` does. A fixed level names a library line on the other paths,
    and the default filter then shows the warning once for all of them."""
    folders = _library_folders()
    frame = inspect.currentframe()
    level = 0
    try:
        while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(folders):
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return max(level, 1)


def warn_if_few_samples_weighed(weights, n_samples: int, k: int) -> None:
    """Warn where at most ``k + 1`` rows keep a weight (those above rounding of the
    largest): the others' correntropy weights underflowed, so the subspace describes
    those few rows, however far the rest lie, although the fit converged (HQPCA).

    Parameters
    ----------
    weights : array-like of shape (n,)
        The weights, or their largest ``k + 2`` where the rest are not at hand (a Dask
        fit's): the count up to ``k + 1`` is the same.
    n_samples : int
        The number of samples fitted.
    k : int
        The number of components.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.size == 0 or n_samples <= k + 1 or not np.max(w) > 0:
        return
    carried = int(np.count_nonzero(w > np.finfo(np.float64).eps * np.max(w)))
    if carried <= k + 1:
        warnings.warn(
            f"Only {carried} of {n_samples} samples keep a correntropy weight: the "
            "kernel_width is so small that the others' weights underflowed, and the fit "
            "describes those few samples alone. Increase kernel_width (None estimates "
            "it from the residuals).",
            UserWarning,
            stacklevel=external_stacklevel(),
        )


def warn_if_rank_below(estimator, rank: int, kept: int, penalty: str, value, change: str) -> None:
    """Warn where a convex fit's ``components_`` (``kept`` rows) holds more directions than
    its ``low_rank_`` has (rank ``rank``): the rest only complete the basis. ``penalty``
    (its ``value``) made to ``change`` keeps more in ``low_rank_``."""
    if rank >= kept:
        return
    warnings.warn(
        f"{type(estimator).__name__}: low_rank_ has rank {rank}, below n_components_={kept}: "
        f"the last {kept - rank} rows of components_ only complete the basis, outside "
        f"low_rank_'s row space ({penalty}={value:.3g}; a {change} {penalty} keeps more in "
        "low_rank_).",
        UserWarning,
        stacklevel=external_stacklevel(),
    )
