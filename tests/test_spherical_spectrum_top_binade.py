"""``spherical_spectrum`` of data whose largest entry lies in the top binade of float64
(found by the mutation audit of rank selection).

The function divides the data by a power of two near its largest entry so that "the norms
neither overflow nor underflow", and documents that eigenvalues whose squares pass the
float range are infinite (as ``X**2``'s). The power of two is ``2**e`` for ``frexp``'s
exponent ``e`` of the largest entry, which was 1024 for entries from ``2**1023`` (about
8.99e307) up: ``2.0**1024`` is infinite, the scaled data are all zero, and the function
returned a zero spectrum of rank 1 for data with four directions of variance. The rank, a
count of directions, is scale-invariant; ``select_n_components`` scales by ``2**(e - 1)``
and has no such gap.
"""

from __future__ import annotations

import warnings

import numpy as np

from robustpca.rank_selection import spherical_spectrum


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * np.array([4.0, 2.0, 1.0, 0.5])
    return X / np.abs(X).max()  # largest entry exactly 1


def test_rank_is_scale_invariant_up_to_the_largest_float():
    X = _data()
    _, rank = spherical_spectrum(X)
    for exponent in (1000, 1022, 1023):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # squares past the range
            ev, got = spherical_spectrum(X * 2.0**exponent)
        assert got == rank, exponent
        assert ev.shape == (rank,)


def test_eigenvalues_past_the_float_range_are_infinite_not_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ev, _ = spherical_spectrum(_data() * 2.0**1023)
    assert np.all(ev > 0)
