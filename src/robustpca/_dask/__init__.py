"""Dask support: chunked fits with few ``dask.compute`` calls, and lazy transforms.

:meth:`BaseSubspaceEstimator.fit` sends a dask array here (:func:`fit_dask`), which picks
the route the NumPy solvers pick (:class:`~robustpca.linalg.WeightedPCAProblem`'s
``'auto'``):

* **tall** (``n_samples >= n_features``): the data stay chunked by rows (column chunks
  are merged). Every pass applies a kernel of :mod:`robustpca.solvers.chunked` to each
  chunk, adds the small per-chunk results (weighted count, mean, centred ``d x d``
  scatter, objective, ``d x k`` products) in a tree of tasks and brings the sum back
  with one ``dask.compute``; the eigen step runs in NumPy on the ``d x d`` matrix.
* **wide** (``n_samples < n_features``): the data stay chunked by columns (row chunks
  are merged, see :func:`column_blocks`). One pass brings back the centred ``n x n``
  Gram matrix (and the column means); the iterations run in memory on it, with no pass
  (one in an iteration where the NumPy Gram route forms residuals explicitly), and one
  last pass forms the ``k x d`` components and the mean by blocked products.

The first pass also checks that ``X`` is finite; for :class:`~robustpca.PCA` and
:class:`~robustpca.OptimalMeanPCA` on the tall route it counts the NaN instead, and
missing entries are then fitted chunk by chunk (:mod:`robustpca._dask_missing`); the
wide route and the other estimators refuse NaN, saying so. ``transform``, ``reconstruct``,
``reconstruction_error`` and ``inverse_transform`` of a fitted estimator return lazy dask
arrays (:func:`lazy_method`), as do ``score_samples``, ``decision_function``,
``predict`` and :func:`~robustpca.diagnostics.outlier_diagnostics`: a Dask fit ends by
taking its training diagnostics (the reference statistics of the cutoffs, and
``offset_`` for a float ``contamination``) by exact counting passes over the chunks
(:mod:`robustpca._dask.reference`), equal to the in-memory fit's.

Supported: :class:`~robustpca.OptimalMeanPCA`, :class:`~robustpca.L21PCA`,
:class:`~robustpca.R1PCA`, :class:`~robustpca.PCA` (with ``sample_weight``, NumPy or
dask), ``GeneralizedMeanPCA``, ``AdaptiveNeighborsPCA`` and ``HQPCA`` on the routes above;
``ROBPCA`` (also ``skew=True``), ``SphericalPCA`` and ``CovariancePCA`` (the MCD) by passes
whose order statistics are exact counts (:mod:`robustpca._dask.rrcov`); and, on tall
data, ``PrincipalComponentPursuit``, ``OutlierPursuit``, ``ConvexOptimalMeanPCA`` and
``AccAltProj`` with the sparse part and the multiplier kept chunked
(:mod:`robustpca._dask.low_rank_sparse`). The fitted attributes are those of the NumPy
fit, to rounding; ``weights_``, ``residuals_`` (and ``outliers_``) are dask arrays chunked
like the rows of ``X``: lazy (one pass when computed) for local weight rules of the tall
route, wrapping the in-memory vector otherwise. ``n_passes_`` counts the
passes, those of the training diagnostics included. See ``docs/dask.md``.

Examples
--------
>>> import numpy as np
>>> import dask.array as da
>>> from robustpca import OptimalMeanPCA
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(1000, 3)) @ rng.normal(size=(3, 8)) + 0.1 * rng.normal(size=(1000, 8))
>>> X[:100] += 20 * rng.normal(size=(100, 8))
>>> model = OptimalMeanPCA(n_components=3).fit(da.from_array(X, chunks=(250, 8)))
>>> model.n_passes_ == model.n_iter_ + 1 + 2      # a pass (a dask.compute) per iteration,
True
>>> # and two for the training diagnostics (predict, decision_function, ...)
>>> model.predict(da.from_array(X, chunks=(250, 8)))         # lazy
dask.array<where, shape=(1000,), dtype=int64, chunksize=(250,), chunktype=numpy.ndarray>
>>> reference = OptimalMeanPCA(n_components=3).fit(X)
>>> bool(np.allclose(model.components_, reference.components_))
True
>>> model.transform(da.from_array(X, chunks=(250, 8)))       # lazy
dask.array<_transform_block, shape=(1000, 3), dtype=float64, chunksize=(250, 3), ...>

Wide data, chunked by columns: two passes in all, and one for the diagnostics.

>>> W = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 5000)) + 0.1 * rng.normal(size=(40, 5000))
>>> from robustpca import PCA
>>> wide = PCA(n_components=3).fit(da.from_array(W, chunks=(40, 1000)))
>>> wide.n_passes_
3
>>> bool(np.allclose(wide.components_, PCA(n_components=3).fit(W).components_))
True
"""

from __future__ import annotations

from .arrays import as_float_array, column_blocks, row_blocks
from .fit import DaskPassRunner, fit_dask
from .transforms import lazy_method

__all__ = [
    "DaskPassRunner",
    "as_float_array",
    "column_blocks",
    "fit_dask",
    "lazy_method",
    "row_blocks",
]
