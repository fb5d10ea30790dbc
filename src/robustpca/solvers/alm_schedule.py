r"""The penalty schedule and the stopping rule of the convex ALM solvers with a gap target.

The loop of :mod:`robustpca.solvers.alm` asks :class:`_Schedule`, after each iteration,
for the next penalty :math:`\mu_{k+1}` (from the relative primal and dual residuals of
that iteration) and whether the certified duality gap is worth computing now; the
certificate itself and the cheap gap that triggers it are in
:mod:`robustpca.solvers.alm_blocks`.
"""

from __future__ import annotations

import numpy as np

#: Stop reason with a gap target: primal feasibility and the certified gap.
DUALITY_GAP = (
    "certified relative duality gap below gap_tol, primal residual below max(tol, gap_tol)"
)
#: Residual balancing: mu changes when the relative primal and dual residuals differ by
#: more than this factor (see _Schedule): the penalty stays where Lin et al.'s phase left
#: it unless it is far off.
BALANCE = 10.0
#: The balancing keeps the penalty above MU_MIN times its start.
MU_MIN = 1.0
#: Iterations at the cap after which Lin et al.'s phase gives up on tol.
CAPPED_WAIT = 20
#: Largest factor of one penalty change in the balancing phase.
MAX_STEP = 10.0
#: The certified gap is computed once the cheap one is below TRIGGER * gap_tol, then
#: every CHECK_EVERY iterations (or once the cheap gap has halved).
TRIGGER = 10.0
CHECK_EVERY = 5
#: Lin et al.'s phase ends early once the relative dual residual has not fallen below
#: STALL times its value STALL_WINDOW iterations before, at two iterations in a row,
#: and is more than STALL_RATIO times the primal residual: the multiplier stalls (see
#: _Schedule).
STALL = 0.7
STALL_WINDOW = 3
STALL_RATIO = 5.0
#: Over-relaxation of PCP's ADMM in the balancing phase (Eckstein & Bertsekas 1992;
#: Boyd et al. 2011, sec. 3.4.3, who suggest 1.5 to 1.8): fewer iterations for PCP on
#: faces and planted problems. Outlier pursuit and CRPCA-OM are not relaxed: it was mixed
#: there, and could leave the balancing at a far larger penalty
#: (docs/design-notes/pcp.md).
RELAX_PCP = 1.8
#: A relative dual residual below this is zero to rounding: the sparse part had not
#: started to change (it starts from zero), so a rise from there is no stall.
ZERO_DUAL = 1e-10


class _Schedule:
    r"""The penalty and the stopping rule of the loop with a gap target (two phases).

    * ``'lin'``: Lin et al.'s growth :math:`\mu_{k+1} = \min(\rho\mu_k, \bar\mu)`
      until the relative primal residual ``r`` is below ``tol`` (or for ``CAPPED_WAIT``
      iterations at the cap :math:`\bar\mu`, when ``tol`` is out of reach); the
      certified gap is then computed and the loop stops if it is below ``gap_tol``
      (problems with exact recovery stop here, after exactly Lin et al.'s iterations).
      The phase **ends early, keeping the penalty, when the multiplier stalls**: the
      relative dual residual ``s`` (Boyd et al. 2011, sec. 3.3) above ``STALL_RATIO``
      times ``r`` and, at this iteration and the one before, above ``STALL`` times its
      value ``STALL_WINDOW`` iterations before. While the ALM converges, the growth
      shrinks both residuals; where the iterates freeze (the geometric growth makes
      :math:`\sum_k 1/\mu_k` finite), ``s`` stalls, and growing the penalty on from
      there only freezes the multiplier further. Two iterations in a row, because ``s``
      is noisy near exact recovery; not from a residual that was zero
      (``ZERO_DUAL``: the sparse part filling in from zero); not at the cap. If the
      primal residual is then below ``max(tol, gap_tol)`` already, the certified gap is
      computed at once: the iterates may freeze because they are near the optimum. In
      this phase only the dual residual is summed (``measure='residual'`` of
      :func:`robustpca.solvers.alm_blocks._low_rank_pass`);
    * ``'balance'``: otherwise the iterates froze before the optimum. The penalty is
      then balanced (Boyd et al. 2011, sec. 3.4.1, with the adaptive factor of Wohlberg
      2017): multiplied by :math:`\sqrt{r/s}` (clipped to ``[1/MAX_STEP, MAX_STEP]``)
      whenever ``r`` and ``s`` differ by more than a factor ``BALANCE``; with a fixed
      penalty the ALM is ADMM, which converges to the optimum (for PCP over-relaxed,
      ``relax``, see ``RELAX_PCP``); the penalty is kept above its start
      :math:`\mu_0`. After a stall the first change waits ``STALL_WINDOW`` iterations:
      the dual residual still carries the growth that just stopped, and balancing on it
      would cut the penalty far below where the iterates converge fastest. While ``r <=
      max(tol, gap_tol)`` the certified gap is computed
      every ``CHECK_EVERY`` iterations, or sooner once the cheap gap
      (:func:`robustpca.solvers.alm_gap._cheap_gap`) has halved or is below ``TRIGGER *
      gap_tol``; the loop stops when it is below ``gap_tol``. After each change the next
      one waits twice as long, so that the loop ends as ADMM with a fixed penalty (He,
      Yang & Wang 2000); without that wait the penalty can cycle.

    Growing the penalty again to push ``r`` down to ``tol`` after that undoes the
    optimality, hence ``max(tol, gap_tol)`` in that phase. ``docs/design-notes/pcp.md``
    has the measurements behind each rule.
    """

    def __init__(
        self, mu0: float, rho: float, mu_max: float, tol: float, gap_tol, relax: float = 1.0
    ):
        self.rho, self.mu_max, self.tol, self.gap_tol = rho, mu_max, tol, gap_tol
        self.relax = relax
        self.mu_min = mu0 * MU_MIN
        self.phase = "lin"
        self.next_check = (np.inf, 0)
        self.since, self.wait = 0, 1  # iterations since the last change, and the wait
        self.capped = 0  # iterations of Lin et al.'s phase at the cap
        self.duals: list[float] = []  # the dual residuals of Lin et al.'s phase

    def measures(self) -> bool | str:
        """What the next iteration measures: nothing without a gap target, the dual
        residual in Lin et al.'s phase, the dual residual and the cheap gap after it."""
        if self.gap_tol is None:
            return False
        return "residual" if self.phase == "lin" else True

    def relaxation(self) -> float:
        """The over-relaxation of the next iteration's sparse step: ``relax`` in the
        balancing phase, none (1) in Lin et al.'s."""
        return self.relax if self.phase == "balance" else 1.0

    def _stalled(self, primal: float, dual: float) -> bool:
        """Lin et al.'s phase: has the multiplier stalled (see the class docstring)?"""
        s = self.duals
        s.append(dual)
        if self.gap_tol is None or len(s) <= STALL_WINDOW + 1 or not dual > STALL_RATIO * primal:
            return False
        before = s[-2 - STALL_WINDOW : -STALL_WINDOW]
        return min(before) > ZERO_DUAL and all(
            s_k > STALL * s_w for s_k, s_w in zip(s[-2:], before, strict=True)
        )

    def next_mu(self, mu: float, primal: float, dual: float) -> float:
        if self.phase == "lin":
            # at the cap the growth has stopped already (a fixed penalty, ADMM): on to tol
            if not self._stalled(primal, dual) or mu >= self.mu_max:
                return min(self.rho * mu, self.mu_max)
            self.phase = "balance"
            # certify now if the primal residual already allows a stop (see the class
            # docstring), else once it does, as after any end of Lin et al.'s phase
            due = 0 if primal <= max(self.tol, self.gap_tol) else CHECK_EVERY
            self.next_check = (TRIGGER * self.gap_tol, len(self.duals) + due)
            # the dual residual still carries the growth that just stopped: the first
            # balancing waits the stall's window for it to settle at this penalty
            self.since = 1 - STALL_WINDOW
            return mu
        self.since += 1
        ratio = primal / dual if dual > 0 else np.inf
        if self.since < self.wait or 1.0 / BALANCE <= ratio <= BALANCE:
            return mu
        self.since, self.wait = 0, 2 * self.wait  # ever rarer changes: ADMM in the end
        step = min(max(np.sqrt(ratio), 1.0 / MAX_STEP), MAX_STEP)
        return min(max(mu * step, self.mu_min), self.mu_max)

    def wants_certificate(self, iteration: int, primal: float, gap: float, mu: float) -> bool:
        """Whether to compute the certified gap now (``mu``: the penalty just used)."""
        if self.phase == "lin":
            if primal <= self.tol:
                return True
            self.capped = self.capped + 1 if mu >= self.mu_max else 0
            if self.capped < CAPPED_WAIT:
                return False
            # capped for CAPPED_WAIT iterations with the residual still above tol
            self.phase = "balance"
            self.next_check = (TRIGGER * self.gap_tol, iteration + CHECK_EVERY)
            return primal <= max(self.tol, self.gap_tol)
        if primal > max(self.tol, self.gap_tol):
            return False
        return gap <= self.next_check[0] or iteration >= self.next_check[1]

    def done(self, iteration: int, gap: float, certified: float) -> bool:
        """After a certificate: stop, or schedule the next one."""
        if certified <= self.gap_tol:
            return True
        self.phase = "balance"
        # no cheap gap in Lin et al.'s phase (NaN): the trigger then starts afresh
        trigger = min(0.5 * gap, TRIGGER * self.gap_tol) if gap < np.inf else TRIGGER * self.gap_tol
        self.next_check = (trigger, iteration + CHECK_EVERY)
        return False
