"""What the rrcov-family estimators (ROBPCA, spherical, covariance PCA) share.

* They fit every axis at once and choose ``k`` on the fit's own spectrum, so the base
  class's rank selection (which would cost a second fit) is replaced by a resolution
  inside ``_fit_solver``: :meth:`RrcovFamilyMixin._finish_axes`.
* Missing entries: :class:`ImputationEMMixin`, the iterative robust imputation of
  Serneels & Verdonck (2008).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_positive_int
from ..linalg import complete_orthonormal
from ..rank_selection import select_n_components
from ..solvers import SolverResult, StopReason
from ..solvers.missing import initial_fill, observed_fit

#: The paragraph on missing entries of the class docstrings of the estimators built on
#: :class:`ImputationEMMixin` (at their ``%(imputation)s`` line).
_IMPUTATION_DOC = """\
    Missing entries (NaN) are fitted by iterated robust imputation (Serneels & Verdonck
    2008): the gaps start at their column medians, then the method is refitted with each
    row's gaps refilled from its least-squares fit, on its observed coordinates, to the
    robust subspace, until the fills settle (``n_iter_`` counts the refits;
    :class:`~robustpca.estimators._rrcov_common.ImputationEMMixin`). The robust fit's
    discrete choices (the MCD's support, ROBPCA's h-subset) can flip from one refit to
    the next, and the fills then cycle instead of settling: after 100 refits a
    ``ConvergenceWarning`` says so and the last fit is kept (``converged_`` False)."""


def with_imputation_doc(doc: str | None) -> str | None:
    """``doc`` with its ``%(imputation)s`` line replaced by the missing-entries paragraph
    (a plain replacement: the docstrings hold other ``%`` signs)."""
    return None if doc is None else doc.replace("    %(imputation)s", _IMPUTATION_DOC)


class RrcovFamilyMixin:
    """``k`` chosen on the fit's spectrum; zero-variance axes completed; a result."""

    @property
    def _od_cutoff_rule(self) -> str | None:
        """rrcov's cutoffs (:mod:`robustpca.diagnostics`)."""
        return "robust"

    # provided by the estimator class (parameters) and the base class (fitted)
    kmax: int | None
    n_components: Any
    n_components_: int

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
            # no direction of variance (every sample at the centre): one axis, as PCA's
            spectrum = spectrum if spectrum.size else np.zeros(1)
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


class ImputationEMMixin:
    r"""Missing entries by iterated robust imputation (Serneels & Verdonck 2008).

    The gaps are first filled with their column's observed median; then, until the
    filled values stop moving, the method is fitted to the completed data and each row's
    gaps are refilled from its least-squares fit on its observed coordinates to the
    robust subspace (:func:`~robustpca.solvers.missing.observed_fit`). This is the EM
    algorithm of classical PCA with missing data, with the robust fit in the M-step, as
    Serneels & Verdonck proposed for ROBPCA; an outlying row therefore cannot pull the
    imputations of the others, and its own gaps are filled on the robust subspace. There
    is no objective to decrease (the robust fits are not M-estimators of one criterion):
    the iteration stops when the largest change of a filled value is below ``1e-4``
    times the spread of the data (``converged_``), or after 100 refits with a
    ``ConvergenceWarning``. The second happens when a discrete choice of the robust fit
    flips between refits: on bushfire with a tenth of its cells missing (and a tenth of
    its rows keeping two entries), ROBPCA's h-subset settles into a cycle of five
    refits, one subset for four of them and another for one. rrcovNA's ``PcaNA``, the
    same algorithm, stops after its 100 iterations without a warning.
    ``n_iter_`` counts the refits. Every refit draws the same random numbers, so that
    the search of the robust fit does not change from one iteration to the next.

    References
    ----------
    S. Serneels, T. Verdonck, "Principal component analysis for data containing outliers
    and missing elements", Computational Statistics & Data Analysis 52(3), 1712-1727,
    2008.
    """

    _supports_missing = True
    _fit_solver: Callable[..., SolverResult]  # the estimator's complete-data fit
    #: Refits at most, and the relative change of the filled entries that stops them.
    _em_max_iter = 100
    _em_tol = 1e-4

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None) -> SolverResult:
        seed = int(rng.integers(2**63))
        filled = initial_fill(X, missing)
        scale = max(float(np.abs(filled - np.median(filled, axis=0)).max()), 1e-300)
        result: SolverResult | None = None
        change = np.inf
        for iteration in range(1, self._em_max_iter + 1):
            result = self._fit_solver(filled, np.random.default_rng(seed), sample_weight)
            _, fitted, _ = observed_fit(X, missing, result.mean, result.components)
            change = float(np.max(np.abs(fitted[missing] - filled[missing]), initial=0.0))
            filled[missing] = fitted[missing]
            if change <= self._em_tol * scale:
                return _with_iterations(result, iteration, StopReason.TOLERANCE, True)
        warnings.warn(
            f"{type(self).__name__}: the imputed entries still moved by {change:.3g} "
            f"(more than {self._em_tol:g} of the data's spread) after {self._em_max_iter} "
            "refits; the fit uses the last imputation.",
            ConvergenceWarning,
            stacklevel=4,
        )
        reason = f"imputation not settled after {self._em_max_iter} refits"
        assert result is not None  # _em_max_iter >= 1
        return _with_iterations(result, self._em_max_iter, reason, False)


def _with_iterations(result: SolverResult, n_iter: int, reason: str, converged: bool):
    return SolverResult(
        components=result.components,
        mean=result.mean,
        weights=result.weights,
        n_iter=n_iter,
        converged=converged,
        stop_reason=reason,
        objective=result.objective,
        info=result.info,
    )
