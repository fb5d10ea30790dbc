"""The problem, the shapes and the scores of ``benchmarks/bench_known_rank.py``.

Its docstring defines the data (Candès et al. 2011, sec. 4.1, as in issue 14):
``L = A B^T`` with standard normal factors of rank ``rank_fraction`` of the short side, a
Bernoulli(``p``) support on which ``S`` is a random sign times a uniform magnitude in
``[1, 5]`` times 10 times the mean ``|L|``; shapes ``"1000"`` (square) or ``"5000x500"``;
and the reported scores: the relative error ``||L_hat - L||_F / ||L||_F`` and the F1
score of the support of ``S_hat``. The quick smoke run only sees a square problem and
perfect recoveries, where none of this can go wrong visibly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_known_rank as bench


def test_problem_is_the_documented_one():
    X, L, support = bench.make_problem((60, 40), 0.1, 0.1, seed=0)
    assert X.shape == L.shape == support.shape == (60, 40)
    assert np.linalg.matrix_rank(L) == 4  # a tenth of the short side
    S = X - L
    assert not S[~support].any()
    ratio = np.abs(S[support]) / np.abs(L).mean()
    assert ratio.min() >= 10.0 and ratio.max() <= 50.0
    assert ratio.min() < 15.0 and ratio.max() > 45.0  # uniform over [1, 5] times 10
    signs = np.sign(S[support])
    assert 0.35 < np.mean(signs > 0) < 0.65  # random signs
    assert 0.07 < support.mean() < 0.13


def test_shapes_parse_as_documented():
    assert bench.parse_shape("1000") == (1000, 1000)
    assert bench.parse_shape("5000x500") == (5000, 500)
    assert bench.parse_shape("300X200") == (300, 200)
    assert bench.label((500, 500)) == "500^2" and bench.label((5000, 500)) == "5000 x 500"


def test_scores_are_the_relative_error_and_the_f1_of_the_support():
    rng = np.random.default_rng(0)
    truth = rng.random((20, 30)) < 0.2
    found = truth.copy()
    found[:4] = ~found[:4]  # some misses and some false alarms
    tp = np.sum(found & truth)
    precision, recall = tp / found.sum(), tp / truth.sum()
    f1 = 2 * precision * recall / (precision + recall)
    assert bench.f1_support(found, truth) == pytest.approx(f1, rel=1e-12)
    assert bench.f1_support(truth, truth) == 1.0
    L = rng.normal(size=(20, 30))
    S_hat = np.where(found, 1.0, 0.0)

    def fit(X, r, support, seed):
        return 1.01 * L, S_hat, 7

    res = bench.run_cell(fit, L, L, truth, 2, 0, 1)
    assert res["rel_error"] == pytest.approx(0.01, rel=1e-9)
    assert res["f1"] == pytest.approx(f1, rel=1e-12)
    assert res["n_iter"] == 7 and res["rank"] == 20


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_quick_table_is_complete_and_its_ratios_are_to_our_pcp(capsys):
    """Every row of the printed table has the header's cells (codes that are not
    installed included), and the last two columns are each fit's time over our PCP's
    (1.00 on PCP's own row); ``--no-pcp`` leaves PCP, and those columns, out."""
    out = bench.main(["--quick", "--target-tol", "0"])
    capsys.readouterr()
    fits = out["results"][0]["fits"]
    pcp = fits["robustpca PCP"]
    lines = out["table"].splitlines()
    width = lines[0].count("|")
    assert all(line.count("|") == width for line in lines)
    seen = 0
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        fit = fits[cells[1]]
        if "seconds" not in fit:
            assert cells[8] == cells[9] == "-"  # a code that is not installed
            continue
        seen += 1
        assert cells[8] == f"{fit['seconds'] / pcp['seconds']:.2f}"
        assert cells[9] == f"{fit['cpu_seconds'] / pcp['cpu_seconds']:.2f}"
    assert seen == len([f for f in fits.values() if "seconds" in f]) >= 4
    assert cells[1] == "robustpca PCP" and cells[8] == "1.00"
    out = bench.main(["--quick", "--target-tol", "0", "--no-pcp"])
    capsys.readouterr()
    assert "robustpca PCP" not in out["results"][0]["fits"]
