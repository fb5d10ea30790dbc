"""Clustering scores: accuracy under the best label matching, NMI, and k-means on a
projection."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import real_array

__all__ = [
    "clustering_accuracy",
    "kmeans_scores",
    "normalized_mutual_info",
]


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

    Z = real_array(Z, "Z")
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
