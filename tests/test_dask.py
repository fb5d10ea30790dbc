"""The dask route (issue 6): chunked fits with few computes, lazy transforms.

Every supported estimator fitted on a dask array must reproduce its NumPy fit: the same
subspace (projector distance <= 1e-8), mean (1e-8 relative), ``n_iter_``, stopping
reason, objective history and every other fitted attribute, on the threaded scheduler,
on a ``distributed`` cluster and on the ORL faces. A pass is one ``dask.compute``.
Tall data (rows chunked): local weight rules take one pass per iteration, global ones
(R1-PCA's median cutoff, RWL-AN's ``k`` smallest errors, ``epsilon=0``) two. Wide data
(``n_samples < n_features``, chunked by columns or both axes): the Gram pass, no pass
per iteration except where the NumPy Gram route forms residuals explicitly (one), and
a last pass for the components and mean. The transforms (``inverse_transform``
included) build dask graphs without computing anything.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import pickle
import warnings
from concurrent.futures import ProcessPoolExecutor
from functools import partial

import dask
import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback
from distributed import Client, LocalCluster
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustpca import OnlineRobustPCA, PrincipalComponentPursuit, _dask
from robustpca.estimators._adaptive_neighbors import AdaptiveNeighborsPCA
from robustpca.estimators._generalized_mean import GeneralizedMeanPCA
from robustpca.estimators._l1 import L1PCA
from robustpca.estimators._l21 import L21PCA
from robustpca.estimators._optimal_mean import OptimalMeanPCA
from robustpca.estimators._pca import PCA
from robustpca.estimators._r1 import R1PCA
from robustpca.linalg import subspace_sq_residuals
from robustpca.losses import L21Loss
from robustpca.metrics import projector_distance
from robustpca.solvers import StopReason, solve_optimal_mean_pca
from robustpca.solvers.chunked import Moments, NumpyPassRunner, moments_pass, reweight_pass
from robustpca.solvers.chunked_gram import GramPasses, NumpyColumnRunner
from robustpca.solvers.chunked_gram_pca import solve_optimal_mean_pca_gram
from robustpca.solvers.chunked_pca import solve_optimal_mean_pca_chunked
from robustpca.solvers.chunked_steps import WeightedPCAStep

from .conftest import REPO, fit_passes, random_data


class CountComputes(Callback):
    """Counts scheduler runs: one per ``dask.compute`` (local schedulers)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1


# (id, estimator factory, passes as a function of the fitted model)
CONFIGS = [
    ("om", lambda: OptimalMeanPCA(3), lambda m: m.n_iter_ + 1),
    ("om-capped", lambda: OptimalMeanPCA(3, loss="capped", threshold=8.0), lambda m: m.n_iter_ + 1),
    ("om-l2p", lambda: OptimalMeanPCA(3, loss="l2p", p=0.5), lambda m: m.n_iter_ + 1),
    ("om-eps0", lambda: OptimalMeanPCA(3, epsilon=0.0), lambda m: 2 * m.n_iter_),
    ("l21", lambda: L21PCA(3), lambda m: m.n_iter_ + 2),
    ("l21-random", lambda: L21PCA(3, init="random", random_state=0), lambda m: m.n_iter_ + 2),
    ("r1-median", lambda: R1PCA(3), lambda m: 2 * m.n_iter_ + 2),
    ("r1-fixed", lambda: R1PCA(3, threshold=1.0), lambda m: m.n_iter_ + 2),
    ("r1-cauchy", lambda: R1PCA(3, loss="cauchy"), lambda m: 2 * m.n_iter_ + 2),
    ("pca", lambda: PCA(3), lambda m: 1),
    ("gm", lambda: GeneralizedMeanPCA(3), lambda m: 2 + m.center_n_iter_ + m.n_iter_),
    ("gm-mean", lambda: GeneralizedMeanPCA(3, center="mean", p=0.5), lambda m: 2 + m.n_iter_),
    ("an", lambda: AdaptiveNeighborsPCA(3), lambda m: 2 * m.n_iter_),
    (
        "an-random",
        lambda: AdaptiveNeighborsPCA(3, init="random", random_state=0),
        lambda m: 2 * m.n_iter_ + 1,
    ),
]
IDS = [c[0] for c in CONFIGS]


def data(seed=0, n=240, d=8):
    return random_data(seed, n, d)


def as_dask(X, rows=50):
    return da.from_array(X, chunks=(rows, -1))


def fitted_attributes(model):
    return {k for k in vars(model) if k.endswith("_") and not k.startswith("_")}


def assert_same_fit(a, b, row_chunks):
    """``b`` (fitted on a dask array chunked by ``row_chunks``) reproduces ``a`` (NumPy)."""
    assert projector_distance(a.components_, b.components_) <= 1e-8
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-7)  # signs normalised
    scale = max(np.abs(a.mean_).max(), 1.0)
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-8, atol=1e-8 * scale)
    assert (b.n_iter_, b.converged_, b.stop_reason_) == (a.n_iter_, a.converged_, a.stop_reason_)
    np.testing.assert_allclose(b.objective_history_, a.objective_history_, rtol=1e-9)
    missing = fitted_attributes(a) - fitted_attributes(b)
    assert not missing, missing
    for name in fitted_attributes(a) - {"components_", "mean_", "objective_history_"}:
        expected, got = getattr(a, name), getattr(b, name)
        if isinstance(got, da.Array):  # weights_, residuals_, outliers_
            assert got.shape == np.shape(expected) and got.chunks[0] == row_chunks
            got = got.compute()
        if isinstance(expected, np.ndarray) and expected.dtype.kind == "f":
            top = max(np.abs(expected).max(initial=0.0), 1e-300)
            np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-8 * top, err_msg=name)
        elif isinstance(expected, float):
            assert got == pytest.approx(expected, rel=1e-8, abs=1e-300), name
        else:
            np.testing.assert_array_equal(got, expected, err_msg=name)


def check_parity(factory, X, dX, **fit_kwargs):
    """Fit ``factory()`` on ``X`` and on the dask ``dX``; assert the fits agree."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = factory().fit(X, **fit_kwargs)
        b = factory().fit(dX, **fit_kwargs)
    assert_same_fit(a, b, dX.chunks[0])
    return a, b


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture(scope="class")
def client():
    """One worker, in process (no process start-up cost) but talking TCP on 127.0.0.1:
    the distributed scheduler's real transport, bound to the loopback interface. Scoped
    to :class:`TestDistributed`, so that no scheduler thread runs (and draws from the
    ``random`` module) while hypothesis generates examples in the other tests."""
    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=False,
            protocol="tcp://",
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster, set_as_default=False) as c,
    ):
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        yield c


@pytest.mark.parametrize(("name", "factory", "passes"), CONFIGS, ids=IDS)
def test_parity_threads_and_one_compute_per_pass(threads, name, factory, passes):
    X = data()
    X_before = X.copy()
    a = factory().fit(X)
    dX = as_dask(X)
    with CountComputes() as counter:
        b = factory().fit(dX)
    assert_same_fit(a, b, dX.chunks[0])
    assert b.n_passes_ == counter.count and fit_passes(b) == passes(b)
    b.reconstruct(dX).compute()
    np.testing.assert_array_equal(X, X_before)  # the array behind dX is never written


SIX = [OptimalMeanPCA, L21PCA, R1PCA, PCA, GeneralizedMeanPCA, AdaptiveNeighborsPCA]


@pytest.mark.parametrize(
    "context",
    [m for m in ("fork", "spawn") if m in multiprocessing.get_all_start_methods()],
)
@pytest.mark.parametrize(
    "estimator", [OptimalMeanPCA, AdaptiveNeighborsPCA], ids=lambda e: e.__name__
)
def test_parity_process_scheduler(estimator, context):
    """Tasks (kernels, steps, losses, shipped weights) survive pickling to worker
    processes, forked or spawned (Windows and macOS spawn by default). One pool serves
    every compute of the fit: dask would otherwise start (and spawn) one per compute."""
    X = data(5, n=120)
    mp_context = multiprocessing.get_context(context)
    with (
        ProcessPoolExecutor(2, mp_context=mp_context) as pool,
        dask.config.set(scheduler="processes", pool=pool),
    ):
        check_parity(lambda: estimator(2, tol=1e-4), X, as_dask(X, rows=60))
    task = partial(reweight_pass, step=WeightedPCAStep(2), state=None, loss=L21Loss(1e-3))
    assert pickle.loads(pickle.dumps(task)).keywords["loss"] == L21Loss(1e-3)


@pytest.mark.realdata
def test_parity_on_orl_faces(threads, orl):
    """All six on ORL at 16 x 16 (2 x 2 pooled, n = 400 > d = 256: the d x d scatter,
    chunks of 64 rows) and on the 32 x 32 faces (n = 400 < d = 1024: the n x n Gram
    route, chunks of 100 rows and 256 columns), where every fit takes 2 computes (the
    Gram pass, the components pass) and RWL-AN a third for its explicit final residuals."""
    X16 = orl.data.reshape(400, 16, 2, 16, 2).mean(axis=(2, 4)).reshape(400, 256)
    dX = as_dask(X16, rows=64)
    dX32 = da.from_array(orl.data, chunks=(100, 256))
    for estimator in SIX:
        check_parity(lambda e=estimator: e(n_components=10), X16, dX)
        _, b = check_parity(lambda e=estimator: e(n_components=10), orl.data, dX32)
        assert fit_passes(b) == (3 if estimator is AdaptiveNeighborsPCA else 2), estimator


@pytest.mark.parametrize("weights_kind", ["numpy", "dask"])
def test_pca_sample_weight(threads, weights_kind):
    X = data(2)
    w = np.random.default_rng(0).integers(0, 4, X.shape[0]).astype(float)
    w_before = w.copy()
    dw = da.from_array(w, chunks=33) if weights_kind == "dask" else w
    check_parity(lambda: PCA(3), X, as_dask(X), sample_weight=dw)
    np.testing.assert_array_equal(w, w_before)


def test_transforms_are_lazy_and_equal_numpy(threads):
    X = data(3)
    dX = as_dask(X)
    model = OptimalMeanPCA(3).fit(dX)
    with CountComputes() as counter:
        out = {
            name: getattr(model, name)(dX)
            for name in ("transform", "reconstruct", "reconstruction_error")
        }
        fit_t = clone(model).fit_transform(dX)
        n_fit = counter.count
    assert n_fit == model.n_passes_  # building the graphs computed nothing
    for name, lazy in out.items():
        assert isinstance(lazy, da.Array), name
        assert lazy.chunks[0] == dX.chunks[0]
        np.testing.assert_allclose(lazy.compute(), getattr(model, name)(X), rtol=1e-12, atol=1e-9)
    assert isinstance(fit_t, da.Array)
    np.testing.assert_allclose(fit_t.compute(), model.transform(X), atol=1e-9)
    # the training cutoffs come from counting passes: score_samples is lazy and equal
    lazy = model.score_samples(dX)
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.score_samples(X), rtol=1e-10)
    # an estimator fitted on NumPy transforms and scores dask arrays lazily as well
    numpy_model = OptimalMeanPCA(3).fit(X)
    np.testing.assert_allclose(numpy_model.transform(dX).compute(), numpy_model.transform(X))
    with CountComputes() as counter:
        lazy = numpy_model.score_samples(dX)
    assert counter.count == 0 and isinstance(lazy, da.Array) and lazy.chunks[0] == dX.chunks[0]
    np.testing.assert_allclose(lazy.compute(), numpy_model.score_samples(X), rtol=1e-12)


def test_weights_are_lazy_for_local_rules(threads):
    X = data(4)
    model = OptimalMeanPCA(3).fit(as_dask(X))
    with CountComputes() as counter:
        w = model.weights_.compute()
    assert counter.count == 1
    np.testing.assert_allclose(w, OptimalMeanPCA(3).fit(X).weights_, rtol=1e-8)


def test_float32_and_int_input(threads):
    """int input is fitted as float64; float32 input gives float32 attributes and
    transforms, like the NumPy fit (the passes compute in float64 either way)."""
    X = np.round(data(6))
    check_parity(lambda: OptimalMeanPCA(2), X.astype(np.int64), as_dask(X.astype(np.int64)))
    X32 = X.astype(np.float32)
    a = OptimalMeanPCA(2).fit(X32)
    b = OptimalMeanPCA(2).fit(as_dask(X32))
    assert b.components_.dtype == b.mean_.dtype == b.weights_.dtype == np.float32
    assert projector_distance(a.components_, b.components_) <= 1e-6
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-6)
    assert b.n_iter_ == a.n_iter_
    for name in ("transform", "reconstruct", "reconstruction_error"):
        lazy = getattr(b, name)(as_dask(X32))
        assert lazy.dtype == np.float32 and lazy.compute().dtype == np.float32
        np.testing.assert_allclose(lazy.compute(), getattr(a, name)(X32), rtol=1e-4, atol=1e-3)


def test_columns_in_several_chunks_are_merged(threads):
    X = data(7)
    check_parity(lambda: R1PCA(2), X, da.from_array(X, chunks=(60, 3)))


@pytest.mark.parametrize("X", [np.zeros((30, 4)), np.ones((30, 4)) * 3.0], ids=["zeros", "const"])
@pytest.mark.parametrize(("name", "factory", "passes"), CONFIGS, ids=IDS)
def test_degenerate_data(threads, X, name, factory, passes):
    """Zero or constant data: no NaN, and the arbitrary basis completion (drawn from
    ``random_state``) is the same as NumPy's."""
    if name == "om-capped":  # every residual is 0: keep the cap on the data's scale
        factory = lambda: OptimalMeanPCA(3, loss="capped", threshold=1.0)  # noqa: E731
    _, b = check_parity(lambda: factory().set_params(random_state=0), X, as_dask(X, rows=7))
    assert np.all(np.isfinite(b.components_))


def test_convergence_warning_and_callback(threads):
    X = data(8)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        b = OptimalMeanPCA(3, max_iter=2).fit(as_dask(X))
    assert b.n_iter_ == 2 and not b.converged_
    seen = {}

    def record(key):
        def callback(iteration, state):
            seen.setdefault(key, []).append(
                (iteration, state.objective, state.components.copy(), state.mean.copy())
            )
            return iteration == 3

        return callback

    OptimalMeanPCA(3, callback=record("numpy")).fit(X)
    model = OptimalMeanPCA(3, callback=record("dask")).fit(as_dask(X))
    assert model.stop_reason_ == "stopped by callback" and model.n_iter_ == 3
    for (i, f, C, m), (j, g, D, n) in zip(seen["numpy"], seen["dask"], strict=True):
        assert i == j and g == pytest.approx(f, rel=1e-10)
        assert projector_distance(C, D) <= 1e-8
        np.testing.assert_allclose(n, m, rtol=1e-10)


def test_all_capped_warns_like_numpy(threads):
    X = data(9)
    factory = lambda: OptimalMeanPCA(2, loss="capped", threshold=1e-3)  # noqa: E731
    with pytest.warns(UserWarning, match="all weights are zero"):
        a = factory().fit(X)
    with pytest.warns(UserWarning, match="all weights are zero"):
        b = factory().fit(as_dask(X))
    assert b.stop_reason_ == StopReason.ALL_CAPPED
    assert_same_fit(a, b, as_dask(X).chunks[0])


def test_bad_input_errors(threads):
    X = data(10)
    bad = X.copy()
    bad[77, 3] = np.nan  # a missing entry: fitted on PCA's and RPCA-OM's tall route only
    with pytest.raises(ValueError, match=r"X contains NaN or infinity.*tall route"):
        L21PCA(2).fit(as_dask(bad))
    bad[77, 3] = np.inf  # as in memory (scikit-learn's message)
    with pytest.raises(ValueError, match="X contains infinity"):
        OptimalMeanPCA(2).fit(as_dask(bad))
    with pytest.raises(ValueError, match="X contains infinity"):
        L21PCA(2).fit(as_dask(bad))
    bad[77, 3] = 1e200  # finite, but its square overflows: check_magnitude's error
    for model in (L21PCA(2), PCA(2)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no overflow warning leaks before it
            with pytest.raises(ValueError, match="magnitude up to 1e\\+200"):
                model.fit(as_dask(bad))
    bad[77, 3] = np.inf
    with pytest.raises(ValueError, match="X must be 2-D"):
        PCA(2).fit(da.from_array(X[:, 0], chunks=50))
    with pytest.raises(ValueError, match="X has dtype complex128"):
        PCA(2).fit(as_dask(X + 1j))
    unknown = as_dask(X)[as_dask(X)[:, 0] > 0]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        PCA(2).fit(unknown)
    with pytest.raises(ValueError, match="minimum of 2"):
        PCA(1).fit(as_dask(X[:1]))
    with pytest.raises(ValueError, match="n_components=9"):
        PCA(9).fit(as_dask(X))
    with pytest.raises(TypeError, match="L1PCA does not fit chunk by chunk"):
        L1PCA(2).fit(as_dask(X))

    class OtherSolver(PCA):  # another method under PCA's name: the chunked PCA fit is not it
        def _fit_solver(self, X, rng, sample_weight=None):
            return super()._fit_solver(X, rng, sample_weight)

    class SamePCA(PCA):  # PCA's solver: PCA's chunked fit
        pass

    assert OtherSolver._dask_fit is None and SamePCA._dask_fit == "pca"
    with pytest.raises(TypeError, match="OtherSolver does not fit chunk by chunk"):
        OtherSolver(2).fit(as_dask(X))
    np.testing.assert_allclose(
        SamePCA(2).fit(as_dask(X)).components_, PCA(2).fit(X).components_, atol=1e-10
    )
    model = PCA(2).fit(as_dask(X))
    with pytest.raises(ValueError, match="X has 7 features, but PCA is expecting 8"):
        model.transform(as_dask(X[:, :7]))
    with pytest.raises(ValueError, match="X contains NaN"):
        model.transform(as_dask(bad)).compute()


def test_parameter_and_weight_errors_cost_no_pass(threads):
    X = data(11)
    dX = as_dask(X)
    cases = [
        (OptimalMeanPCA(2, loss="huber"), ValueError, "not a loss of RPCA-OM"),
        (OptimalMeanPCA(2, epsilon=-1.0), ValueError, "epsilon"),
        (R1PCA(2, loss="l21"), ValueError, "'huber' or 'cauchy'"),
        (L21PCA(2, init="svd"), ValueError, "init="),
        (GeneralizedMeanPCA(2, p=2.0), ValueError, "p=2.0"),
        (GeneralizedMeanPCA(2, center="median"), ValueError, "center="),
        (AdaptiveNeighborsPCA(2, n_neighbors=10_000), ValueError, "n_neighbors"),
        (OptimalMeanPCA(2, max_iter=0), ValueError, "max_iter"),
    ]
    for model, error, match in cases:
        with CountComputes() as counter, pytest.raises(error, match=match):
            model.fit(dX)
        assert counter.count == 0, model
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(240,\)"):
        PCA(2).fit(dX, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        PCA(2).fit(dX, sample_weight=da.from_array(-np.ones(240), chunks=100))
    with pytest.raises(ValueError, match="at least one positive"):
        PCA(2).fit(dX, sample_weight=da.zeros(240, chunks=100))
    w = da.from_array(np.ones(240), chunks=100)
    with pytest.raises(ValueError, match="sample_weight has unknown chunk sizes"):
        PCA(2).fit(dX, sample_weight=w[w > 0])
    for spec in (0.9, "auto"):  # a share is chosen on the whole spectrum: in memory only
        with CountComputes() as counter, pytest.raises(ValueError, match="a Dask fit of PCA"):
            PCA(spec).fit(dX)
        assert counter.count == 0


def test_float32_fit_keeps_scalar_attributes_float64(threads):
    """A float32 Dask fit cast every float64 attribute, the penalties too: lam_ and
    lambda1_ then differed from the in-memory fit's float64 values."""
    X = data(12).astype(np.float32)
    for make, name in [
        (lambda: PrincipalComponentPursuit(random_state=0), "lam_"),
        (lambda: OnlineRobustPCA(2, random_state=0), "lambda1_"),
    ]:
        memory, lazy = make().fit(X), make().fit(as_dask(X))
        assert getattr(lazy, name) == getattr(memory, name)
        assert np.asarray(getattr(lazy, name)).dtype == np.float64
        assert lazy.components_.dtype == np.float32


def in_memory_fit(X, k):
    """The loss (a tiny epsilon, relative to the centred data) and the in-memory RPCA-OM
    fit (20 iterations) that the pass-based solvers must reproduce."""
    Xc = X - X.mean(axis=0)
    eps = 1e-12 * float(np.einsum("ij,ij->", Xc, Xc)) / len(X) or 1e-12
    loss = L21Loss(epsilon=eps)
    return loss, solve_optimal_mean_pca(X, k, loss, rng=np.random.default_rng(0), max_iter=20)


def assert_same_affine_fit(a, b):
    """The pass-based result ``b`` fits the subspace, affine subspace and objective of the
    in-memory ``a``. The optimal mean is defined only up to a shift along the subspace
    (Nie et al. 2014, eq. 15): the affine subspaces must coincide to rounding, while the
    in-plane part follows the rounding of extreme weights (e.g. n=53, d=2, k=1, seed=234:
    8.7e-6 in plane against 5.6e-10 off plane, at an offset of 1e3)."""
    assert projector_distance(a.components, b.components) <= 1e-7
    delta = b.mean - a.mean
    off_plane = delta - a.components.T @ (a.components @ delta)
    assert np.linalg.norm(off_plane) <= 1e-10 * np.linalg.norm(a.mean)
    np.testing.assert_allclose(b.objective[-1], a.objective[-1], rtol=1e-8)
    # on the way, a row almost on the line (weight ~1e4 times the others') amplifies
    # rounding for a few iterations (n=55, d=2, k=1, seed=9: 4e-8, back to 4e-10 at the end)
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(2, 60), st.integers(1, 6), st.integers(0, 1000)),
    chunk=st.integers(1, 70),
    k=st.integers(1, 3),
)
def test_chunked_solver_matches_numpy_for_any_chunking(shape, chunk, k):
    """The pass-based RPCA-OM equals the in-memory one for every chunking, including
    chunks of one row and wide data (Gram route in memory)."""
    n, d, seed = shape
    X = random_data(seed, n, d) + 1e3  # an offset that uncentred sums would feel
    k = min(k, n, d)
    run = NumpyPassRunner(X, chunk)
    moments = run(moments_pass)["moments"]
    loss, a = in_memory_fit(X, k)
    b, _ = solve_optimal_mean_pca_chunked(
        run, moments, k, loss, rng=np.random.default_rng(0), max_iter=20
    )
    assert b.n_iter == a.n_iter and run.n_passes == b.n_iter + 1
    assert_same_affine_fit(a, b)
    # the mean along the subspace is left to assert_same_affine_fit's rule: the objective
    # does not fix it (eq. 15) and it follows the weights of rows almost on the subspace,
    # whose rounding it amplifies without bound (n=55, d=2, k=1, seed=9: 2e-3 at 1e3)


@settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(0, 9), min_size=1, max_size=6), seed=st.integers(0, 1000))
def test_moments_merge_is_exact(sizes, seed):
    """Chan's merge of chunk moments equals the two-pass moments of all rows, for any
    split (empty and zero-weight chunks included), far from the origin."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    X = 1e6 + rng.normal(size=(n, 3))
    w = rng.integers(0, 3, n).astype(float)
    parts, start = [], 0
    for size in sizes:
        parts.append(moments_pass(X[start : start + size], w[start : start + size])["moments"])
        start += size
    merged = sum(parts[1:], parts[0])
    if w.sum() == 0:
        assert merged.weight == 0
        return
    mean = w @ X / w.sum()
    S = (X - mean).T @ (w[:, None] * (X - mean))
    assert isinstance(merged, Moments) and merged.weight == w.sum()
    np.testing.assert_allclose(merged.mean, mean, rtol=1e-14)
    np.testing.assert_allclose(merged.scatter, S, atol=1e-9 * max(np.abs(S).max(), 1.0))


def load_example(name):
    """The script ``examples/<name>.py`` as a module (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "examples" / f"{name}.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def test_example_runs_small(capsys):
    example = load_example("dask_out_of_core")
    summary = example.main(["--n-samples", "20000", "--chunk-rows", "3000"])
    # one pass per iteration and one first pass, and the training diagnostics' few
    assert summary["converged"] and 0 < summary["n_passes"] - summary["n_iter"] - 1 <= 5
    assert summary["rpca_om_angle_deg"] < 5 < summary["pca_angle_deg"]
    assert summary["rpca_om_mean_error"] < 0.5 * summary["pca_mean_error"]
    assert "peak resident memory" in capsys.readouterr().out


# --------------------------------------------------------------------------- wide data
def wide_data(seed=0, n=30, d=200):
    return random_data(seed, n, d)


# (id, estimator factory, passes as a function of the fitted model; or an int when the
# number depends on the iterations that form residuals explicitly, at most one each: the
# passes beyond those and the 2 of every wide fit)
WIDE_CONFIGS = [
    ("om", lambda: OptimalMeanPCA(3), 0),
    # the cap leaves a weighted scatter of rank < 3: a completed basis (see "an-2")
    ("om-capped", lambda: OptimalMeanPCA(3, loss="capped", threshold=8.0, random_state=0), 2),
    ("l21", lambda: L21PCA(3), lambda m: 2),
    ("l21-random", lambda: L21PCA(3, init="random", random_state=0), lambda m: 3),
    ("r1-median", lambda: R1PCA(3), lambda m: 2),
    ("r1-fixed", lambda: R1PCA(3, threshold=1.0), lambda m: 2),
    ("pca", lambda: PCA(3), lambda m: 2),
    ("gm", lambda: GeneralizedMeanPCA(3), 0),
    ("gm-mean", lambda: GeneralizedMeanPCA(3, center="mean", p=0.5), 0),
    ("an", lambda: AdaptiveNeighborsPCA(3), 0),
    ("an-random", lambda: AdaptiveNeighborsPCA(3, init="random", random_state=0), 0),
    # 2 neighbours: a rank-1 weighted scatter, a completed basis whose residuals take
    # 2 more passes (projections, then residuals, with the explicit d x k basis)
    ("an-2", lambda: AdaptiveNeighborsPCA(3, n_neighbors=2, random_state=0), 2),
]
WIDE_IDS = [c[0] for c in WIDE_CONFIGS]


@pytest.mark.parametrize("chunks", [(30, 50), (10, 70)], ids=["by-columns", "both-axes"])
@pytest.mark.parametrize(("name", "factory", "passes"), WIDE_CONFIGS, ids=WIDE_IDS)
def test_wide_parity_threads(threads, name, factory, passes, chunks):
    """n = 30 < d = 200: the Gram route, chunked by columns or by rows and columns."""
    X = wide_data()
    X_before = X.copy()
    a = factory().fit(X)
    dX = da.from_array(X, chunks=chunks)
    with CountComputes() as counter:
        b = factory().fit(dX)
    assert_same_fit(a, b, dX.chunks[0])
    assert b.n_passes_ == counter.count
    if callable(passes):
        assert fit_passes(b) == passes(b)
    else:
        iterations = b.n_iter_ + getattr(b, "center_n_iter_", 0)
        assert 2 + passes <= fit_passes(b) <= 2 + passes + iterations
    np.testing.assert_array_equal(X, X_before)


def test_wide_explicit_residual_passes(threads):
    """RPCA-OM on wide data drives samples onto the subspace (weights up to 6e5 times the
    median): the NumPy Gram route then forms those iterations' residuals explicitly,
    and so does the chunked one, in one pass each; the fits agree to rounding."""
    X = wide_data()
    a = OptimalMeanPCA(3).fit(X)
    b = OptimalMeanPCA(3).fit(da.from_array(X, chunks=(30, 50)))
    assert a.weights_.max() > 1e4 * np.median(a.weights_)
    assert b.n_passes_ > 2
    assert projector_distance(a.components_, b.components_) <= 1e-12
    passes = GramPasses(NumpyColumnRunner(X, 13))
    passes.first_pass()
    mean = X.mean(axis=0)
    U = np.linalg.qr(np.random.default_rng(0).normal(size=(200, 3)))[0]
    r2, sq = passes.sq_residuals(np.zeros(30), U=U)
    np.testing.assert_allclose(r2, subspace_sq_residuals(X, mean, U), rtol=1e-12)
    np.testing.assert_allclose(sq, ((X - mean) ** 2).sum(axis=1), rtol=1e-12)


def test_wide_epsilon_zero_same_affine_subspace(threads):
    """RPCA-OM with ``epsilon=0`` on wide data ends with weights 1.6e11 times the median:
    the subspace, iterations and objective still agree, and so does the affine subspace
    (the mean off the subspace, 7e-14 here); the mean along the subspace, which problem
    (13) leaves free (Nie et al. 2014, eq. 15), follows rounding (5e-7 here, on a mean
    of size 64)."""
    X = wide_data()
    a = OptimalMeanPCA(3, epsilon=0.0).fit(X)
    b = OptimalMeanPCA(3, epsilon=0.0).fit(da.from_array(X, chunks=(30, 50)))
    assert (a.n_iter_, a.stop_reason_) == (b.n_iter_, b.stop_reason_)
    assert projector_distance(a.components_, b.components_) <= 1e-12
    np.testing.assert_allclose(b.objective_history_, a.objective_history_, rtol=1e-12)
    delta = b.mean_ - a.mean_
    off_plane = delta - a.components_.T @ (a.components_ @ delta)
    assert np.linalg.norm(off_plane) <= 1e-12 * np.linalg.norm(a.mean_)


class TestDistributed:
    """The six on a ``distributed`` cluster (``LocalCluster`` on 127.0.0.1), tall and wide."""

    @pytest.mark.parametrize("estimator", SIX, ids=lambda e: e.__name__)
    def test_parity(self, client, estimator):
        """Tall data (default parameters, ``tol=1e-4`` to keep the number of passes small:
        about 0.1 s each on this scheduler)."""
        X = data(4, n=150)
        params = {} if estimator is PCA else {"tol": 1e-4}
        with dask.config.set(scheduler=client):
            a, b = check_parity(lambda: estimator(3, **params), X, as_dask(X, rows=50))
            np.testing.assert_allclose(b.transform(as_dask(X)).compute(), a.transform(X), atol=1e-7)

    @pytest.mark.parametrize("estimator", SIX, ids=lambda e: e.__name__)
    def test_wide_parity(self, client, estimator):
        """Wide data (24 x 200) chunked by rows and columns: the Gram route."""
        X = wide_data(4, n=24)
        params = {} if estimator is PCA else {"tol": 1e-4}
        dX = da.from_array(X, chunks=(12, 64))
        with dask.config.set(scheduler=client):
            a, b = check_parity(lambda: estimator(3, random_state=0, **params), X, dX)
            np.testing.assert_allclose(b.transform(dX).compute(), a.transform(X), atol=1e-7)


@pytest.mark.parametrize("X", [np.zeros((8, 20)), np.ones((8, 20)) * 3.0], ids=["zeros", "const"])
@pytest.mark.parametrize(("name", "factory", "passes"), WIDE_CONFIGS, ids=WIDE_IDS)
def test_wide_degenerate_data(threads, X, name, factory, passes):
    """Zero or constant wide data: no NaN, and the basis completion (random directions
    in feature space, drawn from ``random_state``) is NumPy's."""
    if name == "om-capped":
        factory = lambda: OptimalMeanPCA(3, loss="capped", threshold=1.0)  # noqa: E731
    dX = da.from_array(X, chunks=(8, 7))
    _, b = check_parity(lambda: factory().set_params(random_state=0), X, dX)
    assert np.all(np.isfinite(b.components_))


def test_wide_pca_sample_weight_and_errors(threads):
    X = wide_data(2)
    dX = da.from_array(X, chunks=(30, 50))
    w = np.random.default_rng(0).integers(0, 4, X.shape[0]).astype(float)
    a = PCA(3).fit(X, sample_weight=w)
    for weights in (w, da.from_array(w, chunks=7)):
        with CountComputes() as counter:
            b = PCA(3).fit(dX, sample_weight=weights)
        assert counter.count == b.n_passes_ and fit_passes(b) == 2  # weights: the Gram pass
        assert_same_fit(a, b, dX.chunks[0])
    with pytest.raises(ValueError, match="non-negative"):
        PCA(2).fit(dX, sample_weight=da.from_array(-np.ones(30), chunks=10))
    with pytest.raises(ValueError, match="at least one positive"):
        PCA(2).fit(dX, sample_weight=np.zeros(30))
    bad = X.copy()
    bad[3, 150] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        OptimalMeanPCA(2).fit(da.from_array(bad, chunks=(30, 50)))


def test_column_blocks_rechunk_only_when_needed(monkeypatch):
    X = da.zeros((30, 200), chunks=(30, 50))
    assert _dask.column_blocks(X) is X  # already whole columns: untouched
    merged = _dask.column_blocks(da.zeros((30, 200), chunks=(10, 50)))
    assert merged.chunks == ((30,), (50, 50, 50, 50))  # rows merged, columns kept
    monkeypatch.setattr(_dask.arrays, "WIDE_BLOCK_VALUES", 600)
    split = _dask.column_blocks(da.zeros((30, 200), chunks=(10, 50)))
    assert split.chunks[0] == (30,) and max(split.chunks[1]) == 20  # 600 values a block


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 12),
    extra=st.integers(1, 30),
    chunk=st.integers(1, 45),
    seed=st.integers(0, 1000),
    k=st.integers(1, 3),
)
def test_gram_solver_matches_numpy_for_any_column_chunking(n, extra, chunk, seed, k):
    """The Gram-route RPCA-OM over column blocks equals the in-memory one (the same
    iterates), for blocks of one column up to one block, far from the origin."""
    d = n + extra
    X = random_data(seed, n, d) + 1e3
    k = min(k, n)
    passes = GramPasses(NumpyColumnRunner(X, chunk))
    passes.first_pass()
    loss, a = in_memory_fit(X, k)
    b = solve_optimal_mean_pca_gram(passes, k, loss, rng=np.random.default_rng(0), max_iter=20)
    # a completed basis (k above the rank of the centred data) takes 2 more passes for
    # its residuals (see WIDE_CONFIGS)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    completed = k > np.sum(s > 1e-6 * s[0])  # the eigen-solvers' rank (RANK_RTOL on s^2)
    assert b.n_iter == a.n_iter and 2 <= passes.run.n_passes <= b.n_iter + 2 + 2 * completed
    assert_same_affine_fit(a, b)


# --------------------------------------------------------------------------- laziness
class BlockSpy:
    """Wraps a dask array; counts the non-empty blocks that are ever materialised."""

    def __init__(self, X, chunks):
        self.calls = 0
        self.array = da.from_array(X, chunks=chunks).map_blocks(
            self._seen, dtype=X.dtype, meta=np.empty((0, 0), dtype=X.dtype)
        )

    def _seen(self, block):
        if block.size:
            self.calls += 1
        return block


LAZY = ["transform", "reconstruct", "reconstruction_error", "score_samples"]


@pytest.mark.parametrize(
    ("shape", "chunks"),
    [((240, 8), (50, 8)), ((30, 200), (30, 50)), ((30, 200), (10, 70))],
    ids=["tall", "wide-by-columns", "wide-both-axes"],
)
def test_transforms_build_graphs_without_computing(threads, shape, chunks):
    """Building every transform computes nothing (no scheduler run, no block
    materialised), the results match NumPy and stay chunked like the rows of X."""
    X = random_data(12, *shape)
    model = OptimalMeanPCA(3).fit(X)
    spy = BlockSpy(X, chunks)
    Z = model.transform(X)
    spy_z = BlockSpy(Z, (chunks[0], 3))
    with CountComputes() as counter:
        out = {name: getattr(model, name)(spy.array) for name in LAZY}
        out["inverse_transform"] = _dask.lazy_method(model, "inverse_transform", spy_z.array)
    assert counter.count == 0 and spy.calls == 0 and spy_z.calls == 0
    expected = {name: getattr(model, name)(X) for name in LAZY}
    expected["inverse_transform"] = model.inverse_transform(Z)
    for name, lazy in out.items():
        assert isinstance(lazy, da.Array), name
        assert lazy.chunks[0] == spy.array.chunks[0], name
        np.testing.assert_allclose(lazy.compute(), expected[name], rtol=1e-12, atol=1e-9)
    assert out["reconstruct"].chunks == spy.array.chunks  # the blocks of X


def test_inverse_transform_is_lazy(threads):
    """``inverse_transform`` of a dask array returns a dask array without computing
    (the public method dispatches to ``lazy_method``), float32 and ints as in NumPy,
    with feature blocks of dask's ``array.chunk-size``."""
    X = random_data(13, 30, 200)
    model = PCA(3).fit(X)
    Z = model.transform(X)
    spy = BlockSpy(Z, (10, 3))
    with CountComputes() as counter:
        lazy = model.inverse_transform(spy.array)
    assert counter.count == 0 and spy.calls == 0 and isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.inverse_transform(Z), rtol=1e-12)
    model32 = PCA(3).fit(X.astype(np.float32))
    Zi = np.round(Z).astype(np.int64)
    got = model32.inverse_transform(da.from_array(Zi, chunks=(10, 3)))
    assert got.dtype == model32.inverse_transform(Zi).dtype == np.float32
    with dask.config.set({"array.chunk-size": "8kB"}):  # 1000 values: 100 columns a block
        lazy = model.inverse_transform(da.from_array(Z, chunks=(10, 3)))
    assert lazy.chunks == ((10, 10, 10), (100, 100))
    np.testing.assert_allclose(lazy.compute(), model.inverse_transform(Z), rtol=1e-12)
    with pytest.raises(ValueError, match=r"shape \(n_samples, 3\)"):
        model.inverse_transform(da.from_array(Z[:, :2], chunks=(10, 2)))


@pytest.mark.slow
def test_wide_example_runs_small(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "examples"))  # it imports the tall example's measures
    example = load_example("dask_wide")
    summary = example.main(["--n-samples", "300", "--n-features", "20000", "--chunk-cols", "2000"])
    assert summary["converged"] and summary["n_passes"] == 3  # Gram, components, diagnostics
    assert summary["rpca_om_angle_deg"] < 1 < summary["pca_angle_deg"]
    assert "peak resident memory" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("estimator", "spec", "match"),
    [
        (PrincipalComponentPursuit(), "auto", "not supported by PrincipalComponentPursuit"),
        (PCA(), 1.0, "must lie in"),
        (PCA(), 0.9, "Dask fit of PCA takes a whole number"),
    ],
)
def test_a_rank_rule_is_refused_for_the_right_reason(estimator, spec, match):
    """A share or 'auto' that no fit of the estimator takes, or an invalid share, was
    reported as a Dask limitation ("fit in memory"); the in-memory message comes first."""
    X = da.from_array(np.random.default_rng(0).normal(size=(40, 5)), chunks=(10, 5))
    with pytest.raises(ValueError, match=match):
        clone(estimator).set_params(n_components=spec).fit(X)
