"""The benchmarks on platforms other than Linux: Windows has no ``resource`` module and
no ``fork``, macOS reports ``ru_maxrss`` in bytes. Simulated here by hiding the module,
the ``/proc`` file and the start method."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import _process  # noqa: E402
import bench_outliers as bench  # noqa: E402


def test_the_benchmarks_that_measure_memory_import_without_resource():
    """``import resource`` at the top of bench_video and bench_dask_lowrank stopped
    their tests at collection on Windows."""
    code = (
        "import sys; sys.modules['resource'] = None; sys.path.insert(0, 'benchmarks'); "
        "import bench_video, bench_dask_lowrank, bench_outliers, _process; "
        "assert _process.resource is None"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)


def _no_proc(monkeypatch, tmp_path):
    monkeypatch.setattr(_process, "Path", lambda _: tmp_path / "no-such-status")


def test_peak_memory_is_unknown_without_proc_or_resource(monkeypatch, tmp_path):
    _no_proc(monkeypatch, tmp_path)
    monkeypatch.setattr(_process, "resource", None)
    assert _process.peak_rss_bytes() is None
    import bench_dask_lowrank

    assert np.isnan(bench_dask_lowrank.peak_rss_gb())


@pytest.mark.skipif(_process.resource is None, reason="needs the resource module")
@pytest.mark.parametrize(("platform", "unit"), [("darwin", 1), ("linux", 1024)])
def test_peak_memory_from_getrusage_is_in_bytes(monkeypatch, tmp_path, platform, unit):
    """``ru_maxrss`` is in bytes on macOS and in KiB elsewhere (bench_video took KiB
    everywhere, 1,024 times too much on macOS)."""
    _no_proc(monkeypatch, tmp_path)
    monkeypatch.setattr(_process.sys, "platform", platform)
    raw = _process.resource.getrusage(_process.resource.RUSAGE_SELF).ru_maxrss
    assert _process.peak_rss_bytes() == pytest.approx(raw * unit, rel=0.05)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_peak_memory_is_at_least_what_is_resident_now():
    status = Path("/proc/self/status").read_text(encoding="utf-8")
    rss = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    assert _process.peak_rss_bytes() >= int(rss.split()[1]) * 1024


class _Mean:
    """A detector scoring rows by their distance to the mean."""

    def fit(self, X):
        self.mean_ = X.mean(axis=0)
        return self

    def decision_function(self, X):
        return -np.linalg.norm(X - self.mean_, axis=1)


def test_without_fork_the_time_limit_is_dropped_with_a_warning(monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X[:6] += 6.0
    y = np.r_[np.ones(6), np.zeros(54)]
    np.savez(tmp_path / "1_toy.npz", X=X, y=y)
    limited = bench.evaluate(_Mean, ["1_toy"], folder=tmp_path, timeout=60)
    monkeypatch.setattr(bench, "fork_available", lambda: False)
    with pytest.warns(UserWarning, match="no fork"):
        inline = bench.evaluate(_Mean, ["1_toy"], folder=tmp_path, timeout=60)
    assert "error" not in inline[0] and inline[0]["auc"] == limited[0]["auc"] == 1.0
