"""sample_weight at its edges: normalised weights with a chosen rank, discounted streams,
unit weights, zero weights and n_components=None, and weights that are not numbers."""

import warnings

import dask.array as da
import numpy as np
import pytest

import robustpca as rp
from robustpca.diagnostics import outlier_diagnostics
from robustpca.solvers.likelihood import noise_variance


def _table(seed=0, n=60, d=8, spread=1e4):
    rng = np.random.default_rng(seed)
    return spread * (rng.normal(size=(n, 3)) @ rng.normal(size=(3, d))) + rng.normal(size=(n, d))


@pytest.mark.parametrize("spec", [0.9, "auto"])
def test_a_chosen_rank_with_weights_normalised_to_one(spec):
    """The spectrum was divided by max(W - 1, 1e-300): W = 1 made it infinite."""
    X = _table()
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    raw = rp.PCA(spec).fit(X, sample_weight=w)
    normalised = rp.PCA(spec).fit(X, sample_weight=w / w.sum())
    assert normalised.n_components_ == raw.n_components_


def _two_batches():
    rng = np.random.default_rng(0)
    d = 6
    A = np.linalg.qr(rng.normal(size=(d, 2)))[0]
    B = np.linalg.qr(rng.normal(size=(d, 2)))[0]
    X1 = rng.normal(size=(100, 2)) * [4, 2] @ A.T + 0.1 * rng.normal(size=(100, d))
    X2 = rng.normal(size=(100, 2)) * [4, 2] @ B.T + 0.1 * rng.normal(size=(100, d))
    return X1, X2


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_a_discounted_stream_has_the_diagnostics_of_its_weights(lam):
    """The reference rows kept their full weight under a forgetting factor: with 0 the
    OD cutoff was 6.85 for the last batch's 0.34."""
    X1, X2 = _two_batches()
    stream = rp.PCA(2).partial_fit(X1).partial_fit(X2, forgetting_factor=lam)
    if lam == 0.0:
        batch = rp.PCA(2).fit(X2)
    else:
        weights = np.r_[np.full(100, lam), np.ones(100)]
        batch = rp.PCA(2).fit(np.vstack([X1, X2]), sample_weight=weights)
    a, b = outlier_diagnostics(stream, X2), outlier_diagnostics(batch, X2)
    assert a.orthogonal_cutoff == pytest.approx(b.orthogonal_cutoff, rel=1e-9)
    assert stream.score(X2) == pytest.approx(batch.score(X2), rel=1e-9)


@pytest.mark.parametrize("name", ["HQPCA", "OptimalMeanPCA"])
def test_unit_weights_are_no_weights_in_a_streams_score(name):
    """The likelihood's weighted median took the lower middle value, np.median the mean
    of the two: a weight of 1 changed score."""
    X = _table(spread=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = getattr(rp, name)(2, random_state=0).partial_fit(X)
        unit = getattr(rp, name)(2, random_state=0).partial_fit(X, sample_weight=np.ones(len(X)))
    assert unit.score(X) == pytest.approx(plain.score(X), rel=1e-12)
    od = np.array([1.0, 2.0, 3.0, 4.0])
    assert noise_variance(od, 5, 1, robust=True, sample_weight=np.ones(4)) == pytest.approx(
        noise_variance(od, 5, 1, robust=True)
    )


def test_n_components_none_counts_the_rows_the_weights_make():
    """Rows of weight 0 counted towards min(n_samples, n_features) on wide data."""
    X = _table(n=8, d=20, spread=1.0)
    w = np.r_[0.0, 0.0, np.ones(6)]
    dropped = rp.PCA().fit(X[2:])
    weighted = rp.PCA().fit(X, sample_weight=w)
    assert weighted.n_components_ == dropped.n_components_ == 6
    np.testing.assert_allclose(
        weighted.score_samples(X[2:]), dropped.score_samples(X[2:]), rtol=1e-9
    )
    twice = np.r_[np.full(3, 2.0), np.ones(5)]
    repeated = rp.PCA().fit(np.repeat(X, twice.astype(int), axis=0))
    assert rp.PCA().fit(X, sample_weight=twice).n_components_ == repeated.n_components_ == 11
    stream = rp.PCA().partial_fit(X, sample_weight=w)
    assert stream.n_components_ == 6


@pytest.mark.parametrize(
    "weights",
    [np.ones(30) + 1j, np.array(["1"] * 30), ["a"] * 30],
    ids=["complex", "digits", "text"],
)
def test_weights_that_are_not_real_numbers(weights):
    X = _table(n=30, spread=1.0)
    with pytest.raises(TypeError, match="sample_weight"):
        rp.PCA(2).fit(X, sample_weight=weights)
    with pytest.raises(TypeError, match="sample_weight"):
        rp.HQPCA(2).partial_fit(X, sample_weight=weights)


def test_dask_weights_of_text():
    X = _table(n=30, spread=1.0)
    with pytest.raises(TypeError, match="sample_weight"):
        rp.PCA(2).fit(
            da.from_array(X, chunks=10), sample_weight=da.from_array(np.array(["a"] * 30))
        )
