"""benchmarks/bench_dask.py: the rows of a chunked fit and the pass cache's accounting.

Pinned, as the module docstring states them: the cache's fingerprint tells parameters of
other content apart (shape and dtype of arrays, keys, nesting, scalar values, functions,
objects' attributes); a row counts its chunks and reports the mean's RMS error per
feature; the online estimators get one more component than the planted rank (their model
has no offset); the run's ``--tol`` is the fit's; a cached pass asked with other
parameters stops the run; an in-memory row is one pass; a resumed
run adds the replayed passes' own time, CPU time and peak RSS to its own; ``--parity``
reports the eigenvalue difference relative to the largest eigenvalue and the ``low_rank_``
difference relative to its largest entry; the parent passes a cache folder of its own to
each Dask run and none to the in-memory ones, and the layout to both, ``--parity`` to
the Dask run only.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import pickle
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_dask  # noqa: E402


def _digest(obj):
    h = hashlib.sha256()
    bench_dask._fingerprint(obj, h)
    return h.hexdigest()


def test_the_fingerprint_tells_other_content_apart():
    a = np.arange(6.0)
    pairs = [
        (a, a.reshape(2, 3)),  # same bytes, other shape
        (np.zeros(2), np.zeros(4, dtype=np.float32)),  # same bytes, other dtype
        ({"x": 1.0}, {"y": 1.0}),  # other key
        (([1.0, 2.0], [3.0]), ([1.0], [2.0, 3.0])),  # other nesting
        ({"alpha": 0.5}, {"alpha": 0.6}),  # other scalar
        ({"f": np.sum}, {"f": np.mean}),  # other function
        (SimpleNamespace(h=10), SimpleNamespace(h=11)),  # other attribute
    ]
    for left, right in pairs:
        assert _digest(left) != _digest(right), (left, right)
    assert _digest({"x": a[::2]}) == _digest({"x": np.array([0.0, 2.0, 4.0])})


def _args(**kw):
    base = dict(
        estimator="om", wide=False, n_samples=2000, n_features=8, rank=2, chunk_rows=500,
        chunk_cols=5000, max_iter=100, tol=1e-6, card="auto", in_memory=False, parity=False,
        read_pass=False, progress=None, pass_cache=None,
    )  # fmt: skip
    return argparse.Namespace(**(base | kw))


def test_a_row_counts_its_chunks_and_the_mean_error_per_feature():
    from dask_out_of_core import lazy_low_rank_data

    from robustpca import OptimalMeanPCA

    row = bench_dask.run_one(_args())
    assert row["chunks"] == 4 and row["chunk_shape"] == [500, 8] and row["n_passes"] >= 1
    X, _, center = lazy_low_rank_data(2000, 8, rank=2, chunk_rows=500)
    mean = OptimalMeanPCA(n_components=2, max_iter=100, tol=1e-6).fit(X.compute()).mean_
    expected = np.linalg.norm(mean - center) / np.sqrt(8)
    assert row["mean_rms_error"] == pytest.approx(expected, rel=1e-6)


def test_the_fit_uses_the_tol_asked_for():
    loose, tight = bench_dask.run_one(_args(tol=0.5)), bench_dask.run_one(_args(tol=1e-12))
    assert loose["n_iter"] < tight["n_iter"]


def test_an_in_memory_row_is_one_pass():
    row = bench_dask.run_one(_args(in_memory=True))
    assert row["n_passes"] == 1 and row["estimator"].endswith("(in memory)")


def test_online_estimators_get_one_more_component_than_the_rank():
    row = bench_dask.run_one(_args(estimator="orpca"))
    assert row["angle_deg"] < 10.0  # the planted subspace and the centre direction


def test_a_resumed_run_adds_the_replayed_passes_measurements(tmp_path):
    first = bench_dask.run_one(_args(pass_cache=tmp_path))
    assert first["replayed_passes"] == 0
    files = sorted(tmp_path.glob("pass_*.pkl"))
    for path in files:  # as if an earlier, slower run on a larger machine computed them
        record = pickle.loads(path.read_bytes())
        record.update(seconds=100.0, cpu=50.0, rss_gb=1000.0)
        path.write_bytes(pickle.dumps(record))
    again = bench_dask.run_one(_args(pass_cache=tmp_path))
    n = len(files)
    assert again["replayed_passes"] == n == again["n_passes"]
    assert again["fit_s"] >= 100.0 * n
    assert again["cpu_s_per_pass"] * again["n_passes"] >= 50.0 * n
    assert again["pass_s_max"] >= 100.0 and again["peak_rss_gb"] == 1000.0


def test_parity_is_relative_to_the_largest_eigenvalue_and_entry():
    from robustpca import ROBPCA, GoDec

    rng = np.random.default_rng(0)
    Xn = rng.normal(size=(400, 2)) @ rng.normal(size=(2, 6)) + 0.1 * rng.normal(size=(400, 6))
    X = da.from_array(Xn, chunks=(100, 6))
    params = {"n_components": 2, "random_state": 0}
    ref = ROBPCA(**params).fit(Xn)
    model = copy.deepcopy(ref)
    model.explained_variance_ = ref.explained_variance_ * 1.001
    model.mean_ = ref.mean_ + 0.25
    model.support_ = da.from_array(ref.support_)
    out = bench_dask._parity(model, ROBPCA, params, X)
    assert out["parity_eigenvalues"] == pytest.approx(1e-3)
    assert out["parity_mean"] == pytest.approx(0.25) and out["same_support"]
    ref = GoDec(**params).fit(Xn)
    model = copy.deepcopy(ref)
    low_rank = ref.low_rank_.copy()
    low_rank[0, 0] += 0.5
    model.low_rank_, model.sparse_ = da.from_array(low_rank), da.from_array(ref.sparse_)
    out = bench_dask._parity(model, GoDec, params, X)
    assert out["parity_low_rank"] == pytest.approx(0.5 / np.abs(ref.low_rank_).max())
    assert out["parity_sparse"] == 0.0


def test_each_dask_run_gets_its_own_cache_folder(monkeypatch, tmp_path):
    commands = []
    row = {
        "estimator": "x", "gb": 0.1, "n_iter": 1, "n_passes": 1, "fit_s": 1.0,
        "pass_s_mean": 1.0, "cpu_s_per_pass": 1.0, "peak_rss_gb": 0.1, "angle_deg": 0.0,
    }  # fmt: skip

    real = bench_dask.subprocess.run

    def run(cmd, **kw):
        if "--single" not in cmd:  # platform's own calls (uname)
            return real(cmd, **kw)
        commands.append(cmd)
        return SimpleNamespace(stdout=json.dumps(row) + "\n")

    monkeypatch.setattr(bench_dask.subprocess, "run", run)
    argv = ["--n-samples", "100", "200", "--estimators", "om", "pca", "--in-memory"]
    assert bench_dask.main([*argv, "--pass-cache", str(tmp_path)]) == 0
    caches = [c[c.index("--pass-cache") + 1] for c in commands if "--pass-cache" in c]
    dask_runs = [c for c in commands if "--in-memory" not in c]
    assert len(commands) == 8 and len(caches) == len(dask_runs) == 4
    assert sorted(caches) == sorted(
        str(tmp_path / f"{k}-{n}") for k in ("om", "pca") for n in (100, 200)
    )
    commands.clear()
    assert bench_dask.main(["--wide", "--estimators", "om", "--in-memory", "--parity"]) == 0
    (dask_run,) = [c for c in commands if "--in-memory" not in c]
    (memory_run,) = [c for c in commands if "--in-memory" in c]
    assert "--wide" in dask_run and "--wide" in memory_run
    assert "--parity" in dask_run and "--parity" not in memory_run  # parity: of the Dask fit


def test_a_cached_pass_asked_with_other_parameters_stops_the_run(tmp_path):
    """The same kernels in the same order, one parameter of other content (the rank):
    the cached pass is refused, not replayed into a fit of another model."""
    from robustpca import OptimalMeanPCA

    rng = np.random.default_rng(0)
    X = da.from_array(rng.normal(size=(600, 5)), chunks=(200, 5))

    def fit(k):
        with dask.config.set(scheduler="threads"), bench_dask.cached_passes(tmp_path, []):
            return OptimalMeanPCA(n_components=k, max_iter=3, tol=0.0).fit(X)

    with pytest.warns(Warning):
        fit(2)
    with pytest.raises(RuntimeError, match="with other parameters"):
        fit(3)


def test_the_skew_row_fits_robpca_with_skew(monkeypatch):
    """``robpca-skew`` is ROBPCA with the skew-adjusted outlyingness (the fit itself is
    stopped once its parameters are seen: only the row's set-up is checked)."""
    from types import ModuleType

    from robustpca import ROBPCA

    class Seen(Exception):
        pass

    class Recorder(ROBPCA):
        def fit(self, X, y=None):
            raise Seen(self.get_params())

    module = ModuleType("recorded_estimators")
    module.ROBPCA = Recorder
    monkeypatch.setitem(sys.modules, "recorded_estimators", module)
    monkeypatch.setitem(bench_dask.ESTIMATORS, "robpca-skew", ("recorded_estimators", "ROBPCA"))
    with pytest.raises(Seen) as seen:
        bench_dask.run_one(_args(estimator="robpca-skew", n_features=6))
    params = seen.value.args[0]
    assert params["skew"] is True and params["random_state"] == 0 and params["n_components"] == 2


def test_closed_form_and_rrcov_rows_run_without_iteration_parameters():
    """``pca`` (one pass) and the rrcov family take no ``max_iter``/``tol``."""
    row = bench_dask.run_one(_args(estimator="pca"))
    assert row["estimator"] == "PCA" and row["n_passes"] >= 1 and row["angle_deg"] < 10.0
