"""Nie & Huang (PCA-L21), Figures 2-4 and 6: run plan, tasks and report.

test_experiments_niehuang.py checks the data, the corruptions and eq. (37)/(38) of a
task against a direct fit. Here what those leave open: that each figure runs the
occlusion level sec. V.A gives it with the notes' grid, seeds and stopping rules; that
only the nested methods (PCA, PCA-L1) are fitted once and truncated, with the
iterations of the components used; that the Palm outliers come from ``data_home`` and
are resized bilinearly; and that the report's tables count and average what they say.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from robustpca import L1PCA, R1PCA
from robustpca.experiments import RunConfig, get_experiment
from robustpca.experiments.niehuang import (
    _METHOD_NOTES,
    DATASETS,
    DIMENSIONS,
    METHODS,
    OCCLUSION_FRACTIONS,
    OUTLIER_FRACTION,
    occlude,
    occlusion_task,
    outlier_task,
    paper_images,
    with_outliers,
)
from robustpca.metrics import projection_reconstruction_error

YALE = "yale:64x64"


def test_full_runs_follow_the_paper_and_the_notes():
    """Sec. V.A: 10, 20 and 30% occluded in Figures 2, 3 and 4 (Figure 6: the outliers);
    the notes: m = 21, 25, ..., 69, 3 seeds, every method to its own stopping rule."""
    a, b, c = map(int, re.search(r"m = (\d+), (\d+), \.\.\., (\d+)", _METHOD_NOTES).groups())
    assert DIMENSIONS == tuple(range(a, c + 1, b - a))
    config = RunConfig(datasets=DATASETS, seed=0)
    for figure, fraction, fn in (
        ("figure2", 0.1, occlusion_task),
        ("figure3", 0.2, occlusion_task),
        ("figure4", 0.3, occlusion_task),
        ("figure6", OUTLIER_FRACTION, outlier_task),
    ):
        tasks = get_experiment(f"niehuang-{figure}").tasks(config)
        assert len(tasks) == len(DATASETS) * 3 * len(METHODS), figure
        assert all(t.fn is fn for t in tasks), figure
        assert {t.params["fraction"] for t in tasks} == {fraction}, figure
        assert {t.params["seed"] for t in tasks} == {0, 1, 2}, figure
        assert {tuple(t.params["dims"]) for t in tasks} == {DIMENSIONS}, figure
        assert {t.params["max_iter"] for t in tasks} == {None}, figure
    assert OCCLUSION_FRACTIONS == {"figure2": 0.1, "figure3": 0.2, "figure4": 0.3}


@pytest.mark.realdata
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_r1pca_is_refitted_at_every_dimension(shared_data):
    """R1-PCA is not nested (its first m components depend on n_components): its row at
    m = 21 of a [21, 25] grid is a fit with 21 components, not the first 21 of 25."""
    home = str(shared_data)
    rows = occlusion_task(YALE, 0, "R1-PCA", 0.1, [21, 25], home, 3)
    data = paper_images(YALE, home)
    X, _ = occlude(data, 0.1, 0)
    direct = R1PCA(n_components=21, random_state=0, max_iter=3).fit(X)
    expected = projection_reconstruction_error(direct.components_, X, data.data, mean=direct.mean_)
    assert rows[0]["error"] == pytest.approx(expected, rel=1e-10)


@pytest.mark.realdata
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nested_rows_count_the_iterations_of_their_components(shared_data):
    """PCA-L1 fitted once at m = 25 and truncated to 21: the row at 21 reports the
    iterations of those 21 components, those of a fit with 21."""
    home = str(shared_data)
    rows = occlusion_task(YALE, 1, "PCA-L1", 0.1, [21, 25], home, 5)
    X, _ = occlude(paper_images(YALE, home), 0.1, 1)
    direct = L1PCA(n_components=21, random_state=1, max_iter=5).fit(X)
    assert rows[0]["n_iter"] == direct.n_iter_
    assert rows[0]["n_iter"] < rows[1]["n_iter"]


@pytest.mark.realdata
def test_rows_report_non_convergence(shared_data):
    """A PCA-L21 fit stopped after one iteration is not converged, and its row says so
    (the report counts converged fits)."""
    (row,) = occlusion_task(YALE, 0, "PCA-L21", 0.3, [21], str(shared_data), 1)
    assert row["n_iter"] == 1 and row["converged"] is False


@pytest.mark.realdata
def test_palm_outliers_come_from_data_home_and_are_resized_bilinearly(shared_data, tmp_path):
    """with_outliers: Palm is read from ``data_home``, like the faces; its 16x16 images
    are resized bilinearly (not blockwise constant, as nearest-neighbour upsampling by 4
    would make them)."""
    yale = paper_images(YALE, str(shared_data))
    with pytest.raises(FileNotFoundError):
        with_outliers(yale, 0.2, seed=0, data_home=str(tmp_path))
    X, is_outlier = with_outliers(yale, 0.2, seed=0, data_home=str(shared_data))
    palms = X[is_outlier].reshape(-1, 64, 64)
    blocks = palms.reshape(-1, 16, 4, 16, 4)
    spread = blocks.max(axis=(2, 4)) - blocks.min(axis=(2, 4))
    assert np.mean(spread > 0) > 0.5


def _rows(datasets=(YALE, "umist")):
    """Seed-varying errors: PCA-L21 best at m = 21 on both data sets, R1-PCA at m = 25 on
    the second; PCA-L21's iterations 1, 2 and 10, the others' 999."""
    base = {"PCA": 100.0, "R1-PCA": 98.0, "PCA-L1": 101.0, "PCA-L21": 96.0}
    rows = []
    for d, ds in enumerate(datasets):
        for method, error in base.items():
            for k in (21, 25):
                for seed in range(3):
                    e = error + 0.5 * seed + 10.0 * d
                    if ds == datasets[-1] and k == 25 and method == "R1-PCA":
                        e -= 5.0
                    n_iter = (1, 2, 10)[seed] if method == "PCA-L21" else 999
                    rows.append(
                        {"dataset": ds, "seed": seed, "method": method, "k": k, "error": e}
                        | {"n_iter": n_iter, "converged": seed < 2}
                    )
    return rows


@pytest.mark.realdata
def test_report_tables(shared_data):
    """Per data set, its own rows with the best method of each m in bold; the claim table
    under the paper's row, with totals over the data sets; the gap to PCA averaged over
    m with the lowest in bold; PCA-L21's iterations: median, max, converged fits."""
    config = RunConfig(datasets=(YALE, "umist"), data_home=str(shared_data))
    occlusion = get_experiment("niehuang-figure3").table(_rows(), config)
    section = occlusion.split("### umist")[0].split(f"### {YALE}")[1]
    assert "| PCA-L21 | **96.5** | **96.5** |" in section
    assert "| PCA | 100.5 | 100.5 |" in section and "106.5" not in section
    umist = occlusion.split("### umist")[1].split("##")[0]
    assert "| R1-PCA | 108.5 | **103.5** |" in umist
    assert "| *the paper* | all | all | all | none | all | all |" in occlusion
    assert "| all | 3/4 | 4/4 | 4/4 | 0/4 | 3/4 | 4/4 |" in occlusion
    # PCA-L21 vs PCA on Yale: 100 * (96.5 / 100.5 - 1) = -3.98 at both m
    assert f"| {YALE} | +0.00 | -1.99 | +1.00 | **-3.98** |" in occlusion
    assert "| umist | +0.00 | **-4.07** | +0.90 | -3.62 |" in occlusion
    assert f"| {YALE} | 2 | 10 | 4/6 |" in occlusion
    outliers = get_experiment("niehuang-figure6").table(_rows(), config)
    assert "| *the paper* | all | all | all | all | all | all |" in outliers
