"""Passes of ROBPCA and the MCD over row chunks as the rows grow (issue 41's 150,000,000
rows in at most 40 passes).

At very large ``n`` the brackets guessed from the pilot's few thousand rows hold more
rows than a pass may gather, so that every C-step would take a counting pass and a
gathering pass. The first C-step's pass gathers a large sample of the rows' ``k``
coordinates and the next C-steps guess from its distances: one pass each, with the same
fit (the pass's counts prove a bracket, else counting passes follow).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.solvers import chunked_mcd, chunked_sample, chunked_smallest_subsets
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_mcd import AffineRows, FitDistances
from robustpca.solvers.chunked_order_statistics import pilot_indices
from robustpca.solvers.chunked_rrcov import solve_robpca_chunked
from robustpca.solvers.chunked_sample import (
    SampleCollector,
    sample_brackets,
    sample_stride,
    sample_values,
)
from robustpca.solvers.chunked_shared import RideAlong
from robustpca.solvers.chunked_smallest_subsets import smallest_subsets

from .test_dask_rrcov import planted


class Logged(NumpyPassRunner):
    """The NumPy pass runner, noting each pass's kernel (``with_sample/inner``)."""

    def __init__(self, X, chunk_rows):
        super().__init__(X, chunk_rows)
        self.kernels: list[str] = []
        self.shared: list[bool] = []  # whether each pass ran through SharedPasses

    def __call__(self, kernel, rows=None, **params):
        def name(kernel, params):
            if kernel.__name__ == "with_extra":  # a kernel riding along: both
                return f"{name(params['main'], params['params'])}+{params['extra'].__name__}"
            inner = params.get("inner")
            return kernel.__name__ + (f"/{inner.__name__}" if inner else "")

        self.shared.append(kernel.__name__ == "together")
        if kernel.__name__ == "together":  # shared passes: their kernels
            self.kernels.append("+".join(sorted(name(k, p) for _, k, p in params["calls"])))
        else:
            self.kernels.append(name(kernel, params))
        return super().__call__(kernel, rows, **params)


def c_step_passes(kernels):
    """The passes from the first C-step's (the one gathering the sample) to the last."""
    first = next(i for i, k in enumerate(kernels) if "with_sample" in k)
    return kernels[first:]


def _robpca(X, chunk_rows=4000):
    run = Logged(X, chunk_rows)
    fit = solve_robpca_chunked(
        run,
        np.arange(X.shape[0]),
        *X.shape,
        2,
        kmax=2,
        max_directions=25,
        rng=np.random.default_rng(0),
    )
    return fit, run.kernels


def _no_guess(*args):
    return None


@pytest.fixture
def huge(monkeypatch):
    """The pilot's brackets too wide to gather, as at a hundred million rows."""
    monkeypatch.setattr(chunked_smallest_subsets, "_guess", _no_guess)


class _Apart(RideAlong):
    """A ride-along that never rides: the extra kernel's pass stays its own."""

    def __call__(self, kernel, rows=None, **params):
        return self.run(kernel, rows, **params)


@pytest.fixture(scope="module")
def tall_fit():
    """200,000 x 5 in chunks of 10,000 rows, fitted once with the pilot's guesses out of
    reach (``huge``): the data, the fit and the kernels of its passes."""
    X = planted(200_000, 5, 2, seed=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chunked_smallest_subsets, "_guess", _no_guess)
        fit, kernels = _robpca(X, chunk_rows=10_000)
    return X, fit, kernels


@pytest.mark.slow
def test_c_steps_take_one_pass_each_after_the_first(huge, monkeypatch):
    """With the pilot's guesses out of reach, the C-steps (ROBPCA's in ``k`` dimensions,
    and FAST-MCD's candidates in the same passes) cost one pass each after the first,
    which gathers the sample; without the sample each costs two (counting, gathering).
    The fits agree."""
    X = planted(40_000, 5, 2)
    fit, kernels = _robpca(X)
    steps = c_step_passes(kernels)
    assert sum("with_sample" in k for k in kernels) == 1  # both computations' first
    assert "histogram" in steps[0]
    for k in steps[1:]:
        assert set(k.split("+")) <= {"subset_pass", "_moments_below_pass"}, k
    assert "_moments_below_pass" in steps[-1] and len(steps) >= 4
    monkeypatch.setattr(chunked_mcd, "sample_stride", lambda n, k: n + 1)
    import robustpca.solvers.chunked_rrcov as chunked_rrcov

    monkeypatch.setattr(chunked_rrcov, "sample_stride", lambda n, k: n + 1)
    slow, slow_kernels = _robpca(X)
    assert slow.n_passes > fit.n_passes
    assert sum("histogram_pass" in k for k in c_step_passes(slow_kernels)) > 1
    # the same rows; their sums differ in order (another bracket splits them otherwise)
    np.testing.assert_allclose(slow.eigenvalues, fit.eigenvalues, rtol=1e-12)
    np.testing.assert_allclose(slow.components, fit.components, atol=1e-12)
    np.testing.assert_allclose(slow.mean, fit.mean, rtol=1e-12)
    member = [f.support(X, np.arange(X.shape[0])) for f in (fit, slow)]
    np.testing.assert_array_equal(*member)


@pytest.mark.slow
def test_c_steps_on_a_thinned_sample(huge, monkeypatch):
    """A sample of every 30th row or so (as at a hundred million rows): its wider
    guesses still hold the wanted ranks, one pass per C-step, and the fit is the same
    as with every row in the sample."""
    X = planted(40_000, 5, 2, seed=2)
    full, _ = _robpca(X)
    monkeypatch.setattr(chunked_sample, "SAMPLE_VALUES", 1 << 14)
    assert sample_stride(X.shape[0], 2) >= 20
    thin, kernels = _robpca(X)
    for k in c_step_passes(kernels)[1:]:
        assert set(k.split("+")) <= {"subset_pass", "_moments_below_pass"}, k
    np.testing.assert_allclose(thin.eigenvalues, full.eigenvalues, rtol=1e-12)
    np.testing.assert_allclose(thin.components, full.components, atol=1e-12)
    member = [f.support(X, np.arange(X.shape[0])) for f in (full, thin)]
    np.testing.assert_array_equal(*member)


@pytest.mark.slow
def test_pass_count_of_a_tall_table(tall_fit):
    """200,000 x 5 in chunks of 10,000 rows with the pilot's guesses out of reach: the
    first pass; the outlyingness (the projections' univariate MCD: binned sums, the
    window's values, the scaled residuals' bracket, the reweighted sums; the h-subset:
    counting, gathering); the orthogonal distances (four, and the rows within the
    cutoff); then the C-steps, ROBPCA's and FAST-MCD's in the same passes: the first
    C-step's counting pass, one pass per C-step of the longer of the two, FAST-MCD's
    reweighting riding along with its last. At most 14 passes before the C-steps; the
    C-steps' passes are those of the longer computation, not the sum."""
    _, fit, kernels = tall_fit
    steps = c_step_passes(kernels)
    assert fit.n_passes == len(kernels)
    shared = [k for k in steps if "+" in k]
    assert shared and all("subset_pass" in k.split("+") for k in shared[1:])
    assert all(set(k.split("+")) <= {"subset_pass", "_moments_below_pass"} for k in shared[1:])
    assert "subset_pass" in steps[-1]  # no pass of its own for the reweighting
    assert fit.n_passes - len(steps) <= 14
    alone = sum(k.count("subset_pass") for k in steps)
    assert len(steps) < alone  # sharing saves the shorter computation's passes


@pytest.mark.slow
def test_the_reweighting_rides_along_with_the_last_c_step(tall_fit, huge, monkeypatch):
    """FAST-MCD reweights its best fit so far in the pass of each C-step; when no fit
    moves, that is the final fit (the same h-subset), so the reweighting takes no pass
    of its own: one pass fewer, the same fit and support as a pass of its own."""
    X, fit, _ = tall_fit

    monkeypatch.setattr(chunked_mcd, "RideAlong", _Apart)
    apart, apart_kernels = _robpca(X, chunk_rows=10_000)
    reweighting = [k for k in c_step_passes(apart_kernels) if "_moments_below_pass" in k]
    assert reweighting == ["_moments_below_pass"] == apart_kernels[-1:]
    assert fit.n_passes == apart.n_passes - 1
    np.testing.assert_array_equal(fit.eigenvalues, apart.eigenvalues)
    np.testing.assert_array_equal(fit.components, apart.components)
    np.testing.assert_array_equal(fit.mean, apart.mean)
    index = np.arange(X.shape[0])
    np.testing.assert_array_equal(fit.support(X, index), apart.support(X, index))


def test_ride_along_runs_its_kernel_in_the_next_pass_only():
    """The extra kernel's results come back apart from the main kernel's, from one pass."""
    X = np.arange(20.0).reshape(10, 2)
    run = NumpyPassRunner(X, chunk_rows=3)

    def total(x, rows=None, *, scale):
        return {"s": scale * x.sum()}

    ride = RideAlong(run, total, scale=2.0)
    assert ride(total, None, scale=1.0) == {"s": X.sum()}
    assert ride.result == {"s": 2.0 * X.sum()} and run.n_passes == 1
    assert ride(total, None, scale=3.0) == {"s": 3.0 * X.sum()} and run.n_passes == 2
    assert ride.result == {"s": 2.0 * X.sum()}


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(80, 400),
    B=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
    shift=st.floats(-3, 3),
    data=st.data(),
)
def test_smallest_subsets_are_exact_whatever_the_sample(n, B, seed, ties, shift, data):
    """The ``h`` rows of least value per column (ties by row index) and their moments,
    whatever sample guides the brackets: a good one, a shifted one, a constant one."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 2))
    means = rng.normal(size=(B, 2))
    precisions = np.repeat(np.eye(2)[None], B, axis=0)
    values = FitDistances(AffineRows(), means, precisions)
    h = data.draw(st.integers(n // 2 + 1, n - 1))
    guide = values(X[rng.integers(0, n, size=data.draw(st.integers(64, 2 * n)))]) + shift
    if data.draw(st.booleans()):
        guide = np.zeros_like(guide)
    run = NumpyPassRunner(X, chunk_rows=data.draw(st.integers(1, n)))
    subsets, moments, _ = smallest_subsets(
        run, np.arange(n), AffineRows(), values, h, X[pilot_indices(n)], guide=guide
    )
    V = values(X)
    for f in range(B):
        chosen = np.sort(np.argsort(V[:, f], kind="stable")[:h])
        member = np.flatnonzero(subsets[f].member(X, np.arange(n)))
        np.testing.assert_array_equal(member, chosen)
        np.testing.assert_allclose(moments[f].mean, X[chosen].mean(axis=0), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(P=st.integers(64, 5000), B=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_sample_brackets_hold_the_samples_own_rank(P, B, seed):
    """The brackets of a sample from distinct values hold the sample's own quantile of
    the wanted rank (two ranks each side at least), and None where they would hold more
    rows than allowed."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(P, B)).astype(np.float32)
    n = 10 * P
    h = int(rng.integers(n // 2 + 1, n))
    low, high = sample_brackets(values, h, n, np.inf)
    ordered = np.sort(values, axis=0)
    at = min(int((h - 0.5) / n * P), P - 1)
    assert np.all(low <= ordered[at]) and np.all(ordered[at] < high)
    assert sample_brackets(values, h, n, 1.0) is None


def test_sample_collector_gathers_every_stride_th_row_once():
    """The sample is the coordinates of the rows whose index is a multiple of the
    stride, in row order, gathered by the first pass only; the stride keeps the sample
    and its distances under ten fits within the budget."""
    X = np.arange(30.0).reshape(10, 3)
    run = Logged(X, 3)
    collect = SampleCollector(run, AffineRows(np.zeros(3), np.eye(3)[:, :2], np.zeros(2)), 4)
    collect(chunked_mcd._moments_below_pass, np.arange(10), values=lambda x: x, cutoff=0.0,
            coords=AffineRows())  # fmt: skip
    collect(chunked_mcd._moments_below_pass, np.arange(10), values=lambda x: x, cutoff=0.0,
            coords=AffineRows())  # fmt: skip
    assert run.kernels == ["with_sample/_moments_below_pass", "_moments_below_pass"]
    np.testing.assert_array_equal(collect.sample, X[[0, 4, 8], :2].astype(np.float32))
    assert collect.sample.dtype == np.float32
    n, k = 150_000_000, 3
    P = n // sample_stride(n, k)
    assert P * (k + chunked_sample.SAMPLE_FITS) <= chunked_sample.SAMPLE_VALUES
    assert sample_values(lambda z: z[:, :1] * 2, X[:, :2], block=4).shape == (10, 1)


def test_sample_brackets_narrow_to_the_budget():
    """Where the full brackets would hold more rows than allowed, they narrow (down to
    ``SAMPLE_Z_LEAST`` standard errors), holding at most the rows allowed by the
    sample's count; below that, no guess."""
    P, B, n = 20_000, 10, 3_000_000
    values = np.random.default_rng(5).random(size=(P, B), dtype=np.float32)
    h = (3 * n) // 4
    wide = sample_brackets(values, h, n, np.inf)
    held = float(np.sum(np.mean((values >= wide[0]) & (values < wide[1]), axis=0))) * n
    rows = 0.85 * held
    low, high = sample_brackets(values, h, n, rows)
    assert np.all(low > wide[0]) and np.all(high < wide[1])
    assert float(np.sum(np.mean((values >= low) & (values < high), axis=0))) * n <= rows
    assert sample_brackets(values, h, n, 0.6 * held) is None  # under 3 of 4 errors


def _sums(x, rows=None, *, times):
    return {"sum": x.sum(axis=0) * times}


def test_shared_passes_run_together_and_pass_errors_on():
    """Two computations in threads share their passes: the passes run are those of the
    longer one, each result is its own kernel's; an error in either is raised in the
    main thread (and does not hang the other)."""
    import threading

    from robustpca.solvers.chunked_shared import SharedPasses

    X = np.arange(12.0).reshape(6, 2)
    run = Logged(X, 2)
    shared = SharedPasses(run, 2)
    got: dict = {0: [], 1: []}

    def work(slot, times, count):
        call = shared.runner(slot)
        for _ in range(count):
            got[slot].append(call(_sums, np.arange(6), times=times)["sum"])
        return slot

    worker = threading.Thread(target=shared.serve, args=(1, work, 1, 2.0, 5))
    worker.start()
    assert shared.serve(0, work, 0, 1.0, 3) == 0
    worker.join()
    assert shared.passes == 5 and run.kernels.count("_sums+_sums") == 3
    np.testing.assert_array_equal(got[0][-1], X.sum(axis=0))
    np.testing.assert_array_equal(got[1][-1], 2 * X.sum(axis=0))

    # computations passing different per-row arrays get a pass each, with their own
    apart = SharedPasses(Logged(X, 2), 2)
    own: dict = {}

    def weighted(x, rows=None):
        return {"sum": (x * rows[:, None]).sum(axis=0)}

    def rows_of(slot, rows):
        own[slot] = apart.runner(slot)(weighted, rows)["sum"]

    ones, ramp = np.ones(6), np.arange(6.0)
    other = threading.Thread(target=apart.serve, args=(1, rows_of, 1, ramp))
    other.start()
    apart.serve(0, rows_of, 0, ones)
    other.join()
    assert apart.passes == 2
    np.testing.assert_array_equal(own[0], X.sum(axis=0))
    np.testing.assert_array_equal(own[1], (X * ramp[:, None]).sum(axis=0))

    def fails(slot):
        shared.runner(slot)(_sums, np.arange(6), times=1.0)
        raise ValueError("broken")

    shared = SharedPasses(Logged(X, 2), 2)
    worker = threading.Thread(target=shared.serve, args=(1, fails, 1))
    worker.start()
    with pytest.raises(RuntimeError):
        shared.serve(0, work, 0, 1.0, 4)
    worker.join()
    with pytest.raises(ValueError, match="broken"):
        shared.check()


def test_fast_mcd_runs_after_c_steps_that_lose_rank(monkeypatch):
    """Where ROBPCA's C-steps end in fewer coordinates than they began with, FAST-MCD's
    fit from the shared passes is dropped and FAST-MCD runs after them, on the
    remaining coordinates, from the generator as the C-steps left it (untouched)."""
    import robustpca.solvers.chunked_rrcov as chunked_rrcov

    real = chunked_rrcov._c_steps

    def dropping(*args):
        X2, shift, rot, on_sample, _, ranked = real(*args)
        keep = np.eye(X2.A.shape[1])[:, :1]
        zero = np.zeros(X2.A.shape[1])
        return X2.then(zero, keep), shift, rot @ keep, on_sample.then(zero, keep), None, ranked

    X = planted(20_000, 5, 2)
    monkeypatch.setattr(chunked_rrcov, "_c_steps", dropping)
    run = Logged(X, 4000)
    fit = solve_robpca_chunked(
        run, np.arange(X.shape[0]), *X.shape, 2, kmax=2, max_directions=25,
        rng=np.random.default_rng(0),
    )  # fmt: skip
    last = max(i for i, shared in enumerate(run.shared) if shared)
    after = run.kernels[last + 1 :]
    # one coordinate left: robustbase's univariate MCD (window, subset, reweighting)
    assert after == ["histogram_pass", "gather_pass", "_member_moments_pass",
                     "_moments_below_pass"]  # fmt: skip
    assert not any(run.shared[last + 1 :])
    assert fit.eigenvalues.shape == (1,) and np.all(np.isfinite(fit.eigenvalues))
    assert fit.n_passes == len(run.kernels)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 5000), share=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_permutation_head_draws_as_numpy_permutation(n, share, seed):
    """The nested subsample's rows are ``rng.permutation(n)``'s first ones, and the
    generator is left where the permutation leaves it (the MCD's next draws follow)."""
    from robustpca.solvers.permutation_head import permutation_head

    size = int(share * n)
    ours, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    head = permutation_head(ours, n, size)
    np.testing.assert_array_equal(head, numpy_rng.permutation(n)[:size])
    assert head.dtype == np.int64
    assert ours.bit_generator.state == numpy_rng.bit_generator.state


def test_permutation_head_from_the_same_state_needs_no_permutation():
    """Drawn again from the same state (ahead for the first pass, then in the MCD), the
    head and the state after it are the first draw's, without an n-sized array."""
    import tracemalloc

    from robustpca.solvers.permutation_head import permutation_head

    n = 2_000_000
    first, again = np.random.default_rng(5), np.random.default_rng(5)
    head = permutation_head(first, n, 1500)
    tracemalloc.start()
    repeat = permutation_head(again, n, 1500)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1e6  # the permutation itself would be 8 MB
    np.testing.assert_array_equal(repeat, head)
    assert again.bit_generator.state == first.bit_generator.state
    np.testing.assert_array_equal(again.random(3), first.random(3))
    repeat[0] = -1  # the caller's copy
    np.testing.assert_array_equal(permutation_head(np.random.default_rng(5), n, 1500), head)


@pytest.mark.parametrize("max_steps", [1, 2, 3])
def test_the_reweighting_of_fits_still_moving_takes_its_own_pass(monkeypatch, max_steps):
    """Out of C-steps with fits still moving, the reweighting ridden along is of a fit
    that moved after it: the reweighting takes a pass of its own, on the final fit, and
    the MCD equals the one whose reweighting never rides along."""
    X = planted(20_000, 4, 2, seed=3)
    index = np.arange(X.shape[0])

    def fit():
        run = Logged(X, 2000)
        out, passes = chunked_mcd.mcd_chunked(
            run, index, AffineRows(), 4, X.shape[0], 0.75, n_starts=50,
            rng=np.random.default_rng(0), pilot_x=X[pilot_indices(X.shape[0])],
            max_steps=max_steps,
        )  # fmt: skip
        return out, passes, run.kernels

    riding, passes, kernels = fit()
    assert kernels[-1] == "_moments_below_pass" and passes == len(kernels)

    monkeypatch.setattr(chunked_mcd, "RideAlong", _Apart)
    apart, apart_passes, _ = fit()
    assert apart_passes == passes
    np.testing.assert_array_equal(riding.location, apart.location)
    np.testing.assert_array_equal(riding.covariance, apart.covariance)
    np.testing.assert_array_equal(riding.support_mask(X, index), apart.support_mask(X, index))
