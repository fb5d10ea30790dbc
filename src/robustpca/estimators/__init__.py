"""Estimators: one private module per method family, public classes re-exported."""

from ._base import BaseSubspaceEstimator
from ._l21 import L21PCA
from ._optimal_mean import OptimalMeanPCA
from ._pca import PCA

__all__ = ["L21PCA", "PCA", "BaseSubspaceEstimator", "OptimalMeanPCA"]
