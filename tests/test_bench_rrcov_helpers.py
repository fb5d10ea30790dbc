"""The data helpers of ``benchmarks/_rrcov.py`` that ``bench_rrcov.py``, ``bench_mcd.py``
and ``which_method.py`` fit on both sides (ours and R's rrcov).

* ``rrcov_tables`` must give the tables of the literature, those the tests' ``load_table``
  reads (octane without its response ``y``, rrcov's ``octane[, -1]``): a benchmark that
  fitted octane with ``y`` as a 227th column would compare a different problem.
* ``synthetic`` is documented as "rank-5 structure plus noise, the first 10% of the rows
  shifted": the clean rows lie near a 5-dimensional affine subspace whose spreads are in
  the ratios 5 : 4 : 3 : 2 : 1, and only the first tenth of the rows sits far from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from _rrcov import RRCOV_TABLES, rrcov_tables, synthetic

from .conftest import load_table


@pytest.mark.realdata
def test_rrcov_tables_are_the_tables_the_tests_read(shared_data):
    tables = rrcov_tables()
    assert set(tables) == set(RRCOV_TABLES)
    for name in RRCOV_TABLES:
        np.testing.assert_array_equal(tables[name], load_table(shared_data, name))
    assert tables["octane"].shape == (39, 226)  # the 226 NIR spectra, no octane number
    assert set(rrcov_tables(["hbk", "wood"])) == {"hbk", "wood"}


def test_synthetic_is_rank_five_with_the_first_tenth_shifted():
    n, p = 2000, 30
    X = synthetic(n, p, seed=3)
    assert X.shape == (n, p)
    np.testing.assert_array_equal(X, synthetic(n, p, seed=3))
    clean = X[n // 10 :]
    centre = clean.mean(axis=0)
    _, s, Vt = np.linalg.svd(clean - centre, full_matrices=False)
    sd = s / np.sqrt(clean.shape[0] - 1)
    # planted spreads 5, 4, 3, 2, 1 along five orthonormal directions, then noise of 0.1
    np.testing.assert_allclose(sd[:5], [5.0, 4.0, 3.0, 2.0, 1.0], rtol=0.1)
    assert 0.08 < sd[5] < 0.13 and sd[5] < 0.2 * sd[4]

    def distance(rows):
        Z = rows - centre
        return np.linalg.norm(Z - (Z @ Vt[:5].T) @ Vt[:5], axis=1)

    assert distance(clean).max() < 1.0
    assert distance(X[: n // 10]).min() > 10.0
