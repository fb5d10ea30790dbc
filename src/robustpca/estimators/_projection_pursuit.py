"""Projection-pursuit robust PCA (Croux & Ruiz-Gazen 2005; Croux, Filzmoser & Oliveira
2007): rrcov's ``PcaGrid`` and ``PcaProj``, computed as pcaPP computes them."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import MAX_ALLOCATED_COUNT, check_bool, check_positive_int
from ..solvers import SolverResult, StopReason
from ..solvers.projection_pursuit import solve_projection_pursuit
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes

__all__ = ["ProjectionPursuitPCA"]


class ProjectionPursuitPCA(BaseSubspaceEstimator):
    r"""Projection-pursuit robust PCA: the directions of largest robust scale.

    The ``j``-th component maximises a robust scale :math:`S` (the projection index) of
    the data projected on it, among the directions orthogonal to the first ``j - 1``;
    the data are centred at their L1 (spatial) median and the robust eigenvalue is
    :math:`S^2` (Croux & Ruiz-Gazen 2005; Croux, Filzmoser & Oliveira 2007; the
    details as pcaPP computes them):

    .. math::
        a_j = \operatorname*{arg\,max}_{\lVert a\rVert = 1,\ a \perp a_1..a_{j-1}}
        S\bigl(a^\top(x_i - \hat\mu)\bigr)_{i=1}^n, \qquad
        \lambda_j = S\bigl(a_j^\top(x_i - \hat\mu)\bigr)^2 .

    With the MAD or Qn as :math:`S` the components inherit the breakdown point of the
    scale, 50% (Croux & Ruiz-Gazen 2005), and need no h-subset, so they work for any
    ``n`` and ``p`` (``p > n`` through an SVD of the uncentred data, as pcaPP does: the
    grid then searches the planes of that basis, so on wide data its fit moves with a
    translation of the data, as pcaPP's does). Two searches:

    ``method="grid"`` (default; rrcov ``PcaGrid``, pcaPP ``PCAgrid``)
        Croux, Filzmoser & Oliveira (2007): the direction is improved in the
        planes spanned by it and each coordinate axis over a grid of ``n_angles``
        angles, the grid halved ``max_iter`` times; then the data are reflected onto
        the orthogonal complement for the next component. Deterministic.
    ``method="proj"`` (rrcov ``PcaProj``, pcaPP ``PCAproj``)
        Croux & Ruiz-Gazen (2005): the candidate directions are the centred
        data points (pcaPP's default ``CalcMethod="eachobs"``), the best one refined by
        pcaPP's update (``update=True``: the sign-weighted mean of the candidates, with
        ``max_halvings`` step halvings, at most ``update_max_iter`` times), then the
        data are deflated. Deterministic by default; ``candidates="lincomb"`` or
        ``"sphere"`` add random candidate directions (pcaPP's ``CalcMethod``), drawn
        from ``random_state``.

    Cost per component: the grid projects the ``n`` samples on about ``275 p`` angles
    (``p`` planes, 11 refinements, 25 angles), PCAproj on ``n`` candidates, so PCAproj
    is the cheaper when ``n < 275 p``. Most of the cost is the MAD's two selections
    per projection, each one NumPy partition at a single order statistic (its
    vectorised quickselect; a partition at the two middle order statistics of an even
    ``n`` falls back to a slower generic selection). ``scale="qn"`` costs
    :math:`O(n \log n)` per projection instead of the MAD's :math:`O(n)`. Timings
    against pcaPP's C++ are made by ``benchmarks/bench_projection_pursuit.py``
    (``docs/design-notes/projection-pursuit.md``).

    Robustness (``tests/test_projection_pursuit.py``): a tight cluster of bad leverage
    points replacing a fifth of the rows tilts the subspace towards the cluster but
    does not take it over, and every point of the cluster is flagged, where classical
    PCA follows the cluster. Qn's bias under such a point mass is larger than the
    MAD's. Both searches break down as the cluster nears half the rows.

    The result equals rrcov's on the five rrcov tables (``tests/test_projection_pursuit.py``):
    the grid to rounding (its scale is location-invariant, so the centre does not
    enter the search), PCAproj to about 1e-6 relative, the precision to which pcaPP
    solves the L1 median. Choices where the papers or pcaPP leave room:

    * pcaPP's MAD constant 1.482602218505602 (not R's rounded 1.4826) and pcaPP's Qn
      constants (:mod:`robustpca.qn_scale`), so that the eigenvalues match;
    * the L1 median is solved to rounding (Weiszfeld then Newton), not with pcaPP's
      ``nlm`` tolerance. Where the coordinate-wise median (pcaPP's start) is itself a
      data point, as happens on discrete data, pcaPP's ``nlm`` meets an undefined
      gradient and returns that start, which is not the L1 median; this estimator
      returns the minimiser, so PCAproj then differs from ``PcaProj`` (the grid's
      loadings and eigenvalues do not depend on the centre; its distances do). On
      such data PCAproj's candidates also tie in scale, and rounding (BLAS sums here,
      sequential sums in pcaPP) decides between them;
    * ``n_components=None`` is ``min(n_samples, n_features)``, which is rrcov's ``k = 0``
      on data of full rank (rrcov has no automatic rule for these methods);
      ``"auto"`` and a float share are resolved as every robustpca estimator resolves
      them, on the spherical-PCA spectrum (:class:`BaseSubspaceEstimator`), because
      the share of the projection-pursuit spectrum would need all ``p`` components; an
      int ``n_components`` above the rank is kept (the extra components have eigenvalue
      0), where rrcov lowers it to the rank with a warning;
    * components are ordered by decreasing robust eigenvalue, as pcaPP orders them;
    * the grid's axes are ordered by decreasing robust scale, as in pcaPP, but scales
      within ``sqrt(eps)`` of the largest count as equal (pcaPP's handling of equal
      ones). Columns brought to one scale (each divided by its MAD) otherwise differ by
      the rounding of the centring alone, which then chose the starting axis, the
      order of the planes and so the optimum reached; pcaPP's fit of such data still
      depends on its rounding (``docs/rrcov.md``). Among equal scales the order follows
      the columns' positions, so permuting the columns of such data can change the fit.

    Parameters
    ----------
    n_components : int, float, "auto" or None, default="auto"
        ``k`` (see above).
    method : {"grid", "proj"}, default="grid"
        The search.
    scale : {"mad", "qn", "sd"}, default="mad"
        The projection index: the MAD, Qn (Rousseeuw & Croux 1993) or the standard
        deviation (which gives classical PCA, without robustness).
    max_iter : int, default=10
        Grid refinements (pcaPP's ``maxiter``); ``method="grid"`` only.
    n_angles : int >= 2, default=25
        Angles per plane (pcaPP's ``splitcircle``); ``method="grid"`` only.
    update : bool, default=True
        Refine the best candidate direction (``method="proj"`` only; pcaPP's ``update``).
    update_max_iter : int, default=5
        Refinement steps (pcaPP's ``maxit``); ``method="proj"`` only.
    max_halvings : int >= 0, default=5
        Step halvings per refinement (pcaPP's ``maxhalf``); ``method="proj"`` only.
    candidates : {"data", "lincomb", "sphere"}, default="data"
        PCAproj's candidate directions (pcaPP's ``CalcMethod``): the centred data points
        (``"eachobs"``, the default of pcaPP and rrcov); or those plus
        ``n_candidates - n_samples`` random combinations of them (uniform weights), or
        plus as many random normal directions, which helps when ``n_samples`` is small.
        pcaPP then skips the update, and so does this. ``method="proj"`` only.
    n_candidates : int, default=1000
        Number of candidates with ``"lincomb"`` and ``"sphere"`` (pcaPP's ``nmax``).
    random_state : int, RandomState, Generator or None, default=None
        Draws the extra candidates of ``"lincomb"`` and ``"sphere"``; nothing else is
        random (pcaPP uses R's generator, so those fits differ from pcaPP's).
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Robust loadings, by decreasing robust eigenvalue.
    mean_ : ndarray of shape (n_features,)
        The L1 median.
    explained_variance_ : ndarray of shape (n_components_,)
        Robust eigenvalues :math:`S^2` (rrcov's ``@eigenvalues``).
    scales_ : ndarray of shape (n_components_,)
        :math:`S` along each component (pcaPP's ``sdev``).
    n_components_ : int
        ``k``, given or resolved.
    objective_history_ : ndarray of shape (1,)
        The sum of the robust eigenvalues.
    <detector attributes>
    n_features_in_, n_iter_, converged_ (True), stop_reason_

    Notes
    -----
    The outlier diagnostics (:mod:`robustpca.diagnostics`, ``predict``) are rrcov's for
    robust fits: score distances with ``explained_variance_``, the OD cutoff from the
    median and MAD of :math:`OD^{2/3}`.

    Missing entries (NaN) are refused: the iterated robust imputation of the other
    rrcov-family estimators does not settle here (on planted data with a leverage
    cluster the grid search alternates between two directions from one refit to the
    next, and the fills with it).

    References
    ----------
    C. Croux, A. Ruiz-Gazen, "High breakdown estimators for principal components: the
    projection-pursuit approach revisited", Journal of Multivariate Analysis 95(1),
    206-226, 2005.
    C. Croux, P. Filzmoser, M. R. Oliveira, "Algorithms for projection-pursuit robust
    principal component analysis", Chemometrics and Intelligent Laboratory Systems
    87(2), 218-225, 2007.
    P. J. Rousseeuw, C. Croux, "Alternatives to the median absolute deviation", JASA
    88(424), 1273-1283, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import ProjectionPursuitPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5)) * [5, 3, 1, 0.5, 0.2]
    >>> X[:10] += 40  # a cluster of leverage points
    >>> model = ProjectionPursuitPCA(n_components=2).fit(X)
    >>> bool((model.predict(X)[:10] == -1).all())
    True
    """

    __doc__ = with_detector_attributes(__doc__)

    _od_cutoff_rule = "robust"

    def __init__(
        self,
        n_components="auto",
        *,
        method="grid",
        scale="mad",
        max_iter=10,
        n_angles=25,
        update=True,
        update_max_iter=5,
        max_halvings=5,
        candidates="data",
        n_candidates=1000,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.method = method
        self.scale = scale
        self.max_iter = max_iter
        self.n_angles = n_angles
        self.update = update
        self.update_max_iter = update_max_iter
        self.max_halvings = max_halvings
        self.candidates = candidates
        self.n_candidates = n_candidates
        self.random_state = random_state
        self.contamination = contamination

    def _check_params(self) -> None:
        for name, allowed in (
            ("method", ("grid", "proj")),
            ("scale", ("mad", "qn", "sd")),
            ("candidates", ("data", "lincomb", "sphere")),
        ):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"{name} must be one of {allowed}, got {value!r}.")
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}.")
        check_positive_int(self.max_iter, "max_iter")
        check_positive_int(self.n_angles, "n_angles", minimum=2, maximum=MAX_ALLOCATED_COUNT)
        check_positive_int(self.update_max_iter, "update_max_iter")
        check_positive_int(self.max_halvings, "max_halvings", minimum=0)
        check_positive_int(self.n_candidates, "n_candidates", maximum=MAX_ALLOCATED_COUNT)
        check_bool(self.update, "update")

    def _fit_solver(self, X, rng, sample_weight=None) -> SolverResult:
        X = np.asarray(X, dtype=np.float64)
        k = self.n_components_
        if not isinstance(k, numbers.Integral):  # pragma: no cover - resolved by the base
            raise TypeError(f"n_components_ must be an int, got {k!r}.")
        result = solve_projection_pursuit(
            X,
            int(k),
            method=self.method,
            scale=self.scale,
            max_iter=self.max_iter,
            n_angles=self.n_angles,
            update=self.update,
            update_max_iter=self.update_max_iter,
            max_halvings=self.max_halvings,
            candidates=self.candidates,
            n_candidates=self.n_candidates,
            rng=rng,
        )
        return SolverResult(
            components=result.components,
            mean=result.mean,
            weights=None,
            n_iter=max(result.n_iter, 1),
            converged=True,
            stop_reason=StopReason.CLOSED_FORM,
            objective=np.array([float(np.sum(result.eigenvalues))]),
            info={"explained_variance": result.eigenvalues, "scales": result.scales},
        )
