"""2-D image methods: 2DPCA, GLRAM and robust 2DPCA with the optimal mean (R2DPCA)."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_bool, check_nonnegative_float, resolve_epsilon
from ..linalg.eigen import single_blas_thread
from ..losses import CappedL2Loss, L21Loss
from ..solvers.two_d import (
    CentredImages,
    image_residuals,
    initial_two_d_bases,
    solve_glram,
    solve_robust_two_d_pca,
    solve_two_d_pca,
)
from ._base import warn_if_all_capped
from ._two_d_base import BaseTwoDEstimator

__all__ = ["GLRAM", "CappedRobust2DPCA", "Robust2DPCA", "TwoDPCA"]


class TwoDPCA(BaseTwoDEstimator):
    r"""Two-dimensional PCA (2DPCA) of Yang et al. (2004).

    Projects each image :math:`A_i` (h x w) on ``k`` right axes, :math:`Y_i = (A_i -
    \bar A) V`, where :math:`V` (w x k) holds the top eigenvectors of the image scatter

    .. math:: G = \frac1n \sum_{i=1}^n (A_i - \bar A)^\top (A_i - \bar A),

    the maximiser of the total scatter :math:`J(V) = \mathrm{tr}(V^\top G V)` of the
    projected images over :math:`V^\top V = I` (Yang et al., eqs. 3-6). The features and
    reconstructions are those of the centred images, as every estimator here centres:
    Yang et al. project the raw images (:math:`Y_i = A_i V`, :math:`A_i V V^\top`),
    which shifts every feature matrix by :math:`\bar A V` and leaves the distances
    between them, which their classifier uses, unchanged.

    Parameters
    ----------
    n_components : int or None, default=None
        Number ``k`` of projection axes, in ``[1, min(width, n_samples * height)]``;
        ``None`` keeps that upper bound.
    image_shape : (int, int) or None, default=None
        ``(height, width)``; rows of ``X`` are images flattened in C order. ``None``
        treats each sample as a ``1 x n_features`` image, for which 2DPCA is PCA.
    random_state : int, Generator or None, default=None
        Only used to complete the basis when ``G`` has fewer than ``k`` positive
        eigenvalues.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    right_components_ : ndarray of shape (width, k)
        The projection axes :math:`V`.
    components_ : ndarray of shape (height * k, height * width)
        :math:`(I_h \otimes V)^\top`, the same map on flattened images (orthonormal rows);
        a read-only property built on first access (it is ``h k / n`` times the size
        of the data), never needed by the transforms.
    mean_ : ndarray of shape (height * width,)
        The mean image :math:`\bar A`, flattened.
    n_components_ : int
        ``height * k``, the length of a transformed sample.
    explained_variance_ : ndarray of shape (k,)
        The top eigenvalues of ``G`` (with its ``1/n``; for ``height = 1`` they are
        ``(n-1)/n`` times those of PCA).
    objective_history_ : ndarray of shape (1,)
        :math:`J(V)`.
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
    image_shape_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    ``transform`` returns :math:`(A - \bar A)V` flattened in C order, computed image by
    image. ``G`` is a PCA scatter of the ``n * height`` image rows; when they are fewer
    than ``width`` its eigenvectors come from their Gram matrix.

    References
    ----------
    J. Yang, D. Zhang, A. F. Frangi and J.-Y. Yang, "Two-dimensional PCA: a new approach
    to appearance-based face representation and recognition", IEEE TPAMI 26(1):131-137,
    2004, eqs. (3)-(6).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import TwoDPCA
    >>> X = np.random.default_rng(0).normal(size=(20, 6 * 5))
    >>> model = TwoDPCA(n_components=2, image_shape=(6, 5)).fit(X)
    >>> model.right_components_.shape, model.transform(X).shape
    ((5, 2), (20, 12))
    >>> bool(np.allclose(model.transform(X), (X - model.mean_) @ model.components_.T))
    True
    """

    _two_sided = False

    def __init__(
        self, n_components=None, *, image_shape=None, random_state=None, contamination="auto"
    ):
        self.n_components = n_components
        self.image_shape = image_shape
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver(self, X, rng, sample_weight=None):
        return solve_two_d_pca(self._images(X), self._ranks[1], rng=rng, dense_components=False)


class GLRAM(BaseTwoDEstimator):
    r"""Generalized low rank approximations of matrices (GLRAM) of Ye (2005).

    Finds :math:`L` (h x k1) and :math:`R` (w x k2) with orthonormal columns solving

    .. math::
        \max_{L^\top L = I,\; R^\top R = I} \sum_{i=1}^n \lVert L^\top (A_i - M) R
        \rVert_F^2 ,

    equivalently :math:`\min \sum_i \lVert (A_i - M) - L L^\top (A_i - M) R R^\top
    \rVert_F^2`, by Ye's alternating eigen-updates: ``L`` = top eigenvectors of
    :math:`\sum_i E_i RR^\top E_i^\top`, then ``R`` = top eigenvectors of
    :math:`\sum_i E_i^\top LL^\top E_i` (Theorem 3.3). The objective never decreases.

    Ye's GLRAM approximates the images themselves (:math:`M = 0`); as a PCA method
    (and as the baseline of Zhang & Tong 2019) it is used on centred images. We centre
    by default: the arithmetic mean is the optimal :math:`M` of the squared loss for
    every ``L, R`` (the argument of Theorem 1 of Zhang & Tong with unit weights).

    Parameters
    ----------
    n_components : int, (int, int) or None, default=None
        ``(k1, k2)``; an int ``k`` means ``(k, k)``, each clipped to its image side
        (so ``k`` components for ``1 x d`` images). ``None`` keeps every direction.
    image_shape : (int, int) or None, default=None
        ``(height, width)``; ``None`` treats each sample as a ``1 x n_features`` image
        (then GLRAM is PCA).
    center : bool, default=True
        Subtract the mean image (``False``: Ye's uncentred GLRAM, ``mean_`` = 0).
    init : {'2dpca', 'identity'}, default='2dpca'
        Starting ``R``: the 2DPCA axes, or that of Ye's start
        :math:`L_0 = (I_{k_1}, 0)^\top` (his Algorithm GLRAM updates ``R`` first).
    max_iter : int, default=100
        Maximum number of sweeps.
    tol : float, default=1e-6
        Stop when the relative change of the objective over a sweep is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each sweep; returning ``True`` stops.
    random_state : int, Generator or None, default=None
        Only used to complete rank-deficient bases.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    left_components_ : ndarray of shape (height, k1)
    right_components_ : ndarray of shape (width, k2)
    components_ : ndarray of shape (k1 * k2, height * width)
        :math:`(L \otimes R)^\top` (orthonormal rows), built on first access.
    mean_ : ndarray of shape (height * width,)
    objective_history_ : ndarray
        :math:`\sum_i \lVert L^\top (A_i - M) R\rVert_F^2` after each sweep.
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
    image_shape_, n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    References
    ----------
    J. Ye, "Generalized low rank approximations of matrices", Machine Learning
    61:167-191, 2005 (ICML 2004), Algorithm GLRAM, Theorem 3.3.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import GLRAM
    >>> X = np.random.default_rng(0).normal(size=(30, 8 * 6))
    >>> model = GLRAM(n_components=(3, 2), image_shape=(8, 6)).fit(X)
    >>> model.left_components_.shape, model.right_components_.shape, model.components_.shape
    ((8, 3), (6, 2), (6, 48))
    >>> bool(np.all(np.diff(model.objective_history_) >= 0))
    True
    """

    def __init__(
        self,
        n_components=None,
        *,
        image_shape=None,
        center=True,
        init="2dpca",
        max_iter=100,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.image_shape = image_shape
        self.center = center
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver(self, X, rng, sample_weight=None):
        check_bool(self.center, "center")
        if not (isinstance(self.init, str) and self.init in ("2dpca", "identity")):
            raise ValueError(f"init={self.init!r} must be '2dpca' or 'identity'.")
        return solve_glram(
            self._images(X),
            self._ranks,
            rng=rng,
            center=bool(self.center),
            init=self.init,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
            dense_components=False,
        )


class Robust2DPCA(BaseTwoDEstimator):
    r"""Robust 2DPCA with the optimal mean (R2DPCA), problem (5) of Zhang & Tong (2019).

    Solves

    .. math::
        \min_{M,\; L^\top L = I,\; R^\top R = I} \sum_{i=1}^n
        \sqrt{\lVert (A_i - M) - L L^\top (A_i - M) R R^\top \rVert_F^2 + \epsilon},

    the non-squared Frobenius reconstruction error of Zhang, Nie & Li (2017) with the
    mean image ``M`` a variable, by re-weighting (Nie et al. 2014, Algorithm 2): with
    :math:`d_i = 1 / (2\sqrt{r_i^2 + \epsilon})` each iteration sets ``M`` to the
    ``d``-weighted mean image and updates ``L`` and ``R`` by weighted GLRAM
    eigen-updates, warm-started at the current bases. Each block is minimised exactly,
    so the objective never increases. The first iteration (unit weights) is one sweep of
    centred GLRAM from the (2D)^2PCA bases.

    Parameters
    ----------
    n_components : int, (int, int) or None, default=None
        ``(k1, k2)``; an int ``k`` means ``(k, k)`` clipped to the image sides.
    image_shape : (int, int) or None, default=None
        ``(height, width)``; ``None`` treats each sample as a ``1 x n_features`` image,
        for which the method is RPCA-OM (:class:`~robustpca.OptimalMeanPCA`).
    epsilon : float or 'auto', default='auto'
        Smoothing of Nie et al. (2014, footnote 1); ``'auto'`` is ``1e-12`` times the
        mean squared norm of the centred data.
    max_iter : int, default=100
        Maximum number of re-weighting iterations.
    tol : float, default=1e-6
        Stop when the relative decrease of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.
    random_state : int, Generator or None, default=None
        Only used to complete rank-deficient bases.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    left_components_ : ndarray of shape (height, k1)
    right_components_ : ndarray of shape (width, k2)
    components_ : ndarray of shape (k1 * k2, height * width)
        :math:`(L \otimes R)^\top` (orthonormal rows), built on first access.
    mean_ : ndarray of shape (height * width,)
        The optimal mean image ``M``, flattened.
    weights_ : ndarray of shape (n_samples,)
        :math:`d_i` at the solution (small for outlying images).
    residuals_ : ndarray of shape (n_samples,)
        Training residuals :math:`r_i = \lVert E_i - LL^\top E_i RR^\top\rVert_F`.
    epsilon_ : float
    objective_history_ : ndarray
        The objective after each iteration (non-increasing).
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
    image_shape_, n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    At a fixed point ``M`` is the ``d``-weighted mean, so
    :math:`\sum_i (I - P)\,\mathrm{vec}(A_i - M) / \sqrt{r_i^2+\epsilon} = 0` with
    :math:`P = LL^\top \otimes RR^\top`: the stationarity condition of the mean, the 2-D
    form of eq. (23) of Nie et al. (2014). Zhang & Tong print the reconstruction in
    problem (5) as :math:`U_1 U_2^\top (A_i - M) U_2 U_2^\top`; with
    :math:`U_1 \in \mathbb{R}^{h \times d_1}` only :math:`U_1 U_1^\top` is dimensionally
    possible, as in their problem (4).

    References
    ----------
    R. Zhang and H. Tong, "Robust principal component analysis with adaptive
    neighbors", NeurIPS 2019, problems (4)-(5); R. Zhang, F. Nie and X. Li,
    "Auto-weighted two-dimensional principal component analysis with robust outliers",
    ICASSP 2017; F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component
    analysis", ICML 2014, Algorithm 2 and Theorem 1.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import Robust2DPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 8 * 8)) + 5.0
    >>> X[:4] += 50 * rng.normal(size=(4, 64))                # 4 grossly corrupted images
    >>> model = Robust2DPCA(n_components=3, image_shape=(8, 8)).fit(X)
    >>> bool(model.weights_[:4].max() < model.weights_[4:].min())
    True
    >>> bool(np.all(np.diff(model.objective_history_) <= 1e-9 * model.objective_history_[0]))
    True
    """

    def __init__(
        self,
        n_components=None,
        *,
        image_shape=None,
        epsilon="auto",
        max_iter=100,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.image_shape = image_shape
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _epsilon(self, X) -> float:
        Xc = X - X.mean(axis=0, dtype=np.float64)
        return resolve_epsilon(self.epsilon, float(np.einsum("ij,ij->", Xc, Xc)) / X.shape[0])

    def _make_loss(self, X, images, rng):
        self.epsilon_ = self._epsilon(X)
        return L21Loss(epsilon=self.epsilon_), None

    def _fit_solver(self, X, rng, sample_weight=None):
        images = self._images(X)
        loss, init = self._make_loss(X, images, rng)
        with single_blas_thread():  # products per image (docs/design-notes/linear-algebra.md)
            result = solve_robust_two_d_pca(
                images,
                self._ranks,
                loss,
                rng=rng,
                init=init,
                max_iter=self.max_iter,
                tol=self.tol,
                callback=self.callback,
                dense_components=False,
            )
        threshold = getattr(self, "threshold_", None)
        warn_if_all_capped(result, threshold, unit="image")
        return result


class CappedRobust2DPCA(Robust2DPCA):
    r"""Capped robust 2DPCA with the optimal mean (capped R2DPCA, Zhang et al. 2017).

    Problem (5) of Zhang & Tong (2019) with the capped loss,

    .. math::
        \min_{M,\; L^\top L = I,\; R^\top R = I} \sum_{i=1}^n
        \min\Bigl(\sqrt{\lVert (A_i - M) - L L^\top (A_i - M) R R^\top\rVert_F^2
        + \epsilon},\; \theta\Bigr),

    solved like :class:`Robust2DPCA`: images whose residual reaches the cap
    :math:`\theta` get weight zero and no longer influence ``M``, ``L`` or ``R`` (Nie et
    al. 2014, sec. 3.2). The objective never increases.

    Parameters
    ----------
    n_components : int, (int, int) or None, default=None
        As in :class:`Robust2DPCA`.
    image_shape : (int, int) or None, default=None
        As in :class:`Robust2DPCA`.
    threshold : float or None, default=None
        The cap :math:`\theta`, in the units of the pixel values (a Frobenius norm of a
        residual image). Give it: Zhang & Tong tune it on a grid (sec. 5.1). ``None``
        (so that default-constructed instances work) uses twice the median of
        :math:`\sqrt{r_i^2 + \epsilon}` at the starting point (arithmetic mean,
        (2D)^2PCA bases) -- a heuristic of this library, not of the paper.
    epsilon, max_iter, tol, callback, random_state
        As in :class:`Robust2DPCA`.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    threshold_ : float
        The cap used.
    weights_ : ndarray of shape (n_samples,)
        Zero for the images beyond the cap.
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
    left_components_, right_components_, components_, mean_, residuals_, epsilon_,
    objective_history_, image_shape_, n_components_, n_features_in_, n_iter_,
    converged_, stop_reason_
        As in :class:`Robust2DPCA`.

    Notes
    -----
    Like Algorithm 2 of Nie et al. (2014) the loop starts from unit weights, i.e. from a
    non-robust fit: an image is capped for good as soon as its residual reaches
    :math:`\theta`, so :math:`\theta` must exceed the residuals of the clean images at
    that start, which gross outliers inflate. When every image is capped the fit stops
    with a warning.

    References
    ----------
    R. Zhang, F. Nie and X. Li, ICASSP 2017 (capped model); R. Zhang and H. Tong,
    NeurIPS 2019, problem (5) and sec. 5.1; F. Nie, J. Yuan and H. Huang, ICML 2014,
    sec. 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import CappedRobust2DPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 8 * 8)) + 5.0
    >>> X += 0.01 * rng.normal(size=X.shape)
    >>> X[:4] += 50 * rng.normal(size=(4, 64))                # 4 grossly corrupted images
    >>> model = CappedRobust2DPCA(n_components=3, image_shape=(8, 8)).fit(X)
    >>> model.weights_[:4]
    array([0., 0., 0., 0.])
    >>> bool(np.all(model.weights_[4:] > 0))
    True
    """

    def __init__(
        self,
        n_components=None,
        *,
        image_shape=None,
        threshold=None,
        epsilon="auto",
        max_iter=100,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        super().__init__(
            n_components,
            image_shape=image_shape,
            epsilon=epsilon,
            max_iter=max_iter,
            tol=tol,
            callback=callback,
            random_state=random_state,
        )
        self.threshold = threshold
        self.contamination = contamination

    def _make_loss(self, X, images, rng):
        self.epsilon_ = self._epsilon(X)
        init = None
        if self.threshold is None:
            E = CentredImages(images, images.mean(axis=0, dtype=np.float64))  # by blocks
            init = initial_two_d_bases(E, *self._ranks, rng)
            r0 = image_residuals(E, *init)
            # in the units of the smoothed loss, so that rounding-level residuals of
            # exactly reconstructed data stay below the cap
            threshold = 2.0 * float(np.median(np.sqrt(r0 * r0 + self.epsilon_)))
            if not threshold > 0:  # all-zero centred data and epsilon=0
                threshold = 1.0
        else:
            if isinstance(self.threshold, bool) or not isinstance(self.threshold, numbers.Real):
                raise TypeError(f"threshold must be a real number, got {self.threshold!r}.")
            threshold = check_nonnegative_float(self.threshold, "threshold", strict=True)
        self.threshold_ = threshold
        return CappedL2Loss(threshold=threshold, epsilon=self.epsilon_), init
