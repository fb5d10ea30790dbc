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
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._docstrings import as_in_source
from .._validation import check_positive_int
from .._warnings import external_stacklevel
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
    the next, and the fills then cycle instead of settling. The refits stop once a cycle
    has repeated (or after 100), keep the one that fits the observed entries best (least
    trimmed squares), and a ``ConvergenceWarning`` says so (``converged_`` False)."""


def with_imputation_doc(doc: str | None) -> str | None:
    """``doc`` with its ``%(imputation)s`` line replaced by the missing-entries paragraph
    (a plain replacement: the docstrings hold other ``%`` signs)."""
    return None if doc is None else as_in_source(doc).replace("    %(imputation)s", _IMPUTATION_DOC)


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
    times the spread of the data (``converged_``). A discrete choice of the robust fit
    can instead flip between refits, and the fills then repeat with a period: ROBPCA's
    on ADBench's Pima (median/MAD scaled, 2% of the cells missing) cycle between three
    refits. The iteration then stops once every fill of a whole period has come back
    within the same tolerance (:class:`_CycleDetector`; periods of up to 32 refits), or
    after 100 refits where the fills neither settle nor repeat. Either way it keeps the
    refit of the cycle (or of the last 32, fewer where their fills would hold more values
    than the data) that fits the observed entries best, by the least trimmed squares of
    the observed residuals (:class:`_RecentRefits`), so that the result does not depend
    on where in the cycle the iteration stopped, and warns (``ConvergenceWarning``,
    ``converged_`` False). rrcovNA's ``PcaNA``, the same algorithm, stops after its 100
    iterations without a warning and keeps the last.
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
    #: The longest cycle of refits recognised (fewer where its fills would outgrow the data).
    _em_longest_cycle = 32

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None) -> SolverResult:
        seed = int(rng.integers(2**63))
        filled = initial_fill(X, missing)
        scale = max(float(np.abs(filled - np.median(filled, axis=0)).max()), 1e-300)
        # the fills of a cycle are held in at most as many values as the data (or 2**22)
        budget = max(missing.size, 2**22) // max(np.count_nonzero(missing), 1) - 1
        longest = int(np.clip(budget, 2, self._em_longest_cycle))
        cycle = _CycleDetector(filled[missing], self._em_tol * scale, longest)
        recent = _RecentRefits(X, missing, longest)
        for iteration in range(1, self._em_max_iter + 1):
            result = self._fit_solver(filled, np.random.default_rng(seed), sample_weight)
            _, fitted, residuals = observed_fit(X, missing, result.mean, result.components)
            fills = fitted[missing]
            period = cycle.push(fills)
            if period == 1:
                return _with_iterations(result, iteration, StopReason.TOLERANCE, True)
            recent.append(result, residuals)
            if period:
                reason = f"imputation cycles between {period} refits"
                break
            filled[missing] = fills
        else:
            reason = f"imputation not settled after {self._em_max_iter} refits"
            period = longest
        back, h = recent.best(period)
        if back:  # refit it again from its fills: the same fit, and the estimator's
            filled[missing] = cycle.fills_before(back)  # attributes of that fit
            result = self._fit_solver(filled, np.random.default_rng(seed), sample_weight)
        warnings.warn(
            f"{type(self).__name__}: the imputed entries did not settle ({reason}); the fit "
            f"kept is refit {iteration - back} of {iteration}, the one of the last "
            f"{min(period, iteration)} whose {h} smallest observed residuals have the "
            "smallest sum of squares.",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
        return _with_iterations(result, iteration, reason, False)


class _CycleDetector:
    """Whether the fills of an imputation EM have settled (period 1) or repeat with a
    period ``j`` up to ``longest``: each of the last ``j`` fills is within ``tol`` (largest
    absolute difference) of the fills ``j`` refits before it. A single near-return is not
    enough: on Pima the fills came within ``tol`` of those 8 refits earlier while still
    converging to a cycle of 3."""

    def __init__(self, first: np.ndarray, tol: float, longest: int):
        self._history: deque[np.ndarray] = deque([first], maxlen=longest + 1)
        self._runs = np.zeros(longest + 1, dtype=int)  # matches in a row, by lag
        self._tol = tol

    def push(self, fills: np.ndarray) -> int:
        """Add the newest fills; the shortest period they complete, else 0."""
        history, runs = self._history, self._runs
        for lag in range(1, min(len(history), runs.size - 1) + 1):
            close = float(np.max(np.abs(fills - history[-lag]), initial=0.0)) <= self._tol
            runs[lag] = runs[lag] + 1 if close else 0
        history.append(fills)
        done = np.flatnonzero(runs[1:] >= np.arange(1, runs.size)) + 1
        return int(done[0]) if done.size else 0

    def fills_before(self, back: int) -> np.ndarray:
        """The fills the refit ``back`` refits before the newest one started from."""
        return self._history[-2 - back]


class _RecentRefits:
    """The last refits of an imputation EM, and the choice among them where the fills
    do not settle: the refit whose ``h = (n + k + 1) // 2`` smallest observed residuals
    have the smallest sum of squares (least trimmed squares on the observed entries,
    which every robust subspace fit here aims at), taken on the leading ``k`` axes for
    the smallest ``k`` among them; the earliest wins a tie."""

    def __init__(self, X: np.ndarray, missing: np.ndarray, longest: int):
        self._X, self._missing = X, missing
        self._refits: deque[tuple[SolverResult, float]] = deque(maxlen=longest)

    def _trimmed(self, residuals: np.ndarray, k: int) -> tuple[float, int]:
        h = min((residuals.size + k + 1) // 2, residuals.size)
        return float(np.partition(residuals * residuals, h - 1)[:h].sum()), h

    def append(self, result: SolverResult, residuals: np.ndarray) -> None:
        self._refits.append((result, self._trimmed(residuals, result.components.shape[0])[0]))

    def best(self, count: int) -> tuple[int, int]:
        """The best of the last ``count`` refits, as how many refits before the last
        one it is, and its ``h``."""
        refits = list(self._refits)[-count:]
        k = min(result.components.shape[0] for result, _ in refits)
        values = []
        for result, value in refits:
            if result.components.shape[0] != k:
                comps = result.components[:k]
                _, _, residuals = observed_fit(self._X, self._missing, result.mean, comps)
                value = self._trimmed(residuals, k)[0]
            values.append(value)
        h = min((self._X.shape[0] + k + 1) // 2, self._X.shape[0])
        return len(refits) - 1 - int(np.argmin(values)), h


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
