"""Optimisation cores, usable on their own: pure loops with no validation or warnings.

* :func:`minimize_reweighted` -- Nie et al. (2014) Algorithm 2, re-weighted minimisation
  of ``f(x) + sum_i h_i(g_i(x))`` with concave ``h_i``.
* :func:`maximize_linearized` -- Nie & Huang Algorithms 1 and 3, maximisation of
  ``f(v) + sum_i h_i(g_i(v))`` with convex ``h_i``; :func:`power_method` and
  :func:`truncated_power_method` are instances of it.
* :func:`solve_optimal_mean_pca`, :func:`solve_weighted_pca`, :func:`solve_l21_pca`,
  :func:`solve_l1_pca`, :func:`solve_r1_pca` -- the PCA solvers built on them.
"""

from ._result import IterationState, SolverResult, StopReason
from .adaptive_neighbors import (
    AdaptiveNeighborLoss,
    adaptive_neighbor_weights,
    solve_adaptive_neighbors_pca,
)
from .alm import optimal_mean_svt, solve_crpca_om, solve_outlier_pursuit, solve_pcp
from .convex_maximization import (
    LinearizedResult,
    l21_row_subgradients,
    maximize_linearized,
    power_method,
    truncated_power_method,
)
from .generalized_mean import (
    GeneralizedMeanResult,
    generalized_sample_mean,
    solve_generalized_mean,
    solve_generalized_mean_pca,
)
from .grasta import GrastaState, grasta_process, grasta_step
from .l1_pca import solve_l1_pca
from .l21_pca import l21_objective, solve_l21_pca
from .l21_two_d import solve_l21_two_d
from .optimal_mean import solve_optimal_mean_pca, solve_weighted_pca
from .orpca import ORPCAState, orpca_project, orpca_update
from .orpca_start import orpca_initialize
from .r1_pca import solve_r1_pca
from .reweighting import ReweightingResult, minimize_reweighted
from .robust_two_d import solve_robust_two_d_pca
from .transfer import solve_rank_constrained_rpca, solve_robust_transfer_pca
from .two_d import solve_glram, solve_two_d_pca

__all__ = [
    "AdaptiveNeighborLoss",
    "GeneralizedMeanResult",
    "GrastaState",
    "IterationState",
    "LinearizedResult",
    "ORPCAState",
    "ReweightingResult",
    "SolverResult",
    "StopReason",
    "adaptive_neighbor_weights",
    "generalized_sample_mean",
    "grasta_process",
    "grasta_step",
    "l21_objective",
    "l21_row_subgradients",
    "maximize_linearized",
    "minimize_reweighted",
    "optimal_mean_svt",
    "orpca_initialize",
    "orpca_project",
    "orpca_update",
    "power_method",
    "solve_adaptive_neighbors_pca",
    "solve_crpca_om",
    "solve_generalized_mean",
    "solve_generalized_mean_pca",
    "solve_glram",
    "solve_l1_pca",
    "solve_l21_pca",
    "solve_l21_two_d",
    "solve_optimal_mean_pca",
    "solve_outlier_pursuit",
    "solve_pcp",
    "solve_r1_pca",
    "solve_rank_constrained_rpca",
    "solve_robust_transfer_pca",
    "solve_robust_two_d_pca",
    "solve_two_d_pca",
    "solve_weighted_pca",
    "truncated_power_method",
]
