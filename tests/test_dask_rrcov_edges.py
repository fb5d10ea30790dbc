"""Edges of the rrcov family's Dask fits against the in-memory fits: a rank rule on
data with no direction of variance (at least one axis, as in memory), and
CovariancePCA's documented MCD bound ``n_samples > n_features + 1``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import ROBPCA, CovariancePCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("spec", ["auto", 0.9])
def test_a_rank_rule_on_constant_data_keeps_one_axis(spec):
    C = np.ones((40, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ROBPCA(spec, random_state=0).fit(C)
        ours = ROBPCA(spec, random_state=0).fit(da.from_array(C, chunks=10))
    assert ours.n_components_ == theirs.n_components_ == 1
    assert ours.components_.shape == theirs.components_.shape == (1, 5)


def test_covariance_pca_refuses_n_equal_to_p_plus_one():
    Y = np.random.default_rng(1).normal(size=(6, 5))
    for data in (Y, da.from_array(Y, chunks=3)):
        with pytest.raises(ValueError, match=r"n_samples > n_features \+ 1"):
            CovariancePCA(2).fit(data)
