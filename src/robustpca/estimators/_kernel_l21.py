"""Kernel PCA-L21: PCA-L21 on the kernel PCA embedding (Nie & Huang, sec. III.D)."""

from __future__ import annotations

import numbers
from typing import cast

import numpy as np
from scipy.sparse.linalg import ArpackError, eigsh
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from .._array_api import (
    FLOAT_DTYPES,
    host_copy,
    host_method,
    input_namespace,
    move_to,
    to_numpy,
)
from .._validation import check_magnitude, check_nonnegative_float, names_checked
from ..linalg import RANK_RTOL, flip_component_signs, positive_eigen_mask, top_eigh
from ..solvers.l21_pca import solve_l21_pca
from ._base import BaseSubspaceEstimator
from ._lazy import lazy_rows_on_dask
from ._outlier_api import with_detector_attributes

__all__ = ["KernelL21PCA"]

_KERNELS = tuple(sorted(PAIRWISE_KERNEL_FUNCTIONS))
_EIGEN_SOLVERS = ("auto", "dense", "arpack")
#: ``eigen_solver='auto'`` takes ARPACK above this many samples, for at most
#: ``n_samples / ARPACK_MIN_RATIO`` eigenpairs (the measurements in the docstring).
ARPACK_MIN_SAMPLES = 1000
ARPACK_MIN_RATIO = 40


def _check_count(value, name: str, upper: int, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__} ({value!r}).")
    if not 1 <= cast(int, value) <= upper:
        raise ValueError(f"{name}={value} must be between 1 and {what}={upper}.")
    return int(value)


#: kernels defined for non-negative data only
_NON_NEGATIVE_KERNELS = ("chi2", "additive_chi2")


class KernelL21PCA(BaseSubspaceEstimator):
    r"""Kernel PCA-L21: non-greedy L21-norm maximisation PCA in a kernel feature space.

    Nie & Huang (sec. III.D) kernelise PCA-L21 by the general framework of Zhang et al.
    for rotation- and shift-invariant linear methods: "the given data are transformed by
    KPCA, and then Algorithm 2 is performed on the transformed data". Here the data are
    mapped to the kernel PCA embedding

    .. math::
        y(x) = \Lambda^{-1/2} V^\top \tilde k(x), \qquad \tilde K = HKH = V\Lambda V^\top,

    (:math:`\tilde k(x)` the centred kernel column, :math:`H` the centring matrix), whose
    training coordinates :math:`Y = V\Lambda^{1/2}` satisfy :math:`YY^\top = \tilde K`:
    the centred feature vectors :math:`\phi(x_i) - \bar\phi` written in an orthonormal
    basis of their span. PCA-L21, problem (8),

    .. math:: \max_{W^\top W = I} \sum_{i=1}^n \lVert W^\top (y_i - \bar y) \rVert_2 ,

    is then solved on :math:`Y` by Algorithm 2
    (:func:`~robustpca.solvers.l21_pca.solve_l21_pca`); it is PCA-L21 in the feature
    space, since the objective is invariant to that choice of basis. With the linear
    kernel and the full embedding it is :class:`~robustpca.L21PCA` on the data.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of directions ``m`` in the embedding; ``None`` keeps ``n_embedding_``.
    kernel : str or callable, default='rbf'
        Any kernel of :func:`sklearn.metrics.pairwise.pairwise_kernels` (``'rbf'``,
        ``'linear'``, ``'poly'``, ``'sigmoid'``, ``'cosine'``, ``'laplacian'``,
        ``'chi2'``, ...) or a callable ``kernel(x, y) -> float``. ``'precomputed'`` is not
        offered: :meth:`transform` and :meth:`reconstruction_error` need the kernel on
        new samples and their self-similarities :math:`k(x, x)`.
    gamma : float or None, default=None
        Kernel coefficient of rbf, laplacian, poly, sigmoid and chi2; ``None`` uses
        ``1 / n_features`` (as :class:`sklearn.decomposition.KernelPCA`).
    degree : float, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=1
        Independent term of the poly and sigmoid kernels.
    kernel_params : dict or None, default=None
        Parameters of a callable kernel.
    n_embedding : int or None, default=None
        Number of kernel principal directions kept in the embedding. ``None`` keeps
        every direction with a numerically positive eigenvalue (the exact feature
        space of the training data); an int keeps the top ``n_embedding`` (a
        truncation, as in KPCA). Directions with a non-positive eigenvalue (an
        indefinite kernel such as sigmoid, or fewer directions than ``n_components``)
        get zero coordinates.
    eigen_solver : {'auto', 'dense', 'arpack'}, default='auto'
        How the top ``n_embedding`` eigenpairs of the centred kernel are found:
        ``'dense'`` by LAPACK (a Householder reduction, ``O(n^3)``), ``'arpack'`` by
        ARPACK's Lanczos iteration (:func:`scipy.sparse.linalg.eigsh`, products with
        the kernel only, to machine precision; it needs an int ``n_embedding`` below
        ``n_samples``, and its start vector is fixed, so fits are deterministic).
        ``'auto'`` takes ARPACK for an int ``n_embedding`` of at most ``n_samples / 40``
        with more than 1,000 samples, where Lanczos is the faster (few eigenpairs of a
        large kernel; ``docs/design-notes/estimator-options.md``), and LAPACK
        otherwise. Where ARPACK does not converge, LAPACK is used.
    init : {'pca', 'random'}, default='pca'
        Starting ``W`` of Algorithm 2: the top kernel principal directions, or a random
        orthonormal matrix drawn from ``random_state``.
    max_iter : int, default=500
        Maximum number of iterations of Algorithm 2.
    tol : float, default=1e-6
        Stop when the relative increase of objective (8) is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; ``state.components`` are in embedding
        coordinates. Returning ``True`` stops the fit.
    random_state : int, Generator or None, default=None
        Used by ``init='random'`` and to complete a rank-deficient basis.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_embedding)
        ``W^T``: orthonormal rows **in the embedding coordinates**, not in the input
        feature space (the directions live in the kernel's feature space).
    mean_ : ndarray of shape (n_embedding,)
        Mean of the embedded training data (zero up to rounding: the kernel is centred).
    eigenvalues_ : ndarray of shape (n_embedding,)
        Eigenvalues of the centred training kernel matrix kept in the embedding
        (non-positive ones are stored as 0).
    eigenvectors_ : ndarray of shape (n_samples, n_embedding)
        The matching unit eigenvectors :math:`V`.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training data (a copy), needed to evaluate the kernel on new samples.
    gamma_ : float
        The kernel coefficient used (``gamma`` or ``1 / n_features``).
    objective_history_ : ndarray
        Objective (8) after each iteration (non-decreasing, Theorem 1).
    <detector attributes>
    n_components_, n_embedding_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    ``inverse_transform`` is not offered: mapping a point of the feature space back
    to the input space is a pre-image problem that the paper does not address (and
    that has no exact solution in general). :meth:`reconstruction_error` is instead
    measured where it is exact, in the kernel's feature space:
    :math:`\lVert (I - P)(\phi(x) - \bar\phi - \mu) \rVert` with :math:`P` the projector
    on the fitted directions, computed from :math:`k(x, x)`, the kernel against the
    training data and the embedding. A kernel that is not positive semi-definite
    (sigmoid, in general) has no feature space: the embedding keeps the positive part
    of its spectrum (as KPCA does), and its reconstruction error, clipped at zero, is
    only a heuristic. Fitting costs an ``n x n`` kernel and one eigendecomposition,
    plus ``O(n r m)`` per iteration; its memory peak is two ``n x n`` arrays (the
    kernel, centred in place, and LAPACK's copy; ARPACK needs no copy), and
    :meth:`transform` and the scores hold one kernel of the new samples against the
    training data.

    As an outlier detector, choose ``n_components``. At ``None`` the model keeps the
    whole embedding, which reconstructs every training row: their ODs are only the
    eigenvalues the embedding drops (below ``RANK_RTOL`` of the largest; no OD cutoff,
    as rrcov's for ``k`` equal to the rank), and their score distances, in as many
    dimensions as rows, do not rank them. New rows off the training rows' span in the
    feature space are still flagged by their OD.

    References
    ----------
    F. Nie and H. Huang, "Non-Greedy L21-Norm Maximization for Principal Component
    Analysis", arXiv:1603.08293, sec. III.D, problem (8), Algorithm 2, Theorem 1.
    B. Schoelkopf, A. Smola and K.-R. Mueller, "Nonlinear component analysis as a kernel
    eigenvalue problem", Neural Computation 10(5), 1998 (KPCA).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import KernelL21PCA
    >>> rng = np.random.default_rng(0)
    >>> angle = rng.uniform(0, 2 * np.pi, 60)
    >>> X = np.c_[np.cos(angle), np.sin(angle)] * rng.choice([1.0, 3.0], 60)[:, None]
    >>> model = KernelL21PCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    >>> model.transform(X).shape
    (60, 2)
    >>> bool(np.all(np.diff(model.objective_history_) >= -1e-9))
    True
    """

    __doc__ = with_detector_attributes(__doc__, density=False)  # no score

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the chi-squared kernels are defined for non-negative data only
        tags.input_tags.positive_only = self.kernel in _NON_NEGATIVE_KERNELS
        return tags

    def __init__(
        self,
        n_components=None,
        *,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        n_embedding=None,
        eigen_solver="auto",
        init="pca",
        max_iter=500,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_embedding = n_embedding
        self.eigen_solver = eigen_solver
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    #: a variance share or "auto" would need the spectrum of the kernel's feature space
    _supports_auto_rank = False
    #: components_ live in the embedding, not the input space: no linear map back
    _linear_model = False

    # -- parameters and kernel ------------------------------------------------------
    def _check_params(self) -> None:
        if self.kernel_params is not None and not isinstance(self.kernel_params, dict):
            raise TypeError(f"kernel_params must be a dict or None, got {self.kernel_params!r}.")
        named = isinstance(self.kernel, str) and self.kernel in _KERNELS
        if not (callable(self.kernel) or named):
            raise ValueError(
                f"kernel={self.kernel!r} must be a callable or one of {_KERNELS} "
                "('precomputed' is not supported)."
            )
        if self.gamma is not None:
            check_nonnegative_float(self.gamma, "gamma")
        check_nonnegative_float(self.degree, "degree")
        if isinstance(self.coef0, bool) or not isinstance(self.coef0, numbers.Real):
            raise TypeError(f"coef0 must be a real number, got {self.coef0!r}.")
        if not np.isfinite(float(self.coef0)):
            raise ValueError(f"coef0={self.coef0!r} must be finite.")
        if not (isinstance(self.eigen_solver, str) and self.eigen_solver in _EIGEN_SOLVERS):
            raise ValueError(f"eigen_solver={self.eigen_solver!r} must be one of {_EIGEN_SOLVERS}.")
        if not (isinstance(self.init, str) and self.init in ("pca", "random")):
            raise ValueError(f"init={self.init!r} must be 'pca' or 'random'.")

    def _check_n_components(self, n_samples: int, n_features: int) -> int:
        """The directions live in the embedding, of at most ``n_samples`` dimensions;
        ``None`` (all of ``n_embedding_``) is resolved by :meth:`_fit_solver`."""
        _check_count(self.n_embedding, "n_embedding", n_samples, "n_samples")
        k = _check_count(self.n_components, "n_components", n_samples, "n_samples")
        if self.n_embedding is not None and (k or 1) > self.n_embedding:
            raise ValueError(
                f"n_components={self.n_components} must not exceed n_embedding={self.n_embedding}."
            )
        if self.eigen_solver == "arpack" and (self.n_embedding or n_samples) >= n_samples:
            raise ValueError(
                f"eigen_solver='arpack' needs an int n_embedding below n_samples={n_samples}, "
                f"got n_embedding={self.n_embedding!r}."
            )
        return n_samples if k is None else k

    def _kernel(self, X, Y=None) -> np.ndarray:
        if callable(self.kernel):
            params = self.kernel_params or {}
        else:
            params = {"gamma": self.gamma_, "degree": self.degree, "coef0": self.coef0}
        if self.kernel in _NON_NEGATIVE_KERNELS:
            # scikit-learn's message (positive_only tag); its Cython kernels need
            # writable arrays (a read-only memmap otherwise fails)
            X, Y = (None if A is None else np.array(A) for A in (X, Y))
            for A in (X, Y):
                if A is not None:
                    check_non_negative(A, f"KernelL21PCA (kernel={self.kernel!r})")
        with np.errstate(invalid="ignore", over="ignore"):  # checked just below
            K = pairwise_kernels(X, Y, metric=self.kernel, filter_params=True, **params)
        if not np.isfinite(K).all():
            hint = ""
            if self.kernel in ("poly", "polynomial") and float(self.degree) % 1:
                hint = f" (a non-integer degree={self.degree!r} of a negative base)"
            raise ValueError(
                f"kernel={self.kernel!r} gave non-finite values{hint}; check its parameters."
            )
        # float32 data keep float32 (scikit-learn's laplacian kernel is float64 always)
        dtype = np.result_type(X, X if Y is None else Y)
        return K.astype(dtype, copy=False) if dtype == np.float32 else K

    def _self_similarity(self, X) -> np.ndarray:
        """``k(x_i, x_i)`` for every row.

        A named kernel is evaluated on blocks of rows and its diagonal kept: about
        ``2^20`` kernel terms per call (``2^20 / n_features`` rows, at most 256), where
        one call per row spent most of the scoring time in Python's overhead.
        A callable kernel, called once per pair by scikit-learn, still gets one call
        per row.
        """
        if callable(self.kernel):
            return np.array([self._kernel(x[None, :])[0, 0] for x in X], dtype=np.float64)
        step = max(1, min(256, 2**20 // max(X.shape[1], 1)))
        out = np.empty(X.shape[0], dtype=np.float64)
        for start in range(0, X.shape[0], step):
            out[start : start + step] = np.diagonal(self._kernel(X[start : start + step]))
        return out

    # -- fitting --------------------------------------------------------------------
    def _fit_embedding(self, K: np.ndarray) -> np.ndarray:
        """The embedding of the training kernel ``K``, which is centred in place (it is
        the fit's own array): no other ``n x n`` array than LAPACK's copy. It is not
        symmetrised either: LAPACK reads its lower triangle, and it is symmetric to
        rounding for ARPACK's products."""
        n = K.shape[0]
        self._K_col_mean = K.mean(axis=0)
        self._K_mean = float(self._K_col_mean.mean())
        Kc = K
        Kc -= self._K_col_mean[None, :]
        Kc -= self._K_col_mean[:, None]
        Kc += self._K_mean
        if self.n_embedding is None:
            vals, vecs = top_eigh(Kc, n)
            r = max(int(positive_eigen_mask(vals).sum()), self.n_components or 1)
            vals, vecs = vals[:r], vecs[:, :r]
        else:
            vals, vecs = self._top_pairs(Kc, self.n_embedding)
        keep = positive_eigen_mask(vals)
        vals = np.where(keep, vals, 0.0)
        vecs = flip_component_signs(vecs.T).T  # deterministic signs
        root = np.sqrt(vals)
        self.eigenvalues_, self.eigenvectors_ = vals, vecs
        self.n_embedding_ = vals.size
        return vecs * root  # Y = V Lambda^{1/2}, so Y Y^T = Kc

    @property
    def _distance_truncation(self) -> float:
        """The largest distance of a training row to the embedding's span (the root of
        the largest eigenvalue dropped: each row's squared distance is the sum of those
        times its squared eigenvector entries, at most one) where the embedding keeps
        every eigenvalue above ``RANK_RTOL`` of the largest (``n_embedding=None``): the
        distances and scales below it are the truncation's, not the data's
        (:func:`robustpca._distance_rounding.rounding_levels`)."""
        if self.n_embedding is not None or not self.eigenvalues_.size:
            return 0.0
        return float(np.sqrt(RANK_RTOL * max(float(self.eigenvalues_[0]), 0.0)))

    @property
    def _distance_dimension(self) -> float:
        """The dimension of the feature space where the distances are taken: the input
        space's for the linear kernel, unbounded otherwise (so that a new row off the
        training rows' span is flagged, :func:`robustpca._distance_rounding.span_od`)."""
        return float(self.n_features_in_) if self.kernel == "linear" else np.inf

    def _embedding_coefficients(self) -> np.ndarray:
        """``V Lambda^{-1/2}`` (zero for the eigenvalues not kept): a new row's embedding
        is its centred kernel row times these. Formed per call, not stored, so that the
        model (and its pickle) holds the n x r eigenvectors once."""
        root = np.sqrt(self.eigenvalues_)
        inverse = np.divide(1.0, root, out=np.zeros_like(root), where=root > 0)
        return self.eigenvectors_ * inverse

    def _use_arpack(self, n: int) -> bool:
        k = self.n_embedding
        if self.eigen_solver == "arpack":
            return True  # n_embedding < n_samples checked with n_components
        return (
            self.eigen_solver == "auto"
            and k is not None
            and n > ARPACK_MIN_SAMPLES
            and ARPACK_MIN_RATIO * k <= n
        )

    def _top_pairs(self, Kc: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The top ``k`` eigenpairs of the centred kernel, in decreasing order."""
        n = Kc.shape[0]
        if self._use_arpack(n):
            # fixed start: Kc's null space holds the constant vector, not a random one
            v0 = np.random.default_rng(0).uniform(-1.0, 1.0, n)
            try:
                vals, vecs = eigsh(Kc, k=k, which="LA", v0=v0, tol=0.0)
            except ArpackError:  # no convergence: LAPACK below
                pass
            else:
                order = np.argsort(vals)[::-1]
                return vals[order], vecs[:, order]
        return top_eigh(Kc, k)

    def _fit_solver(self, X, rng, sample_weight=None):
        """Embed ``X`` by kernel PCA, then Algorithm 2 of Nie & Huang on the embedding."""
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        self.X_fit_ = X.copy()
        # the kernel and its eigendecomposition in float64, also for float32 data
        Y = self._fit_embedding(self._kernel(X.astype(np.float64, copy=False)))
        if self.n_components is None:
            self.n_components_ = self.n_embedding_
        return solve_l21_pca(
            Y,
            self.n_components_,
            rng=rng,
            init=self.init,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
        )

    def fit_transform(self, X, y=None):
        r"""Fit, then return the training data's coordinates on the fitted directions.

        The training embedding is :math:`Y = V\Lambda^{1/2}` (``eigenvectors_`` times the
        root of ``eigenvalues_``), so no kernel is evaluated again.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; never modified.
        y : Ignored

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        self.fit(X)
        xp, device = input_namespace(X)
        host = host_copy(self)
        Y = host.eigenvectors_ * np.sqrt(host.eigenvalues_)
        Z = (Y - host.mean_) @ host.components_.T
        return Z if xp is None else move_to(Z, xp=xp, device=device)

    # -- transforming ---------------------------------------------------------------
    def _embed(self, X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Validated ``X``, the row means of its kernel against the training data, and its
        embedding (that kernel is centred in place: one ``n x n_train`` array)."""
        check_is_fitted(self)
        # read as fit reads it (an array of another namespace, dispatch on or off)
        X = validate_data(self, to_numpy(X), dtype=FLOAT_DTYPES, reset=False)
        check_magnitude(X)
        Kc = self._kernel(X, self.X_fit_)  # float32 only for a float32 fit and X
        row_mean = Kc.mean(axis=1)
        Kc -= row_mean[:, None]
        Kc -= self._K_col_mean[None, :]
        Kc += self._K_mean
        return X, row_mean, Kc @ self._embedding_coefficients()

    @lazy_rows_on_dask(lambda m: m.n_embedding_)
    @host_method()
    def embed(self, X):
        """Kernel PCA coordinates :math:`y(x)` of ``X`` (before PCA-L21).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples in the input space; the kernel is evaluated against ``X_fit_``.

        Returns
        -------
        ndarray of shape (n_samples, n_embedding)
        """
        return self._embed(X)[2]

    @lazy_rows_on_dask(lambda m: m.n_components_)
    @host_method()
    def transform(self, X):
        """Coordinates of ``X`` on the fitted directions: ``(y(x) - mean_) @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples in the input space, embedded by :meth:`embed` first.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return (self.embed(X) - self.mean_) @ self.components_.T

    @lazy_rows_on_dask()
    @host_method()
    def reconstruction_error(self, X):
        r"""Per-sample distance, in the kernel's feature space, to the fitted subspace.

        :math:`\lVert (I - P)(\phi(x) - \bar\phi - \mu)\rVert_2` where :math:`\bar\phi` is
        the training mean in feature space, :math:`\mu` = ``mean_`` and :math:`P` projects
        on the fitted directions. Parts of :math:`\phi(x)` outside the span of the
        training data count fully (they are orthogonal to the subspace). Computed as
        :math:`\sqrt{\lVert\phi(x) - \bar\phi - \mu\rVert^2 - \lVert z\rVert^2}` with
        :math:`z` = ``transform(x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples in the input space; :math:`k(x, x)` is evaluated for each.

        Returns
        -------
        ndarray of shape (n_samples,)
            In the dtype of :meth:`transform` (float32 for a float32 model and data).
        """
        Z, distances = self._scores_and_distances(X)
        return distances.astype(Z.dtype, copy=False)

    def _transform_and_distances(self, X):
        """``(transform(X), reconstruction_error(X))`` from one kernel evaluation (the
        outlier API and the diagnostics need both)."""
        if input_namespace(X)[0] is not None or not isinstance(self.components_, np.ndarray):
            return self.transform(X), self.reconstruction_error(X)  # the host round trip
        Z, distances = self._scores_and_distances(X)
        return Z, distances.astype(Z.dtype, copy=False)

    def _scores_and_distances(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``transform(X)`` and ``reconstruction_error(X)`` from one kernel evaluation
        (host arrays: called on NumPy data and a host copy of the model)."""
        X, row_mean, Y = self._embed(X)
        sq = self._self_similarity(X) - 2.0 * row_mean + self._K_mean  # ||phi - phibar||^2
        sq += -2.0 * (Y @ self.mean_) + float(self.mean_ @ self.mean_)
        Z = (Y - self.mean_) @ self.components_.T
        return Z, np.sqrt(np.maximum(sq - np.einsum("ij,ij->i", Z, Z), 0.0))

    def _reference_distances(self, X):
        """Training scores and distances for the outlier API (:mod:`._outlier_api`), in
        the kernel's feature space: this model's own ``transform`` and
        ``reconstruction_error``, on the host."""
        host = host_copy(self)
        with names_checked(host):
            scores, od = host._scores_and_distances(to_numpy(X))
        return np.asarray(scores, dtype=np.float64), np.asarray(od, dtype=np.float64)
