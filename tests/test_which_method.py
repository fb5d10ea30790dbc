"""Smoke test of ``benchmarks/which_method.py``: the measurements behind docs/which-method.md.

A tiny configuration (three estimators, two contamination levels, one seed, no faces) runs
end to end and writes every output; the planted experiment itself is checked where the
answer is known (classical PCA breaks under 40% leverage points, the planted subspace is
recovered from clean-ish data). Timings are written, never asserted.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import which_method
from robustpca.metrics import subspace_angles


@pytest.mark.parametrize("kind", which_method.CONTAMINATIONS)
def test_planted_contamination_has_the_documented_shape(kind):
    X, U = which_method.planted(kind, 0.3, seed=0)
    assert X.shape == (200, 10) and U.shape == (10, 2)
    np.testing.assert_allclose(U.T @ U, np.eye(2), atol=1e-12)
    inliers = X[60:] - 2.0
    residual = inliers - inliers @ U @ U.T
    assert np.abs(residual).max() < 1.0  # inliers lie near the planted subspace
    out = X[:60] - 2.0
    assert np.linalg.norm(out - out @ U @ U.T, axis=1).min() > 5.0  # outliers off it


def test_pca_breaks_under_leverage_points_and_not_on_orthogonal_outliers():
    from robustpca import PCA

    X, U = which_method.planted("leverage", 0.4, seed=1)
    sine = np.sin(subspace_angles(PCA(n_components=2).fit(X).components_, U.T).max())
    assert sine > 0.9
    X, U = which_method.planted("orthogonal", 0.1, seed=1)
    sine = np.sin(subspace_angles(PCA(n_components=2).fit(X).components_, U.T).max())
    assert sine < 0.2


def test_mean_free_estimators_get_a_centred_variant():
    names = which_method.with_centred_variants(["PCA", "PrincipalComponentPursuit"])
    assert names == [
        "PCA",
        "PrincipalComponentPursuit",
        "PrincipalComponentPursuit" + which_method.CENTRED,
    ]


@pytest.mark.realdata
def test_quick_run_writes_every_output(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        f"# Title\n\nprose\n\n{which_method.MARK_BEGIN}\nSTALE\n{which_method.MARK_END}\n\nend\n"
    )
    argv = ["--quick", "--no-faces", "--no-r", "--out-dir", str(tmp_path), "--markdown", str(page)]
    assert which_method.main([*argv, "--methods", "PCA,OptimalMeanPCA,L21PCA"]) == 0
    for name in ("tables.csv", "breakdown.csv", "breakdown.png"):
        assert (tmp_path / name).stat().st_size > 0
    text = page.read_text()
    assert text.startswith("# Title\n\nprose") and text.rstrip().endswith("end")
    assert "STALE" not in text and "| OptimalMeanPCA |" in text
    with open(tmp_path / "tables.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["table"] for r in rows} == set(which_method.TABLES)
    hbk = next(r for r in rows if r["table"] == "hbk" and r["method"] == "OptimalMeanPCA")
    assert 0 <= float(hbk["recall"]) <= 1
    with open(tmp_path / "breakdown.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    pca = next(
        r
        for r in rows
        if r["method"] == "PCA" and r["contamination"] == "leverage" and r["eps"] == "0.4"
    )
    assert float(pca["sine"]) > 0.9


def test_variants_are_named_by_their_parameters(monkeypatch):
    monkeypatch.setitem(which_method.VARIANTS, "PCA", [{"random_state": 3}])
    names = which_method.with_centred_variants(["PCA"])
    assert names == ["PCA", "PCA (random_state=3)"]
    model = which_method.make("PCA (random_state=3)", 2, seed=0)
    assert model.get_params()["random_state"] == 3 and model.n_components == 2


@pytest.mark.skipif(not which_method.r_available(), reason="R with rrcov not installed (CI)")
def test_r_reference_reads_back_rrcov_fits():
    """Where R is installed: PcaClassic's subspace read back from R equals our PCA's."""
    from robustpca import PCA

    X, _ = which_method.planted("orthogonal", 0.1, seed=0)
    fits = which_method.run_r({"a": (X, 2)}, {"classic": "PcaClassic(x, k = k)"})
    seconds, flagged, V = fits[("a", "classic")]
    assert V.shape == (10, 2) and seconds >= 0
    ours = PCA(n_components=2).fit(X).components_
    assert np.sin(subspace_angles(ours, V.T).max()) < 1e-8
    assert set(flagged) <= set(range(200))
