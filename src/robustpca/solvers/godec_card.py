r"""GoDec's cardinality from the data: a robust cutoff on the residual (ours).

Zhou & Tao (2011) take the cardinality bound ``k`` of the sparse part as an input. GoDec
is sensitive to it: with too small a ``k`` the gross entries left outside ``S`` bend
``L``; with too large a ``k`` the surplus entries of ``S`` are those where the current
``L`` errs most, and the bilateral random projection of ``X - S``, which fills them with
the current ``L``, keeps those errors (a fixed point of that filling, as with missing
entries: :mod:`robustpca.solvers.known_rank`, "Missing entries").

:class:`ResidualCutoff` estimates ``k`` from the data instead: it counts the entries of
the residual ``R = X - L`` of the current rank-``r`` fit (observed entries only) whose
magnitude exceeds ``cutoff`` times a robust scale of their column,

.. math:: k = \#\{(i, j) : |R_{ij}| > c\,\hat\tau_j\},\qquad
          \hat\tau_j = 1.4826\,\operatorname{median}_i |R_{ij}| ,

1.4826 making :math:`\hat\tau_j` the standard deviation of Gaussian entries (the median
of ``|R|``, not of its deviations from the median: the model ``X = L + S + N`` puts no
offset in ``R``). The scale is per column (feature) because the residual's is: the
columns of a table have their own units, and an early fit pulls whole columns off
(a pixel whose background the gross errors bent). A column with more than half of
its entries gross is beyond the rule (its median breaks down), as it is beyond
identifiability for video, where a pixel covered more than half of the time is
background. The count is capped at ``max_share`` of the entries. The rule is
scale-free: multiplying ``X``, or one of its columns, by ``a`` multiplies ``R`` and
the scales alike and leaves ``k`` unchanged.

How :func:`~robustpca.solvers.godec.solve_godec` uses it (all of this is ours):

* **start generous**: the first ``k`` is the count on the residual of the first BRP
  fit, at least ``start`` of the entries: a first fit pulled towards the gross errors
  masks some of them (small residuals), and a generous ``S`` releases the fit;
* **select in the columns' scales**: ``S`` keeps the ``k`` entries of largest
  :math:`|R_{ij}|/\hat\tau_j` (GoDec's cardinality projection, with each column in
  its own scale), so that a column with large residuals everywhere does not fill ``S``;
* **re-estimate**: ``k`` is counted again each time the objective settles for the
  current ``k`` (relative decrease below ``refit``) or the residual vanishes, until
  it no longer changes (a ``k`` met before ends the search). As the fit improves the
  scales fall and smaller gross errors are found, and entries counted wrongly are
  released;
* **fit the entries outside S**: that release needs the low-rank step to fit ``L`` to
  the entries neither missing nor in ``S``, the alternating least-squares sweep of
  ``missing_step='als'``, rather than the BRP step on ``X - S``, which fills the
  entries of ``S`` with the current ``L`` and so keeps its errors there (a fixed
  point of that filling, as with missing entries). A row or column left with at most
  ``r`` entries would be fitted exactly by any basis and, once all in ``S``, stay
  there; it is fitted on all its observed entries, trimmed of those beyond the rule's
  cutoff in its own scale.

Once ``k`` stops changing, the loop is GoDec's on the entries outside ``S``. The same
count on the final residual tells whether gross errors were left outside ``S``
(:func:`gross_left_out`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .known_rank import keep_largest_entries

__all__ = ["MAD_TO_SD", "ResidualCutoff", "full_card_message", "gross_left_out"]

#: ``1 / Phi^-1(3/4)``: the median of ``|N(0, s^2)|`` times this is ``s``.
MAD_TO_SD = 1.482602218505602


@dataclass(frozen=True)
class ResidualCutoff:
    """The rule that sets GoDec's cardinality from the residual (module docstring).

    Parameters
    ----------
    cutoff : float, default=3.0
        An entry is gross where its residual exceeds ``cutoff`` robust standard
        deviations (a Gaussian entry does with probability 0.0027).
    max_share : float, default=0.5
        The cap on ``k``, as a share of the (observed) entries.
    refit : float, default=1e-2
        ``k`` is estimated again when the objective decreased by less than this share
        over the last iteration.
    start : float, default=0.3
        The first ``k`` is at least this share of the entries.
    """

    cutoff: float = 3.0
    max_share: float = 0.5
    refit: float = 1e-2
    start: float = 0.3

    def thresholds(
        self, residual: np.ndarray, observed: np.ndarray | None, reference: float
    ) -> np.ndarray:
        r"""The cutoff :math:`c\hat\tau_j` of each column of ``residual``.

        The scales have a floor so that an exact fit (zero medians) counts only the
        entries that are off by more than rounding.

        Parameters
        ----------
        residual : ndarray of shape (n_samples, n_features)
            The residual ``R = X - L`` of the current fit.
        observed : ndarray of bool of shape (n_samples, n_features) or None
            False at the gaps, which are ignored; None: every entry is observed.
        reference : float
            The RMS of the data: the scales are at least :math:`\sqrt{\epsilon}` times it.

        Returns
        -------
        ndarray of shape (n_features,)
        """
        magnitude = np.abs(residual)
        if observed is None:
            cols = np.median(magnitude, axis=0)
        else:
            gapped = np.where(observed, magnitude, np.nan)
            with warnings.catch_warnings():  # an empty column: no scale (NaN)
                warnings.simplefilter("ignore", RuntimeWarning)
                cols = np.nan_to_num(np.nanmedian(gapped, axis=0))
        floor = max(np.sqrt(np.finfo(float).eps) * reference, np.finfo(float).tiny)
        scale = np.maximum(MAD_TO_SD * cols, floor)
        return self.cutoff * scale

    def keep_largest(
        self, residual: np.ndarray, k: int, observed: np.ndarray | None, reference: float
    ) -> np.ndarray:
        """``residual`` at its ``k`` observed entries of largest magnitude relative to
        their cutoff (the cardinality projection in the columns' scales), zeros
        elsewhere.

        Parameters
        ----------
        residual : ndarray of shape (n_samples, n_features)
            The residual ``R = X - L`` of the current fit.
        k : int
            Number of entries kept.
        observed : ndarray of bool of shape (n_samples, n_features) or None
            As in :meth:`thresholds`.
        reference : float
            As in :meth:`thresholds`.
        """
        ratio = np.abs(residual) / self.thresholds(residual, observed, reference)
        if observed is not None:
            ratio[~observed] = 0.0
        return np.where(keep_largest_entries(ratio, k) != 0, residual, 0.0)

    def cap(self, n_entries: int) -> int:
        """The most entries ``S`` may hold, ``max_share`` of ``n_entries``.

        Parameters
        ----------
        n_entries : int
            Number of (observed) entries.
        """
        return int(self.max_share * n_entries)

    def beyond(
        self, residual: np.ndarray, observed: np.ndarray | None, reference: float
    ) -> np.ndarray:
        """True at the observed entries beyond their cutoff.

        Parameters
        ----------
        residual : ndarray of shape (n_samples, n_features)
            The residual ``R = X - L`` of the current fit.
        observed : ndarray of bool of shape (n_samples, n_features) or None
            As in :meth:`thresholds`.
        reference : float
            As in :meth:`thresholds`.
        """
        out = np.abs(residual) > self.thresholds(residual, observed, reference)
        return out if observed is None else out & observed

    def support_size(
        self, residual: np.ndarray, observed: np.ndarray | None, reference: float
    ) -> int:
        """``k``: the number of observed entries beyond their cutoff, capped (:meth:`cap`).

        Parameters
        ----------
        residual : ndarray of shape (n_samples, n_features)
            The residual ``R = X - L`` of the current fit.
        observed : ndarray of bool of shape (n_samples, n_features) or None
            As in :meth:`thresholds`.
        reference : float
            As in :meth:`thresholds`.
        """
        n_entries = residual.size if observed is None else int(np.count_nonzero(observed))
        k = int(np.count_nonzero(self.beyond(residual, observed, reference)))
        return min(k, self.cap(n_entries))


def full_card_message(card, k: int, rule: ResidualCutoff, count: int, share: float) -> str:
    """The warning of a fit whose support is full while entries beyond the cutoff were
    left out of it (:func:`gross_left_out`).

    Parameters
    ----------
    card : {"auto"} or int
        The cardinality as given to the solver.
    k : int
        Number of entries in the full support.
    rule : ResidualCutoff
        The rule whose cutoff and cap the message quotes.
    count : int
        Number of entries beyond the cutoff left outside the support.
    share : float
        Their share of the residual's squared norm.
    """
    auto = isinstance(card, str)
    what = (
        f"card='auto' reached its cap of {k} entries ({rule.max_share:.0%})"
        if auto
        else f"card={card!r} ({k} entries) is full"
    )
    advice = (
        "the data may not be low rank + sparse at this rank: raise n_components"
        if auto
        else "raise card, or use card='auto'"
    )
    return (
        f"GoDec: {what}, and {count} more entries of the residual lie beyond "
        f"{rule.cutoff:g} robust standard deviations, carrying {share:.0%} of "
        f"||X - L - S||_F^2: gross errors were left in low_rank_; {advice}."
    )


def gross_left_out(
    residual: np.ndarray,
    sparse: np.ndarray,
    observed: np.ndarray | None,
    rule: ResidualCutoff,
    reference: float,
) -> tuple[int, float]:
    """Entries of ``residual = X - L`` beyond the rule's cutoff but outside the support
    of ``sparse``: their number and their share of the squared norm of ``X - L - S``.

    Gaussian noise puts a thirtieth of its energy beyond 3 standard deviations; a share
    above one half says that ``S`` left gross errors in the fit.

    Parameters
    ----------
    residual : ndarray of shape (n_samples, n_features)
        The residual ``X - L`` of the fit.
    sparse : ndarray of shape (n_samples, n_features)
        The sparse part ``S``; its support is where it is non-zero.
    observed : ndarray of bool of shape (n_samples, n_features) or None
        False at the gaps, which are ignored; None: every entry is observed.
    rule : ResidualCutoff
        The rule giving the cutoff.
    reference : float
        The RMS of the data (:meth:`ResidualCutoff.thresholds`).

    Returns
    -------
    count : int
    share : float
    """
    left = residual - sparse
    if observed is not None:
        left = np.where(observed, left, 0.0)
    outside = rule.beyond(residual, observed, reference) & (sparse == 0)
    total = float(np.einsum("ij,ij->", left, left))
    gross = left[outside]
    share = float(np.dot(gross, gross)) / total if total > 0 else 0.0
    return int(gross.size), share
