r"""Sufficient statistics of weighted PCA over a stream of batches, and the stochastic
majorise-minimise step of the reweighting methods on them.

Weighted PCA (Nie et al. 2014, problem 14) needs three numbers of the data only: the
total weight :math:`W = \sum_i d_i`, the weighted mean :math:`m = \sum_i d_i x_i / W`
and the weighted scatter about it, :math:`S = \sum_i d_i (x_i - m)(x_i - m)^\top`
(problem 16: the top eigenvectors of :math:`S`; :math:`b = m`). Two sets of statistics
merge exactly (Chan, Golub & LeVeque 1979), with :math:`\delta = m_b - m_a`:

.. math::
    W = W_a + W_b, \quad m = m_a + \frac{W_b}{W}\,\delta, \quad
    S = S_a + S_b + \frac{W_a W_b}{W}\,\delta\delta^\top ,

so PCA of the merged statistics of any split of the data is PCA of the whole, to
rounding: :class:`ScatterStatistics` (scikit-learn's ``IncrementalPCA`` keeps only
``k`` singular values and is exact only when the data have rank ``k``). A forgetting
factor :math:`\lambda` scales :math:`W_a` and :math:`S_a` before the merge.

**Memory.** :math:`S` is kept as a ``d x d`` matrix once the statistics have at least
``d`` rows; before, exactly, as a factor :math:`F` (:math:`S = F^\top F`: the rows
:math:`\sqrt{d_i}(x_i - m_b)` of each batch and one row per merge), whose weighted PCA
takes the Gram route of the batch fit (the eigenpairs of :math:`F F^\top`). The memory
is about ``min(n_seen, d) x d`` floats: wide data (images, ``n < d``) hold as much as
the samples seen, never a ``d x d`` matrix; tall data hold one whatever ``n``. A batch
of ``n_b`` rows costs ``O(r^2 d)`` (the Gram matrix, ``r`` rows held), or ``O(n_b d^2)``
and a ``d x d`` eigenproblem: about one iteration of the batch fit.

**Stochastic majorise-minimise** (:class:`StreamingReweightedPCA`). Each step of
Algorithm 2 of Nie et al. (2014) majorises the loss :math:`\sum_i h(r_i^2)` (concave
``h``) at the current iterate by :math:`\sum_i h'(r_i^2)\, r_i^2` + const and minimises
the majoriser: weighted PCA with weights :math:`d_i = h'(r_i^2)`. Over a stream, each
batch is weighted at an anchor iterate and its statistics accumulated; their weighted
PCA, the next iterate, minimises the sum of the batches' majorisers (Mairal 2013,
"Stochastic majorization-minimization algorithms for large-scale optimization",
NeurIPS). With the anchor held for a whole pass over a finite data set, the pass is
one iteration of the batch Algorithm 2 exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..linalg import complete_orthonormal, positive_eigen_mask, top_eigh
from ..losses import RobustLoss
from ..robust_scale import effective_count, is_whole
from ._result import SolverResult
from .missing import observed_fit
from .optimal_mean import _weighted_pca_result

__all__ = [
    "ReferenceSample",
    "ResidualScaleMemory",
    "ScatterStatistics",
    "StochasticStep",
    "StreamingReweightedPCA",
    "complete_at",
    "residual_norms",
]


@dataclass(frozen=True)
class ScatterStatistics:
    r"""Total weight, weighted mean and weighted scatter of the samples merged so far.

    Attributes
    ----------
    weight : float
        :math:`W`, the (discounted) total weight.
    mean : ndarray of shape (n_features,)
        :math:`m`.
    scatter : ndarray of shape (n_features, n_features) or None
        :math:`S`, once ``d`` rows are held (module docstring, "Memory"); else None.
    factor : ndarray of shape (r, n_features) or None
        :math:`F` with :math:`S = F^\top F` while ``0 < r < d`` rows are held; else None.
    square : float
        :math:`\sum_i w_i^2` (discounted by :math:`\lambda^2`).
    whole : bool
        Whether every weight merged is a whole number and none was discounted: the
        count of the variances' divisor (:func:`~robustpca.robust_scale.variance_count`)
        is then ``W``, else Kish's effective count.
    """

    weight: float
    mean: np.ndarray
    scatter: np.ndarray | None = None
    factor: np.ndarray | None = None
    square: float = 0.0
    whole: bool = True

    @classmethod
    def empty(cls, n_features: int) -> ScatterStatistics:
        """The statistics of no sample.

        Parameters
        ----------
        n_features : int
        """
        return cls(0.0, np.zeros(n_features))

    @property
    def n_features(self) -> int:
        return self.mean.shape[0]

    @property
    def n_rows(self) -> int:
        """Rows held: ``d`` for the scatter, ``r`` for the factor, 0 when empty."""
        if self.scatter is not None:
            return self.n_features
        return 0 if self.factor is None else self.factor.shape[0]

    def discounted(self, forgetting_factor: float) -> ScatterStatistics:
        r"""The statistics with :math:`W` and :math:`S` scaled by ``forgetting_factor``.

        Parameters
        ----------
        forgetting_factor : float
            :math:`\lambda` in [0, 1]: 0 forgets everything, 1 nothing.
        """
        lam = float(forgetting_factor)
        if lam == 1.0:
            return self
        if lam == 0.0 or self.weight == 0.0:
            return ScatterStatistics.empty(self.n_features)
        scatter = None if self.scatter is None else lam * self.scatter
        factor = None if self.factor is None else np.sqrt(lam) * self.factor
        square = lam * lam * self.square
        return ScatterStatistics(lam * self.weight, self.mean, scatter, factor, square, False)

    def merge(self, other: ScatterStatistics) -> ScatterStatistics:
        """The statistics of the samples of both (exactly; module docstring).

        Parameters
        ----------
        other : ScatterStatistics
        """
        if other.weight <= 0.0:
            return self
        if self.weight <= 0.0:
            return other
        total = self.weight + other.weight
        delta = other.mean - self.mean
        mean = self.mean + (other.weight / total) * delta
        cross = np.sqrt(self.weight * other.weight / total) * delta
        square, whole = self.square + other.square, self.whole and other.whole
        if self.scatter is not None or other.scatter is not None:
            S = self.full_scatter() + other.full_scatter() + np.outer(cross, cross)
            return ScatterStatistics(total, mean, 0.5 * (S + S.T), square=square, whole=whole)
        factors = [self.factor, other.factor, cross[None, :]]
        return _merged(total, mean, factors, square=square, whole=whole)

    def full_scatter(self) -> np.ndarray:
        """The ``d x d`` scatter (formed from the factor where that is what is held)."""
        if self.scatter is not None:
            return self.scatter
        if self.factor is None:
            return np.zeros((self.n_features, self.n_features))
        return self.factor.T @ self.factor

    @classmethod
    def of(cls, X: np.ndarray, weights: np.ndarray) -> ScatterStatistics:
        """The statistics of the rows of ``X`` (not modified) weighted by ``weights``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        weights : ndarray of shape (n_samples,)
        """
        w = np.asarray(weights, dtype=np.float64)
        w_b = float(w.sum())
        if w_b <= 0.0:
            return cls.empty(X.shape[1])
        X = np.asarray(X, dtype=np.float64)
        mean = (w @ X) / w_b
        positive = w > 0
        B = np.sqrt(w[positive])[:, None] * (X[positive] - mean)
        return _merged(w_b, mean, [B], square=float(w @ w), whole=bool(np.all(is_whole(w))))

    def update(
        self, X: np.ndarray, weights: np.ndarray, *, forgetting_factor: float = 1.0
    ) -> ScatterStatistics:
        r"""The statistics discounted, then merged with those of a batch (not modified).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        weights : ndarray of shape (n_samples,)
            Its weights; a batch of zero total weight only discounts.
        forgetting_factor : float, default=1.0
            :math:`\lambda` of :meth:`discounted`.
        """
        return self.discounted(forgetting_factor).merge(ScatterStatistics.of(X, weights))

    def principal(self, n_components: int, rng: np.random.Generator) -> SolverResult | None:
        """Weighted PCA of the statistics (problem 14 in closed form), as
        :func:`~robustpca.solvers.solve_weighted_pca` returns it: the mean, the top
        eigenvectors of the scatter and their eigenvalues (``info``: ``explained_variance``
        and ``total_variance``, with the denominator of
        :func:`~robustpca.solvers.optimal_mean.variance_dof`); None before a positive weight.

        Parameters
        ----------
        n_components : int
            Number of eigenvectors.
        rng : numpy.random.Generator
            Completes them where the scatter has fewer positive eigenvalues.
        """
        if self.weight <= 0.0:
            return None
        if self.scatter is not None:
            vals, vecs = top_eigh(self.scatter, n_components)
            total = float(np.trace(self.scatter))
        elif self.factor is not None:
            # the Gram route of the batch fit: eigenpairs of F F^T (r x r), U = F^T V / s
            F = self.factor
            G = F @ F.T
            vals, small = top_eigh(0.5 * (G + G.T), n_components)
            usable = positive_eigen_mask(vals)
            vals = vals[usable]
            vecs = _orthonormal_columns((F.T @ small[:, usable]) / np.sqrt(vals))
            total = float(np.einsum("ij,ij->", F, F))
        else:
            return None
        usable = positive_eigen_mask(vals)
        basis = complete_orthonormal(np.ascontiguousarray(vecs[:, usable]), n_components, rng)
        count = effective_count(self.weight, self.square, self.whole)
        return _weighted_pca_result(
            basis.T, self.mean.copy(), vals[usable], total, self.weight, count
        )


def _orthonormal_columns(U: np.ndarray) -> np.ndarray:
    """``U`` (orthonormal up to rounding) made orthonormal, columns and signs kept."""
    if U.shape[1] == 0:
        return U
    Q, R = np.linalg.qr(U)
    signs = np.sign(np.diag(R))
    return Q * np.where(signs == 0, 1.0, signs)[None, :]


def _merged(
    weight: float, mean: np.ndarray, blocks: list, *, square: float, whole: bool
) -> ScatterStatistics:
    """Statistics of weight ``weight`` and mean ``mean`` whose scatter is ``R^T R`` for
    the rows ``R`` of ``blocks`` stacked: a factor while they are fewer than ``d``, else
    the ``d x d`` scatter."""
    d = mean.shape[0]
    R = np.vstack([np.zeros((0, d))] + [b for b in blocks if b is not None and b.shape[0]])
    if R.shape[0] >= d:
        S = R.T @ R
        return ScatterStatistics(weight, mean, 0.5 * (S + S.T), square=square, whole=whole)
    return ScatterStatistics(weight, mean, factor=R, square=square, whole=whole)


@dataclass(frozen=True)
class ResidualScaleMemory:
    r"""The mean squared residual of the samples seen, for losses whose scale is
    estimated from every residual (HQ-PCA's kernel width, :math:`\sigma^2 =
    \frac{1}{2n}\sum_i r_i^2`, He et al. 2011).

    :meth:`mean_square` uses the previous pass where there is one, so that at a fixed
    point of the passes every batch is weighted with the scale of all the residuals at
    that point, as in the batch loop; else the current pass including the new batch.

    Attributes
    ----------
    current : tuple of (float, float)
        The discounted sums ``(sum of s_i r_i^2, sum of s_i)`` of the current pass.
    previous : tuple of (float, float) or None
        Those of the last complete pass (None before one).
    """

    current: tuple[float, float] = (0.0, 0.0)
    previous: tuple[float, float] | None = None

    def update(
        self,
        residuals: np.ndarray,
        sample_weight: np.ndarray,
        *,
        forgetting_factor: float = 1.0,
        new_pass: bool = False,
    ) -> ResidualScaleMemory:
        """The memory after a batch.

        Parameters
        ----------
        residuals, sample_weight : ndarray of shape (n_samples,)
            The batch's residual norms :math:`r_i` and frequency weights :math:`s_i`.
        forgetting_factor : float, default=1.0
            Scales the current pass's sums before the batch's are added.
        new_pass : bool, default=False
            Whether the batch starts a pass: the current sums (where their weight is
            positive) become ``previous``, and the batch's the current ones.
        """
        add = (float(sample_weight @ (residuals * residuals)), float(sample_weight.sum()))
        if new_pass:
            previous = self.current if self.current[1] > 0 else self.previous
            return ResidualScaleMemory(add, previous)
        lam = float(forgetting_factor)
        current = (lam * self.current[0] + add[0], lam * self.current[1] + add[1])
        return replace(self, current=current)

    def mean_square(self) -> float:
        """The mean squared residual to scale the next weights with (0 if none)."""
        sums = self.previous if self.previous is not None else self.current
        return sums[0] / sums[1] if sums[1] > 0 else 0.0


#: ``loss_for(mean_square) -> RobustLoss``: the loss of a reweighting method, given the
#: mean squared residual of :class:`ResidualScaleMemory` (for a scale estimated from it).
LossFactory = Callable[[float], RobustLoss]


@dataclass
class StreamingReweightedPCA:
    r"""The state of weighted PCA, or of a reweighting method, fitted over a stream.

    Each :meth:`step` merges a weighted batch and moves the fit (``mean``,
    ``components``).

    **Weights.** The batch's weights :math:`d_i = h'(r_i^2)` are taken at the *anchor*:
    the latest fit during the first pass (stochastic MM; module docstring), and, from
    a ``new_pass`` on, the fit at the start of that pass, for all its batches.

    **Passes.** ``new_pass=True`` declares that the data seen so far come again: the
    finished pass's statistics are kept aside (``previous``) and a new accumulation
    starts. The fit after each batch of a pass is the weighted PCA of the pass's
    statistics merged with the previous pass's, discounted by the share of the sample
    weight not yet revisited, :math:`1 - s_{\text{pass}} / s_{\text{previous}}` (nothing
    once the pass has as much): at the end of a pass over the same data, the weighted
    PCA of every sample weighted at the anchor, exactly one iteration of batch Algorithm 2.

    **Missing entries.** A batch with NaN is completed at the anchor: each gap takes the
    anchor's fit of its row on the observed coordinates, whose residual norm is then the
    observed one, :math:`r_O` (:mod:`robustpca.solvers.missing`). It is weighted and
    merged as a complete batch, except that rows with at most ``k`` observed coordinates
    get weight 0 (unless every row would), as
    :class:`~robustpca.solvers.missing.MissingPCAProblem` does. With the anchor held for
    a pass, the pass is therefore one majorise-minimise (for PCA, EM) iteration of the
    batch fit with missing entries: the same completion, weights and weighted PCA. (The
    batch fit also counts the entries of constant columns as unobserved; a stream does
    not know its constant columns in advance and does not.)

    Attributes
    ----------
    n_components : int
    rng : numpy.random.Generator
        Completes a basis (:meth:`ScatterStatistics.principal`).
    statistics, previous : ScatterStatistics
        The current pass's and the last complete pass's (None in the first pass).
    pass_weight, previous_weight : float
        Their (discounted) sample weights.
    mean, components : ndarray or None
        The current fit (None before a positive weight).
    anchor : tuple of ndarray or None
        ``(mean, components)`` at which a pass's weights are taken (None: the latest).
    scale : ResidualScaleMemory
    """

    n_components: int
    rng: np.random.Generator
    statistics: ScatterStatistics
    previous: ScatterStatistics | None = None
    pass_weight: float = 0.0
    previous_weight: float = 0.0
    mean: np.ndarray | None = None
    components: np.ndarray | None = None
    anchor: tuple[np.ndarray, np.ndarray] | None = None
    scale: ResidualScaleMemory = field(default_factory=ResidualScaleMemory)

    @classmethod
    def start(cls, n_features: int, n_components: int, rng) -> StreamingReweightedPCA:
        """The state before the first batch: empty statistics, no fit.

        Parameters
        ----------
        n_features, n_components : int
        rng : numpy.random.Generator
            Completes a basis (:meth:`ScatterStatistics.principal`).
        """
        return cls(n_components, rng, ScatterStatistics.empty(n_features))

    def step(
        self,
        X: np.ndarray,
        sample_weight: np.ndarray,
        loss_for: LossFactory | None,
        *,
        forgetting_factor: float = 1.0,
        new_pass: bool = False,
        missing: np.ndarray | None = None,
    ) -> StochasticStep:
        r"""Merge one batch (class docstring) and refit; ``X`` is not modified.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        sample_weight : ndarray of shape (n_samples,)
            Its frequency weights :math:`s_i`.
        loss_for : callable or None
            The method's loss given the mean squared residual of ``scale``
            (:data:`LossFactory`); None: PCA, every weight 1.
        forgetting_factor : float, default=1.0
            :math:`\lambda`, scales the accumulated statistics before the batch is merged
            (1: keep all; below 1: an effective memory of about :math:`1/(1-\lambda)`
            batches, to track a drifting subspace).
        new_pass : bool, default=False
            Whether the batch starts a new pass (class docstring, "Passes").
        missing : ndarray of shape (n_samples, n_features) or None, default=None
            True where ``X`` is NaN; the gaps take the anchor's observed-coordinates fit
            (class docstring, "Missing entries"), so a fit must exist.
        """
        lam = float(forgetting_factor)
        if new_pass and self.pass_weight > 0:
            self.previous, self.previous_weight = self.statistics, self.pass_weight
            self.statistics, self.pass_weight = ScatterStatistics.empty(X.shape[1]), 0.0
            if self.mean is not None and self.components is not None:
                self.anchor = (self.mean, self.components)
        point = self.anchor
        if point is None and self.mean is not None and self.components is not None:
            point = (self.mean, self.components)
        exact = None
        if missing is not None:
            if point is None:
                raise ValueError("a batch with missing entries needs a fit to complete it from.")
            X, exact = complete_at(X, missing, *point)
        if loss_for is None or point is None:
            r, d, value = None, np.ones(X.shape[0]), float("nan")
        else:
            r = residual_norms(X, *point)
            self.scale = self.scale.update(
                r, sample_weight, forgetting_factor=lam, new_pass=new_pass
            )
            loss = loss_for(self.scale.mean_square())
            d = loss.weights(r)
            value = float(sample_weight @ loss.rho(r))
        if exact is not None:  # MissingPCAProblem's rule: they would pin the subspace
            kept = np.where(exact, 0.0, d)
            if np.any(sample_weight * kept > 0):
                d = kept
        self.statistics = self.statistics.update(X, sample_weight * d, forgetting_factor=lam)
        self.pass_weight = lam * self.pass_weight + float(sample_weight.sum())
        fitted = self.statistics
        if self.previous is not None and self.pass_weight < self.previous_weight:
            unseen = 1.0 - self.pass_weight / self.previous_weight
            fitted = fitted.merge(self.previous.discounted(unseen))
        result = fitted.principal(self.n_components, self.rng)
        if result is not None:
            self.mean, self.components = result.mean, result.components
        return StochasticStep(result, r, d, value)


@dataclass(frozen=True)
class StochasticStep:
    """The outcome of :meth:`StreamingReweightedPCA.step`.

    Attributes
    ----------
    result : SolverResult or None
        The new fit, the weighted PCA of the statistics (``explained_variance`` and
        ``total_variance`` in ``info``); None, the fit unchanged, before a positive weight.
    residuals : ndarray of shape (n_batch,) or None
        The batch's residual norms at the anchor (None for PCA).
    weights : ndarray of shape (n_batch,)
        The loss weights of the batch at the anchor (without ``sample_weight``).
    objective : float
        :math:`\\sum_i s_i \\rho(r_i)` of the batch at the anchor (NaN for PCA).
    """

    result: SolverResult | None
    residuals: np.ndarray | None
    weights: np.ndarray
    objective: float


def complete_at(
    X: np.ndarray, missing: np.ndarray, mean: np.ndarray, components: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """``X`` (not modified) with its gaps set to the observed-coordinates fit of ``(mean,
    components)`` (:func:`~robustpca.solvers.missing.observed_fit`), and which rows
    have at most ``k`` observed coordinates (None if none has): they are fitted
    exactly at every fit, so their completion lies on the current subspace.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    missing : ndarray of shape (n_samples, n_features), bool
        True at the gaps.
    mean : ndarray of shape (n_features,)
    components : ndarray of shape (n_components, n_features)
        Orthonormal rows.
    """
    _, fitted, _ = observed_fit(X, missing, mean, components)
    k, d = components.shape
    exact = (d - np.count_nonzero(missing, axis=1)) <= k
    return np.where(missing, fitted, X), (exact if exact.any() else None)


def residual_norms(X: np.ndarray, mean: np.ndarray, components: np.ndarray) -> np.ndarray:
    r""":math:`\lVert (I - UU^\top)(x_i - b) \rVert_2` per row, formed explicitly (no
    cancellation), with ``U = components.T`` and ``b = mean``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    mean : ndarray of shape (n_features,)
    components : ndarray of shape (n_components, n_features)
        Orthonormal rows.
    """
    Xc = np.asarray(X, dtype=np.float64) - mean
    Xc -= (Xc @ components.T) @ components
    return np.sqrt(np.einsum("ij,ij->i", Xc, Xc))


@dataclass(frozen=True)
class ReferenceSample:
    """A bounded random sample of the rows seen, for the outlier diagnostics' reference
    statistics, which need rows (medians, the spread of the orthogonal distances) rather
    than sufficient statistics.

    Reservoir sampling (Vitter 1985, Algorithm R): every row seen since the last reset is
    kept with the same probability, ``capacity / n_seen`` (all while at most ``capacity``).
    With a forgetting factor, while every row seen is held, their weights are discounted
    as the statistics are (exactly); once rows are left out the count of rows seen is
    discounted instead, so recent rows enter more often (Aggarwal 2006's biased
    reservoir: approximately an exponentially weighted sample). 0 forgets every row held.

    Attributes
    ----------
    capacity : int
    rows : ndarray of shape (m, n_features), float64
    weights : ndarray of shape (m,)
        The rows' frequency weights (discounted while ``exact``).
    seen : float
        The (discounted) number of rows seen since the last reset.
    exact : bool
        Whether every row seen since the last reset is held.
    """

    capacity: int
    rows: np.ndarray
    weights: np.ndarray
    seen: float = 0.0
    exact: bool = True

    @classmethod
    def empty(cls, capacity: int, n_features: int) -> ReferenceSample:
        """The sample of no row.

        Parameters
        ----------
        capacity, n_features : int
            The most rows held, and their dimension.
        """
        return cls(capacity, np.zeros((0, n_features)), np.zeros(0))

    def update(
        self,
        X: np.ndarray,
        sample_weight: np.ndarray,
        rng: np.random.Generator,
        *,
        forgetting_factor: float = 1.0,
        reset: bool = False,
    ) -> ReferenceSample:
        """The sample after the rows of ``X`` (not modified), held with their weights.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        sample_weight : ndarray of shape (n_samples,)
        rng : numpy.random.Generator
            Draws the rows that enter a full sample.
        forgetting_factor : float, default=1.0
            Discounts the weights held or the count seen (class docstring).
        reset : bool, default=False
            Whether to empty the sample first.
        """
        lam = float(forgetting_factor)
        forget = reset or lam == 0.0  # all weight on the new rows: none held is kept
        base = ReferenceSample.empty(self.capacity, X.shape[1]) if forget else self
        seen = base.seen * lam
        held = base.weights * lam if base.exact and lam != 1.0 else base.weights
        n = X.shape[0]
        take = min(max(self.capacity - base.rows.shape[0], 0), n)
        rows = np.vstack([base.rows, np.asarray(X[:take], dtype=np.float64)])
        weights = np.concatenate([held, sample_weight[:take]])
        rest = np.arange(take, n)
        if rest.size:
            counts = seen + rest + 1.0  # rows seen, each row included
            chosen = rest[rng.random(rest.size) < self.capacity / counts]
            slots = rng.integers(0, self.capacity, chosen.size)
            # a later row replaces an earlier one drawn to the same slot (Algorithm R)
            last = slots.size - 1 - np.unique(slots[::-1], return_index=True)[1]
            rows[slots[last]] = X[chosen[last]]
            weights[slots[last]] = sample_weight[chosen[last]]
        return ReferenceSample(self.capacity, rows, weights, seen + n, base.exact and not rest.size)
