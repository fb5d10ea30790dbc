"""benchmarks/bench_outlier_family.py's family keeps its documented definitions: the rank
rules ``sqrt(d)`` and ``log2(d)`` round to the nearest rank and every integer rank is
clipped to ``1 .. d - 1`` (so rules that name the same rank score the same), the
normal scores are standard normal scores (Wilson-Hilferty for SD^2 against chi-square(k),
median and normalised MAD for OD^(2/3)), and the leave-one-table-out choice reports the
configurations most often chosen first and chooses among the ones it is given."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_family as fam


def _save_table(folder, name, d, k, seed):
    """150 rows near a k-plane in d dimensions, the first 15 (labelled 1) pushed off it."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, k)) @ rng.normal(size=(k, d)) + 0.5 * rng.normal(size=(150, d))
    X[:15] += rng.normal(size=(15, d))
    y = np.r_[np.ones(15, dtype=int), np.zeros(135, dtype=int)]
    np.savez(folder / f"{name}.npz", X=X, y=y)


def _rule(aucs, rule):
    return [aucs[f"{rule} | {c}"] for c in fam.COMBINATIONS]


def test_the_function_rank_rules_round_to_the_nearest_rank(tmp_path):
    """d = 8: sqrt(8) = 2.83 and log2(8) = 3 both name rank 3, and score as ``k=3``."""
    _save_table(tmp_path, "1_eight", d=8, k=3, seed=0)
    aucs = fam.run_table("1_eight", tmp_path)
    assert _rule(aucs, "sqrt(d)") == _rule(aucs, "k=3") == _rule(aucs, "log2(d)")
    assert _rule(aucs, "k=2") != _rule(aucs, "k=3")  # the ranks are told apart


def test_integer_ranks_are_clipped_below_the_number_of_columns(tmp_path):
    """d = 4: ``k=4`` and ``k=5`` are fitted at rank 3 = d - 1; log2(4) = 2 is ``k=2``;
    the columns are scaled by their median and MAD (the benchmark's ``robust``)."""
    from sklearn.metrics import roc_auc_score

    from robustpca import ROBPCA
    from robustpca.diagnostics import outlier_diagnostics

    _save_table(tmp_path, "2_four", d=4, k=2, seed=1)
    aucs = fam.run_table("2_four", tmp_path)
    assert _rule(aucs, "k=4") == _rule(aucs, "k=3") == _rule(aucs, "k=5")
    assert _rule(aucs, "log2(d)") == _rule(aucs, "k=2") != _rule(aucs, "k=1")
    X, y = fam.load_table("2_four", tmp_path)
    Xs = fam.scale_columns(X, "robust")
    model = ROBPCA(n_components=2, random_state=0).fit(Xs)
    od = outlier_diagnostics(model, Xs).orthogonal_distances
    assert aucs["k=2 | OD alone"] == pytest.approx(roc_auc_score(y, od))


def test_normal_scores_are_standard_normal():
    """SD^2 ~ chi-square(k): the Wilson-Hilferty score has mean 0 and SD 1. For OD, the
    score of OD^(2/3) has median 0 and normalised MAD 1 whatever its distribution."""
    rng = np.random.default_rng(0)
    k = 3
    sd = np.sqrt(rng.chisquare(k, size=20000))
    od = (1.0 + rng.exponential(size=20000)) ** 1.5  # OD^(2/3) = 1 + Exp(1): skewed
    z_sd, z_od = fam._normal_scores(SimpleNamespace(score_distances=sd, orthogonal_distances=od), k)
    assert abs(np.mean(z_sd)) < 0.03 and abs(np.std(z_sd) - 1) < 0.03
    assert abs(np.median(z_od)) < 1e-12
    assert stats.median_abs_deviation(z_od, scale="normal") == pytest.approx(1.0, rel=1e-9)


def test_orthogonal_distances_normal_in_their_two_thirds_power_score_as_standard_normal():
    """rrcov's model of OD: OD^(2/3) is normal. Then the OD score is standard normal
    (mean 0, SD 1, no skew); a score of OD^2 itself would be skewed."""
    rng = np.random.default_rng(0)
    od = rng.normal(3.0, 0.5, size=20000) ** 1.5
    sd = np.sqrt(rng.chisquare(2, size=20000))
    _, z_od = fam._normal_scores(SimpleNamespace(score_distances=sd, orthogonal_distances=od), 2)
    assert abs(np.mean(z_od)) < 0.05 and abs(np.std(z_od) - 1) < 0.03
    assert abs(stats.skew(z_od)) < 0.1


def test_normal_scores_survive_ties_in_most_orthogonal_distances():
    """Over half the rows on the fitted subspace (OD = 0, so MAD 0): the OD score falls
    back on the SD of OD^(2/3) and stays finite, the off-subspace rows above the rest."""
    rng = np.random.default_rng(0)
    od = np.r_[np.zeros(60), rng.exponential(size=40)]
    sd = np.sqrt(rng.chisquare(2, size=100))
    z_sd, z_od = fam._normal_scores(SimpleNamespace(score_distances=sd, orthogonal_distances=od), 2)
    assert np.all(np.isfinite(z_od)) and np.all(np.isfinite(z_sd))
    assert np.all(z_od[60:] > z_od[0])


def test_leave_one_table_out_lists_the_most_chosen_first_among_the_configs_given():
    """Tables t0, t1 choose ``a`` (best on the other four), t2-t4 choose ``b``: ``b``,
    chosen three times, comes first. Restricted to ``a``, every fold chooses ``a``."""
    a = [0.5, 0.5, 0.9, 0.9, 0.9]
    b = [0.95, 0.95, 0.6, 0.6, 0.6]
    aucs = {f"t{i}": {"a": a[i], "b": b[i]} for i in range(5)}
    res = fam.leave_one_table_out(aucs)
    assert list(res["chosen"].items()) == [("b", 3), ("a", 2)]
    assert res["held_out_mean"] == pytest.approx((0.5 + 0.5 + 0.6 + 0.6 + 0.6) / 5)
    only_a = fam.leave_one_table_out(aucs, ["a"])
    assert only_a["chosen"] == {"a": 5} and list(only_a["per_config_mean"]) == ["a"]
    assert only_a["held_out_mean"] == pytest.approx(np.mean(a))


def test_the_six_outlyingnesses_combine_the_two_distances_as_named():
    """Each combination from one fit's diagnostics: OD alone, the sum of the squared
    ratios to the cutoffs, the sum of the two normal scores at the fit's rank; the
    maximum of ratios ranks rows as max(SD / c_SD, OD / c_OD) does."""
    from robustpca import ROBPCA
    from robustpca.diagnostics import outlier_diagnostics

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 7)) + 0.2 * rng.normal(size=(200, 7))
    X[:10] += 2.0 * rng.normal(size=(10, 7))
    model = ROBPCA(n_components=3, random_state=0).fit(X)
    diag = outlier_diagnostics(model, X)
    scores = fam.outlyingnesses(model, X)
    r_sd = diag.score_distances / diag.score_cutoff
    r_od = diag.orthogonal_distances / diag.orthogonal_cutoff
    np.testing.assert_array_equal(scores["OD alone"], diag.orthogonal_distances)
    np.testing.assert_allclose(scores["sum of squared ratios"], r_sd**2 + r_od**2, rtol=1e-12)
    z_sd, z_od = fam._normal_scores(diag, 3)
    np.testing.assert_allclose(scores["sum of normal scores"], z_sd + z_od, rtol=1e-12)
    assert stats.spearmanr(scores["max of ratios"], np.maximum(r_sd, r_od))[0] > 0.999
