r"""Evaluation metrics: reconstruction errors, clustering scores and subspace distances.

Subspaces are given as row bases of shape ``(k, n_features)``, the layout of the
estimators' ``components_``.

=================================== ===================================================
reconstruction                      :func:`total_reconstruction_error`,
                                    :func:`mean_reconstruction_error` (Nie 2014),
                                    :func:`projection_reconstruction_error` (Nie & Huang
                                    eq. 37-38), :func:`weighted_reconstruction_error`
                                    (Zhang & Tong 2019), :func:`rmse` (Guo 2013)
clustering                          :func:`clustering_accuracy`,
                                    :func:`normalized_mutual_info`, :func:`kmeans_scores`
subspaces                           :func:`subspace_angles`, :func:`projector_distance`
=================================== ===================================================
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import linalg as sla

__all__ = [
    "clustering_accuracy",
    "kmeans_scores",
    "mean_reconstruction_error",
    "normalized_mutual_info",
    "projection_reconstruction_error",
    "projector_distance",
    "rmse",
    "subspace_angles",
    "total_reconstruction_error",
    "weighted_reconstruction_error",
]


def _row_errors(reconstructed, clean) -> np.ndarray:
    R = np.asarray(reconstructed, dtype=np.float64)
    C = np.asarray(clean, dtype=np.float64)
    if R.ndim != 2 or R.shape != C.shape:
        raise ValueError(
            "reconstructed and clean must be 2-D arrays of the same shape, got "
            f"{R.shape} and {C.shape}."
        )
    return np.linalg.norm(R - C, axis=1)


def total_reconstruction_error(reconstructed, clean) -> float:
    r"""Sum over samples of the l2 distance between reconstruction and clean sample.

    .. math::
        \sum_{i=1}^n \lVert \hat x_i - x_i^{\text{clean}} \rVert_2 ,

    the reconstruction error of Nie, Yuan & Huang (2014, sec. 5.1), where
    :math:`\hat x_i = UU^\top (x_i - b) + b` is reconstructed from the *corrupted*
    sample and compared with the clean one.

    Parameters
    ----------
    reconstructed : array-like of shape (n_samples, n_features)
        Reconstructions, e.g. ``estimator.reconstruct(X_corrupted)``.
    clean : array-like of shape (n_samples, n_features)
        The uncorrupted samples.

    Returns
    -------
    float

    References
    ----------
    F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component analysis",
    ICML 2014, sec. 5.1.

    Examples
    --------
    >>> from robustpca.metrics import total_reconstruction_error
    >>> total_reconstruction_error([[3.0, 4.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]])
    6.0
    """
    return float(_row_errors(reconstructed, clean).sum())


def mean_reconstruction_error(reconstructed, clean) -> float:
    r"""Mean over samples of the l2 distance between reconstruction and clean sample.

    .. math::
        \frac{1}{n} \sum_{i=1}^n \lVert x_i^{\text{clean}} - \hat x_i \rVert_2 ,

    equation (37) of Nie & Huang (with :math:`\hat x_i = WW^\top x_i` on centred data);
    the :func:`total_reconstruction_error` divided by ``n_samples``.

    Parameters
    ----------
    reconstructed : array-like of shape (n_samples, n_features)
    clean : array-like of shape (n_samples, n_features)

    Returns
    -------
    float

    References
    ----------
    F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
    analysis", arXiv:1603.08293, eq. (37).

    Examples
    --------
    >>> from robustpca.metrics import mean_reconstruction_error
    >>> mean_reconstruction_error([[3.0, 4.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]])
    3.0
    """
    return float(_row_errors(reconstructed, clean).mean())


def _finite_pair(A, B, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Two finite 2-D float arrays of the same shape with at least one row."""
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.ndim != 2 or A.shape != B.shape or A.shape[0] == 0:
        raise ValueError(
            f"{names[0]} and {names[1]} must be non-empty 2-D arrays of the same shape, got "
            f"{A.shape} and {B.shape}."
        )
    for name, M in zip(names, (A, B), strict=True):
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} must be finite (no NaN or inf).")
    return A, B


def rmse(recovered, clean) -> float:
    r"""Root mean square error over all entries, the score of Guo (2013), sec. 5.

    .. math::
        \operatorname{RMSE} = \sqrt{\frac{1}{nd} \sum_{i,j} (\hat X_{ij} - X^0_{ij})^2} .

    Parameters
    ----------
    recovered : array-like of any shape
        The recovered matrix :math:`\hat X`.
    clean : array-like of the same shape
        The true (uncorrupted) matrix :math:`X^0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the shapes differ or the arrays are empty.

    References
    ----------
    Y. Guo, "Robust Transfer Principal Component Analysis with Rank Constraints",
    NIPS 2013, sec. 5.

    Examples
    --------
    >>> from robustpca.metrics import rmse
    >>> rmse([[1.0, 3.0]], [[0.0, 0.0]])
    2.23606797749979
    """
    R = np.asarray(recovered, dtype=np.float64)
    C = np.asarray(clean, dtype=np.float64)
    if R.shape != C.shape:
        raise ValueError(f"recovered and clean must have the same shape, got {R.shape}, {C.shape}.")
    if R.size == 0:
        raise ValueError("recovered and clean are empty.")
    return float(np.sqrt(np.mean((R - C) ** 2)))


def weighted_reconstruction_error(reconstructed, clean, weights=None) -> float:
    r"""Weighted sum of squared reconstruction errors, weights normalised to sum to one.

    .. math::
        \sum_{i=1}^n p_i \lVert x_i^r - x_i^o \rVert_2^2, \qquad
        p_i = \frac{w_i}{\sum_j w_j},

    the score of Zhang & Tong (2019, sec. 5.2, Table 2), with :math:`x_i^r` the i-th
    reconstructed image and :math:`x_i^o` the original one. The paper normalises the
    weights "for the fair comparison"; methods without weights get uniform ones, which
    makes the score the mean squared row error.

    Parameters
    ----------
    reconstructed : array-like of shape (n_samples, n_features)
        Reconstructions, e.g. ``estimator.reconstruct(X_occluded)``.
    clean : array-like of shape (n_samples, n_features)
        The original (non-occluded) samples.
    weights : array-like of shape (n_samples,) or None, default=None
        Non-negative sample weights with a positive sum (e.g. a fitted ``weights_``);
        None gives uniform weights.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the shapes differ, or ``weights`` has the wrong length, a negative or
        non-finite entry, or a zero sum.

    References
    ----------
    R. Zhang and H. Tong, "Robust principal component analysis with adaptive neighbors",
    NeurIPS 2019, sec. 5.2.

    Examples
    --------
    >>> from robustpca.metrics import weighted_reconstruction_error
    >>> R, C = [[3.0, 4.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]
    >>> weighted_reconstruction_error(R, C)
    13.0
    >>> weighted_reconstruction_error(R, C, weights=[0.0, 2.0])
    1.0
    """
    R, C = _finite_pair(reconstructed, clean, ("reconstructed", "clean"))
    n = R.shape[0]
    if weights is None:
        p = np.full(n, 1.0 / n)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (n,):
            raise ValueError(f"weights must have shape ({n},) (one per sample), got {w.shape}.")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("weights must be finite and non-negative.")
        total = w.sum()
        if total <= 0:
            raise ValueError("weights must have a positive sum.")
        p = w / total
    return float(p @ np.einsum("ij,ij->i", R - C, R - C))


def projection_reconstruction_error(components, X_train, clean, mean=None) -> float:
    r"""Mean l2 error of reconstructing clean samples from the training samples' projections.

    Equations (37)-(38) of Nie & Huang:

    .. math::
        e(m) = \frac{1}{n} \sum_{i=1}^n
        \bigl\lVert (x_i^o - \mu) - W W^\top (x_i - \mu) \bigr\rVert_2 ,

    with :math:`W \in \mathbb{R}^{d \times m}` the learned directions (``components.T``),
    :math:`x_i` the i-th sample used in training (e.g. occluded) and :math:`x_i^o` the
    same sample without corruption.

    Centring. The paper writes :math:`x_i^o - WW^\top x_i` for data that are
    "centralized" before training (its Algorithms take a centred ``X``), so both
    :math:`x_i` and :math:`x_i^o` are measured from the centre :math:`\mu` of the
    training data. Equivalently, the reconstruction :math:`\mu + WW^\top(x_i - \mu)` is
    compared with :math:`x_i^o` in the original coordinates, which is what
    ``estimator.reconstruct`` returns with :math:`\mu =` ``estimator.mean_``. Without
    the offset the score would charge every method for the (large, method-independent)
    distance of the images from the origin. ``mean=None`` takes :math:`\mu` as the
    column mean of ``X_train``, exact for eq. (37) where ``X_train`` is the whole
    training set; for eq. (38), where the sum runs over the training images without the
    appended outliers, pass the centre used in training (the mean of the stacked data,
    or the estimator's ``mean_`` for methods that estimate their own centre).

    Parameters
    ----------
    components : array-like of shape (m, n_features)
        Orthonormal rows, the layout of ``components_`` (the paper's :math:`W^\top`).
    X_train : array-like of shape (n_samples, n_features)
        The samples as used in training (corrupted).
    clean : array-like of shape (n_samples, n_features)
        The same samples without corruption.
    mean : array-like of shape (n_features,), float or None, default=None
        The centre :math:`\mu`; None is ``X_train.mean(axis=0)``, ``0`` disables
        centring.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If shapes disagree, an input is not finite, or the rows of ``components`` are
        not orthonormal (tolerance ``1e-6``).

    See Also
    --------
    mean_reconstruction_error : the same mean, from precomputed reconstructions.

    References
    ----------
    F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
    analysis", arXiv:1603.08293, sec. V, eq. (37)-(38).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import projection_reconstruction_error
    >>> W = np.array([[1.0, 0.0]])
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> projection_reconstruction_error(W, X, X, mean=0.0)  # (2 + 4) / 2
    3.0
    >>> projection_reconstruction_error(W, X, X)  # centred: residuals -1 and 1
    1.0
    """
    X, C = _finite_pair(X_train, clean, ("X_train", "clean"))
    W = _row_basis(components, "components")
    d = X.shape[1]
    if W.shape[1] != d:
        raise ValueError(
            f"components has {W.shape[1]} columns but X_train has {d} features; they must match."
        )
    if not np.allclose(W @ W.T, np.eye(W.shape[0]), rtol=0.0, atol=1e-6):
        raise ValueError("components must have orthonormal rows (W^T W = I in eq. 37).")
    if mean is None:
        mu = X.mean(axis=0)
    else:
        mu = np.asarray(mean, dtype=np.float64)
        if mu.ndim > 1 or (mu.ndim == 1 and mu.shape != (d,)):
            raise ValueError(f"mean must be a float or have shape ({d},), got shape {mu.shape}.")
        if not np.all(np.isfinite(mu)):
            raise ValueError("mean must be finite.")
    Xc = X - mu
    residual = (C - mu) - (Xc @ W.T) @ W
    return float(np.linalg.norm(residual, axis=1).mean())


def _labels(labels, name: str) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}.")
    return y


def _label_pair(labels_true, labels_pred) -> tuple[np.ndarray, np.ndarray]:
    t = _labels(labels_true, "labels_true")
    p = _labels(labels_pred, "labels_pred")
    if t.shape != p.shape:
        raise ValueError(
            f"labels_true and labels_pred must have the same length, got {t.size} and {p.size}."
        )
    if t.size == 0:
        raise ValueError("labels_true and labels_pred are empty.")
    return t, p


def clustering_accuracy(labels_true, labels_pred) -> float:
    r"""Clustering accuracy under the best one-to-one map from clusters to classes.

    .. math::
        \operatorname{ACC} = \frac{1}{n} \max_{\text{map}} \sum_{i=1}^n
        \delta\bigl(l_i, \operatorname{map}(c_i)\bigr),

    the score of Zhang & Tong (2019, sec. 5.3) and Oh & Kwak (2016), with
    :math:`l_i` the class and :math:`c_i` the cluster of sample i. The maximum over
    injective maps is a linear assignment on the contingency table, solved exactly by
    the Hungarian algorithm (:func:`scipy.optimize.linear_sum_assignment`). With more
    clusters than classes the unmatched clusters count as errors (and vice versa), so
    the score is 1 only for a perfect clustering up to relabelling.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Class labels, any hashable and sortable values (ints, strings).
    labels_pred : array-like of shape (n_samples,)
        Cluster labels, any such values; their number may differ from the classes'.

    Returns
    -------
    float
        In ``(0, 1]``.

    Raises
    ------
    ValueError
        If the label arrays are not 1-D, are empty, or differ in length.

    References
    ----------
    R. Zhang and H. Tong, "Robust principal component analysis with adaptive neighbors",
    NeurIPS 2019, sec. 5.3.

    Examples
    --------
    >>> from robustpca.metrics import clustering_accuracy
    >>> clustering_accuracy([0, 0, 1, 1, 2, 2], ["b", "b", "a", "a", "c", "a"])
    0.8333333333333334
    """
    from scipy.optimize import linear_sum_assignment

    t, p = _label_pair(labels_true, labels_pred)
    _, t_idx = np.unique(t, return_inverse=True)
    _, p_idx = np.unique(p, return_inverse=True)
    counts = np.zeros((p_idx.max() + 1, t_idx.max() + 1), dtype=np.int64)
    np.add.at(counts, (p_idx, t_idx), 1)
    rows, cols = linear_sum_assignment(counts, maximize=True)
    return float(counts[rows, cols].sum() / t.size)


def normalized_mutual_info(labels_true, labels_pred) -> float:
    r"""Normalised mutual information, arithmetic normalisation.

    .. math::
        \operatorname{NMI}(L, C) = \frac{I(L; C)}{\tfrac12 \bigl(H(L) + H(C)\bigr)} ,

    a thin wrapper on :func:`sklearn.metrics.normalized_mutual_info_score` with
    ``average_method='arithmetic'`` (scikit-learn's default). It is invariant to
    relabelling; it is 1 for identical partitions and 1 (by scikit-learn's convention)
    when both are a single cluster.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
    labels_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        In ``[0, 1]``.

    Raises
    ------
    ValueError
        If the label arrays are not 1-D, are empty, or differ in length.

    Examples
    --------
    >>> from robustpca.metrics import normalized_mutual_info
    >>> normalized_mutual_info([0, 0, 1, 1], [5, 5, 3, 3])
    1.0
    """
    from sklearn.metrics import normalized_mutual_info_score

    t, p = _label_pair(labels_true, labels_pred)
    return float(normalized_mutual_info_score(t, p, average_method="arithmetic"))


def kmeans_scores(
    Z, labels, *, n_clusters: int | None = None, n_init: int = 10, random_state=None
) -> dict[str, float]:
    """Cluster embedded data with k-means and score it against the classes.

    The clustering protocol of Zhang & Tong (2019, sec. 5.3) and Oh & Kwak (2016):
    :class:`sklearn.cluster.KMeans` on ``Z`` (e.g. ``estimator.transform(X)`` or the
    reconstructions), scored by :func:`clustering_accuracy` and
    :func:`normalized_mutual_info`. ``n_init`` restarts keep the lowest inertia; to
    average over random initialisations as the papers do, call it with several seeds.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_dims)
        The data to cluster.
    labels : array-like of shape (n_samples,)
        The classes.
    n_clusters : int or None, default=None
        Number of clusters; None is the number of distinct ``labels``.
    n_init : int, default=10
        Number of k-means restarts.
    random_state : int, Generator, RandomState or None, default=None
        Seed of the k-means initialisation.

    Returns
    -------
    dict
        ``{"accuracy": float, "nmi": float}``.

    Raises
    ------
    ValueError
        If ``Z`` is not a finite 2-D array with one row per label, or ``n_clusters`` /
        ``n_init`` are not positive ints (``n_clusters <= n_samples``).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import kmeans_scores
    >>> Z = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> kmeans_scores(Z, [1, 1, 2, 2], random_state=0)
    {'accuracy': 1.0, 'nmi': 1.0}
    """
    from sklearn.cluster import KMeans

    Z = np.asarray(Z, dtype=np.float64)
    y = _labels(labels, "labels")
    if Z.ndim != 2 or Z.shape[0] != y.size or y.size == 0:
        raise ValueError(
            f"Z must be a non-empty 2-D array with one row per label, got shape {Z.shape} "
            f"for {y.size} labels."
        )
    if not np.all(np.isfinite(Z)):
        raise ValueError("Z must be finite (no NaN or inf).")
    k = np.unique(y).size if n_clusters is None else n_clusters
    for name, value, upper in (("n_clusters", k, y.size), ("n_init", n_init, None)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}.")
        if upper is not None and value > upper:
            raise ValueError(f"{name}={value} must not exceed n_samples={upper}.")
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(np.iinfo(np.int32).max))
    model = KMeans(n_clusters=int(k), n_init=int(n_init), random_state=random_state)
    pred = model.fit_predict(Z)
    return {"accuracy": clustering_accuracy(y, pred), "nmi": normalized_mutual_info(y, pred)}


def _row_basis(A, name: str) -> np.ndarray:
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] == 0:
        raise ValueError(
            f"{name} must be a 2-D (k, n_features) array with k >= 1, got shape {A.shape}."
        )
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must be finite.")
    return A


def subspace_angles(A, B) -> np.ndarray:
    """Principal angles between the row spaces of ``A`` and ``B``, in radians.

    A thin wrapper around :func:`scipy.linalg.subspace_angles` for bases stored as rows
    (the layout of ``components_``). Rows need not be orthonormal.

    Parameters
    ----------
    A : array-like of shape (k_a, n_features)
    B : array-like of shape (k_b, n_features)

    Returns
    -------
    ndarray of shape (min(k_a, k_b),)
        Angles in [0, pi/2], largest first (SciPy's order).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import subspace_angles
    >>> A = np.array([[1.0, 0.0, 0.0]])
    >>> B = np.array([[1.0, 1.0, 0.0]])
    >>> np.degrees(subspace_angles(A, B)).round(6)
    array([45.])
    """
    A = _row_basis(A, "A")
    B = _row_basis(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B must have the same number of columns, got {A.shape[1]} and {B.shape[1]}."
        )
    return sla.subspace_angles(A.T, B.T)


def _orthonormal_rows(A: np.ndarray) -> np.ndarray:
    k = A.shape[0]
    if np.allclose(A @ A.T, np.eye(k), rtol=0.0, atol=1e-10):
        return A
    return sla.orth(A.T).T


def projector_distance(A, B) -> float:
    r"""Frobenius distance between the orthogonal projectors on two row spaces.

    .. math::
        \lVert P_A - P_B \rVert_F
        = \sqrt{k_a + k_b - 2 \lVert A B^\top \rVert_F^2},
        \qquad P_A = A^\top A ,

    for orthonormal rows, computed without forming the ``n_features x n_features``
    projectors. It is evaluated as :math:`\sqrt{\lVert A - AB^\top B\rVert_F^2 +
    \lVert B - BA^\top A\rVert_F^2}`, the same quantity at the same
    ``O(k_a k_b n_features)`` cost, which keeps full precision for nearby subspaces
    (the difference form above cancels and is accurate only to about
    :math:`\sqrt{\varepsilon_{\text{mach}}} \approx 10^{-8}`). Rows that are not
    orthonormal are first replaced by an orthonormal basis of their span.

    For equal dimensions the distance is :math:`\sqrt{2}\,\lVert \sin\theta
    \rVert_2` with :math:`\theta` the principal angles; unlike a difference of bases,
    it ignores sign flips and rotations within the subspace.

    Parameters
    ----------
    A : array-like of shape (k_a, n_features)
    B : array-like of shape (k_b, n_features)

    Returns
    -------
    float
        Between 0 (same subspace) and :math:`\sqrt{k_a + k_b}`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import projector_distance
    >>> A = np.eye(3)[:2]
    >>> projector_distance(A, -A[::-1])
    0.0
    >>> round(projector_distance(A, np.eye(3)[1:]), 6)
    1.414214
    """
    A = _row_basis(A, "A")
    B = _row_basis(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B must have the same number of columns, got {A.shape[1]} and {B.shape[1]}."
        )
    A, B = _orthonormal_rows(A), _orthonormal_rows(B)
    C = A @ B.T
    # ||A (I - P_B)||_F^2 + ||B (I - P_A)||_F^2 = k_a + k_b - 2 ||A B^T||_F^2, summed from
    # the residuals so that small distances keep full precision (the difference form
    # cancels and is only accurate to about sqrt(machine epsilon)).
    res_a = np.linalg.norm(A - C @ B, "fro")
    res_b = np.linalg.norm(B - C.T @ A, "fro")
    return float(np.hypot(res_a, res_b))
