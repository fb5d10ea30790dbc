"""Fits with gaps on a table holding an exact (scaled) copy of one of its columns.

Usage (from the repository root)::

    python benchmarks/bench_missing_copies.py           # every estimator that takes NaN
    python benchmarks/bench_missing_copies.py --quick   # 3 estimators, 2 masks

The rules that keep rows fitted exactly out of the fits with gaps count a row's
informative coordinates: its observed entries outside constant columns
(:mod:`robustpca.solvers.informative_coordinates`). A copy of a column, or an affine
function of one, is not recognised: a row observing both copies and at most ``k``
other coordinates is fitted exactly without being counted so. This measures what that
costs: rrcov's ``hbk`` (``ROBUSTPCA_DATA`` or ``../shared/data``; ``k = 2``) as it is,
with a fourth column ``2.54`` times the first, and with an exact copy of it; for each,
the same masks (15% of the cells of the four-column shape, seeds 0-4; the three-column
table takes the mask's first three columns), every estimator at its defaults with
``n_components=2`` and ``random_state=0``. Reported: how many masks converged
(``converged_``), and the largest ``n_iter_``.

Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import robustpca
from _rrcov import rrcov_tables

SHARE = 0.15
FACTOR = 2.54


def estimators_with_gaps() -> list[str]:
    """The exported estimators that fit data with NaN."""
    return [
        name
        for name in robustpca.ESTIMATOR_NAMES
        if getattr(getattr(robustpca, name), "_supports_missing", False)
    ]


def variants(X: np.ndarray) -> dict[str, np.ndarray]:
    return {
        "as is": X,
        f"+ {FACTOR} x column 0": np.c_[X, FACTOR * X[:, 0]],
        "+ copy of column 0": np.c_[X, X[:, 0]],
    }


def fit(name: str, X: np.ndarray):
    cls = getattr(robustpca, name)
    params: dict = {"n_components": 2}
    if "random_state" in inspect.signature(cls).parameters:
        params["random_state"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**params).fit(X)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 estimators, 2 masks")
    args = parser.parse_args(argv)
    names = ["PCA", "OptimalMeanPCA", "ROBPCA"] if args.quick else estimators_with_gaps()
    seeds = range(2 if args.quick else 5)
    X = rrcov_tables(["hbk"])["hbk"]
    data = variants(X)
    masks = [np.random.default_rng(s).random((X.shape[0], X.shape[1] + 1)) < SHARE for s in seeds]
    results: dict = {}
    print("| estimator | " + " | ".join(data) + " |")
    print("|---|" + "---|" * len(data))
    for name in names:
        cells = []
        for label, table in data.items():
            fits = []
            for mask in masks:
                Xg = table.copy()
                Xg[mask[:, : table.shape[1]]] = np.nan
                fits.append(fit(name, Xg))
            converged = sum(bool(m.converged_) for m in fits)
            longest = max(int(m.n_iter_) for m in fits)
            results[(name, label)] = {
                "converged": converged, "masks": len(fits), "max_iter": longest,
            }  # fmt: skip
            cells.append(f"{converged}/{len(fits)} (up to {longest})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return results


if __name__ == "__main__":
    main()
