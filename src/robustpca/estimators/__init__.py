"""Estimators: one private module per method family, public classes re-exported."""

from ._base import BaseSubspaceEstimator
from ._generalized_mean import GeneralizedMeanPCA
from ._hq import HQPCA
from ._l1 import L1PCA
from ._l21 import L21PCA
from ._optimal_mean import OptimalMeanPCA
from ._pca import PCA
from ._r1 import R1PCA

__all__ = [
    "HQPCA",
    "L1PCA",
    "L21PCA",
    "PCA",
    "R1PCA",
    "BaseSubspaceEstimator",
    "GeneralizedMeanPCA",
    "OptimalMeanPCA",
]
