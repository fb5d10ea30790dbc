"""benchmarks/bench_dask.py's pass cache (``--pass-cache``): a chunked fit stopped after
some passes and started again replays them and ends bit for bit as the unbroken fit; a
cache of another fit stops the run; the runner is restored after the block."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_dask  # noqa: E402
from robustpca import ROBPCA  # noqa: E402
from robustpca._dask.fit import DaskPassRunner  # noqa: E402


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2)) @ rng.normal(size=(2, 6)) + 0.1 * rng.normal(size=(3000, 6))
    X[:150] += 5.0 * rng.normal(size=(150, 6))
    return da.from_array(X, chunks=(500, 6))


def _fit(X, cache=None, **params):
    replayed: list = []
    with dask.config.set(scheduler="threads"):
        if cache is None:
            return ROBPCA(n_components=2, random_state=0, **params).fit(X), replayed
        with bench_dask.cached_passes(cache, replayed):
            model = ROBPCA(n_components=2, random_state=0, **params).fit(X)
    return model, replayed


def test_a_resumed_fit_equals_the_unbroken_one(tmp_path):
    X = _data()
    unbroken, _ = _fit(X)
    first, replayed = _fit(X, tmp_path)
    assert replayed == []
    files = sorted(tmp_path.glob("pass_*.pkl"))
    assert len(files) == unbroken.n_passes_ == first.n_passes_
    for path in files[len(files) // 2 :]:  # the run "stopped" half way
        path.unlink()
    resumed, replayed = _fit(X, tmp_path)
    assert len(replayed) == len(files) // 2
    again, replayed_all = _fit(X, tmp_path)  # every pass replayed
    assert len(replayed_all) == len(files)
    for model in (first, resumed, again):
        assert model.n_passes_ == unbroken.n_passes_
        assert np.array_equal(model.explained_variance_, unbroken.explained_variance_)
        assert np.array_equal(model.components_, unbroken.components_)
        assert np.array_equal(model.mean_, unbroken.mean_)
    assert {"kernel", "key", "out", "seconds", "cpu", "rss_gb"} <= set(replayed_all[0])
    assert DaskPassRunner.__call__ is bench_dask_runner_call()


def bench_dask_runner_call():
    """The runner's own ``__call__`` (the class attribute the cache swaps)."""
    return DaskPassRunner.__dict__["__call__"]


def test_a_cache_of_another_fit_stops_the_run(tmp_path):
    X = _data()
    original = bench_dask_runner_call()
    _fit(X, tmp_path)
    with pytest.raises(RuntimeError, match="the cache is of another run"):
        _fit(X, tmp_path, alpha=0.6)  # another h: other parameters from some pass on
    assert bench_dask_runner_call() is original


def test_the_fingerprint_is_by_content_not_by_sharing():
    """A replayed result is a copy: the same values, no longer shared objects."""
    import hashlib

    a = np.arange(6.0)
    digests = []
    for params in ({"x": a, "y": a}, {"x": a.copy(), "y": np.arange(6.0)}):
        h = hashlib.sha256()
        bench_dask._fingerprint(params, h)
        digests.append(h.hexdigest())
    assert digests[0] == digests[1]
    h = hashlib.sha256()
    bench_dask._fingerprint({"x": a, "y": a + np.array([0, 0, 0, 0, 0, 1.0])}, h)
    assert h.hexdigest() != digests[0]
