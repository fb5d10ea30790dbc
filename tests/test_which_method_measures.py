"""benchmarks/which_method.py: the measures behind docs/which-method.md.

Pinned against the module docstring and the data's README: the documented outliers of the
rrcov tables (1-based case numbers, as the README lists them), precision and recall of the
flagged samples (precision undefined when nothing is flagged; missed and extra cases
listed 1-based), rrcov's fits read back with the same convention, the planted scores' sds
5 and 3, variants named by their parameters and fitted with them (an integer stays an
integer), median-centred runs on median-centred data,
the faces' errors split between the clean and the occluded images, the breakdown's median
over seeds, and the page's cells (bold above 0.5, totals over the tables, means over the
occlusion draws that flagged something).
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import which_method

WOOD = [4, 6, 8, 19]  # wood's documented outliers, 1-based (rrcov README)


def _readme_outliers(text):
    """{table: 1-based case numbers} from the last column of the README's table."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        numbers = []
        for a, b in re.findall(r"(\d+)(?:-(\d+))?", cells[3].split("(")[0]):
            numbers += list(range(int(a), int(b or a) + 1))
        out[cells[0].strip("`").removesuffix(".csv")] = numbers
    return out


@pytest.mark.realdata
def test_documented_outliers_are_the_readme_ones(shared_data):
    readme = _readme_outliers((shared_data / "rrcov" / "README.md").read_text())
    assert {t: sorted(v[1]) for t, v in which_method.TABLES.items()} == readme


def _fake_fit(flags_by_method):
    def fit(name, X, k, seed):
        flags = flags_by_method[name]
        return object(), SimpleNamespace(outliers=flags), 0.5, ""

    return fit


def _flags(n, one_based):
    flags = np.zeros(n, dtype=bool)
    flags[np.asarray(one_based, dtype=int) - 1] = True
    return flags


def test_table_rows_score_the_documented_outliers(monkeypatch):
    monkeypatch.setattr(which_method, "rrcov_tables", lambda tables: {"wood": np.zeros((20, 5))})
    flags = {"perfect": _flags(20, WOOD), "half": _flags(20, [1, 4, 6]), "none": _flags(20, [])}
    monkeypatch.setattr(which_method, "fit_and_diagnose", _fake_fit(flags))
    rows = {r["method"]: r for r in which_method.run_tables(list(flags), seed=0)}
    assert (rows["perfect"]["precision"], rows["perfect"]["recall"]) == (1.0, 1.0)
    assert rows["perfect"]["missed"] == rows["perfect"]["false_flags"] == ""
    assert rows["half"]["precision"] == pytest.approx(2 / 3) and rows["half"]["recall"] == 0.5
    assert rows["half"]["missed"] == "8 19" and rows["half"]["false_flags"] == "1"
    assert np.isnan(rows["none"]["precision"]) and rows["none"]["recall"] == 0.0
    assert rows["none"]["n_flagged"] == 0


def test_rrcov_fits_are_read_back_with_the_same_convention(monkeypatch):
    monkeypatch.setattr(which_method, "rrcov_tables", lambda tables: {"wood": np.zeros((20, 5))})
    zero_based = [i - 1 for i in WOOD]  # run_r's documented convention
    fits = {(("table", "wood"), "rrcov::PcaHubert"): (0.1, zero_based, np.eye(5)[:, :2])}
    monkeypatch.setattr(which_method, "run_r", lambda datasets: fits)
    tables, breakdown = which_method.r_tables_and_breakdown([], [])
    (row,) = tables
    assert (row["precision"], row["recall"], row["missed"], row["false_flags"]) == (
        1.0,
        1.0,
        "",
        "",
    )
    assert breakdown == []


def test_planted_inliers_have_score_sds_five_and_three():
    X, U = which_method.planted("orthogonal", 0.1, seed=0, n=4000)
    scores = (X[400:] - 2.0) @ U
    np.testing.assert_allclose(scores.std(axis=0), [5.0, 3.0], rtol=0.1)


def test_variants_are_fitted_with_their_parameters(monkeypatch):
    monkeypatch.setitem(which_method.VARIANTS, "ROBPCA", [{"random_state": 3}])
    (name,) = which_method.with_centred_variants(["ROBPCA"])[1:]
    model = which_method.make(name, 2, seed=0)
    assert type(model.get_params()["random_state"]) is int
    X, _ = which_method.planted("orthogonal", 0.1, seed=0)
    fitted, _, _, note = which_method.fit_and_diagnose(name, X, 2, 0)
    assert fitted is not None, note


def test_median_centred_runs_fit_the_median_centred_data():
    X, _ = which_method.planted("clustered", 0.2, seed=0)
    name = "PCA" + which_method.CENTRED
    assert type(which_method.make(name, 2, 0)).__name__ == "PCA"
    model, *_ = which_method.fit_and_diagnose(name, X, 2, 0)
    np.testing.assert_allclose(model.mean_, X.mean(axis=0) - np.median(X, axis=0), atol=1e-12)


@pytest.mark.realdata
def test_face_rows_split_errors_between_clean_and_occluded_images(shared_data, monkeypatch):
    from robustpca.datasets import load_orl

    monkeypatch.setattr(which_method, "data_home", lambda *a: shared_data)
    clean = load_orl(shared_data, resolution="32x32").data[::10]

    def fit(name, X, k, seed):  # flags the occluded images, reconstructs the input
        occluded = np.any(X != clean, axis=1)
        model = SimpleNamespace(reconstruct=lambda Y: Y)
        return model, SimpleNamespace(outliers=occluded), 0.1, ""

    monkeypatch.setattr(which_method, "fit_and_diagnose", fit)
    (row,) = which_method.run_faces(["m"], seed=0, k=4, n_images=40, occlusions=[0])
    assert row["n"] == 40 and row["n_flagged"] == 8  # 20% occluded
    assert row["precision"] == row["recall"] == 1.0
    assert row["recon_error_clean"] == 0.0 and row["recon_error_occluded"] > 0.05


def test_breakdown_cells_are_the_median_over_seeds():
    rows = [
        {"method": "A", "contamination": "leverage", "eps": 0.1, "sine": s, "seconds": 1.0}
        for s in (0.1, 0.2, 0.9)
    ]
    assert which_method.breakdown_summary(rows) == {("A", "leverage", 0.1): 0.2}


def _page():
    tables = [
        {
            "table": "wood",
            "method": "A",
            "seconds": 1.0,
            "precision": 1.0,
            "recall": 0.5,
            "n_flagged": 2,
        },
        {
            "table": "hbk",
            "method": "A",
            "seconds": 2.0,
            "precision": 0.5,
            "recall": 1.0,
            "n_flagged": 4,
        },
    ]
    face = {"method": "A", "k": 4, "n": 40, "seconds": 0.5, "recon_error_clean": 0.1234}
    faces = [
        face | {"occlusion_seed": 0, "precision": float("nan"), "recall": 0.0, "n_flagged": 0,
                "recon_error_occluded": 0.2},
        face | {"occlusion_seed": 1, "precision": 0.8, "recall": 1.0, "n_flagged": 10,
                "recon_error_occluded": 0.4},
    ]  # fmt: skip
    breakdown = [
        {"method": "A", "contamination": kind, "eps": eps, "seed": 0, "sine": sine, "seconds": 0.25}
        for kind, sine in zip(which_method.CONTAMINATIONS, (0.6, 0.45, 0.51), strict=True)
        for eps in (0.1,)
    ]
    return which_method.markdown(tables, faces, breakdown, ["A"], (0.1,), [0])


def _line(text, start):
    return next(x for x in text.splitlines() if x.startswith(start))


def test_page_cells():
    text = _page()
    tables = _line(text, "| A | 1.00 / 0.50 (2)")
    assert tables.endswith("| 3.000 |")  # total seconds over the tables
    faces = [x for x in text.splitlines() if x.startswith("| A |")][1]
    assert "| 0.80 (1 of 2 draws flag none) | 0.50 |" in faces  # precision over the others
    assert "| 0.123 | 0.300 | 0.500 |" in faces
    breakdown = [x for x in text.splitlines() if x.startswith("| A |")][2]
    assert "| **0.60** | 0.45 | **0.51** |" in breakdown  # bold: broken, sine > 0.5


def test_csv_header_covers_every_row(tmp_path):
    rows = [{"method": "A", "note": "ValueError"}, {"method": "B", "note": "", "recall": 1.0}]
    which_method.write_csv(tmp_path / "t.csv", rows)
    with open(tmp_path / "t.csv", encoding="utf-8") as handle:
        back = list(csv.DictReader(handle))
    assert [r["recall"] for r in back] == ["", "1.0"]


def test_estimators_are_seeded_and_faces_skip_the_median_centred_runs(monkeypatch, tmp_path):
    """``random_state=seed`` where the estimator has one; the faces (already centred
    images, and a table of their own) are measured on the methods without the centred
    runs, the tables and the breakdown on all of them."""
    assert which_method.make("ROBPCA", 2, seed=7).get_params()["random_state"] == 7
    seen = {}

    def breakdown(methods, seeds, fractions):
        seen["breakdown"] = list(methods)
        return [
            {"contamination": c, "eps": e, "seed": 0, "method": m, "sine": 0.1, "seconds": 0.1}
            for c in which_method.CONTAMINATIONS
            for e in fractions
            for m in methods
        ]

    monkeypatch.setattr(which_method, "run_tables", lambda methods, seed: [])
    monkeypatch.setattr(
        which_method, "run_faces", lambda methods, **kw: seen.setdefault("faces", methods) and []
    )
    monkeypatch.setattr(which_method, "run_breakdown", breakdown)
    monkeypatch.setattr(which_method, "figure", lambda *a: None)
    argv = ["--quick", "--no-r", "--out-dir", str(tmp_path), "--markdown", str(tmp_path / "p.md")]
    assert which_method.main([*argv, "--methods", "PCA,PrincipalComponentPursuit"]) == 0
    centred = "PrincipalComponentPursuit" + which_method.CENTRED
    assert seen["faces"] == ["PCA", "PrincipalComponentPursuit"]
    assert centred in seen["breakdown"]


def test_table_methods_leave_out_the_image_transfer_and_kernel_estimators():
    """As the docstring says (and ``robustpca fit``): no 2-D image methods, no
    RobustTransferPCA (two data sets), no KernelL21PCA (no linear subspace)."""
    names = which_method.table_methods()
    for left_out in ("RobustTransferPCA", "KernelL21PCA", "TwoDPCA", "GLRAM", "Robust2DPCA"):
        assert left_out not in names
    assert {"PCA", "ROBPCA", "PrincipalComponentPursuit", "OptimalMeanPCA"} <= set(names)


def test_rrcov_breakdown_rows_use_the_largest_principal_angle(monkeypatch):
    """A fitted basis holding one planted axis and one orthogonal one is broken: the
    largest angle is 90 degrees (sine 1), though the smallest is 0."""
    monkeypatch.setattr(which_method, "rrcov_tables", lambda tables: {})

    def run_r(datasets):
        fits = {}
        for key in datasets:
            _, kind, eps, seed = key
            _, U = which_method.planted(kind, eps, seed)
            other = np.linalg.qr(np.column_stack([U, np.eye(10)[:, :1]]))[0][:, 2]
            fits[(key, "rrcov::PcaHubert")] = (0.1, [], np.column_stack([U[:, 0], other]))
        return fits

    monkeypatch.setattr(which_method, "run_r", run_r)
    _, breakdown = which_method.r_tables_and_breakdown([0], [0.1])
    assert len(breakdown) == len(which_method.CONTAMINATIONS)
    assert all(r["sine"] == pytest.approx(1.0) for r in breakdown)
