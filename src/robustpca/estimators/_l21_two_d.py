"""2-D PCA-L21: non-greedy L21-norm maximisation on images (Nie & Huang, sec. III.D)."""

from __future__ import annotations

from .._array_api import host_method
from ..linalg.eigen import single_blas_thread
from ..solvers.l21_two_d import l21_two_d_objective, solve_l21_two_d
from ._two_d_base import BaseTwoDEstimator

__all__ = ["L21TwoDPCA"]


class L21TwoDPCA(BaseTwoDEstimator):
    r"""Two-dimensional PCA-L21, problem (27) of Nie & Huang.

    Finds :math:`U` (h x k1) and :math:`V` (w x k2) with orthonormal columns solving

    .. math::
        \max_{U^\top U = I,\; V^\top V = I} \sum_{i=1}^n \lVert U^\top (A_i - \bar A) V
        \rVert_F ,

    the 2-D counterpart of PCA-L21's :math:`\max \sum_i \lVert W^\top x_i\rVert_2`
    (problem 8). As the paper proposes, ``U`` and ``V`` are optimised in turn, each by
    Algorithm 2 (the non-greedy L21 maximisation: :math:`\alpha_i = U^\top E_i V /
    \lVert U^\top E_i V\rVert_F`, then the polar factor of :math:`\sum_i E_i^\top U
    \alpha_i`). The objective never decreases (Theorem 3) and a limit point satisfies
    the KKT conditions of each block (Theorems 2 and 4).

    The paper assumes centred images; we centre by the arithmetic mean (``mean_``). The
    objective depends on ``U`` and ``V`` only through their spans; the fitted bases are
    rotated to the principal axes of the projected images (columns sorted by projected
    variance), which changes neither.

    Parameters
    ----------
    n_components : int, (int, int) or None, default=None
        ``(k1, k2)``; an int ``k`` means ``(k, k)`` clipped to the image sides.
    image_shape : (int, int) or None, default=None
        ``(height, width)``; ``None`` treats each sample as a ``1 x n_features`` image,
        for which the method is PCA-L21 (:class:`~robustpca.L21PCA`).
    init : {'2dpca', 'random'}, default='2dpca'
        Starting bases: the (2D)^2PCA bases (top eigenvectors of
        :math:`\sum_i E_i E_i^\top` and :math:`\sum_i E_i^\top E_i`) or random
        orthonormal matrices drawn from ``random_state``.
    max_iter : int, default=100
        Maximum number of alternations; each inner Algorithm-2 loop is capped by it too.
    tol : float, default=1e-6
        Stop when the relative increase of the objective over an alternation is at most
        ``tol`` (each inner loop stops on the same criterion).
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each alternation; returning ``True`` stops.
    random_state : int, Generator or None, default=None
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    left_components_ : ndarray of shape (height, k1)
        :math:`U`.
    right_components_ : ndarray of shape (width, k2)
        :math:`V`.
    components_ : ndarray of shape (k1 * k2, height * width)
        :math:`(U \otimes V)^\top` (orthonormal rows).
    mean_ : ndarray of shape (height * width,)
        The arithmetic mean image.
    objective_history_ : ndarray
        Objective (27) after each alternation (non-decreasing).
    n_inner_iter_ : int
        Algorithm-2 iterations run in all.
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
    F. Nie and H. Huang, "Non-Greedy L21-Norm Maximization for Principal Component
    Analysis", arXiv:1603.08293, sec. III.D, problem (27), Algorithms 1-3, Theorems 1-4.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import L21TwoDPCA
    >>> X = np.random.default_rng(0).normal(size=(30, 7 * 6))
    >>> model = L21TwoDPCA(n_components=(3, 2), image_shape=(7, 6)).fit(X)
    >>> model.components_.shape
    (6, 42)
    >>> bool(np.all(np.diff(model.objective_history_) >= 0))
    True
    """

    def __init__(
        self,
        n_components=None,
        *,
        image_shape=None,
        init="2dpca",
        max_iter=100,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.image_shape = image_shape
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver(self, X, rng, sample_weight=None):
        if not (isinstance(self.init, str) and self.init in ("2dpca", "random")):
            raise ValueError(f"init={self.init!r} must be '2dpca' or 'random'.")
        with single_blas_thread():  # products per image (docs/design-notes/linear-algebra.md)
            return solve_l21_two_d(
                self._images(X),
                self._ranks,
                rng=rng,
                init=self.init,
                max_iter=self.max_iter,
                tol=self.tol,
                callback=self.callback,
                dense_components=False,
            )

    @host_method("right_components_")
    def l21_objective(self, X) -> float:
        """Objective (27) on ``X``: ``sum_i ||U^T (A_i - mean) V||_F``.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            Images ``A_i``, flattened in C order.

        Returns
        -------
        float
        """
        E = self._centred_images(X)
        return l21_two_d_objective(E, self.left_components_, self.right_components_)
