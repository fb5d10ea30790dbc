"""``fit(X, mask=...)`` for the low-rank plus sparse estimators (PCP, outlier pursuit,
CRPCA-OM, AccAltProj, GoDec), which fit missing entries on the observed ones."""

from __future__ import annotations

import sys

import numpy as np

from .._array_api import input_namespace, move_to, to_numpy

__all__ = ["MaskedFitMixin", "apply_mask"]


def apply_mask(X, mask):
    """A float copy of ``X`` with NaN where ``mask`` (True: observed) is False: float32
    data stay float32, and a pandas or polars DataFrame stays one (its column names are
    the fit's ``feature_names_in_``), and an array-API array stays in its namespace, on
    its device."""
    xp, device = input_namespace(X)
    if xp is not None:
        return move_to(apply_mask(to_numpy(X), mask), xp=xp, device=device)
    mask = np.asarray(to_numpy(mask))
    shape = np.shape(X)
    if mask.shape != shape:
        raise ValueError(f"mask must have the shape of X {shape}, got {mask.shape}.")
    if mask.dtype != bool:
        raise TypeError(f"mask must be boolean (True where observed), got dtype {mask.dtype}.")
    if hasattr(X, "columns") and hasattr(X, "mask"):  # pandas: NaN where the mask is False
        return X.mask(~mask)
    masked = np.asarray(X)
    dtype = masked.dtype if masked.dtype in (np.float32, np.float64) else np.float64
    masked = np.array(masked, dtype=dtype, copy=True)
    masked[~mask] = np.nan
    if type(X).__module__.split(".")[0] == "polars" and hasattr(X, "columns"):  # its names
        return _polars_frame(masked, X)
    return masked


def _polars_frame(values: np.ndarray, like):
    """``values`` as a polars DataFrame with the column names of the polars DataFrame
    ``like`` (NaN stays NaN: missing, as a null is). polars is imported, as ``like`` is
    one of its frames; no import here keeps it an optional dependency."""
    polars = sys.modules["polars"]
    return polars.from_numpy(values, schema=list(like.columns), orient="row")


class MaskedFitMixin:
    """``fit`` with an optional ``mask`` of the observed entries (before the base class)."""

    def fit(self, X, y=None, mask=None):
        """Decompose ``X`` of shape (n_samples, n_features) into ``low_rank_ + sparse_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; never modified. NaN entries are missing.
        y : Ignored
        mask : array-like of bool, same shape as ``X``, optional
            True where an entry is observed. An entry is missing where ``mask`` is
            False *or* ``X`` is NaN (a NaN is never data, whatever ``mask`` says).
            Missing entries are fitted on the observed ones: ``sparse_`` is zero there
            and ``low_rank_`` fills them. The convex estimators solve the
            observed-entries problem of Candès et al. (2011, sec. 1.6) and stop as on
            complete data: on the certified ``duality_gap_`` below ``gap_tol`` (Lin et
            al.'s primal rule, ``tol``, alone with ``gap_tol=None``), calling
            ``callback`` after each iteration (their Notes). AccAltProj and GoDec
            alternate on the observed entries with ``low_rank_`` imputing the gaps; their
            objective and ``tol`` measure the observed entries
            (:mod:`robustpca.solvers.known_rank`, "Missing entries").

        Returns
        -------
        self
        """
        self._fit(_masked_input(X, mask))  # BaseSubspaceEstimator._fit
        return self

    def fit_transform(self, X, y=None, mask=None):
        """Fit, then the scores of the training samples, with the gaps of ``mask``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; never modified. NaN entries are missing.
        y : Ignored
        mask : array-like of bool, same shape as ``X``, optional
            As in :meth:`fit`: the entries where it is False are missing for the fit and
            for the scores alike.

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        X = _masked_input(X, mask)
        return self.fit(X).transform(X)

    def fit_predict(self, X, y=None, mask=None, **kwargs):
        """Fit, then label the training samples (+1 inlier, -1 outlier), with the gaps
        of ``mask``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; never modified. NaN entries are missing.
        y : Ignored
        mask : array-like of bool, same shape as ``X``, optional
            As in :meth:`fit`: the entries where it is False are missing for the fit and
            for the labels alike.
        **kwargs
            Passed to ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,), dtype int
        """
        X = _masked_input(X, mask)
        return self.fit(X, **kwargs).predict(X)


def _masked_input(X, mask):
    """``X`` with NaN where ``mask`` is False (``X`` itself without a mask)."""
    if mask is None:
        return X
    from .._validation import is_dask_collection

    if is_dask_collection(X) or is_dask_collection(mask):
        raise TypeError(
            "mask: a Dask fit takes no mask (its chunked fits need complete data); "
            "pass NumPy arrays (X.compute(), mask.compute())."
        )
    return apply_mask(X, mask)
