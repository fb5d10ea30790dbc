"""The numpydoc sections the three convex estimators share (their ALM parameters, the
stopping rule and the fitted attributes), inserted into each class docstring."""

from ._outlier_api import with_detector_attributes

_COMMON_PARAMS = r"""
    mu : float or 'auto', default='auto'
        Initial ALM penalty :math:`\mu_0`. ``'auto'`` is :math:`1.25/\lVert X\rVert_2`
        (Lin et al. 2010) on the data the solver sees, so the iterates scale with the
        data (a fixed :math:`\mu_0` assumes data in a fixed range).
    mu_max : float or 'auto', default='auto'
        Cap :math:`\bar\mu` of the penalty; ``'auto'`` is a fixed multiple of
        :math:`\mu_0` (see Notes; :math:`10^7\mu_0` for all three with missing entries,
        whose fit the certified gap stops).
    max_iter : int, default=1000
        Maximum number of ALM iterations.
    tol : float, default=1e-7
        Relative primal residual :math:`\lVert X - L - S\rVert_F / \lVert X\rVert_F`
        of Lin et al.'s stopping rule. With ``gap_tol=None`` the fit stops there.
        Otherwise it is where the certified gap is first computed; when the fit must go
        on to meet ``gap_tol`` it stops once the gap is met and the residual is below
        ``max(tol, gap_tol)``.
    gap_tol : float or None, default=1e-3
        Target of the certified relative duality gap (``duality_gap_``): the fit stops
        only when the objective is provably within ``gap_tol`` (relative) of the optimum.
        Below 1. ``None``: Lin et al.'s rule alone (primal feasibility; the iterates and
        iteration counts of their code, but with no bound on the objective: its
        certificate can be several percent). See Notes.
    svd_solver : {'auto', 'full', 'partial'}, default='auto'
        SVD of the thresholding step; every route gives the exact SVT to rounding.
        ``'auto'``: each iteration the cheaper of the eigendecomposition of the
        ``min(n, d)``-square Gram matrix (accurate to about 1e-11 relative here, see
        :mod:`robustpca.solvers.alm_svt`) and the verified block SVT: the predicted top
        triplets (Lin et al.'s rank prediction) plus one that must fall below the
        threshold, warm started, the block grown otherwise (when ``10 (rank + 6) <=
        min(n, d)``, and not for a few steps after a block step dearer than the Gram
        route); it keeps the fit below 3x the data in memory (plus
        ``components_``). ``'partial'``: the block SVT every iteration, the Gram route as
        fallback. ``'full'``: LAPACK's exact SVD every iteration, which copies the
        iterate and returns a ``min(n, d) x d`` factor: about two more arrays of the size
        of ``X``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration (``state.objective``,
        ``state.components``, ``state.mean``: the iterate's ``mean_``); returning
        ``True`` stops.
    random_state : int, Generator or None, default=None
        Seeds the randomised SVD and the completion of ``components_`` beyond the rank.
"""

_ACCURACY_NOTE = r"""
    **Accuracy and stopping.** Lin et al.'s ALM grows the penalty geometrically, so its
    iterates freeze before the objective is optimal (inexact ALM converges to the
    optimum only when :math:`\sum_k 1/\mu_k = \infty`): stopped on primal
    feasibility alone (``gap_tol=None``) the objective was 0.08% (PCP) and 0.3% (outlier
    pursuit, CRPCA-OM) above the optimum on a 60 x 40 problem with outliers, with a
    certified gap of 5.7% for PCP on the occluded AT&T faces. By default the fit stops
    on the certified relative duality gap instead: when Lin et al.'s rule is met with a
    gap above ``gap_tol`` (problems with exact recovery mostly stop there, with Lin et
    al.'s iterates; where the multiplier stalls first, with the primal residual below
    ``gap_tol``, they stop certified at that residual, and ``low_rank_`` is accurate to
    about it, not to ``tol``: ``gap_tol=None`` then gives Lin et al.'s iterates), or
    earlier, as soon as the relative dual residual stalls while the
    penalty grows (the multiplier freezes), the penalty is balanced on the relative
    primal and dual residuals (Boyd et al. 2011, sec. 3.3-3.4.1; ever more rarely, so
    the loop ends as ADMM with a fixed penalty; for PCP over-relaxed, Eckstein &
    Bertsekas 1992) until the gap is met; if the primal residual is already small when
    the multiplier stalls, the gap is certified at once. Measured on the occluded AT&T
    faces (32 x 32, 400 images): PCP 33 iterations to a gap of 8.0e-4 (Lin et al.'s
    rule: 40 iterations, 5.7e-2; 94 before the early end, 53 before the relaxation,
    38 before the refined certificate of ``duality_gap_``),
    outlier pursuit 25 (5.2e-4; 35 before), CRPCA-OM 19 (5.7e-4; 36 before). The gap
    uses an exact spectral norm, a Gram matrix of the multiplier: it is computed when
    the primal residual is small, every 5 iterations or once a gap estimate that needs
    no SVD has halved (``_cheap_gap`` in :mod:`robustpca.solvers.alm_blocks`).
    With missing entries the observed-entries problem stops the same way
    (:mod:`robustpca.solvers.alm_observed`, without the over-relaxation),
    certified with a Lanczos spectral norm every 5 iterations: on rrcov's octane table
    (its 226 spectra) with a tenth of its cells missing PCP reaches a gap of 1e-3 in 148
    iterations at rank 9, where Lin et al.'s rule stopped at 37 with a gap of 5.3% and
    rank 20 (10 on the complete table).

    **Penalties beyond the known range.** Past a bound the solution is known and no
    longer changes (PCP: ``S = 0`` for :math:`\lambda \ge 1`, ``L = 0`` for
    :math:`\lambda \le 1/\sqrt{nd}`; outlier pursuit and CRPCA-OM: ``E = 0`` for
    :math:`\gamma \le 1`, ``Z = 0`` for :math:`\gamma \ge \gamma_{\max}`, at most
    :math:`\sqrt n`), while the ALM's thresholds overflow or crawl far beyond it. The
    solver is therefore given the penalty replaced by a value past the bound with the
    same solution (:math:`\lambda` at most 2, :math:`\gamma` at most :math:`2\sqrt n`,
    both at least :math:`10^{-6}` times their lower bound;
    :mod:`robustpca.solvers.penalty_range`). ``lam_`` and ``gamma_`` keep the value
    given and ``objective_history_`` is computed with it; ``duality_gap_`` certifies
    the solver's problem.
"""

_COMMON_ATTRS = r"""
    low_rank_ : ndarray of shape (n_samples, n_features)
        Recovered low-rank part ``L`` of the training data (including ``mean_``).
    sparse_ : ndarray of shape (n_samples, n_features)
        Recovered sparse part ``S = X - L`` (up to the primal residual: ``tol``, or
        ``max(tol, gap_tol)`` when the fit had to go on to meet ``gap_tol``).
    rank_ : int
        Numerical rank of ``L - mean_`` (singular values above ``max(n, d) * eps``
        times the largest).
    low_rank_singular_values_ : ndarray of shape (rank_,)
        Its singular values, decreasing.
    mu_ : float
        The initial penalty :math:`\mu_0` used.
    duality_gap_ : float
        Certified relative suboptimality of the final objective: (objective - dual
        value) / objective for the ALM multiplier made dual feasible (centred with a
        free mean, divided by the larger of 1 and its dual norm: spectral norm over
        the nuclear weight and entry (row) norm over the sparse weight), so by weak
        duality it bounds (objective - optimum) / objective from above. The fit stops
        when it is below ``gap_tol`` (see Notes). The spectral norm in it is the top
        eigenvalue of the Gram matrix of the short side (exact to rounding; the former
        power iteration could stop below it and understate the gap, e.g. 5.3% instead
        of 5.7% for PCP on the AT&T faces). For PCP, where that gap misses
        ``gap_tol``, it is the smaller of it and the gap of a second dual feasible point:
        the multiplier with its singular values above 1 clipped to 1, then its entries
        clipped to :math:`[-\lambda, \lambda]`, divided by its exact spectral norm (one
        round of alternating projections onto the two balls of the dual set), which
        bounds the suboptimality just as well and is often several times smaller (2.4x
        along PCP's iterates on the occluded AT&T faces).
    components_ : ndarray of shape (n_components_, n_features)
        Top right singular vectors of ``L - mean_`` (orthonormal rows); beyond
        ``rank_`` completed by arbitrary orthonormal directions drawn from
        ``random_state``.
    objective_history_ : ndarray
        The paper's objective, weighted by ``lam_`` or ``gamma_``, after each ALM
        iteration at the low-rank iterate ``L`` and the sparse part it leaves, ``X - L``
        (on the observed entries when some are missing; with the iterate's mean for
        CRPCA-OM), so that every value is that of a feasible point.
    residuals_ : dict of ndarray
        Only after a fit on complete data (absent with missing entries): the solver's
        trace per iteration, not per-sample residuals as in other estimators. Keys
        ``'primal'`` and ``'dual'`` (relative primal and dual residuals), ``'gap'``
        (a cheap gap estimate), ``'mu'`` (the penalty), each of length ``n_iter_``
        (``'dual'`` and ``'gap'`` NaN where not measured), and ``'certified'``:
        ``(iteration, certified gap)`` rows where that gap was computed.
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_
"""
_COMMON_ATTRS = with_detector_attributes(_COMMON_ATTRS)
