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
change detection (CDnet)            :func:`change_detection_counts`,
                                    :func:`change_detection_measures`,
                                    :func:`best_threshold_f_measure`,
                                    :func:`measures_from_counts`
=================================== ===================================================
"""

from .change_detection import (
    best_threshold_f_measure,
    change_detection_counts,
    change_detection_measures,
    measures_from_counts,
)
from .clustering import clustering_accuracy, kmeans_scores, normalized_mutual_info
from .reconstruction import (
    mean_reconstruction_error,
    projection_reconstruction_error,
    rmse,
    total_reconstruction_error,
    weighted_reconstruction_error,
)
from .subspaces import projector_distance, subspace_angles

__all__ = [
    "best_threshold_f_measure",
    "change_detection_counts",
    "change_detection_measures",
    "clustering_accuracy",
    "kmeans_scores",
    "mean_reconstruction_error",
    "measures_from_counts",
    "normalized_mutual_info",
    "projection_reconstruction_error",
    "projector_distance",
    "rmse",
    "subspace_angles",
    "total_reconstruction_error",
    "weighted_reconstruction_error",
]
