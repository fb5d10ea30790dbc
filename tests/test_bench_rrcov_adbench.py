"""benchmarks/bench_rrcov_adbench.py: what counts as the same fit, how the fits of the
seeds are grouped and compared, R's output read back, and (where R is installed) a run
on one small ADBench table."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_rrcov_adbench as bench
from _rrcov import r_available

BASIS = np.linalg.qr(np.random.default_rng(0).normal(size=(5, 2)))[0]
TURNED = BASIS @ np.array([[0.6, -0.8], [0.8, 0.6]])  # the same plane, another basis
OTHER = np.linalg.qr(np.random.default_rng(1).normal(size=(5, 2)))[0]


def fit(flagged, loadings=BASIS):
    return np.array(flagged), loadings


def test_the_same_fit_has_equal_flags_and_subspace_in_any_basis():
    assert bench.same_fit(fit([3, 1]), fit([1, 3], TURNED))
    assert not bench.same_fit(fit([1, 3]), fit([1, 4]))
    assert not bench.same_fit(fit([1, 3]), fit([1, 3], OTHER))
    assert not bench.same_fit(fit([1]), fit([1], BASIS[:, :1]))  # another rank
    assert not bench.same_fit(fit([1]), None) and not bench.same_fit(None, None)


def test_distinct_keeps_the_first_of_each_group_and_drops_failures():
    a, b = fit([1]), fit([2])
    kept = bench.distinct([a, None, fit([1], TURNED), b, a])
    assert len(kept) == 2 and kept[0] is a and kept[1] is b


def test_compare_counts_the_fits_of_each_side_and_their_overlap():
    a, b, c = fit([1]), fit([2]), fit([3])
    got = bench.compare([a, a, b], [b, c, b])
    assert got["k"] == (2, 2) and not got["seed0"]
    assert got["distinct"] == (2, 2, 1)
    assert not got["ours_in_rrcov"] and not got["rrcov_in_ours"]
    got = bench.compare([b, b], [b, c])
    assert got["seed0"] and got["ours_in_rrcov"] and not got["rrcov_in_ours"]
    assert bench.compare([a], [None])["k"] == (2, None)


def test_run_r_reads_seeds_failures_and_exact_fit_warnings(monkeypatch):
    lines = [
        (("t", "PcaHubert"), ["1", "TRUE", "2 5", " ".join(map(str, BASIS.T.ravel()))]),
        (("t", "PcaHubert"), ["0", "FALSE", "", " ".join(map(str, BASIS.T.ravel()))]),
        (("u", "PcaHubert"), ["0", "FAIL", "", ""]),
    ]
    monkeypatch.setattr(bench, "run_jobs", lambda *args: lines)
    data = {"t": np.zeros((9, 5)), "u": np.zeros((9, 5))}
    out = bench.run_r(data, 2)
    (first, second), warned = out["t"]
    assert warned and first[0].size == 0 and second[0].tolist() == [1, 4]
    np.testing.assert_array_equal(second[1], BASIS)
    assert out["u"] == ([None, None], False)


def test_report_has_a_row_per_table_and_names_rrcov_failures():
    data = {"t": np.zeros((9, 5)), "u": np.zeros((9, 5))}
    ours = {"t": [fit([1]), fit([1])], "u": [fit([1])]}
    theirs = {"t": ([fit([1], TURNED), fit([2])], True), "u": ([None], False)}
    table = bench.report(data, ours, theirs).splitlines()
    assert table[2] == "| t | 9 x 5 | 2 / 2 | yes | 1 / 2 / 1 | yes |"
    assert table[3] == "| u | 9 x 5 | - | rrcov failed | - | - |"


@pytest.mark.realdata
@pytest.mark.skipif(not r_available(), reason="needs Rscript with rrcov (CI has no R)")
def test_glass_is_the_same_fit_on_both_sides(adbench, capsys):
    assert bench.main(["--folder", str(adbench), "--tables", "14_glass", "--seeds", "2"]) == 0
    row = capsys.readouterr().out.splitlines()[2]
    assert row == "| 14_glass | 214 x 7 | 3 / 3 | yes | 1 / 1 / 1 | no |"


@pytest.mark.realdata
@pytest.mark.skipif(not r_available(), reason="needs Rscript with rrcov (CI has no R)")
def test_the_deterministic_estimators_equal_rrcovs_on_glass_but_the_grid(adbench):
    """Spherical and classical PCA equal rrcov's; the grid on these MAD-scaled columns
    (equal scales) orders its planes differently from pcaPP (docs/rrcov.md)."""
    data = bench.tables(adbench, ["14_glass"], 3000)
    row = bench.deterministic_report(data).splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:3] == ["14_glass", "214 x 7", "same"] and cells[4] == "same"
    assert cells[3].startswith("sine ")


def test_the_deterministic_report_marks_failures_and_differences(monkeypatch):
    X = np.random.default_rng(0).normal(size=(40, 5))
    X[:3] += 10.0

    def fake_r(datasets, methods):
        import robustpca

        out = {}
        for column, _, estimator, params in bench.DETERMINISTIC:
            model = getattr(robustpca, estimator)(2, **params).fit(X)
            flagged = np.flatnonzero(model.predict(X) == -1)
            out[("t", column)] = (0.0, flagged, model.components_.T)
        out[("t", "PCA / PcaClassic")] = (0.0, np.array([0]), OTHER)  # another plane
        del out[("t", "SphericalPCA / PcaLocantore")]
        return out

    monkeypatch.setattr(bench, "run_rrcov", fake_r)
    row = bench.deterministic_report({"t": X}).splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "rrcov failed" and cells[3] == "same"
    assert cells[4].startswith("sine ") and cells[4].endswith("flags differ")
