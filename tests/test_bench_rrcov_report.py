"""What ``benchmarks/bench_rrcov.py`` fits and reports, without R and without timing.

The module docstring promises ``CovariancePCA`` / ``PcaCov`` only "up to 100 features"
(and the MCD needs more samples than features), a **ratio** rrcov / robustpca ("above 1:
we are faster"), the **sine** of the largest principal angle between the two subspaces
and whether the **flagged samples are the same** (as sets). ``report`` is fed made-up
fits here, so each of these columns is checked against its definition; the quick smoke
run of ``test_bench_rrcov.py`` only sees that rows are written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import robustpca as rp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_rrcov


def test_covariance_pca_only_on_mcd_sized_tables():
    fits = bench_rrcov._fits
    assert fits("CovariancePCA", np.zeros((1000, 10)))
    assert fits("CovariancePCA", np.zeros((1000, 100)))
    assert not fits("CovariancePCA", np.zeros((2000, 500)))  # over 100 features
    assert not fits("CovariancePCA", np.zeros((100, 500)))  # wider than long
    assert not fits("CovariancePCA", np.zeros((11, 10)))  # no more samples than p + 1
    for name in ("ROBPCA", "SphericalPCA", "ProjectionPursuitPCA"):
        assert fits(name, np.zeros((100, 500))) and fits(name, np.zeros((2000, 500)))


def cells(table: str, estimator: str) -> list[str]:
    row = next(line for line in table.splitlines() if f"| {estimator} |" in line)
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_report_columns_follow_their_definitions():
    rng = np.random.default_rng(0)
    data = {"t": rng.normal(size=(40, 6))}
    V = np.linalg.qr(rng.normal(size=(6, 2)))[0]
    rotated = V @ np.array([[0.6, -0.8], [0.8, 0.6]])  # the same span, another basis
    tilted = np.linalg.qr(V + 0.1 * rng.normal(size=(6, 2)))[0]
    ours = {
        ("t", "ROBPCA"): (2.0, np.array([3, 1, 7]), V),
        ("t", "SphericalPCA"): (0.5, np.array([1, 3]), V),
    }
    theirs = {
        ("t", "ROBPCA"): (6.0, np.array([1, 3, 7]), rotated),  # same flags, other order
        ("t", "SphericalPCA"): (0.25, np.array([1, 3, 5]), tilted),
    }
    table = bench_rrcov.report(data, ours, theirs, ["ROBPCA", "SphericalPCA"])
    rob = cells(table, "ROBPCA")
    assert rob[:3] == ["t", "40 x 6", "ROBPCA"]
    assert (float(rob[3]), float(rob[4]), float(rob[5])) == (2.0, 6.0, 3.0)  # rrcov / ours
    assert float(rob[6]) < 1e-12 and rob[7] == "yes"
    sph = cells(table, "SphericalPCA")
    assert float(sph[5]) == 0.5 and sph[7] == "no"
    s = np.linalg.svd(V.T @ tilted, compute_uv=False)
    assert float(sph[6]) == float(f"{np.sqrt(1 - s.min() ** 2):.1e}") > 0.01
    # without an rrcov fit, ours only
    table = bench_rrcov.report(data, ours, {}, ["ROBPCA"])
    assert cells(table, "ROBPCA")[4:] == ["-", "-", "-", "-"]


def test_our_side_reports_flags_and_a_features_by_k_basis():
    """``run_ours`` gives what ``report`` compares with rrcov's: the flagged rows (the
    planted shifted tenth, not the inliers) and the loadings as a ``p x k`` basis, the
    orientation of ``parse_loadings``."""
    from _rrcov import synthetic

    X = synthetic(300, 8, seed=1)
    out = bench_rrcov.run_ours({"s": X}, 2, 1, ["ROBPCA", "CovariancePCA"])
    for name in ("ROBPCA", "CovariancePCA"):
        seconds, flagged, V = out[("s", name)]
        assert seconds > 0 and V.shape == (8, 2)
        np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-10)
        assert set(range(30)) <= set(flagged) and len(flagged) < 60
    # one repeat is seed 0: the very fit a user gets with random_state=0, on every row
    model = rp.ROBPCA(n_components=2, random_state=0).fit(X)
    np.testing.assert_allclose(out[("s", "ROBPCA")][2], model.components_.T, atol=1e-12)
    np.testing.assert_array_equal(out[("s", "ROBPCA")][1], np.flatnonzero(model.predict(X) == -1))


@pytest.mark.realdata
def test_the_full_run_fits_the_rrcov_tables(shared_data):
    from _rrcov import RRCOV_TABLES

    data = bench_rrcov.datasets(quick=False)
    assert set(RRCOV_TABLES) <= set(data)
    assert {key for key in data if key.startswith("synthetic")} == {
        "synthetic 1000 x 10",
        "synthetic 10000 x 50",
        "synthetic 2000 x 500",
    }
