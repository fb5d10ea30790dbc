"""The Python examples of the user pages run against the current API, as the README's do
(test_readme.py). What a page leaves to the reader is stood in for: its files (a Zarr
store, a video) by small arrays, its undefined ``X`` and ``batches`` by small data, and
its long runs (the papers' experiments) by a check that the call binds to the real
signature; the user guide's reStructuredText pages likewise. ``docs/array_api.md``
needs PyTorch on a GPU and is left out; tests/test_array_api*.py test what it shows."""

from __future__ import annotations

import inspect
import re
import textwrap
import warnings

import numpy as np
import pytest

from .conftest import REPO


def _page(name: str) -> str:
    """The page's Python blocks as one script, as a reader runs them in order: Markdown's
    fenced blocks, or reStructuredText's ``code-block:: python`` directives."""
    text = (REPO / "docs" / name).read_text(encoding="utf-8")
    if name.endswith(".rst"):
        found = re.findall(r"\.\. code-block:: python\n\n((?:(?: {3}.*)?\n)+)", text)
        blocks = [textwrap.dedent(block) for block in found]
    else:
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, name
    return "\n".join(blocks)


def _run(name: str, **namespace) -> dict:
    namespace.setdefault("__name__", "doc_page")  # not "__main__": a script's guard stays shut
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short fits may stop at max_iter
        exec(compile(_page(name), name, "exec"), namespace)
    return namespace


def _binds_to(function, calls: list, returns=()):
    """A stand-in for ``function`` that records its calls once they bind to its signature,
    and returns an iterator over ``returns``."""
    signature = inspect.signature(function)

    def stand_in(*args, **kwargs):
        signature.bind(*args, **kwargs)  # a renamed or removed parameter raises here
        calls.append((args, kwargs))
        return iter(returns)

    return stand_in


def test_the_dask_page_runs(monkeypatch):
    da = pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    rng = np.random.default_rng(0)
    stores = {
        "tall.zarr": da.from_array(rng.normal(size=(400, 12)), chunks=(100, 12)),
        "wide.zarr": da.from_array(rng.normal(size=(20, 600)), chunks=(20, 150)),
    }
    monkeypatch.setattr(da, "from_zarr", stores.__getitem__)
    ns = _run("dask.md")
    assert ns["model"].components_.shape == (5, 600)
    assert ns["Z"].shape == (400, 5) and np.isfinite(ns["err"]).all()


def test_the_outlier_detection_page_runs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    X[:10] += 8.0
    ns = _run("outlier-detection.md", X=X)
    assert (ns["labels"][:10] == -1).all()
    assert set(np.argsort(-ns["outlyingness"])[:10]) == set(range(10))
    assert (ns["model"].predict(X) == -1).sum() == 10  # contamination=0.05 of 200 rows


def test_the_video_page_runs(monkeypatch):
    import robustpca.datasets

    rng = np.random.default_rng(0)
    clip = [rng.integers(0, 256, size=(10, 12, 16), dtype=np.uint8) for _ in range(3)]
    opened: list = []
    video = _binds_to(robustpca.datasets.iter_video, opened, returns=clip)
    monkeypatch.setattr(robustpca.datasets, "iter_video", video)
    ns = _run("video.md", batches=iter(clip))
    assert [args for args, _ in opened] == [("clip.mp4",)]
    assert ns["part"].masks.shape == (10, 12, 16) and ns["part"].masks.dtype == bool
    assert ns["detector"].n_frames_seen_ == 30  # the resumable stream saw every frame


def test_the_reproduction_pages_call_what_exists(monkeypatch):
    import robustpca.experiments
    import robustpca.experiments.nie2014

    calls: list = []
    run = robustpca.experiments.run_experiment
    monkeypatch.setattr(robustpca.experiments, "run_experiment", _binds_to(run, calls))
    _run("reproduction/guo2013.md")
    (name,), _ = calls.pop()
    assert name in robustpca.experiments.EXPERIMENTS
    task = robustpca.experiments.nie2014.figure1_task
    monkeypatch.setattr(robustpca.experiments.nie2014, "figure1_task", _binds_to(task, calls))
    _run("reproduction/nie2014.md")
    assert len(calls) == 8  # four data sets, two methods


def _planted(n=200, d=20, k=3, share=0.1, seed=0):
    """Rank ``k`` in ``d`` dimensions with a ``share`` of gross outlier rows first."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) * 3 + 0.1 * rng.normal(size=(n, d))
    X[: int(share * n)] = 10 * rng.normal(size=(int(share * n), d))
    return X


def test_the_user_guide_on_choosing_k_runs():
    ns = _run("user_guide/choosing_k.rst", X=_planted())
    select, ev = ns["select_n_components"], ns["ev"]
    assert select(ev, "auto") == 2 and select(ev, 0.85) == 3  # as its comments say
    assert ns["search"].best_params_["n_components"] == 3


def test_the_user_guide_on_diagnostics_runs(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    ns = _run("user_guide/diagnostics.rst", X=_planted())
    assert (tmp_path / "outlier_map.png").stat().st_size > 0
    assert (ns["model"].predict(ns["X"]) == -1).mean() == pytest.approx(0.1)


def test_the_user_guide_index_runs():
    ns = _run("user_guide/index.rst")
    assert ns["model"].weights_[:75].max() < ns["model"].weights_[75:].min()
    assert (ns["labels"][:75] == -1).all()


def test_the_user_guide_on_losses_runs():
    X = _planted(d=5)
    ns = _run("user_guide/losses.rst", X=X)
    assert ns["res"].solution.shape == (5,) and np.isfinite(ns["res"].objective).all()


def test_the_user_guide_on_missing_values_runs():
    X = _planted(d=30)
    mask = np.random.default_rng(1).random(X.shape) < 0.05
    ns = _run("user_guide/missing.rst", X=X, mask=mask)
    assert ns["model"].n_missing_ == mask.sum()
    assert np.isfinite(ns["filled"]).all() and np.array_equal(ns["filled"][~mask], X[~mask])
