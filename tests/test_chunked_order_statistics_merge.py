"""Chunk-combination logic of the exact order statistics (mutation audit).

Each test compares what the passes over several uneven row chunks (one of a single
row) find with a brute-force sort of the whole data: the values at the wanted ranks,
and the counts below and equal to them that GoDec's top-k selection reads.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca.solvers import chunked_order_statistics as order_statistics
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_order_statistics import (
    GATHER_BUDGET,
    radix_level_one,
    radix_pass,
    radix_select,
    select_ranks,
)
from robustpca.solvers.chunked_state import NumpyStateRunner

#: Uneven row chunks of the 200 rows below, one of a single row.
SIZES = [37, 1, 90, 5, 67]


def _bounds(sizes):
    return list(pairwise(np.cumsum([0, *sizes]).tolist()))


def _tied_table(n=200, seed=3):
    """Three columns: integers with many ties, signed continuous values, a column of
    mostly one value."""
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [rng.integers(-4, 5, n), rng.normal(size=n), np.where(rng.random(n) < 0.8, 2.0, 7.0)]
    )
    return X.astype(np.float64)


class _Columns:
    def __call__(self, x):
        return x


@pytest.mark.parametrize("miss", ["above", "below", "at_the_upper_end"])
def test_select_ranks_recovers_from_a_guess_that_misses(monkeypatch, miss):
    """A guessed bracket that does not hold the wanted rank must be seen as a miss
    from the counts of its own pass (``below <= rank < below + inside``) and the rank
    found by counting passes. A bracket wholly above the rank (``below > rank``) would
    otherwise index the gathered values with a negative position and return a wrong
    value silently; one whose excluded upper end is the rank's own value holds one
    value too few. The other columns' brackets (the whole line) hold their ranks, so
    that only the missed one can send the selection to the counting passes."""
    X = _tied_table()
    n = X.shape[0]
    ordered = np.sort(X, axis=0)
    ranks = np.array([[10, 99, 100, 150]] * X.shape[1])
    expected = np.take_along_axis(ordered.T, ranks, axis=1)

    def guess(pilot_values, wanted, size):
        low, high = np.full(wanted.shape, -np.inf), np.full(wanted.shape, np.inf)
        values = expected[1]  # the continuous column: no ties
        if miss == "above":  # every value of the bracket above the rank's
            low[1] = values + 0.25
        elif miss == "below":  # every value of the bracket below the rank's
            high[1] = values - 0.25
        else:  # [-inf, v_(r)): exactly one value too few
            high[1] = values
        return low, high

    monkeypatch.setattr(order_statistics, "guess_brackets", guess)
    run = NumpyPassRunner(X, chunk_rows=n)
    run.bounds = _bounds(SIZES)
    got, passes = select_ranks(run, np.arange(n), _Columns(), ranks, X[::4])
    np.testing.assert_array_equal(got, expected)
    assert passes >= 2  # the guess's pass, then the counting passes


@pytest.mark.parametrize("budget", [0, 7, GATHER_BUDGET])
def test_radix_select_counts_below_and_equal_over_uneven_chunks(budget):
    """:func:`radix_select` over uneven chunks gives, per wanted rank, the value at the
    rank and the numbers of values strictly below it and equal to it (GoDec's top-k
    selection splits the ties by these counts), whether the last bin is gathered
    (small data, large budget) or every key bit is counted (budget 0)."""
    X = _tied_table()
    n, m = X.shape
    run = NumpyStateRunner(X, chunk_rows=n)
    run.bounds = _bounds(SIZES)
    run.states = [None] * len(run.bounds)
    ranks = np.array([[0] * m, [57] * m, [n - 1] * m])
    spec = radix_level_one(ranks.shape[0], m, signed=True)

    def visit(**step):
        return run(radix_pass, **step)

    got = radix_select(visit, ranks, None, spec, budget=budget)
    expected = np.take_along_axis(np.sort(X, axis=0), ranks, axis=0)
    np.testing.assert_array_equal(got.values, expected)
    np.testing.assert_array_equal(got.below, (X[None, :, :] < expected[:, None, :]).sum(axis=1))
    np.testing.assert_array_equal(got.equal, (X[None, :, :] == expected[:, None, :]).sum(axis=1))


def test_radix_select_splits_the_ties_of_one_rank_by_chunk():
    """For one wanted rank whose last bin is gathered, ``chunk_equal`` is the number of
    values equal to the selected one in each chunk (the chunk index of the records):
    GoDec takes the ties chunk by chunk in row order from it. Values below the selected
    one must not be counted as ties."""
    x = np.array([3.0, 1.0, 2.0, 2.0, 5.0, 2.0, 0.5, 2.0, 9.0, 2.0])[:, None]
    records = []
    for index, (a, b) in enumerate(_bounds([3, 1, 4, 2])):
        # non-negative values, unsigned keys: the sign bit alone is the prefix (0)
        prefix = np.zeros((1, 1), np.uint64)
        records.append(order_statistics.radix_gather(x[a:b], index, prefix=prefix, shift=63).values)
    got = order_statistics.selected_from_records(
        np.concatenate(records), np.array([[4]]), np.zeros((1, 1), np.int64)
    )
    assert got.values[0, 0] == 2.0
    assert (got.below[0, 0], got.equal[0, 0]) == (2, 5)
    assert got.chunk_equal == {0: 1, 1: 1, 2: 2, 3: 1}


def test_bracket_ranks_splits_full_bins_down_to_the_budget():
    """The counting passes split a bin holding a wanted rank until the bins hold at most
    ``budget`` values together (what the gathering pass then brings to the client),
    and every bracket still holds its rank: ``below <= rank < below + inside`` with the
    counts of all chunks added."""
    rng = np.random.default_rng(0)
    n = 3000
    X = np.column_stack([rng.normal(size=n), rng.standard_cauchy(n)])
    run = NumpyPassRunner(X, chunk_rows=n)
    run.bounds = _bounds([1, 999, 1200, 800])
    ranks = np.array([[1499, 1500], [10, 2989]])
    pilot = X[::500]  # six rows: bins of about 500 values
    brackets, passes = order_statistics.bracket_ranks(
        run, np.arange(n), _Columns(), ranks, pilot, budget=40
    )
    assert passes >= 2
    load = 0
    for j in range(2):
        column = X[:, j]
        distinct = {}
        for r in range(2):
            low, high = brackets.low[j, r], brackets.high[j, r]
            below, inside = brackets.below[j, r], brackets.inside[j, r]
            assert below == np.count_nonzero(column < low)
            assert inside == np.count_nonzero((column >= low) & (column < high))
            assert below <= ranks[j, r] < below + inside
            distinct[low] = inside
        load += sum(distinct.values())
    assert load <= 40
