"""Estimators: one private module per method family, public classes re-exported."""

from ._adaptive_neighbors import AdaptiveNeighborsPCA
from ._base import BaseSubspaceEstimator
from ._convex import ConvexOptimalMeanPCA, OutlierPursuit, PrincipalComponentPursuit
from ._covariance_pca import CovariancePCA
from ._generalized_mean import GeneralizedMeanPCA
from ._grasta import GRASTA
from ._hq import HQPCA
from ._kernel_l21 import KernelL21PCA
from ._known_rank import AccAltProj, GoDec
from ._l1 import L1PCA
from ._l21 import L21PCA
from ._l21_two_d import L21TwoDPCA
from ._online import OnlineRobustPCA
from ._optimal_mean import OptimalMeanPCA
from ._pca import PCA
from ._projection_pursuit import ProjectionPursuitPCA
from ._r1 import R1PCA
from ._robpca import ROBPCA
from ._spherical import SphericalPCA
from ._transfer import RankConstrainedRobustPCA, RobustTransferPCA
from ._two_d import GLRAM, CappedRobust2DPCA, Robust2DPCA, TwoDPCA

__all__ = [
    "GLRAM",
    "GRASTA",
    "HQPCA",
    "L1PCA",
    "L21PCA",
    "PCA",
    "R1PCA",
    "ROBPCA",
    "AccAltProj",
    "AdaptiveNeighborsPCA",
    "BaseSubspaceEstimator",
    "CappedRobust2DPCA",
    "ConvexOptimalMeanPCA",
    "CovariancePCA",
    "GeneralizedMeanPCA",
    "GoDec",
    "KernelL21PCA",
    "L21TwoDPCA",
    "OnlineRobustPCA",
    "OptimalMeanPCA",
    "OutlierPursuit",
    "PrincipalComponentPursuit",
    "ProjectionPursuitPCA",
    "RankConstrainedRobustPCA",
    "Robust2DPCA",
    "RobustTransferPCA",
    "SphericalPCA",
    "TwoDPCA",
]
