"""Decorators that make an estimator's row methods lazy on a Dask collection: the
linear model's formulas by blocks (:func:`robustpca._dask.lazy_method`), or any NumPy
row-wise method by blocks of whole rows (:func:`robustpca._dask.transforms.lazy_rows`).
"""

from __future__ import annotations

import functools

from sklearn.utils.validation import check_is_fitted

from .._validation import is_dask_collection

__all__ = ["lazy_rows_on_dask"]


def _lazy_on_dask(method):
    """Decorate ``method(self, X)`` of the linear model: on a Dask collection ``X``, the
    lazy dask array of :func:`robustpca._dask.lazy_method` (nothing computed) instead."""

    @functools.wraps(method)
    def wrapper(self, X):
        if is_dask_collection(X):
            from .._dask import lazy_method

            return lazy_method(self, method.__name__, X)
        return method(self, X)

    return wrapper


def lazy_rows_on_dask(width=None, inputs=None):
    """Decorate a NumPy row-wise ``method(self, X)`` of a model that is not one linear
    map (kernel, 2-D): on a Dask collection ``X``, the lazy dask array of the method by
    blocks of whole rows (:func:`robustpca._dask.transforms.lazy_rows`). ``width`` and
    ``inputs``: the output's and the input's columns from the fitted model (callables;
    ``width=None``: one value per row; ``inputs=None``: ``n_features_in_``)."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X):
            if is_dask_collection(X):
                from .._dask.transforms import lazy_rows

                check_is_fitted(self)
                n_out = None if width is None else int(width(self))
                n_in = None if inputs is None else int(inputs(self))
                return lazy_rows(self, X, wrapper, n_out, n_in)
            return method(self, X)

        return wrapper

    return decorate
