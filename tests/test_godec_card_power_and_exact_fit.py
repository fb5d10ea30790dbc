"""GoDec (Zhou & Tao 2011): the bounds of ``card`` and ``power``, and no "gross errors left
out" warning on an exact decomposition.

Mutation audit: each of these changes left the suite passing -- ``card`` equal to the
number of entries refused, ``card=1.0`` (every entry) or ``card=True`` accepted,
``power=0`` (the authors' default) refused, the warning of a full sparse part given
also when the fit stopped on a vanishing residual or for ``card=0`` (no sparse part
asked for), and that warning lost with missing entries (NaN in the gaps made the data's
RMS NaN). ``test_bad_parameters`` in
``test_known_rank.py`` covers other values of the same parameters.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca.estimators._known_rank import GoDec


def planted(seed=0):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 150))
    mask = rng.random(L.shape) < 0.05
    return L + np.where(mask, 50 * rng.normal(size=L.shape), 0.0), L, mask


def test_card_bounds_are_inclusive_for_ints_and_exclusive_for_fractions():
    """An int ``card`` lies in ``[0, n_samples * n_features]`` (every entry allowed); a
    float is a fraction in ``[0, 1)`` (so ``1.0`` is refused); a bool is not a count."""
    X = np.random.default_rng(1).normal(size=(12, 5))
    model = GoDec(2, card=X.size, random_state=0, max_iter=5).fit(X)
    assert model.card_ == X.size
    with pytest.raises(ValueError, match="card"):
        GoDec(2, card=1.0).fit(X)
    with pytest.raises(TypeError, match="card"):
        GoDec(2, card=True).fit(X)


def test_power_zero_is_accepted():
    """``power`` is the number ``q >= 0`` of power iterations of the BRP; ``q = 0`` is the
    default of the authors' code and recovers an exact planted decomposition."""
    X, L, mask = planted()
    model = GoDec(3, card=int(mask.sum()), power=0, random_state=0).fit(X)
    assert np.linalg.norm(model.low_rank_ - L) < 1e-6 * np.linalg.norm(L)


def test_exact_decomposition_does_not_warn_about_gross_errors_left_out():
    """With ``card`` the exact number of gross errors, GoDec recovers ``L`` and stops on a
    vanishing residual with a full ``sparse_``. The residual left is rounding, whose
    robust column scale is no measure of gross errors: no warning is due."""
    X, L, mask = planted()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = GoDec(3, card=int(mask.sum()), random_state=0).fit(X)
    assert np.count_nonzero(model.sparse_) == model.card_
    assert np.linalg.norm(model.low_rank_ - L) < 1e-6 * np.linalg.norm(L)


def test_card_zero_asks_for_no_sparse_part_and_gets_no_warning():
    """``card=0`` is a plain rank-``r`` approximation by choice: its (empty) sparse part
    is not "full", so the gross errors it leaves in ``low_rank_`` are not warned about."""
    X, _, _ = planted()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = GoDec(3, card=0, random_state=0).fit(X)
    assert not np.any(model.sparse_)


def test_too_small_card_warns_also_with_missing_entries():
    """A ``card`` half the number of gross errors leaves the other half in the fit: the
    warning is given with gaps (NaN) as without them; the gaps are left out of the
    data's RMS and of the residual."""
    X, _, mask = planted()
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    with pytest.warns(UserWarning, match="is full"):
        GoDec(3, card=int(mask.sum()) // 2, random_state=0).fit(X)
