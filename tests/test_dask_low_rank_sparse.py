"""The L + S estimators on tall dask arrays (issue 41, item 3).

``PrincipalComponentPursuit``, ``OutlierPursuit``, ``ConvexOptimalMeanPCA`` and
``AccAltProj`` fitted on a dask array chunked by rows must reproduce their NumPy fit (same
iterations, stopping reason, objective history, residual trace, certified gaps or
thresholds, and every fitted array to 1e-8): the convex ones in two passes an iteration
plus those of the certified gaps, AccAltProj in one pass an iteration (three more to
start); ``low_rank_``, ``sparse_`` and ``outliers_`` are dask arrays chunked like the
rows of ``X``; the kernels can run again from their inputs, and a worker killed mid-fit
on a ``distributed`` cluster leaves the same fit (issue 41, item 5).
"""

from __future__ import annotations

import pickle
import time
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback
from distributed import Client, LocalCluster, futures_of
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustpca.estimators import _convex
from robustpca.estimators._convex import (
    ConvexOptimalMeanPCA,
    OutlierPursuit,
    PrincipalComponentPursuit,
)
from robustpca.estimators._known_rank import AccAltProj
from robustpca.solvers import chunked_alm
from robustpca.solvers.alm import solve_crpca_om, solve_outlier_pursuit, solve_pcp
from robustpca.solvers.chunked import combine_parts
from robustpca.solvers.chunked_alm import NumpyStateRunner, first_pass, solve_convex_chunked
from robustpca.solvers.chunked_known_rank import accaltproj_first_pass, solve_accaltproj_chunked
from robustpca.solvers.chunked_state import reuses_states, writable
from robustpca.solvers.known_rank import solve_accaltproj

from .conftest import load_table


class CountComputes(Callback):
    """Counts scheduler runs (local schedulers)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


def planted(seed=0, n=20_000, d=50, rank=3, share=0.05, scale=10.0):
    """Low rank plus gross entries on ``share`` of the entries."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    S = np.where(rng.random((n, d)) < share, scale * rng.normal(size=(n, d)), 0.0)
    return L, S


def outlying_rows(seed=0, n=3000, d=30, rank=3, share=0.05):
    """Low rank plus noise with an offset; ``share`` of the rows replaced by outliers."""
    rng = np.random.default_rng(seed)
    X = 2.0 + rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    X += 0.01 * rng.normal(size=(n, d))
    m = int(share * n)
    X[:m] = 6.0 + 3.0 * rng.normal(size=(m, d))
    return X


def fitted(model) -> dict:
    return {k: v for k, v in vars(model).items() if k.endswith("_") and not k.startswith("_")}


def assert_same_fit(a, b, row_chunks, atol=1e-8):
    """``b`` (a dask fit) has every fitted attribute of ``a`` (NumPy), equal."""
    assert (b.n_iter_, b.converged_, b.stop_reason_) == (a.n_iter_, a.converged_, a.stop_reason_)
    missing = set(fitted(a)) - set(fitted(b))
    assert not missing, missing
    for name, expected in fitted(a).items():
        got = getattr(b, name)
        if name in ("low_rank_", "sparse_", "outliers_"):
            assert isinstance(got, da.Array) and got.chunks[0] == row_chunks, name
            got = got.compute()
        if name == "thresholds_":
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * expected[0])
        elif name == "residuals_":
            for key, values in expected.items():
                np.testing.assert_allclose(got[key], values, rtol=1e-7, atol=1e-12, err_msg=key)
        elif isinstance(expected, np.ndarray) and expected.dtype.kind == "f":
            top = max(np.abs(expected).max(initial=0.0), 1.0)
            np.testing.assert_allclose(got, expected, rtol=0, atol=atol * top, err_msg=name)
        elif isinstance(expected, float):
            assert got == pytest.approx(expected, rel=1e-8, abs=1e-12), name
        else:
            np.testing.assert_array_equal(got, expected, err_msg=name)


def fit_passes(model) -> int:
    """The passes of the fit itself: ``n_passes_`` less those of the training diagnostics
    that a Dask fit takes after it (``robustpca._dask.reference``)."""
    return model.n_passes_ - getattr(model, "_reference_passes", 0)


def both_fits(model, X, rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = clone(model).fit(X)
        b = clone(model).fit(da.from_array(X, chunks=(rows, -1)))
    return a, b


# ----------------------------------------------------------------- parity
@pytest.mark.slow
def test_pcp_parity_planted_20000x50(threads):
    """The planted problem of the issue's unit tests: 20,000 x 50, rank 3, 5% gross
    entries, chunks of 3,000 rows. Same fit as NumPy, the truth recovered, two passes
    an iteration (the certificates in them)."""
    L, S = planted()
    X = L + S
    X_before = X.copy()
    a, b = both_fits(PrincipalComponentPursuit(random_state=0), X, 3000)
    np.testing.assert_array_equal(X, X_before)
    assert_same_fit(a, b, da.from_array(X, chunks=(3000, -1)).chunks[0])
    assert b.rank_ == 3 and b.stop_reason_ == a.stop_reason_
    assert np.linalg.norm(b.low_rank_.compute() - L) <= 1e-2 * np.linalg.norm(L)
    # the first pass, two an iteration, the pass after the last (it certifies the fit),
    # the last one (S and L); one more for each refined certificate of PCP
    refined_at_most = len(b.residuals_["certified"])
    assert 2 * b.n_iter_ + 3 <= fit_passes(b) <= 2 * b.n_iter_ + 3 + refined_at_most
    Z = b.transform(da.from_array(X, chunks=(3000, -1)))
    assert isinstance(Z, da.Array)
    np.testing.assert_allclose(Z.compute(), a.transform(X), atol=1e-8 * np.abs(X).max())


CONFIGS = [
    ("pcp-centred", PrincipalComponentPursuit(center=True, random_state=0), "entries"),
    ("pcp-lam", PrincipalComponentPursuit(lam=0.02, mu=0.05, random_state=0), "entries"),
    ("pcp-lin", PrincipalComponentPursuit(gap_tol=None, random_state=0), "entries"),
    ("op", OutlierPursuit(random_state=0), "rows"),
    ("op-centred", OutlierPursuit(center=True, random_state=0), "rows"),
    ("op-gamma", OutlierPursuit(gamma=5.0, n_components=6, random_state=0), "rows"),
    ("crpca-om", ConvexOptimalMeanPCA(random_state=0), "rows"),
    ("crpca-om-lin", ConvexOptimalMeanPCA(gap_tol=None, tol=1e-6, random_state=0), "rows"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "model", "kind"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_parity(threads, name, model, kind):
    X = outlying_rows() if kind == "rows" else sum(planted(1, n=3000, d=30))
    a, b = both_fits(model, X, 700)
    assert_same_fit(a, b, da.from_array(X, chunks=(700, -1)).chunks[0])
    gamma_pass = kind == "rows" and model.gamma == "auto" and model._dask_fit == "crpca_om"
    gamma_pass = gamma_pass or (kind == "rows" and model.gamma == "auto" and model.center is True)
    if kind == "rows":
        assert b.outliers_.dtype == bool
        # no refined certificate: two passes an iteration, the first, last and one after
        if model.gap_tol is not None and b.converged_:
            assert fit_passes(b) == 2 * b.n_iter_ + 3 + gamma_pass


def test_max_iter_and_callback_as_numpy(threads):
    """A fit stopped by ``max_iter`` warns and computes its gap at the end, as in NumPy;
    the callback sees the same objectives and components."""
    X = sum(planted(2, n=2000, d=20))
    seen = {"a": [], "b": []}

    def recorder(key):
        def callback(iteration, state):
            seen[key].append((state.objective, state.components.copy()))

        return callback

    model = PrincipalComponentPursuit(max_iter=4, random_state=0)
    with pytest.warns(ConvergenceWarning):
        a = clone(model).set_params(callback=recorder("a")).fit(X)
    with pytest.warns(ConvergenceWarning):
        b = clone(model).set_params(callback=recorder("b")).fit(da.from_array(X, chunks=500))
    assert_same_fit(a, b, (500,) * 4)
    assert len(seen["a"]) == len(seen["b"]) == 4
    for (fa, ca), (fb, cb) in zip(seen["a"], seen["b"], strict=True):
        assert fb == pytest.approx(fa, rel=1e-10)
        np.testing.assert_allclose(np.abs(cb), np.abs(ca), atol=1e-8)

    def stop(iteration, state):
        return iteration == 2

    a = clone(model).set_params(callback=stop).fit(X)
    b = clone(model).set_params(callback=stop).fit(da.from_array(X, chunks=500))
    assert b.n_iter_ == a.n_iter_ == 2 and b.stop_reason_ == a.stop_reason_


@pytest.mark.parametrize(
    ("model", "X"),
    [
        (PrincipalComponentPursuit(random_state=0), np.zeros((60, 5))),
        (PrincipalComponentPursuit(center=True, random_state=0), np.full((60, 5), 3.0)),
        (OutlierPursuit(random_state=0), np.zeros((60, 5))),
        (ConvexOptimalMeanPCA(random_state=0), np.full((60, 5), -2.0)),
    ],
    ids=["pcp-zeros", "pcp-const", "op-zeros", "om-const"],
)
def test_degenerate_data(threads, model, X):
    """Data equal to their offset: the exact solution at once, no NaN, as NumPy."""
    a, b = both_fits(model, X, 25)
    assert_same_fit(a, b, (25, 25, 10))
    assert b.stop_reason_ == a.stop_reason_
    assert np.isfinite(b.low_rank_.compute()).all() and np.isfinite(b.components_).all()


def test_float32_input(threads):
    X = sum(planted(3, n=1000, d=12)).astype(np.float32)
    a, b = both_fits(PrincipalComponentPursuit(random_state=0), X, 250)
    assert b.components_.dtype == np.float32 and b.low_rank_.dtype == np.float32
    np.testing.assert_allclose(b.low_rank_.compute(), a.low_rank_, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "d", "rank"), [(20_000, 50, 3), (3000, 100, 5)])
def test_accaltproj_parity_and_one_pass_an_iteration(threads, n, d, rank):
    """AccAltProj on planted problems with 5% gross entries (the Lanczos start above 64
    features, LAPACK's below): the NumPy fit, the truth, ``n_iter + 3`` passes."""
    L, S = planted(6, n=n, d=d, rank=rank)
    X = L + S
    a, b = both_fits(AccAltProj(rank, random_state=0), X, 3000)
    assert_same_fit(a, b, da.from_array(X, chunks=(3000, -1)).chunks[0])
    assert fit_passes(b) == b.n_iter_ + 3
    assert np.linalg.norm(b.low_rank_.compute() - L) <= 1e-6 * np.linalg.norm(L)
    np.testing.assert_allclose(
        b.transform(da.from_array(X, chunks=(3000, -1))).compute(),
        a.transform(X),
        atol=1e-8 * np.abs(X).max(),
    )


def test_accaltproj_parameters_and_callback(threads):
    X = sum(planted(7, n=2000, d=20, rank=2))
    seen = {"a": [], "b": []}

    def recorder(key):
        def callback(iteration, state):
            seen[key].append((state.objective, np.abs(state.components)))
            return iteration == 6

        return callback

    model = AccAltProj(2, beta=0.05, beta_init=0.2, gamma=0.6, random_state=0)
    a = clone(model).set_params(callback=recorder("a")).fit(X)
    b = clone(model).set_params(callback=recorder("b")).fit(da.from_array(X, chunks=(300, -1)))
    assert_same_fit(a, b, da.from_array(X, chunks=(300, -1)).chunks[0])
    assert b.n_iter_ == 6 and len(seen["b"]) == 6
    for (fa, ca), (fb, cb) in zip(seen["a"], seen["b"], strict=True):
        assert fb == pytest.approx(fa, rel=1e-9)
        np.testing.assert_allclose(cb, ca, atol=1e-9)


# ----------------------------------------------------------------- errors
def test_errors_before_any_pass(threads):
    dX = da.from_array(np.ones((100, 10)), chunks=(50, 10))
    wide = da.from_array(np.ones((10, 100)), chunks=(5, 100))
    cases = [
        (PrincipalComponentPursuit(rho=0.5), dX, "rho"),
        (PrincipalComponentPursuit(lam="bad"), dX, "lam"),
        (OutlierPursuit(gamma="bad"), dX, "gamma"),
        (OutlierPursuit(center="yes"), dX, "center"),
        (ConvexOptimalMeanPCA(rho=2.5), dX, "rho"),
        (PrincipalComponentPursuit(), wide, "tall"),
        (AccAltProj(2, trim=True), dX, "trim"),
        (AccAltProj(6), dX, "2 \\* n_components"),
        (AccAltProj(2, gamma=1.5), dX, "gamma"),
        (AccAltProj(2), wide, "tall"),
    ]
    for model, data, match in cases:
        with CountComputes() as counter, pytest.raises((ValueError, TypeError), match=match):
            model.fit(data)
        assert counter.count == 0, match


@pytest.mark.parametrize("make", [PrincipalComponentPursuit, lambda: AccAltProj(2)])
def test_a_mask_with_dask_data_is_refused(threads, make):
    dX = da.from_array(np.ones((100, 10)), chunks=(50, 10))
    mask = np.ones((100, 10), dtype=bool)
    with CountComputes() as counter, pytest.raises(TypeError, match="mask: a Dask fit"):
        make().fit(dX, mask=mask)
    assert counter.count == 0


def test_nan_raises_in_the_first_pass(threads):
    X = np.ones((100, 6))
    X[70, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PrincipalComponentPursuit().fit(da.from_array(X, chunks=(25, 6)))


def test_auto_gamma_fraction_is_the_estimators():
    """``_dask`` may not import the estimators: the constant is repeated, checked here."""
    assert chunked_alm.AUTO_GAMMA_FRACTION == _convex.AUTO_GAMMA_FRACTION


# --------------------------------------------------------- the solver itself
@pytest.mark.slow
@pytest.mark.parametrize("chunk", [7, 97, 5000])
@pytest.mark.parametrize(
    ("problem", "solver", "kwargs"),
    [
        ("pcp", solve_pcp, {"lam": 0.05}),
        ("pcp", solve_pcp, {"lam": 0.05, "center": True}),
        ("outlier_pursuit", solve_outlier_pursuit, {"gamma": 3.0}),
        ("crpca_om", solve_crpca_om, {"gamma": 3.0}),
    ],
)
def test_solver_any_chunking(problem, solver, kwargs, chunk):
    """The in-memory runner, with chunks of one row up to one chunk, follows the NumPy
    solver's iterates to rounding."""
    X = outlying_rows(4, n=600, d=8) if problem != "pcp" else sum(planted(4, n=600, d=8))
    a = solver(X, rng=np.random.default_rng(0), **kwargs)
    run = NumpyStateRunner(X, chunk)
    weight = kwargs.get("lam", kwargs.get("gamma"))
    b = solve_convex_chunked(
        run,
        run(first_pass),
        problem=problem,
        weight=weight,
        center=kwargs.get("center", False),
        rng=np.random.default_rng(0),
    )
    assert (b.n_iter, b.stop_reason) == (a.n_iter, a.stop_reason)
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-10)
    for key in ("low_rank", "sparse"):
        np.testing.assert_allclose(b.info[key], a.info[key], atol=1e-9 * np.abs(X).max())
    assert b.info["duality_gap"] == pytest.approx(a.info["duality_gap"], rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("chunk", [7, 97, 5000])
@pytest.mark.parametrize(("d", "rank"), [(8, 2), (80, 3)])
def test_accaltproj_solver_any_chunking(chunk, d, rank):
    X = sum(planted(8, n=600, d=d, rank=rank))
    a = solve_accaltproj(X, rank, rng=np.random.default_rng(0))
    run = NumpyStateRunner(X, chunk)
    b = solve_accaltproj_chunked(
        run, run(accaltproj_first_pass), rank, rng=np.random.default_rng(0)
    )
    assert (b.n_iter, b.stop_reason) == (a.n_iter, a.stop_reason)
    assert run.n_passes == b.n_iter + 3
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-7, atol=1e-14)
    for key in ("low_rank", "sparse"):
        np.testing.assert_allclose(b.info[key], a.info[key], atol=1e-9 * np.abs(X).max())
    np.testing.assert_allclose(b.info["thresholds"], a.info["thresholds"], rtol=1e-9)


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(8, 120),
    d=st.integers(1, 8),
    chunk=st.integers(1, 130),
    seed=st.integers(0, 2**16),
    problem=st.sampled_from(["pcp", "outlier_pursuit", "crpca_om"]),
)
def test_chunked_convex_solver_property(n, d, chunk, seed, problem):
    """Any shape (tall), chunking and data: the chunked solver's objective history,
    ``L`` and ``S`` are the in-memory solver's, and the data are left as they were."""
    d = min(d, n)
    X = np.random.default_rng(seed).standard_t(2, size=(n, d))
    X_before = X.copy()
    weight = 1.0 / np.sqrt(n) if problem == "pcp" else 0.5
    solver = {"pcp": solve_pcp, "outlier_pursuit": solve_outlier_pursuit}.get(
        problem, solve_crpca_om
    )
    key = "lam" if problem == "pcp" else "gamma"
    a = solver(X, rng=np.random.default_rng(0), max_iter=60, **{key: weight})
    run = NumpyStateRunner(X, chunk)
    b = solve_convex_chunked(
        run,
        run(first_pass),
        problem=problem,
        weight=weight,
        max_iter=60,
        rng=np.random.default_rng(0),
    )
    np.testing.assert_array_equal(X, X_before)
    assert (b.n_iter, b.stop_reason) == (a.n_iter, a.stop_reason)
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-8, atol=1e-12)
    for name in ("low_rank", "sparse"):
        np.testing.assert_allclose(b.info[name], a.info[name], atol=1e-8 * np.abs(X).max())
    assert np.isfinite(b.info["duality_gap"])


# ---------------------------------------------------------------- real data
@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire"])
@pytest.mark.parametrize(
    "model",
    [
        PrincipalComponentPursuit(random_state=0),
        OutlierPursuit(center=True, random_state=0),
        ConvexOptimalMeanPCA(random_state=0),
        AccAltProj(1, random_state=0),
    ],
    ids=["pcp", "op", "crpca-om", "accaltproj"],
)
def test_rrcov_tables_parity(threads, shared_data, model, table):
    """rrcov's hbk (75 x 3) and bushfire (38 x 5) in chunks of 10 rows: the NumPy fit."""
    X = load_table(shared_data, table)
    a, b = both_fits(model, X, 10)
    assert_same_fit(a, b, da.from_array(X, chunks=(10, -1)).chunks[0])


# ------------------------------------------------------------------- faults
class RerunRunner(NumpyStateRunner):
    """A runner that, like a ``distributed`` cluster recomputing a lost chunk, runs every
    kernel a second time on the same input: the input must be left as it was and both
    runs must give the same state and sums, to the last bit."""

    reuse_states = False

    def __call__(self, kernel, **params) -> dict:
        self.n_passes += 1
        parts = []
        for i, (a, b) in enumerate(self.bounds):
            x, state = self.X[a:b], self.states[i]
            before = None if state is None else [np.array(v, copy=True) for v in state]
            first = kernel(x, state, **params)
            if before is not None:
                for was, now in zip(before, state, strict=True):
                    np.testing.assert_array_equal(now, was, err_msg=kernel.__name__)
            again = kernel(x, state, **params)
            assert pickle.dumps(again) == pickle.dumps(first), kernel.__name__
            self.states[i], part = first
            parts.append(part)
        return combine_parts(*parts)


@pytest.mark.parametrize("problem", ["pcp", "outlier_pursuit", "crpca_om", "accaltproj"])
def test_kernels_can_run_again_from_their_inputs(problem):
    """What a scheduler does after losing a worker (run a task again from its inputs)
    gives the same fit: a runner that does not declare ``reuse_states`` gets kernels
    that leave their input state as it was, and the fit equals the in-place one to the
    last bit. With the chunked PCP's state overwritten in place (before issue 41's
    fault fix), the second run started from the first run's output."""
    X = outlying_rows(9, n=400, d=8) if problem in ("outlier_pursuit", "crpca_om") else None
    X = sum(planted(9, n=400, d=8)) if X is None else X

    def fit(run):
        if problem == "accaltproj":
            first = run(accaltproj_first_pass)
            return solve_accaltproj_chunked(run, first, 2, rng=np.random.default_rng(0))
        weight = 0.05 if problem == "pcp" else 2.0
        return solve_convex_chunked(
            run, run(first_pass), problem=problem, weight=weight, rng=np.random.default_rng(0)
        )

    in_place, pure = NumpyStateRunner(X, 70), RerunRunner(X, 70)
    a, b = fit(in_place), fit(pure)
    assert pure.n_passes == in_place.n_passes and b.n_iter == a.n_iter > 3
    np.testing.assert_array_equal(b.objective, a.objective)
    for key in ("low_rank", "sparse"):
        np.testing.assert_array_equal(b.info[key], a.info[key])


def test_runners_say_whether_kernels_may_overwrite_states():
    assert reuses_states(NumpyStateRunner(np.ones((4, 2)), 2))
    assert not reuses_states(object())  # a runner that does not say: pure kernels
    state = (np.zeros((3, 2)), np.ones((3, 2)))
    assert writable(state, True) is state
    copied = writable(state, False, 1)
    assert copied[0] is not state[0] and copied[1] is state[1]
    np.testing.assert_array_equal(copied[0], state[0])


# PCP to its certificate (17 iterations); the others stopped a few iterations after the
# loss (max_iter), which is all the test needs and keeps it fast
FAULT_CASES = [
    ("pcp-3", PrincipalComponentPursuit(random_state=0), "entries", 3),
    ("pcp-6", PrincipalComponentPursuit(max_iter=8, random_state=0), "entries", 6),
    ("op", OutlierPursuit(max_iter=7, random_state=0), "rows", 4),
    ("crpca-om", ConvexOptimalMeanPCA(max_iter=7, random_state=0), "rows", 4),
    ("accaltproj", AccAltProj(3, max_iter=6, random_state=0), "entries", 3),
]


def test_states_stay_on_the_workers_of_a_client_that_is_not_the_default():
    """The persisted chunks of a fit on a ``distributed`` client live on its workers even
    when it is only the configured scheduler (``set_as_default=False``): older releases'
    dask.persist (2024.1) computed them into this process then, and every pass shipped them back."""
    dX = da.from_array(outlying_rows(1, n=1000, d=8), chunks=(250, -1))
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
        dask.config.set(scheduler=client),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = ConvexOptimalMeanPCA(max_iter=3, random_state=0).fit(dX)
        assert len(futures_of(fit.sparse_)) == dX.numblocks[0]
        assert sum(len(w.state.data) for w in cluster.workers.values()) >= dX.numblocks[0]


@pytest.mark.parametrize(
    ("name", "model", "kind", "when"), FAULT_CASES, ids=[c[0] for c in FAULT_CASES]
)
def test_worker_killed_mid_fit_gives_the_same_fit(name, model, kind, when):
    """Two in-process workers on a ``distributed`` cluster; after iteration ``when``
    the worker holding the most persisted chunks is closed without handing its data
    over (from the callback, so at a fixed point of the fit). The scheduler runs again
    the tasks that made the lost chunks, from their inputs, and the fit ends as the
    threaded one does, to the last bit. Before the kernels were pure, the chunked
    state was overwritten in place, and where an overwritten input was still held
    (in-process workers share the objects they exchange) a lost chunk was made again
    from the wrong iterate: PCP took 20 or 22 iterations instead of 17."""
    # four chunks of 250 rows (PCP still takes 17 iterations): the scheduler's overhead a
    # task, not the arithmetic, is the cost, and the closed worker still holds chunks
    X = sum(planted(5, n=1000, d=16)) if kind == "entries" else outlying_rows(5, n=1000, d=16)
    dX = da.from_array(X, chunks=(250, -1))
    n_chunks = dX.numblocks[0]
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference = clone(model).fit(dX)
    lost = []
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):

        def kill(iteration, state):
            if iteration == when and not lost:
                # a pass persists its states without waiting for them: on a loaded
                # machine some are still being made when the callback runs
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and n_chunks > sum(
                    len(w.state.data) for w in cluster.workers.values()
                ):
                    time.sleep(0.01)
                # the worker holding the most chunks (where they land varies by version)
                worker = max(cluster.workers.values(), key=lambda w: len(w.state.data))
                lost.append(len(worker.state.data))
                cluster.sync(worker.close, reason="killed by the test")

        with dask.config.set(scheduler=client), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = clone(model).set_params(callback=kill).fit(dX)
            low_rank, sparse = dask.compute(fit.low_rank_, fit.sparse_)
        assert len(client.scheduler_info()["workers"]) == 1
    assert lost and lost[0] > 0  # the closed worker held persisted chunks
    assert (fit.n_iter_, fit.stop_reason_) == (reference.n_iter_, reference.stop_reason_)
    assert reference.n_iter_ > when
    np.testing.assert_array_equal(fit.objective_history_, reference.objective_history_)
    np.testing.assert_array_equal(low_rank, reference.low_rank_.compute())
    np.testing.assert_array_equal(sparse, reference.sparse_.compute())
