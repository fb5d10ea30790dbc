"""What the rrcov-family estimators (spherical and covariance PCA) share.

They fit every axis at once and choose ``k`` on the fit's own spectrum, so the base
class's rank selection (which would cost a second fit) is replaced by a resolution
inside ``_fit_solver``: :meth:`RrcovFamilyMixin._finish_axes`.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_positive_int
from ..linalg import complete_orthonormal
from ..rank_selection import select_n_components
from ..solvers import SolverResult, StopReason


class RrcovFamilyMixin:
    """``k`` chosen on the fit's spectrum; zero-variance axes completed; a result."""

    _od_cutoff_rule = "robust"

    def _select_n_components(self, X, spec, sample_weight=None) -> int:
        """Placeholder: ``k`` is chosen in ``_fit_solver`` on the fit's own spectrum."""
        return 1

    def _check_kmax(self) -> None:
        if self.kmax is not None:
            check_positive_int(self.kmax, "kmax")

    def _finish_axes(
        self,
        components: np.ndarray,
        eigenvalues: np.ndarray,
        mean: np.ndarray,
        spectrum: np.ndarray,
        rank: int,
        rng: np.random.Generator,
        n_iter: int = 1,
    ) -> SolverResult:
        """Resolve ``k`` (int, share or "auto" on ``spectrum``), pad and wrap the fit."""
        n_features = mean.shape[0]
        spec = self.n_components
        if spec is None or isinstance(spec, numbers.Integral):
            k = self.n_components_  # resolved and checked by the base class
        else:
            kmax = n_features if self.kmax is None else self.kmax
            kmax = max(min(kmax, max(rank, 1)), 1)
            k = select_n_components(spectrum, spec, kmax=kmax, rank=max(rank, 1))
        k = max(k, 1)
        if components.shape[0] < k:  # fewer directions of variance than asked for
            components = complete_orthonormal(components.T, k, rng).T
            eigenvalues = np.concatenate([eigenvalues, np.zeros(k - eigenvalues.size)])
        self.n_components_ = k
        return SolverResult(
            components=components[:k],
            mean=mean,
            weights=None,
            n_iter=n_iter,
            converged=True,
            stop_reason=StopReason.CLOSED_FORM,
            objective=np.array([float(np.sum(eigenvalues[:k]))]),
            info={"explained_variance": eigenvalues[:k]},
        )
