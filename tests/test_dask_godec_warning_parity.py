"""GoDec's warning that gross errors were left in ``low_rank_`` on a dask array: the
Dask fit recomputes the rule's cutoffs and shares by passes
(``_dask.godec._warn_gross_left_out``), so it must warn exactly where the in-memory
fit warns, with the same message (the count and the share of the residual), including
the moderate shares between the rule's one half and the near-total ones of the
existing test."""

from __future__ import annotations

import warnings

import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustpca import GoDec

from .test_dask_godec import planted

da = pytest.importorskip("dask.array")


def _gross_warnings(model, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ConvergenceWarning)
        clone(model).fit(X)
    return [str(w.message) for w in caught if "gross errors" in str(w.message)]


@pytest.mark.parametrize("card", [30, 100, 300])
def test_the_full_card_warning_is_that_of_the_in_memory_fit(card):
    """Low rank plus 2% gross entries plus dense noise: a small ``card`` leaves gross
    entries carrying about three quarters of the residual (a warning), larger ones
    leave too little for one (no warning); the dask fit agrees each time."""
    L, S, N = planted(5, n=600, d=10, share=0.02, noise=0.3)
    X = L + S + N
    model = GoDec(3, card=card, max_iter=20, random_state=0)
    theirs = _gross_warnings(model, X)
    ours = _gross_warnings(model, da.from_array(X, chunks=(150, -1)))
    assert ours == theirs
    assert bool(theirs) == (card == 30)
