"""Wide data chunked by columns (one chunk of rows, the documented layout): the training
diagnostics of a Dask fit and the lazy ``predict``/``score_samples``/
``reconstruction_error`` hold a bounded number of ``X``'s blocks at a time, not all of
``X`` (the orthogonal distances by column blocks, ``_dask/transforms.py``), with the
in-memory results."""

from __future__ import annotations

import threading
import weakref

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import robustpca as rp  # noqa: E402
from robustpca._dask.reference import set_outlier_reference  # noqa: E402
from robustpca.datasets import load_orl  # noqa: E402

N, WIDTH, BLOCKS = 40, 50, 24  # 24 column blocks of 40 x 50
#: the most of X's blocks alive at once (a few in flight), far below BLOCKS
BOUND = 4


class CountingBlocks:
    """A dask array whose blocks are generated on demand; counts the blocks alive (a
    finalizer on each generated block) and the most alive at once."""

    def __init__(self, n: int = N, width: int = WIDTH, blocks: int = BLOCKS):
        self.alive = self.most = self.made = 0
        self._lock = threading.Lock()
        self.array = da.map_blocks(
            self._block,
            chunks=((n,), (width,) * blocks),
            dtype=float,
            meta=np.empty((0, 0)),
        )

    def _gone(self) -> None:
        with self._lock:
            self.alive -= 1

    def _block(self, block_info=None):
        (_, j), shape = block_info[None]["chunk-location"], block_info[None]["chunk-shape"]
        rng = np.random.default_rng(j)
        x = rng.normal(size=(shape[0], 3)) @ rng.normal(size=(3, shape[1]))
        x += 0.1 * rng.normal(size=shape) + 5.0
        with self._lock:
            self.alive += 1
            self.made += 1
            self.most = max(self.most, self.alive)
        weakref.finalize(x, self._gone)
        return x

    def reset(self) -> None:
        self.most = self.alive
        self.made = 0


@pytest.fixture
def blocks():
    with dask.config.set(scheduler="threads", num_workers=2):
        yield CountingBlocks()


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    return rp.PCA(n_components=3).fit(rng.normal(size=(30, WIDTH * BLOCKS)))


def test_fit_diagnostics_hold_few_blocks(blocks):
    model = rp.OptimalMeanPCA(n_components=3).fit(blocks.array)
    assert model._outlier_reference is not None
    assert blocks.most <= BOUND, f"{blocks.most} of {BLOCKS} blocks alive at once"


@pytest.mark.parametrize(
    "method", ["predict", "score_samples", "decision_function", "reconstruction_error"]
)
def test_lazy_methods_hold_few_blocks(blocks, fitted, method):
    out = getattr(fitted, method)(blocks.array)
    assert out.shape == (N,)
    out.compute()
    assert blocks.made == BLOCKS  # each block read once
    assert blocks.most <= BOUND, f"{blocks.most} of {BLOCKS} blocks alive at once"


def test_score_and_diagnostics_hold_few_blocks(blocks, fitted):
    from robustpca.diagnostics import outlier_diagnostics

    fitted.score(blocks.array)
    assert blocks.most <= BOUND
    blocks.reset()
    diag = outlier_diagnostics(fitted, blocks.array)
    dask.compute(diag.outlyingness)
    assert blocks.most <= BOUND


@pytest.mark.parametrize("what", ["fit", "reconstruction_error", "predict"])
def test_traced_peak_is_a_few_blocks(fitted, what):
    """The most memory that NumPy allocates at once (``tracemalloc``, synchronous
    scheduler: deterministic) stays a fraction of X's size."""
    import tracemalloc

    wide = CountingBlocks(width=2000)  # 40 x 48,000: 15 MB, blocks of 0.6 MB
    model = rp.PCA(n_components=3).fit(np.random.default_rng(0).normal(size=(30, 48_000)))
    with dask.config.set(scheduler="synchronous"):
        tracemalloc.start()
        try:
            if what == "fit":  # the fit's training-diagnostics pass
                set_outlier_reference(model, wide.array)
            else:
                getattr(model, what)(wide.array).compute()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < wide.array.nbytes / 4, f"{peak / 1e6:.1f} MB for {wide.array.nbytes / 1e6} MB"


def test_no_merge_of_the_columns(fitted):
    """The graph of ``predict`` on a column-chunked array merges no columns into whole
    rows (the old route rechunked X to one block of all its columns)."""
    X = da.ones((N, WIDTH * BLOCKS), chunks=(N, WIDTH))
    names = list(fitted.predict(X).__dask_graph__().layers)
    assert not [name for name in names if name.startswith("rechunk")], names


@pytest.fixture(scope="module")
def faces(shared_data):
    return np.asarray(load_orl(shared_data).data, dtype=np.float64)[:120]  # 120 x 1024


@pytest.mark.parametrize("offset", [0.0, 1e6])
@pytest.mark.parametrize(
    "make",
    [
        lambda: rp.PCA(n_components=5, contamination=0.1),
        lambda: rp.OptimalMeanPCA(n_components=5),
        lambda: rp.ROBPCA(n_components=5, random_state=0),
    ],
    ids=["pca", "om", "robpca"],
)
def test_wide_faces_match_memory(faces, make, offset):
    X = faces + offset  # far from the origin too
    memory = make().fit(X)
    D = da.from_array(X, chunks=(X.shape[0], 100))
    with dask.config.set(scheduler="synchronous"):
        model = make().fit(D)
        samples = model.score_samples(D).compute()
        od = model.reconstruction_error(D).compute()
        labels = model.predict(D).compute()
    np.testing.assert_allclose(samples, memory.score_samples(X), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(od, memory.reconstruction_error(X), rtol=1e-8)
    assert np.array_equal(labels, memory.predict(X))
    assert model.offset_ == pytest.approx(memory.offset_, rel=1e-8, abs=1e-12)
    # the same model's methods on the same data agree with its NumPy methods to rounding
    np.testing.assert_allclose(od, model.reconstruction_error(X), rtol=1e-12)
    np.testing.assert_allclose(samples, model.score_samples(X), rtol=1e-12, atol=1e-14)
    assert np.array_equal(labels, model.predict(X))


@pytest.fixture(scope="module")
def skewed(faces):
    """A skew fit on wide data: its score distance is the adjusted outlyingness."""
    model = rp.ROBPCA(n_components=5, skew=True, random_state=0).fit(faces)
    assert model._outlier_reference.sd_skew_cutoff > 0
    return model


def test_skew_score_samples_keep_the_column_chunks(blocks, skewed, faces):
    """A skew fit's adjusted outlyingness (``score_samples``, ``predict``, the
    diagnostics) is a product summed over the column blocks: no block of all the columns
    (the old route merged them), each block read once, few alive at once, and the
    in-memory values."""
    D = da.from_array(faces, chunks=(faces.shape[0], 100))
    samples = skewed.score_samples(D)
    names = list(samples.__dask_graph__().layers)
    assert not [name for name in names if name.startswith("rechunk")], names
    np.testing.assert_allclose(samples.compute(), skewed.score_samples(faces), rtol=1e-12)
    assert np.array_equal(skewed.predict(D).compute(), skewed.predict(faces))
    wide = CountingBlocks(n=N, width=WIDTH, blocks=faces.shape[1] // WIDTH + 1)
    X = wide.array[:, : faces.shape[1]]
    skewed.score_samples(X).compute()
    assert wide.most <= BOUND, f"{wide.most} of {wide.array.numblocks[1]} blocks alive at once"
