"""select_n_components: ints as given, variance shares, and rrcov's k = 0 rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from robustpca.rank_selection import select_n_components


def rrcov_k0(ev, kmax, rank):
    """rrcov's R code (R/PcaClassic.R, k = 0) transcribed line by line, 1-based."""
    test = [j + 1 for j in range(len(ev)) if ev[j] / ev[0] <= 1e-3]
    k = min(min(rank, test[0]), kmax) if test else min(rank, kmax)
    cumulative = np.cumsum(ev[:k]) / np.sum(ev)
    if cumulative[k - 1] > 0.8:
        k = next(j + 1 for j in range(k) if cumulative[j] >= 0.8)
    return k


def test_int_is_returned_and_checked():
    assert select_n_components([3.0, 2.0, 1.0], 2) == 2
    with pytest.raises(ValueError, match="n_components"):
        select_n_components([3.0, 2.0, 1.0], 4)
    with pytest.raises(ValueError, match="n_components"):
        select_n_components([3.0, 2.0, 1.0], 0)
    with pytest.raises(TypeError, match="n_components"):
        select_n_components([3.0, 2.0, 1.0], True)
    with pytest.raises(ValueError, match="n_components"):
        select_n_components([3.0, 2.0, 1.0], "all")
    with pytest.raises(ValueError, match="n_components"):
        select_n_components([3.0, 2.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="kmax"):
        select_n_components([3.0, 2.0, 1.0], "auto", kmax=0)
    with pytest.raises(ValueError, match="eigenvalues"):
        select_n_components([], "auto")


def test_share_is_the_smallest_k_reaching_it():
    ev = [5.0, 3.0, 1.0, 1.0]  # cumulative 0.5, 0.8, 0.9, 1.0
    assert select_n_components(ev, 0.5) == 1
    assert select_n_components(ev, 0.51) == 2
    assert select_n_components(ev, 0.8) == 2
    assert select_n_components(ev, 0.95) == 4
    assert select_n_components(ev[::-1], 0.5) == 1  # sorted internally


def test_auto_rule_cases():
    # 80% reached within kmax: the smallest k reaching it
    assert select_n_components([6.0, 2.0, 1.0, 1.0], "auto") == 2
    # not reached within kmax: kmax
    assert select_n_components([1.0] * 20, "auto", kmax=10) == 10
    # the ratio guard: l_3 / l_1 = 1e-4 stops the search at index 3 (rrcov keeps it)
    assert select_n_components([1.0, 0.5, 1e-4, 1e-5], "auto") == 2
    assert select_n_components([1.0, 1.0, 1e-4, 1e-5, 1.0e-6], "auto", kmax=1) == 1
    # rank bounds k
    assert select_n_components([1.0, 1.0, 1.0, 1.0], "auto", rank=2) == 2
    # degenerate spectrum: one component, no NaN
    assert select_n_components([0.0, 0.0], "auto") == 1
    assert select_n_components([0.0, 0.0], 0.5) == 1


@given(
    st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=15),
    st.integers(1, 12),
)
def test_auto_matches_the_transcribed_r_rule(values, kmax):
    ev = np.sort(np.asarray(values))[::-1]
    assert select_n_components(ev, "auto", kmax=kmax, rank=len(ev)) == rrcov_k0(
        ev, min(kmax, len(ev)), len(ev)
    )


@given(st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=15), st.floats(0.01, 0.99))
def test_share_is_reached_and_minimal(values, share):
    ev = np.sort(np.asarray(values))[::-1]
    k = select_n_components(ev, share)
    cumulative = np.cumsum(ev) / ev.sum()
    assert cumulative[k - 1] >= share or k == len(ev)
    assert k == 1 or cumulative[k - 2] < share


def test_spherical_spectrum_resists_outliers_and_is_orthogonally_equivariant():
    """The spectrum "auto" and variance shares use on the robust estimators: the planted
    variances (16, 4, 1, 0.01) survive 20% of far outliers that dominate the classical
    spectrum, and a rotation and shift of the data leave it unchanged."""
    from robustpca.rank_selection import spherical_spectrum

    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 4)) * [4.0, 2.0, 1.0, 0.1]
    X[:100] = 60.0 + rng.normal(size=(100, 4))
    ev, rank = spherical_spectrum(X)
    assert rank == 4
    # the MAD is biased upwards by 20% contamination (up to a factor 3 in variance here),
    # but the order and the ratios of the planted variances survive
    assert np.all(ev[:3] < 3.5 * np.array([16.0, 4.0, 1.0]))
    assert ev[0] > 2 * ev[1] > 4 * ev[2] > 8 * ev[3]
    classical = np.linalg.eigvalsh(np.cov(X.T))[::-1]
    assert classical[0] > 100 * 16
    assert select_n_components(ev, "auto") == 2
    Q = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    ev2, _ = spherical_spectrum(X @ Q + 7.0)
    np.testing.assert_allclose(ev2, ev, rtol=1e-6)
