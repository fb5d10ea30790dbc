"""``benchmarks/_rrcov.run_r`` reads rrcov's fits back as they are in R.

``which_method.py`` and ``bench_rrcov.py`` compare our flags and subspaces with rrcov's
through one ``Rscript`` call: R writes 1-based row numbers and the loadings in
column-major order, one output line per job. If any of that were read back wrongly
(0/1-based rows, a transposed ``p x k`` block, a job matched to the wrong table, the data
written to R with too few digits) the benchmarks would report disagreements that are not
there. On a planted table whose first tenth is shifted, ``PcaHubert`` must flag those
rows (as 0-based indices), and ``PcaClassic``'s loadings must span our PCA subspace to
rounding, for two tables of different widths and ranks in one call; a job that fails in
R is ``None`` (as documented), and its seconds are seconds. Skipped where R with rrcov
is not installed (CI).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import subspace_angles

import robustpca as rp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from _rrcov import r_available, run_r, synthetic

pytestmark = pytest.mark.skipif(not r_available(), reason="R with rrcov not installed (CI)")


def test_run_r_reads_back_rrcov_flags_and_loadings():
    X = synthetic(200, 10, seed=0)  # the first 20 rows shifted
    W = X[:, :6].copy()
    methods = {
        "hubert": "PcaHubert(x, k = k)",
        "classic": "PcaClassic(x, k = k)",
        "broken": "stop('no fit')",
    }
    start = time.perf_counter()
    fits = run_r({"wide": (X, 2), "narrow": (W, 3)}, methods)
    elapsed = time.perf_counter() - start
    assert set(fits) == {(t, m) for t in ("wide", "narrow") for m in methods}
    assert fits[("wide", "broken")] is None and fits[("narrow", "broken")] is None
    for table, data, k in (("wide", X, 2), ("narrow", W, 3)):
        seconds, flagged, V = fits[(table, "hubert")]
        assert 0 <= seconds <= elapsed and V.shape == (data.shape[1], k)
        # the shifted rows, 0-based, and nothing past the last row
        assert set(range(20)) <= set(flagged) <= set(range(data.shape[0]))
        _, _, V = fits[(table, "classic")]
        classic = rp.PCA(n_components=k).fit(data).components_.T
        assert np.sin(subspace_angles(classic, V).max()) < 1e-8


def test_bench_rrcov_r_side_equals_ours_for_the_grid_search():
    """``bench_rrcov.run_r`` (its own driver, timing loop included) reads back ``PcaGrid``
    as ``p x k`` loadings and 0-based flags: ``ProjectionPursuitPCA`` equals ``PcaGrid``
    to rounding (``test_projection_pursuit``), so the benchmark's "sine to rrcov" and
    "same flags" columns must say so."""
    import bench_rrcov

    X = synthetic(120, 6, seed=2)
    names = ["ProjectionPursuitPCA"]
    theirs = bench_rrcov.run_r({"s": X}, 2, 1, names)
    ours = bench_rrcov.run_ours({"s": X}, 2, 1, names)
    _, f_r, V_r = theirs[("s", "ProjectionPursuitPCA")]
    _, f_o, V_o = ours[("s", "ProjectionPursuitPCA")]
    assert V_r.shape == V_o.shape == (6, 2)
    assert np.sin(subspace_angles(V_o, V_r).max()) < 1e-8
    np.testing.assert_array_equal(np.sort(f_r), np.sort(f_o))
    table = bench_rrcov.report({"s": X}, ours, theirs, names)
    assert table.rstrip().endswith("| yes |")
