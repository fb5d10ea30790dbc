"""robustpca: robust principal component analysis with a scikit-learn API.

Estimators
----------
OptimalMeanPCA      RPCA-OM (Nie, Yuan & Huang 2014): l2,1 loss, mean optimised jointly.
L21PCA              PCA-L21 (Nie & Huang): non-greedy L21-norm maximisation.
L1PCA               PCA-L1 (Kwak 2008): greedy L1-norm maximisation with deflation.
R1PCA               R1-PCA (Ding et al. 2006): Huber/Cauchy-weighted subspace iteration.
GeneralizedMeanPCA  PCA-GM (Oh & Kwak): generalized-mean objective, generalized sample mean.
HQPCA               HQ-PCA (He et al. 2011): maximum correntropy, half-quadratic.
TwoDPCA, GLRAM      2DPCA (Yang et al. 2004), GLRAM (Ye 2004) on (n, h*w) images.
Robust2DPCA         R2DPCA (Zhang, Nie & Li 2017); CappedRobust2DPCA with a capped loss.
L21TwoDPCA          the 2-D PCA-L21 of Nie & Huang (problem 27).
AdaptiveNeighborsPCA  RWL-AN (Zhang & Tong 2019): sparse adaptive sample weights.
KernelL21PCA        kernel PCA embedding followed by PCA-L21 (Nie & Huang sec. III.D).
PrincipalComponentPursuit  convex robust PCA (Candes et al. 2011), inexact ALM.
OutlierPursuit      CRPCA (Xu, Caramanis & Sanghavi 2012): l2,1 + nuclear norm.
ConvexOptimalMeanPCA  CRPCA-OM (Nie et al. 2014, Algorithm 3): outlier pursuit + mean.
RobustTransferPCA   R-T-PCA (Guo 2013): shared + private low-rank parts across two matrices.
RankConstrainedRobustPCA  R-PCA of Guo 2013 eq. 6: rank-constrained low rank + l1 errors.
PCA                 classical PCA with sample weights and the same diagnostics.
ROBPCA              ROBPCA (Hubert, Rousseeuw & Vanden Branden 2005), rrcov's PcaHubert.
SphericalPCA        spherical PCA (Locantore et al. 1999), rrcov's PcaLocantore.
CovariancePCA       PCA of a robust covariance, the MCD by default (rrcov's PcaCov).
ProjectionPursuitPCA  projection pursuit (Croux et al.), rrcov's PcaGrid and PcaProj.
AccAltProj, GoDec   known-rank robust PCA (Cai, Cai & Wei 2019; Zhou & Tao 2011).
OnlineRobustPCA     OR-PCA (Feng, Xu & Yan 2013): online stable PCP, partial_fit.
GRASTA              GRASTA (He, Balzano & Szlam 2012): l1 subspace tracking, subsampled.

Solvers (usable on their own) live in :mod:`robustpca.solvers`, robust losses in
:mod:`robustpca.losses`, data sets and corruption protocols in :mod:`robustpca.datasets`.
"""

from ._version import __version__
from .estimators import *  # noqa: F403 (the estimator classes: estimators.__all__)
from .solvers.generalized_mean import generalized_sample_mean

#: Names of the public estimators (used by the common tests and the CLI).
ESTIMATOR_NAMES = (
    "PCA",
    "OptimalMeanPCA",
    "L21PCA",
    "L1PCA",
    "R1PCA",
    "GeneralizedMeanPCA",
    "HQPCA",
    "TwoDPCA",
    "GLRAM",
    "Robust2DPCA",
    "CappedRobust2DPCA",
    "L21TwoDPCA",
    "AdaptiveNeighborsPCA",
    "KernelL21PCA",
    "PrincipalComponentPursuit",
    "OutlierPursuit",
    "ConvexOptimalMeanPCA",
    "RobustTransferPCA",
    "RankConstrainedRobustPCA",
    "ROBPCA",
    "SphericalPCA",
    "CovariancePCA",
    "ProjectionPursuitPCA",
    "AccAltProj",
    "GoDec",
    "OnlineRobustPCA",
    "GRASTA",
)

#: The estimators in the order above, then the rest of the top-level API.
__all__ = ["ESTIMATOR_NAMES", *ESTIMATOR_NAMES, "__version__", "generalized_sample_mean"]
