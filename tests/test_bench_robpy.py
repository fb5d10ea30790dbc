"""Smoke tests of ``benchmarks/bench_robpy.py``: ours only without robpy (as in CI), and
its driver end to end in a stand-in ``robpy`` whose estimators are ours."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_robpy

FAKE_ROBPY = """
import numpy as np
import robustpca


class ROBPCA:
    def __init__(self, n_components=None, random_seed=None):  # the driver seeds r = 0, 1, ...
        self.model = robustpca.ROBPCA(n_components=n_components, random_state=random_seed)

    def fit(self, X):
        self.components_ = self.model.fit(X).components_.T  # robpy's loadings: p x k
        return self


class PCALocantore(ROBPCA):
    def __init__(self, n_components=None):
        self.model = robustpca.SphericalPCA(n_components=n_components)
"""


@pytest.mark.slow
def test_quick_run_without_robpy_prints_our_rows(monkeypatch, capsys):
    monkeypatch.delenv("ROBPY_PYTHON", raising=False)
    assert bench_robpy.main(["--quick"]) == 0
    out, err = capsys.readouterr()
    assert "| ROBPCA / ROBPCA |" in out and "| SphericalPCA / PCALocantore |" in out
    assert "robustpca's timings only" in err


@pytest.mark.slow
def test_driver_reads_robpy_fits_from_its_own_python(tmp_path, monkeypatch):
    package = tmp_path / "robpy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "pca.py").write_text(textwrap.dedent(FAKE_ROBPY))
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{Path(bench_robpy.__file__).parents[1] / 'src'}")
    rng = np.random.default_rng(0)
    data = {"table": rng.normal(size=(200, 6)) * [5, 4, 1, 1, 1, 1]}
    theirs = bench_robpy.run_robpy(sys.executable, data, 2, 1)
    ours = bench_robpy.run_ours(data, 2, 1)
    for name in bench_robpy.PAIRS:
        seconds, loadings = theirs[("table", name)]
        assert seconds >= 0 and loadings.shape == (6, 2)
        # the same estimator on both sides: the same subspace
        assert bench_robpy.subspace_sin(ours[("table", name)][1], loadings) < 1e-7
    table = bench_robpy.report(data, ours, theirs, 2)
    assert table.count("| table | 200 x 6 |") == 2
