"""benchmarks/bench_outlier_noise.py does what its docstring states: repeat ``r`` permutes
each table's rows by ``numpy.random.default_rng(r)`` (repeat 0 keeps them), labels
with them, and fits with ``random_state=r`` on median/MAD-scaled columns; the report
gives the mean over the tables at each repeat (its mean, SD and range), the paired
difference to the first detector, and the five tables that move most, most first."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_noise as noise
import bench_outliers as bench


def test_each_repeat_permutes_rows_and_labels_together_and_seeds_by_its_number(
    tmp_path, monkeypatch
):
    rng = np.random.default_rng(0)
    X = rng.exponential(size=(30, 3))
    y = np.r_[np.ones(5, dtype=int), np.zeros(25, dtype=int)]
    np.savez(tmp_path / "1_toy.npz", X=X, y=y)
    calls = []

    def record(name, X, y, seed):
        calls.append((X.copy(), y.copy(), seed))
        return 0.5

    monkeypatch.setattr(noise, "auc_of", record)
    noise.run(["PCA"], ["1_toy"], repeats=3, folder=tmp_path)
    Xs = bench.scale_columns(X, "robust")
    assert [seed for _, _, seed in calls] == [0, 1, 2]
    for r, (Xr, yr, _) in enumerate(calls):
        order = np.arange(30) if r == 0 else np.random.default_rng(r).permutation(30)
        np.testing.assert_array_equal(Xr, Xs[order])
        np.testing.assert_array_equal(yr, y[order])
    assert not np.array_equal(calls[1][0], calls[2][0])  # each repeat its own order


def _results():
    """Two detectors, six tables, three repeats. A's tables move by 0.01 .. 0.06 (t1 ..
    t6); B is flat but for t0, on which it moves by 0.2."""
    a = {f"t{i}": [0.7, 0.7 + 0.01 * i, 0.7 - 0.01 * i] for i in range(1, 7)}
    a["t0"] = [0.6, 0.6, 0.6]
    b = {t: [0.65, 0.65, 0.65] for t in a}
    b["t0"] = [0.5, 0.7, 0.6]
    return {"A": a, "B": b}


def _row(text, first_cell):
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} in\n{text}")


def test_report_summarises_the_mean_over_tables_at_each_repeat():
    results = _results()
    text = noise.report(results)
    means = {d: np.array([np.mean([v[r] for v in results[d].values()]) for r in range(3)])
             for d in results}  # fmt: skip
    for d, m in means.items():
        cells = _row(text, d)
        assert float(cells[1]) == pytest.approx(m.mean(), abs=1e-4)
        assert float(cells[2]) == pytest.approx(m.std(ddof=1), abs=1e-4)
        lo, hi = (float(v) for v in cells[3].split("-"))
        assert (lo, hi) == pytest.approx((m.min(), m.max()), abs=1e-4)
    diff = means["A"] - means["B"]
    cells = _row(text, "A - B")
    assert float(cells[1]) == pytest.approx(diff.mean(), abs=1e-4) and float(cells[1]) > 0
    assert cells[3] == f"{int(np.sum(diff > 0))} of 3"


def test_report_lists_the_five_tables_that_move_most_most_first():
    """t0 moves most (B's 0.2), then A's t6 .. t2; t1, the least moving, is left out."""
    text = noise.report(_results())
    listed = [
        line.split("|")[1].strip()
        for line in text.splitlines()
        if line.startswith("| t") and "table" not in line
    ]
    assert listed == ["t0", "t6", "t5", "t4", "t3"]


def test_a_library_prefix_says_whose_detector():
    """``"robustpca X"`` and ``"pyod X"`` say which library; the prefix is not part of
    the name."""
    from robustpca import PCA

    assert noise.resolve("robustpca PCA") == ("robustpca", "PCA")
    assert noise.resolve("robustpca ROBPCA(n_components=2)") == (
        "robustpca",
        "ROBPCA(n_components=2)",
    )
    assert isinstance(noise.make("robustpca PCA", 0), PCA)
    assert noise.make("robustpca ROBPCA(n_components=2)", 4).get_params()["n_components"] == 2


def test_the_default_detectors_are_the_recommended_configuration_and_iforest():
    """The default pair is the outlier benchmark's recommended configuration, spelled the
    same, and pyod's IForest."""
    assert f"robustpca {noise.DEFAULT[0]}" == bench.RECOMMENDED
    assert noise.resolve(noise.DEFAULT[1]) == ("pyod", "IForest")
