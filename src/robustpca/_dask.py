"""Dask support: chunked fits and lazy transforms (issue 6; placeholder until it lands)."""

from __future__ import annotations


def fit_dask(estimator, X, sample_weight=None) -> None:
    """Fit ``estimator`` on the dask array ``X`` with the data staying chunked."""
    raise TypeError(
        f"X is a dask collection, which {type(estimator).__name__} does not support yet; "
        "pass a NumPy array (X.compute())."
    )


def lazy_method(estimator, name: str, X):
    """Apply ``estimator.<name>`` block-wise to the dask array ``X``, lazily."""
    raise TypeError(
        f"X is a dask collection, which {type(estimator).__name__}.{name} does not support yet."
    )
