"""Per-row values computed on the same row blocks by every kernel and every pass.

BLAS may round a row's product differently with the shape of the block holding it
(OpenBLAS does: a chunk of 50,000 rows projected on 250 directions by blocks of 8,388
rows and by blocks of 4,194 rows gave 66 rows that differ in the last bit). The chunked
rrcov family counts values in one pass and gathers or selects by them in another, so a
row's value must be the same number in all of them: the kernels evaluate values on
:func:`~robustpca.solvers.chunked.value_blocks` or runs of them, and the maps computed
with BLAS evaluate themselves on value blocks whatever rows they are given.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from robustpca.solvers.chunked import VALUE_BLOCK_ROWS, by_value_blocks, value_blocks, value_runs
from robustpca.solvers.chunked_histogram import histogram_pass
from robustpca.solvers.chunked_mcd import (
    AffineRows,
    FitDistances,
    _moments_below_pass,
    _RawDistances,
)
from robustpca.solvers.chunked_order_statistics import gather_pass
from robustpca.solvers.chunked_rrcov import (
    DiagonalDistance,
    OrthogonalDistance,
    Outlyingness,
    Projections,
)
from robustpca.solvers.chunked_skew import AdjustedRows, fence_pass
from robustpca.solvers.chunked_smallest_subsets import Subset, subset_pass
from robustpca.solvers.chunked_unimcd import reweighted_sums_pass
from robustpca.solvers.outlyingness import AdjustedOutlyingness

ROWS = 3 * VALUE_BLOCK_ROWS + 123


class Recording:
    """A map of two columns that evaluates itself on value blocks, as the maps computed
    with BLAS do; records the rows of every block it computes."""

    def __init__(self, width: int = 2) -> None:
        self.blocks: list[tuple[int, int]] = []
        self.width = width

    def __call__(self, x):
        return by_value_blocks(self._block, x)

    def _block(self, x):
        first = int(x[0, 0]) if x.shape[0] else 0
        self.blocks.append((first, first + x.shape[0]))
        return x[:, 1 : 1 + self.width]


def _chunk():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(ROWS, 8))
    x[:, 0] = np.arange(ROWS)
    return x, np.arange(ROWS)


def test_value_blocks_bound_the_rows():
    x = np.zeros((ROWS, 6))
    bounds = value_blocks(x)
    assert bounds[0] == (0, VALUE_BLOCK_ROWS) and bounds[-1][1] == ROWS
    assert all(b == c for (_, b), (c, _) in itertools.pairwise(bounds))
    assert value_blocks(np.zeros((0, 6))) == [(0, 0)]
    wide = value_blocks(np.zeros((1000, 100_000)))  # fewer rows for wide rows
    assert wide[0] == (0, 64)


@pytest.mark.parametrize(("width", "values"), [(1, 1 << 20), (250, 1 << 18), (10**6, 1)])
def test_value_runs_join_whole_value_blocks(width, values):
    x = np.zeros((ROWS, 6))
    blocks, runs = value_blocks(x), value_runs(x, width, values)
    starts, ends = {a for a, _ in blocks}, {b for _, b in blocks}
    assert runs[0][0] == 0 and runs[-1][1] == ROWS
    assert all(a in starts and b in ends for a, b in runs)
    assert all(b == c for (_, b), (c, _) in itertools.pairwise(runs))


@pytest.mark.parametrize(
    "kernel",
    [
        lambda x, rows, v: histogram_pass(
            x, rows, values=v, edges=np.array([[0.0, 1.0], [-1.0, np.inf]]), shift=np.zeros(2)
        ),
        lambda x, rows, v: gather_pass(
            x, rows, values=v, low=np.full((2, 1), 0.0), high=np.full((2, 1), 0.01)
        ),
        lambda x, rows, v: reweighted_sums_pass(
            x, rows, values=v, centre=np.zeros(2), var=np.ones(2), factor=np.ones(2), cutoff=3.0
        ),
        lambda x, rows, v: subset_pass(
            x, rows, values=v, coords=AffineRows(), low=np.zeros(2), high=np.full(2, 0.01)
        ),
        lambda x, rows, v: _moments_below_pass(x, rows, values=v, cutoff=0.0, coords=AffineRows()),
        lambda x, rows, v: fence_pass(
            x,
            rows,
            projections=v,
            median=np.zeros(2),
            upper_fence=np.ones(2),
            lower_fence=-np.ones(2),
        ),
    ],
    ids=["histogram", "gather", "reweighted", "subset", "moments_below", "fence"],
)
def test_kernels_evaluate_values_on_value_blocks(kernel):
    x, rows = _chunk()
    recording = Recording()
    kernel(x, rows, recording)
    assert recording.blocks == value_blocks(x)


def _maps():
    rng = np.random.default_rng(1)
    d, k = 20, 12
    coords = AffineRows(rng.normal(size=d), rng.normal(size=(d, k)), rng.normal(size=k))
    directions = rng.normal(size=(250, k))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    projections = Projections(coords, directions)
    covariance = np.cov(rng.normal(size=(50, k)), rowvar=False)
    basis = np.linalg.qr(rng.normal(size=(k, 5)))[0]
    model = AdjustedOutlyingness(directions.T, np.zeros(250), np.ones(250), np.ones(250))
    return {
        "coords": coords,
        "projections": projections,
        "outlyingness": Outlyingness(projections, np.zeros(250), np.ones(250)),
        "orthogonal": OrthogonalDistance(coords, np.zeros(k), basis),
        "diagonal": DiagonalDistance(coords, np.ones(k)),
        "fit_distances": FitDistances(
            coords, rng.normal(size=(4, k)), np.stack([np.linalg.inv(covariance)] * 4)
        ),
        "raw_distances": _RawDistances(coords, np.zeros(k), covariance),
        "adjusted": AdjustedRows(coords, model),
    }


@pytest.mark.parametrize("name", sorted(_maps()))
def test_maps_give_a_chunk_the_numbers_of_its_value_blocks(name):
    """A map given a whole chunk returns, bit for bit, what the kernels get from it on
    the chunk's value blocks; a row's value does not depend on who asks for it."""
    values = _maps()[name]
    x = np.random.default_rng(2).normal(size=(ROWS, 20))
    whole = values(x)
    blocks = np.concatenate([values(x[a:b]) for a, b in value_blocks(x)])
    np.testing.assert_array_equal(whole, blocks)


def test_subset_membership_matches_the_subset_pass():
    """The rows a subset holds (the recipe of the fitted ``h_subset_``) are those the
    subset pass counted below its bracket, on a whole chunk as on its blocks."""
    maps = _maps()
    x, rows = np.random.default_rng(3).normal(size=(ROWS, 20)), np.arange(ROWS)
    values = maps["fit_distances"]
    low = np.quantile(values(x), 0.5, axis=0)
    out = subset_pass(x, rows, values=values, coords=maps["coords"], low=low, high=low)
    for f in range(low.size):
        member = Subset(values, f, float(low[f]), np.array([], dtype=int)).member(x, rows)
        assert out[f"m{f}"].count == member.sum()


def test_by_value_blocks_keeps_row_order():
    x = np.arange(2 * ROWS, dtype=float).reshape(ROWS, 2)
    np.testing.assert_array_equal(by_value_blocks(lambda b: b[:, ::-1], x), x[:, ::-1])


def test_subset_pass_records_the_maps_numbers():
    """The subset pass reads the distances from the coordinates it already has (one
    product a run, not two): its values are still those of the map on value blocks."""
    maps = _maps()
    x, rows = np.random.default_rng(4).normal(size=(ROWS, 20)), np.arange(ROWS)
    values = maps["fit_distances"]
    B = values.means.shape[0]
    out = subset_pass(
        x, rows, values=values, coords=maps["coords"], low=np.zeros(B), high=np.full(B, np.inf)
    )
    records = out["records"].values
    expected = values(x)[records[:, 3].astype(int), records[:, 0].astype(int)]
    np.testing.assert_array_equal(records[:, 2], expected)
