r"""Shared machinery of the 2-D (image) estimators.

The 2-D estimators take the usual ``(n_samples, n_features)`` array whose rows are
images flattened in C order, plus ``image_shape=(height, width)``. A fitted two-sided
model holds ``left_components_`` :math:`L` (h x k1) and ``right_components_`` :math:`R`
(w x k2); 2DPCA has only :math:`R` (its left side is the identity). The equivalent
linear map on flattened images has the orthonormal rows
:math:`(L \otimes R)^\top` (or :math:`(I_h \otimes R)^\top`), the ``components_`` of the
library's contract. That matrix is as large as ``k1 k2 / n`` (2DPCA: ``h k / n``) times
the data -- several times the data for 2DPCA on a few hundred face images -- so
it is not stored by ``fit``: ``components_`` is a read-only property that builds it from
the bases on first access and caches it. ``transform``, ``inverse_transform``,
``reconstruct``, ``reconstruction_error`` and ``score_samples`` use the image products
:math:`L^\top (A - M) R` and never that matrix. The two agree:
``transform(X) == (X - mean_) @ components_.T`` up to rounding.

``image_shape=None`` treats every sample as a ``1 x n_features`` image. Then the left
basis is trivial and each 2-D method reduces to its 1-D counterpart (2DPCA and GLRAM to
PCA, R2DPCA to RPCA-OM, 2-D PCA-L21 to PCA-L21), which is what scikit-learn's estimator
checks, fed with arbitrary matrices, should see. A factorisation of ``n_features``
guessed from the data would make a fit depend on whether ``n_features`` is prime.
"""

from __future__ import annotations

import numbers
from typing import cast

import array_api_compat
import array_api_compat.numpy as numpy_namespace  # isdtype on NumPy < 2.0 too
import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import validate_data

from .._array_api import FLOAT_DTYPES, finish_fit, host_method, input_namespace, to_numpy
from .._validation import (
    check_coordinates,
    check_image_pair,
    check_magnitude,
    is_dask_collection,
)
from ..solvers.two_d import (
    image_residuals,
    kron_components,
    project_images,
    reconstruct_images,
)
from ._base import BaseSubspaceEstimator, as_generator
from ._lazy import lazy_rows_on_dask

__all__ = [
    "BaseTwoDEstimator",
    "check_image_shape",
    "check_one_sided_components",
    "check_two_sided_components",
]


def check_image_shape(image_shape, n_features: int) -> tuple[int, int]:
    """Validate ``image_shape`` against the number of features.

    ``None`` means ``(1, n_features)``: each sample is a one-row image.

    Raises
    ------
    TypeError
        If ``image_shape`` is not None or a pair of integers.
    ValueError
        If it has non-positive entries or ``height * width != n_features``.
    """
    if image_shape is None:
        return 1, int(n_features)
    return check_image_pair(image_shape, int(n_features), of="X", not_a_pair=TypeError)


def _check_count(value, name: str, kinds: str = "an int, a pair of ints or None") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {kinds}, got {type(value).__name__} ({value!r}).")
    return int(value)


def _bound_message(n_components, k, upper, side, image_shape, n_samples, n_features) -> str:
    return (
        f"n_components={n_components!r} gives {k} {side} components, which must be between "
        f"1 and {upper} (image_shape={image_shape}, n_samples={n_samples}, "
        f"n_features={n_features})."
    )


def check_one_sided_components(
    n_components, image_shape: tuple[int, int], n_samples: int, n_features: int
) -> int:
    """Number ``k`` of right projection axes of 2DPCA.

    ``k`` lies in ``[1, min(width, n_samples * height)]``: the image scatter is a sum of
    ``n_samples * height`` rank-one terms (the image rows), so beyond that bound the axes
    carry no data. With ``height = 1`` this is PCA's ``min(n_samples, n_features)``.
    ``None`` gives the upper bound.
    """
    h, w = image_shape
    upper = min(w, n_samples * h)
    if n_components is None:
        return upper
    k = _check_count(n_components, "n_components", "an int or None (2DPCA is one-sided)")
    if not 1 <= k <= upper:
        raise ValueError(
            _bound_message(n_components, k, upper, "right", image_shape, n_samples, n_features)
        )
    return k


def check_two_sided_components(
    n_components, image_shape: tuple[int, int], n_samples: int, n_features: int
) -> tuple[int, int]:
    """Numbers ``(k1, k2)`` of left and right components of a two-sided method.

    A pair is taken as given. An int ``k`` means ``(k, k)`` with each entry clipped to
    the image side, so that ``k`` gives ``min(k, height) * min(k, width)`` components
    (``k`` components for one-row images). ``None`` keeps every direction. Each of
    ``k1 <= min(height, n_samples * width)`` and ``k2 <= min(width, n_samples *
    height)`` must hold (see :func:`check_one_sided_components`).
    """
    h, w = image_shape
    upper = (min(h, n_samples * w), min(w, n_samples * h))
    if n_components is None:
        return upper
    if isinstance(n_components, numbers.Integral) and not isinstance(n_components, bool):
        k = int(n_components)
        ks = (min(k, h), min(k, w)) if k >= 1 else (k, k)
    else:
        try:
            pair = tuple(n_components)
        except TypeError:
            pair = ()
        if len(pair) != 2:
            raise TypeError(
                "n_components must be an int, a pair (k1, k2) of ints or None, got "
                f"{n_components!r}."
            )
        ks = cast(tuple[int, int], tuple(_check_count(v, "n_components") for v in pair))
    for k, bound, side in zip(ks, upper, ("left", "right"), strict=True):
        if not 1 <= k <= bound:
            raise ValueError(
                _bound_message(n_components, k, bound, side, image_shape, n_samples, n_features)
            )
    return ks


class BaseTwoDEstimator(BaseSubspaceEstimator):
    r"""Base class of the 2-D estimators: image shape, 2-D products, fitted attributes.

    Subclasses set ``_two_sided`` and implement ``_fit_solver(X, rng, sample_weight)``,
    reading ``self.image_shape_`` and ``self._ranks`` (``(k1, k2)``, with ``k1 = None``
    for 2DPCA), and return a :class:`~robustpca.solvers.SolverResult` whose ``info``
    holds ``right_components`` (and ``left_components``). Its ``components`` are not
    used (the solvers of :mod:`robustpca.solvers.two_d` skip them with
    ``dense_components=False``): ``components_`` is derived from the bases on demand.

    The fitted attributes below come besides those of :class:`BaseSubspaceEstimator`.

    Attributes
    ----------
    image_shape_ : (int, int)
        ``(height, width)`` used.
    left_components_ : ndarray of shape (height, k1)
        Left basis ``L`` (two-sided methods only).
    right_components_ : ndarray of shape (width, k2)
        Right basis ``R``.
    components_ : ndarray of shape (n_components_, height * width)
        Read-only property: :math:`(L \otimes R)^\top` (:math:`(I_h \otimes R)^\top` for
        2DPCA), built on first access and cached (not pickled).
    """

    _two_sided = True
    #: Instance-dict key of the cached ``(left, right, components_)`` triple.
    _DENSE_CACHE = "_dense_components_cache"

    def _fit(self, X, sample_weight=None):
        if is_dask_collection(X):
            from .._dask.fit import refuse_dask

            raise refuse_dask(self)
        xp, device = input_namespace(X)
        X = validate_data(self, to_numpy(X), dtype=FLOAT_DTYPES, ensure_min_samples=2, reset=True)
        check_magnitude(X)
        self._validate_common()
        n_samples, n_features = X.shape
        shape = check_image_shape(self.image_shape, n_features)
        if self._two_sided:
            self._ranks = check_two_sided_components(
                self.n_components, shape, n_samples, n_features
            )
            self.n_components_ = self._ranks[0] * self._ranks[1]
        else:
            k = check_one_sided_components(self.n_components, shape, n_samples, n_features)
            self._ranks = (None, k)
            self.n_components_ = shape[0] * k
        self.image_shape_ = shape
        result = self._fit_solver(X, as_generator(getattr(self, "random_state", None)))
        self._store(result)
        finish_fit(self, X.dtype, xp, device)
        self._set_outlier_reference(X)  # the outlier-detector API (_outlier_api)
        return X

    def _images(self, X: np.ndarray) -> np.ndarray:
        """``X`` of shape (n, h*w) as an (n, h, w) view."""
        return X.reshape(X.shape[0], *self.image_shape_)

    def _store_components(self, components) -> None:
        """``components_`` is derived from the bases (the read-only property below): only
        drop the dense matrix cached by a previous fit."""
        self.__dict__.pop(self._DENSE_CACHE, None)

    @property
    def components_(self):
        r"""Orthonormal rows :math:`(L \otimes R)^\top` of the map on flattened images.

        Shape ``(n_components_, height * width)``; for 2DPCA :math:`(I_h \otimes R)^\top`.
        Built from ``left_components_`` and ``right_components_`` on first access, in
        their dtype, namespace and device, and cached (it holds ``n_components_ *
        n_features_in_`` entries, which can exceed the data several times over); the
        transforms never need it.
        """
        right = self.__dict__.get("right_components_")
        if right is None:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet: components_ is "
                "built from the fitted bases."
            )
        left = self._left
        cached = self.__dict__.get(self._DENSE_CACHE)
        if cached is None or cached[0] is not left or cached[1] is not right:
            cached = (left, right, self._dense_components(left, right))
            self.__dict__[self._DENSE_CACHE] = cached
        return cached[2]

    def _dense_components(self, left, right):
        """:func:`~robustpca.solvers.two_d.kron_components` of the (possibly non-NumPy) bases."""
        host_right = to_numpy(right)
        host_left = None if left is None else np.asarray(to_numpy(left), dtype=np.float64)
        dense = kron_components(
            host_left, np.asarray(host_right, dtype=np.float64), self.image_shape_[0]
        )
        dense = dense.astype(host_right.dtype, copy=False)
        if isinstance(right, np.ndarray):
            return dense
        xp = array_api_compat.array_namespace(right)
        return xp.asarray(dense, device=array_api_compat.device(right))

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop(self._DENSE_CACHE, None)  # rebuilt on demand: pickles stay small
        return state

    @property
    def _n_features_out(self):
        return self.n_components_

    @property
    def _left(self) -> np.ndarray | None:
        return getattr(self, "left_components_", None) if self._two_sided else None

    def _centred_images(self, X) -> np.ndarray:
        X = self._check_X(X)
        return self._images(X - self.mean_)

    @lazy_rows_on_dask(lambda m: m.n_components_)
    @host_method("right_components_")
    def transform(self, X):
        """Coordinates ``L^T (A - M) R`` of each image, flattened in C order.

        Equal to ``(X - mean_) @ components_.T`` up to rounding, without that matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        E = self._centred_images(X)
        Z = project_images(E, self._left, self.right_components_)
        return Z.reshape(E.shape[0], -1)

    @lazy_rows_on_dask(lambda m: m.n_features_in_, lambda m: m.n_components_)
    @host_method("right_components_")
    def inverse_transform(self, X):
        """Images ``M + L Z R^T`` from coordinates ``Z`` (rows of :meth:`transform`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components_)

        Returns
        -------
        ndarray of shape (n_samples, height * width)
        """
        Z = check_coordinates(X, self.n_components_, numpy_namespace, np.float64)
        R = self.right_components_
        left = self._left
        k1 = self.image_shape_[0] if left is None else left.shape[1]
        images = reconstruct_images(Z.reshape(Z.shape[0], k1, R.shape[1]), left, R)
        return images.reshape(Z.shape[0], self.mean_.size) + self.mean_  # (0, d) for no row

    @lazy_rows_on_dask(lambda m: m.n_features_in_)
    @host_method("right_components_")
    def reconstruct(self, X):
        """Projection ``M + L L^T (A - M) R R^T`` of each image (denoised images).

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)

        Returns
        -------
        ndarray of shape (n_samples, height * width)
        """
        E = self._centred_images(X)
        left, right = self._left, self.right_components_
        images = reconstruct_images(project_images(E, left, right), left, right)
        return images.reshape(E.shape[0], -1) + self.mean_

    def _transform_and_distances(self, X):
        """``(transform(X), reconstruction_error(X))`` from one validation of ``X``."""
        if input_namespace(X)[0] is not None or not isinstance(self.mean_, np.ndarray):
            return self.transform(X), self.reconstruction_error(X)  # the host round trip
        E = self._centred_images(X)
        left, right = self._left, self.right_components_
        scores = project_images(E, left, right).reshape(E.shape[0], -1)
        return scores, image_residuals(E, left, right)

    @lazy_rows_on_dask()
    @host_method("right_components_")
    def reconstruction_error(self, X):
        """Per-image Frobenius norm of ``(A - M) - L L^T (A - M) R R^T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return image_residuals(self._centred_images(X), self._left, self.right_components_)
