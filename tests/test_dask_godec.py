"""GoDec on tall dask arrays (issue 41, item 3).

``GoDec`` fitted on a dask array chunked by rows must reproduce its NumPy fit: the same
iterations, stopping reason, cardinality ``card_`` (explicit, a fraction, or ``'auto'``
with its exact column medians), objective history, and ``low_rank_``, ``sparse_`` and
``components_`` to 1e-8, with ``low_rank_`` and ``sparse_`` dask arrays chunked like the
rows of ``X``. The sparse step's threshold (the ``k``-th largest entry of the whole
matrix) is found by counting passes, never by bringing the residual back: checked here
on ties, on ``k`` at its extremes and with chunkings that split nothing or everything.
"""

from __future__ import annotations

import pickle
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustpca.estimators._known_rank import GoDec
from robustpca.solvers import chunked_godec
from robustpca.solvers.chunked import combine_parts
from robustpca.solvers.chunked_godec import godec_first_pass, solve_godec_chunked
from robustpca.solvers.chunked_state import NumpyStateRunner
from robustpca.solvers.godec import solve_godec
from robustpca.solvers.godec_card import ResidualCutoff

from .conftest import load_table
from .test_dask import CountComputes


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


def planted(seed=0, n=20_000, d=50, rank=3, share=0.05, scale=10.0, noise=0.0):
    """Low rank plus gross entries on ``share`` of the entries (plus dense noise)."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    S = np.where(rng.random((n, d)) < share, scale * rng.normal(size=(n, d)), 0.0)
    return L, S, noise * rng.normal(size=(n, d))


def both_fits(model, X, rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = clone(model).fit(X)
        b = clone(model).fit(da.from_array(X, chunks=(rows, -1)))
    return a, b


def assert_same_fit(a, b, atol=1e-8):
    """``b`` (a dask fit) equals ``a`` (NumPy): iterations, ``card_``, every array."""
    assert (b.n_iter_, b.converged_, b.stop_reason_) == (a.n_iter_, a.converged_, a.stop_reason_)
    assert b.card_ == a.card_ and b.rank_ == a.rank_
    top = max(np.abs(a.low_rank_).max(), 1.0)
    for name in ("low_rank_", "sparse_"):
        got = getattr(b, name)
        assert isinstance(got, da.Array), name
        np.testing.assert_allclose(got.compute(), getattr(a, name), atol=atol * top, err_msg=name)
    floor = 1e-14 * float(np.sum(a.low_rank_**2) + np.sum(a.sparse_**2))
    np.testing.assert_allclose(b.objective_history_, a.objective_history_, rtol=1e-8, atol=floor)
    for name in ("components_", "low_rank_singular_values_", "explained_variance_"):
        expected = getattr(a, name)
        scale = max(np.abs(expected).max(), 1.0)
        np.testing.assert_allclose(getattr(b, name), expected, atol=atol * scale, err_msg=name)


# ----------------------------------------------------------------- parity
@pytest.mark.slow
@pytest.mark.parametrize(("card", "n"), [("count", 20_000), (0.05, 5000), ("auto", 5000)])
def test_parity_planted(threads, card, n):
    """Explicit, fractional and automatic ``card`` on n x 50 with 5% gross entries and a
    little noise: the NumPy fit to 1e-8, the planted low-rank part recovered by 'auto'."""
    L, S, N = planted(n=n, noise=1e-3)
    X = L + S + N
    k = int(np.count_nonzero(S)) if card == "count" else card
    a, b = both_fits(GoDec(3, card=k, max_iter=15, random_state=0), X, 1500)
    assert_same_fit(a, b)
    assert b.low_rank_.chunks[0] == da.from_array(X, chunks=(1500, -1)).chunks[0]
    if card == "auto":
        assert np.linalg.norm(b.low_rank_.compute() - L) <= 1e-2 * np.linalg.norm(L)
    np.testing.assert_allclose(
        b.transform(da.from_array(X, chunks=(1500, -1))).compute(), a.transform(X), atol=1e-8
    )


@pytest.mark.slow
def test_passes_per_iteration():
    """An explicit ``card``: the first pass, then two an iteration (forming ``L`` with the
    first count and the bracket around the last threshold, setting ``S``) and a
    gathering pass where the bracket missed; with ``card='auto'`` the column medians add
    one or two, and ``k`` counted again and changed two more."""
    L, S, _ = planted(1, n=4000, d=20)
    k = int(np.count_nonzero(S))
    result, run = chunked(L + S, 1000, 3, k, max_iter=30, rng=np.random.default_rng(0))
    assert result.n_iter == 30
    assert 1 + 2 * result.n_iter <= run.n_passes <= 1 + 3 * result.n_iter
    assert run.n_passes <= 1 + 2 * result.n_iter + 5  # the brackets hold once settled
    result, run = chunked(
        L + S, 1000, 3, ResidualCutoff(), max_iter=20, rng=np.random.default_rng(0)
    )
    assert 1 + 3 * result.n_iter <= run.n_passes <= 1 + 7 * result.n_iter


@pytest.mark.slow
def test_float32_input(threads):
    L, S, _ = planted(3, n=2000, d=12)
    X = (L + S).astype(np.float32)
    a, b = both_fits(GoDec(3, max_iter=10, random_state=0), X, 500)
    assert b.components_.dtype == np.float32 and b.low_rank_.dtype == np.float32
    np.testing.assert_allclose(b.low_rank_.compute(), a.low_rank_, atol=1e-5)


def test_callback_and_max_iter_as_numpy(threads):
    L, S, _ = planted(4, n=3000, d=15, rank=2)
    X = L + S
    seen = {"a": [], "b": []}

    def recorder(key):
        def callback(iteration, state):
            seen[key].append((state.objective, np.abs(state.components)))
            return iteration == 4

        return callback

    model = GoDec(2, card="auto", random_state=1)
    a = clone(model).set_params(callback=recorder("a")).fit(X)
    b = clone(model).set_params(callback=recorder("b")).fit(da.from_array(X, chunks=(700, -1)))
    assert_same_fit(a, b)
    assert b.n_iter_ == 4 and len(seen["b"]) == 4
    for (fa, ca), (fb, cb) in zip(seen["a"], seen["b"], strict=True):
        assert fb == pytest.approx(fa, rel=1e-9)
        np.testing.assert_allclose(cb, ca, atol=1e-9)


def test_the_warning_on_a_full_card(threads):
    """Too small a ``card``: both fits warn that gross errors were left in ``L``."""
    L, S, _ = planted(5, n=3000, d=20, share=0.1)
    X = L + S
    model = GoDec(3, card=10, max_iter=10, random_state=0)
    for data in (X, da.from_array(X, chunks=(800, -1))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            with pytest.warns(UserWarning, match="gross errors were left"):
                clone(model).fit(data)


@pytest.mark.parametrize(
    "X",
    [np.zeros((200, 6)), np.ones((200, 6)), np.tile(np.arange(6.0), (200, 1)) * 1e150],
    ids=["zeros", "ones", "huge"],
)
def test_degenerate_data(threads, X):
    for card in (0, 30, 1200, "auto"):
        a, b = both_fits(GoDec(2, card=card, random_state=0), X, 64)
        assert np.isfinite(b.low_rank_.compute()).all() and np.isfinite(b.components_).all()
        assert_same_fit(a, b)


def test_most_rows_equal(threads):
    """90% of the rows equal: the row factor loses rank, its Gram is singular and its
    Cholesky factor raised LinAlgError; it is taken as the identity, as a singular factor
    already was. In memory the QR of that factor completes it arbitrarily, so the two
    need not take the same iterations, but they flag the same rows."""
    rng = np.random.default_rng(5)
    X = np.r_[np.ones((1800, 5)), rng.normal(size=(200, 5))]
    a = GoDec(2, random_state=0).fit(X)
    dX = da.from_array(X, chunks=(500, -1))
    b = GoDec(2, random_state=0).fit(dX)
    np.testing.assert_array_equal(b.predict(dX).compute(), a.predict(X))
    assert np.isfinite(b.components_).all()


# ----------------------------------------------------------------- the solver
def chunked(X, rows, rank, card, **kwargs):
    run = NumpyStateRunner(X, rows)
    run.states = list(range(len(run.states)))
    result = solve_godec_chunked(run, run(godec_first_pass), rank, card, **kwargs)
    return result, run


def test_ties_at_the_threshold_are_broken_by_position():
    """Integer data with many equal magnitudes: the ``k`` kept are those above the
    ``k``-th value and its first ties in row order, exactly ``k`` entries."""
    rng = np.random.default_rng(0)
    X = rng.integers(-3, 4, size=(600, 8)).astype(float)
    result, _ = chunked(X, 100, 1, 1000, max_iter=1, rng=np.random.default_rng(0))
    S = result.info["sparse"]
    R = X - result.info["low_rank"]
    kept = S != 0
    assert np.count_nonzero(kept) <= 1000
    tau = np.sort(np.abs(R).ravel())[::-1][999]
    assert np.all(np.abs(R)[kept] >= tau) and np.all(np.abs(R)[~kept & (R != 0)] <= tau)


def test_selection_past_the_gather_budget(monkeypatch):
    """A small gathering budget forces more counting passes: the same fit."""
    L, S, N = planted(2, n=3000, d=10, noise=1e-3)
    X = L + S + N
    expected = solve_godec(X, 3, 1500, max_iter=5, rng=np.random.default_rng(0))
    monkeypatch.setattr(chunked_godec, "GATHER_BUDGET", 2)
    got, run = chunked(X, 700, 3, 1500, max_iter=5, rng=np.random.default_rng(0))
    np.testing.assert_allclose(got.info["sparse"], expected.info["sparse"], atol=1e-10)
    assert run.n_passes > 1 + 3 * got.n_iter


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(20, 120),
    d=st.integers(2, 8),
    rows=st.integers(1, 130),
    share=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_chunked_solver_is_the_in_memory_one(n, d, rows, share, seed):
    """Any shape, chunking and ``card`` (0 to all entries): the in-memory GoDec, to within
    the in-memory fit's own sensitivity to rounding. That is ~1e-15 unless two residuals
    nearly tie for the last place in ``S``: then a perturbation of 1e-15 moves ``L``
    and ``S`` by up to the gap (2e-8 for n=52, d=2, share=0.89, seed=1704)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))
    k = int(share * n * d)
    expected = solve_godec(X, 1, k, max_iter=4, rng=np.random.default_rng(seed))
    got, _ = chunked(X, rows, 1, k, max_iter=4, rng=np.random.default_rng(seed))
    assert got.n_iter == expected.n_iter
    nudged = X * (1 + 1e-15 * np.random.default_rng(seed + 1).standard_normal(X.shape))
    again = solve_godec(nudged, 1, k, max_iter=4, rng=np.random.default_rng(seed))
    for key in ("low_rank", "sparse"):
        atol = 1e-8 + 10 * np.max(np.abs(again.info[key] - expected.info[key]))
        np.testing.assert_allclose(got.info[key], expected.info[key], atol=atol)


@pytest.mark.slow
def test_auto_rule_chunked_solver(monkeypatch):
    """``card='auto'`` with exact column medians, also past a tiny gathering budget."""
    L, S, N = planted(8, n=1001, d=9, rank=2, noise=1e-3)  # odd n: one median rank
    X = L + S + N
    expected = solve_godec(X, 2, ResidualCutoff(), max_iter=15, rng=np.random.default_rng(0))
    monkeypatch.setattr(chunked_godec, "GATHER_BUDGET", 40)
    got, _ = chunked(X, 250, 2, ResidualCutoff(), max_iter=15, rng=np.random.default_rng(0))
    assert got.info["card"] == expected.info["card"] and got.n_iter == expected.n_iter
    np.testing.assert_allclose(got.info["sparse"], expected.info["sparse"], atol=1e-8)


@pytest.mark.slow
def test_auto_rule_rank_above_eight():
    """Above rank 8 the ALS column sums are formed column by column: the same fit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 10)) @ rng.normal(size=(10, 24)) + 0.01 * rng.normal(size=(1500, 24))
    X[rng.random(X.shape) < 0.05] += 20
    expected = solve_godec(X, 10, ResidualCutoff(), max_iter=6, rng=np.random.default_rng(0))
    got, _ = chunked(X, 400, 10, ResidualCutoff(), max_iter=6, rng=np.random.default_rng(0))
    assert got.info["card"] == expected.info["card"] and got.n_iter == expected.n_iter
    np.testing.assert_allclose(got.info["low_rank"], expected.info["low_rank"], atol=1e-9)


@pytest.mark.parametrize("seed", [6, 68, 283])
def test_auto_rule_pinned_columns(monkeypatch, seed):
    """Few rows, a column gross in most of them: columns left with at most ``r`` entries
    outside ``S`` are gathered and refitted trimmed by the in-memory sweep."""
    rng = np.random.default_rng(seed)
    n, d, r = rng.integers(4, 9), rng.integers(4, 14), 1 + rng.integers(0, 2)
    X = rng.normal(size=(n, r)) @ rng.normal(size=(r, d)) + 0.1 * rng.normal(size=(n, d))
    X[:, 0] += np.where(rng.random(n) < 0.8, 50 * rng.normal(size=n), 0)
    calls = []
    pinned = chunked_godec._pinned_pass
    monkeypatch.setattr(
        chunked_godec, "_pinned_pass", lambda *a, **k: calls.append(1) or pinned(*a, **k)
    )
    expected = solve_godec(X, r, ResidualCutoff(), max_iter=6, rng=np.random.default_rng(seed))
    got, _ = chunked(X, 2, r, ResidualCutoff(), max_iter=6, rng=np.random.default_rng(seed))
    assert calls and got.info["card"] == expected.info["card"]
    np.testing.assert_allclose(got.info["sparse"], expected.info["sparse"], atol=1e-9)


# ----------------------------------------------------------------- errors
def test_errors_before_any_pass(threads):
    dX = da.from_array(np.ones((100, 10)), chunks=(50, 10))
    wide = da.from_array(np.ones((10, 100)), chunks=(5, 100))
    cases = [
        (GoDec(2, card="bad"), dX, "card"),
        (GoDec(2, card=10_000), dX, "card"),
        (GoDec(2, card=1.5), dX, "card"),
        (GoDec(2, power=-1), dX, "power"),
        (GoDec(2), wide, "tall"),
    ]
    for model, data, match in cases:
        with CountComputes() as counter, pytest.raises((ValueError, TypeError), match=match):
            model.fit(data)
        assert counter.count == 0, match


def test_nan_raises_in_the_first_pass(threads):
    X = np.ones((100, 6))
    X[70, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GoDec(2).fit(da.from_array(X, chunks=(25, 6)))


# ----------------------------------------------------------------- real data
@pytest.mark.realdata
def test_highway_pixels_by_frames(threads, shared_data):
    """100 frames of CDnet's highway at quarter size, pixels as rows (4,800 x 100, tall):
    the Dask fit equals the NumPy fit, with ``card='auto'`` and a fixed share."""
    from robustpca.datasets import load_cdnet

    clip = load_cdnet(shared_data / "video" / "highway", scale=0.25, numbers=(1100, 1199))
    X = clip.frames.astype(np.float64).reshape(len(clip.frames), -1).T
    for card in ("auto", 0.05):
        a, b = both_fits(GoDec(2, card=card, max_iter=5, random_state=0), X, 1200)
        assert_same_fit(a, b)


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire"])
def test_rrcov_tables(threads, shared_data, table):
    X = load_table(shared_data, table)
    a, b = both_fits(GoDec(1, random_state=0), X, (len(X) + 3) // 4)
    assert_same_fit(a, b)


class RerunRunner(NumpyStateRunner):
    """Runs every kernel a second time on the same input, as a ``distributed`` cluster
    recomputing a lost chunk: the input state must be left as it was, and both runs
    must give the same state and sums, to the last bit."""

    reuse_states = False

    def __call__(self, kernel, **params) -> dict:
        self.n_passes += 1
        parts = []
        for i, (a, b) in enumerate(self.bounds):
            x, state = self.X[a:b], self.states[i]
            before = pickle.dumps(state)
            first = kernel(x, state, **params)
            assert pickle.dumps(state) == before, kernel.__name__
            assert pickle.dumps(kernel(x, state, **params)) == pickle.dumps(first)
            self.states[i], part = first
            parts.append(part)
        return combine_parts(*parts)


@pytest.mark.slow
@pytest.mark.parametrize("card", [160, ResidualCutoff()], ids=["given", "auto"])
def test_kernels_can_run_again_from_their_inputs(card):
    """A cluster that loses a worker runs a pass again from its input state: the GoDec
    kernels leave it as it was (a new state list), so the fit is the same to the bit."""
    L, S, _ = planted(3, n=400, d=8, rank=2)
    X, fits = L + S, []
    for runner in (NumpyStateRunner, RerunRunner):
        run = runner(X, 70)
        run.states = list(range(len(run.states)))
        first = run(godec_first_pass)
        rng = np.random.default_rng(0)
        fits.append(solve_godec_chunked(run, first, 2, card, max_iter=8, rng=rng))
    assert fits[0].n_iter == fits[1].n_iter
    for key in ("low_rank", "sparse"):
        np.testing.assert_array_equal(fits[0].info[key], fits[1].info[key])


@pytest.mark.parametrize("offset", [1e4, 1e6])
@pytest.mark.parametrize("chunks", [25, 60])
def test_data_far_from_the_origin_give_the_numpy_fit(offset, chunks):
    """The chunked BRP step took G^(power+1) Y with no orthonormalisation between the
    power steps: far from the origin the dominant direction took the others, and card_,
    n_iter_ and sparse_ moved with the chunking (card_ 106 for 34 at one chunk)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) @ rng.normal(size=(2, 8)) + 0.05 * rng.normal(size=(60, 8))
    X[:6] += 5 * rng.normal(size=(6, 8))
    X += offset
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("always", "GoDec fits a dask array", UserWarning)
        a = GoDec(2, random_state=0).fit(X)
        b = GoDec(2, random_state=0).fit(da.from_array(X, chunks=(chunks, 8)))
    far = [w for w in seen if "far from the origin" in str(w.message)]
    assert len(far) == (offset > 1e5)  # the Gram matrix's rounding past 1e-6 of the spread
    assert (b.card_, b.n_iter_) == (a.card_, a.n_iter_)
    np.testing.assert_allclose(b.sparse_.compute(), a.sparse_, atol=1e-6 * offset)
