"""The convex estimators warn where an ``n_components`` asked for holds more directions
than ``low_rank_`` has: the rest only complete the basis. On ADBench's Lymphography (binary
columns scaled by median and MAD) PCP's default penalty put every entry in ``sparse_``,
and ``components_`` were two arbitrary directions, without a word."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from robustpca import ConvexOptimalMeanPCA, OutlierPursuit, PrincipalComponentPursuit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outliers as bench


def planted(rank: int, seed: int = 0, n: int = 80, p: int = 12) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, rank)) @ rng.normal(size=(rank, p)) * 3.0


def rank_warnings(model, X) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X)
    return [str(w.message) for w in caught if "only complete the basis" in str(w.message)]


def test_pcp_whose_low_rank_part_is_zero_says_so_and_names_lam():
    model = PrincipalComponentPursuit(2, lam=1e-4)
    (message,) = rank_warnings(model, planted(2))
    assert model.rank_ == 0 and np.all(model.low_rank_ == 0)
    assert "rank 0, below n_components_=2" in message and "a larger lam" in message


def test_more_components_than_the_recovered_rank_warn():
    model = PrincipalComponentPursuit(3)
    (message,) = rank_warnings(model, planted(1))
    assert model.rank_ == 1 and "the last 2 rows of components_" in message


@pytest.mark.parametrize("n_components", [None, 2, 3])
def test_no_warning_where_the_rank_covers_the_components(n_components):
    assert rank_warnings(PrincipalComponentPursuit(n_components), planted(3)) == []


def test_no_warning_where_no_count_was_asked_for():
    """``n_components=None`` keeps the rank (at least one row): a static clip about its
    median frame has rank 0 there, which is the answer, not a failure."""
    X = np.repeat(planted(1, n=1)[:1], 40, axis=0)
    model = PrincipalComponentPursuit(center="median")
    assert rank_warnings(model, X) == [] and model.rank_ == 0


@pytest.mark.parametrize("estimator", [OutlierPursuit, ConvexOptimalMeanPCA])
def test_the_row_sparse_pursuits_name_gamma_which_must_fall(estimator):
    model = estimator(2, gamma=1e6)
    (message,) = rank_warnings(model, planted(2))
    assert model.rank_ == 0 and "a smaller gamma" in message


@pytest.mark.realdata
def test_lymphography_scaled_by_median_and_mad(adbench):
    X, _ = bench.load_table("21_Lymphography", adbench)
    model = PrincipalComponentPursuit(2)
    X = bench.scale_columns(X, "robust")  # the outlier benchmark's scaling
    assert len(rank_warnings(model, X)) == 1 and model.rank_ == 0
