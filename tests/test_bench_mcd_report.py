"""What ``benchmarks/bench_mcd.py`` measures and reports, without R and without timing.

Its docstring: the data are the rrcov tables "with more samples than features" (MCD-sized:
``n > 2p`` here) and the synthetic shapes; the **MCD objective** reported is "the median
over the seeds" of the log-determinant of each seed's raw h-subset; the ratios are
"scikit-learn / ours and robustbase / ours (above 1: we are faster)" and the objective
columns "the difference to ours (above 0: that side stopped at a worse subset)". The
quick smoke run only sees that cells are filled.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_mcd


def cells(table: str, key: str) -> list[str]:
    row = next(line for line in table.splitlines() if line.startswith(f"| {key} |"))
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_report_ratios_and_objective_differences():
    X = np.zeros((40, 3))
    results = {
        ("t", "ours"): (0.5, -2.0),
        ("t", "scikit-learn"): (2.0, -1.5),  # 4x slower, a worse (larger) log det
        ("t", "robustbase"): (0.25, -2.25),  # 2x faster, a better subset
    }
    row = cells(bench_mcd.report({"t": X}, results), "t")
    assert row[:3] == ["t", "40 x 3", "22"]
    assert float(row[3]) == 0.5 and float(row[4]) == -2.0
    assert (float(row[5]), float(row[6]), float(row[7])) == (2.0, 4.0, 0.5)
    assert (float(row[8]), float(row[9]), float(row[10])) == (0.25, 0.5, -0.25)


def test_the_objective_is_the_median_over_the_seeds():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    h = bench_mcd.h_of(X)
    subsets = [np.arange(h), np.arange(30 - h, 30), np.arange(5, 5 + h)]
    masks = []
    for idx in subsets:
        mask = np.zeros(30, dtype=bool)
        mask[idx] = True
        masks.append(mask)
    _, value = bench_mcd._median_cpu_and_log_det(lambda r: masks[r], X, 3)
    expected = np.median([bench_mcd.log_det_of_subset(X, m) for m in masks])
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.realdata
def test_only_mcd_sized_tables_are_fitted(shared_data):
    data = bench_mcd.datasets(quick=False)
    tables = {key for key in data if not key.startswith("synthetic")}
    assert tables == {"hbk", "bushfire", "wood", "starsCYG"}  # octane is 39 x 226
    assert all(X.shape[0] > 2 * X.shape[1] for X in data.values())


def test_each_python_column_is_its_librarys_fit_at_the_same_h():
    """The "scikit-learn" column is ``MinCovDet``'s raw subset (at the ``h`` of robustbase,
    through ``support_fraction``), the "ours" column our FAST-MCD's, seed 0 for one repeat;
    a subset of another size is refused ("the same h on every side")."""
    from sklearn.covariance import MinCovDet

    from robustpca.solvers.mcd import minimum_covariance_determinant

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X[:6] += 6.0
    h = bench_mcd.h_of(X)
    results = bench_mcd.run_python({"t": X}, 1)
    sk = MinCovDet(support_fraction=(h + 0.5) / 60, random_state=0).fit(X).raw_support_
    ours = minimum_covariance_determinant(X, 0.5, random_state=0).raw_support
    assert results[("t", "scikit-learn")][1] == bench_mcd.log_det_of_subset(X, sk)
    assert results[("t", "ours")][1] == bench_mcd.log_det_of_subset(X, ours)
    too_small = np.zeros(60, dtype=bool)
    too_small[: h - 1] = True
    with pytest.raises(AssertionError):
        bench_mcd._median_cpu_and_log_det(lambda r: too_small, X, 1)
