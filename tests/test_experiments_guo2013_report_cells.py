"""The cells of the Guo (2013) reports that no test read.

The existing tests check the claim counts, the normalisation to 255/64 and the beta
curve's ratio on fake rows. The reports also print, and the reproduction pages quote:

* the scale-free table (mean over tasks of each method's RMSE / R-T-PCA's), for ours
  and for the paper: rows equal to the paper's numbers (on any common scale) must give
  the paper's ratios;
* the spread table: paired wins (runs where R-T-PCA is strictly lower, a run being one
  source image and one noise draw) and the fits that stopped at ``max_iter``;
* the claims compare the mean over the runs of a task (as the "Mean RMSE" table);
* Figure 2: the beta claim over ``beta >= 0.05`` (0.05 included), the rank panel's
  "lowest at k/n settings" (ties count, as in the claim table) and its least
  sensitive method;
* Table 2: how many (task, method) pairs degrade from 5% to 10% noise;
* ``intra_subject_pairs`` refuses a subject with a single image (its Raises section);
* ``noise_seed`` keys the noise level to four decimals (its documented rounding).
"""

import numpy as np
import pytest

from robustpca.experiments import RunConfig, get_experiment
from robustpca.experiments.guo2013 import (
    METHODS,
    PAPER_RMSE_FACTOR,
    PAPER_TABLE1,
    intra_subject_pairs,
    noise_seed,
)

CONFIG = RunConfig(datasets=("yale:64x64",))


def rows_for(scores, **extra):
    """Report rows: ``{task: {method: rmse}}``, one run each, with ``extra`` fields."""
    base = dict(source=1, repeat=0, kc=8, ks=3, kt=3, beta=0.1, noise=0.05, pixel_max=1.0)
    base.update(extra)
    return [
        dict(base, task=task, method=m, rmse=v, max_iter_reached=False)
        for task, values in scores.items()
        for m, v in values.items()
    ]


def line(text, start):
    return next(x for x in text.splitlines() if x.startswith(start))


def test_scale_free_ratios_of_the_paper_numbers_are_the_papers():
    scores = {
        task: {m: v / PAPER_RMSE_FACTOR for m, v in zip(METHODS, values, strict=True)}
        for task, values in PAPER_TABLE1.items()
    }
    text = get_experiment("guo2013-table1").table(rows_for(scores), CONFIG)
    ours, paper = line(text, "| ours |"), line(text, "| paper | 1.000")
    assert ours.split("|")[2:] == paper.split("|")[2:]
    expected = np.mean([v[4] / v[0] for v in PAPER_TABLE1.values()])  # PCA / R-T-PCA
    assert ours.split("|")[6].strip() == f"{expected:.3f}"
    assert float(ours.split("|")[6]) > 1.0


def test_spread_counts_strict_paired_wins_per_source_and_capped_fits():
    """Two sources per task: four runs. R-T-PCA ties R-S-PCA on one run (not a win);
    only the flagged fits count as stopped at max_iter."""
    rows = []
    for source, tie in ((1, True), (2, False)):
        values = dict(zip(METHODS, (0.1, 0.1 if tie else 0.2, 0.3, 0.4, 0.5, 0.6), strict=True))
        rows += rows_for({"Task-1": values, "Task-2": values}, source=source)
    for r in rows:
        r["max_iter_reached"] = r["method"] == "R-PCA" and r["task"] == "Task-1"
    text = get_experiment("guo2013-table1").table(rows, CONFIG)
    assert line(text, "| R-S-PCA | ").split("|")[3:5] == [" 2/4 ", " 0/4 "]
    assert line(text, "| R-PCA | ").split("|")[3:5] == [" 4/4 ", " 2/4 "]
    assert line(text, "| R-T-PCA | ").split("|")[4] == " 0/4 "


def test_claims_compare_the_mean_over_runs():
    """R-T-PCA's runs 0.1, 0.2, 0.6 (mean 0.3, median 0.2) against R-S-PCA's 0.25:
    the mean table and the claim (R-T-PCA below R-S-PCA: no) use the mean."""
    rows = []
    for repeat, v in enumerate([0.1, 0.2, 0.6]):
        scores = dict(zip(METHODS, (v, 0.25, 0.8, 0.9, 1.0, 1.1), strict=True))
        rows += rows_for({"Task-1": scores}, repeat=repeat)
    text = get_experiment("guo2013-table1").table(rows, CONFIG)
    assert line(text, "| Task-1 | ").split("|")[2:4] == [" 0.3000 ", " **0.2500** "]
    claim = [x for x in text.splitlines() if x.startswith("| Task-1 | ")][1]
    assert claim.split("|")[2:4] == [" no ", " no "]


def test_figure2_beta_claim_counts_beta_005_and_rank_panel_cells():
    curve = (0.9, 0.5, 0.10, 0.15, 0.16, 0.17, 0.18)  # beta = 0.05 is the lowest point
    betas = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
    rows = [
        dict(r, panel="beta", beta=b)
        for b, v in zip(betas, curve, strict=True)
        for r in rows_for({"Task-6-1": {"R-T-PCA": v}})
    ]
    settings = {(6, 3, 3): (0.10, 0.2, 0.3, 0.4, 0.5, 0.6), (8, 3, 3): (0.11, 0.11, 0.6, 1, 1, 1)}
    for (kc, ks, kt), values in settings.items():
        scores = {"Task-6-1": dict(zip(METHODS, values, strict=True))}
        rows += [dict(r, panel="ranks") for r in rows_for(scores, kc=kc, ks=ks, kt=kt)]
    text = get_experiment("guo2013-figure2").table(rows, CONFIG)
    assert "| pixels in [0, 1] | 1.800 | 9.000 | no |" in text
    assert "- R-T-PCA has the lowest mean RMSE at 2/2 settings" in text  # a tie counts
    assert "- the smallest range is R-T-PCA's" in text


def test_table2_counts_the_pairs_that_degrade():
    low = dict(zip(METHODS, (0.1, 0.2, 0.3, 0.4, 0.5, 0.6), strict=True))
    high = dict(zip(METHODS, (0.2, 0.3, 0.4, 0.5, 0.6, 0.5), strict=True))  # one improves
    rows = rows_for({"Task-6-1": low}, noise=0.05) + rows_for({"Task-6-1": high}, noise=0.10)
    text = get_experiment("guo2013-table2").table(rows, CONFIG)
    assert "Holds for 5/6 (task, method) pairs" in text


def test_a_subject_with_one_image_is_refused():
    labels = np.array([1, 1, 1, 2])
    assert intra_subject_pairs(labels, [1], 5) == [("Task-1", 1, 0), ("Task-1", 2, 0)]
    with pytest.raises(ValueError, match="subject 2 has 1 images"):
        intra_subject_pairs(labels, [1, 2], 5)


def test_noise_levels_apart_in_the_fourth_decimal_draw_apart():
    """noise_seed keys the level to four decimals: 0.05 and 0.0505 are different
    protocols (different draws), 0.05 and 0.05 + 1e-9 the same one."""
    assert noise_seed(0, 55, 0, 0.05, 0) != noise_seed(0, 55, 0, 0.0505, 0)
    assert noise_seed(0, 55, 0, 0.05, 0) == noise_seed(0, 55, 0, 0.05 + 1e-9, 0)
