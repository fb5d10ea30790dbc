"""Edges of ``select_n_components`` and ``spherical_spectrum`` that no test pinned.

* rrcov's eigenvalue-ratio guard is inclusive (``l_j / l_1 <= 1e-3``) and keeps the
  first small eigenvalue among the candidates; it only decides ``k`` when the small
  eigenvalues carry more than a fifth of the variance, which takes hundreds of them, so
  the spectra of up to 15 values in ``test_rank_selection.py`` never reach it;
* an int ``n_components`` may be every eigenvalue, and a share below 1 never asks for
  more components than there are eigenvalues, even where the cumulative share rounds
  below it;
* ``rank`` beyond the spectrum and a boolean ``kmax`` are handled as documented, and a
  spectrum with NaN or a negative value beyond rounding is refused;
* ``spherical_spectrum`` returns its eigenvalues descending (documented; the squared
  MADs along the sphered principal axes need not come in that order), survives a row
  at Weiszfeld's starting point, and on constant data gives the documented spectrum of
  zeros that ``"auto"`` and shares turn into one component.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.rank_selection import select_n_components, spherical_spectrum

from .test_rank_selection import rrcov_k0


def test_ratio_guard_is_inclusive_and_keeps_the_first_small_eigenvalue():
    # 300 eigenvalues at exactly 1e-3 of the first carry 23% of the variance: the guard
    # (j* = 2, 1-based) decides k0 = 2, which explains 77% < 80%, so k = 2
    ev = np.array([1.0] + [1e-3] * 300)
    assert select_n_components(ev, "auto") == rrcov_k0(ev, 10, ev.size) == 2
    assert select_n_components(ev, "auto", kmax=1) == 1


def test_int_may_be_every_eigenvalue():
    assert select_n_components([3.0, 2.0, 1.0], 3) == 3


@pytest.mark.parametrize("seed", range(8))
def test_share_below_one_never_exceeds_the_spectrum(seed):
    ev = np.random.default_rng(seed).random(60)
    k = select_n_components(ev, float(np.nextafter(1.0, 0.0)))
    assert k == ev.size


def test_rank_beyond_the_spectrum_is_the_spectrum():
    ev = [3.0, 2.0, 1.0]  # cumulative 0.5, 0.83, 1.0
    assert select_n_components(ev, "auto", rank=10) == select_n_components(ev, "auto") == 2


@pytest.mark.parametrize("bad", [[1.0, np.nan, 0.5], [np.inf, 1.0], [1.0, 0.5, -1e-9]])
@pytest.mark.parametrize("n_components", ["auto", 0.5, 1])
def test_spectra_that_are_no_spectra_are_refused(bad, n_components):
    with pytest.raises(ValueError, match="eigenvalues"):
        select_n_components(bad, n_components)


def test_boolean_kmax_is_refused():
    with pytest.raises(ValueError, match="kmax"):
        select_n_components([3.0, 2.0, 1.0], "auto", kmax=True)


@pytest.mark.parametrize("seed", range(10))
def test_spherical_spectrum_is_descending(seed):
    X = np.random.default_rng(seed).normal(size=(25, 3)) * [1.0, 0.9, 0.8]
    ev, rank = spherical_spectrum(X)
    assert ev.shape == (rank,)
    assert np.all(np.diff(ev) <= 0)


def test_a_row_at_the_coordinatewise_median_keeps_the_spectrum_finite():
    # symmetric data with a row at the origin: Weiszfeld's start (the coordinatewise
    # median) is that row, at distance 0
    Z = np.random.default_rng(0).normal(size=(10, 3)) * [3.0, 2.0, 1.0]
    X = np.vstack([Z, -Z, np.zeros((1, 3))])
    ev, rank = spherical_spectrum(X)
    assert rank == 3
    assert np.all(np.isfinite(ev)) and np.all(ev > 0)
    ev1, rank1 = spherical_spectrum(np.arange(7.0)[:, None])  # one column, odd count
    assert rank1 == 1 and ev1[0] > 0


def test_constant_data_give_one_component():
    X = np.full((6, 3), 2.5)
    ev, rank = spherical_spectrum(X)
    assert rank == 1 and np.all(ev == 0)
    assert select_n_components(ev, "auto", rank=rank) == 1
    assert select_n_components(ev, 0.9, rank=rank) == 1
