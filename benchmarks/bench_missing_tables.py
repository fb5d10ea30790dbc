"""Filling held-out cells of real tables: our estimators' ``reconstruct`` against
scikit-learn's imputers, one run.

Usage (from the repository root; the ADBench tables of ``$ROBUSTPCA_DATA/adbench`` or
``../shared/data/adbench``)::

    python benchmarks/bench_missing_tables.py                      # the default tables
    python benchmarks/bench_missing_tables.py --tables 14_glass --estimators PCA ROBPCA
    python benchmarks/bench_missing_tables.py --json out.json

Protocol: the columns scaled by their median and MAD (as the outlier benchmark); a share
of the cells (``--share``, 10%) hidden at random (seeded; no row loses every cell); each
method fills them (ours: ``reconstruct`` at rank ``--k``; scikit-learn's
``SimpleImputer(strategy="median")``, ``KNNImputer()`` and ``IterativeImputer``). The
error is the RMSE of the filled cells of the rows labelled inliers, in units of their
column's standard deviation over the inliers. A measurement, not a test: the fills of a
rank-``k`` model are only as good as the table's low-rank structure, and these tables
were not chosen for one.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer, KNNImputer, SimpleImputer

import bench_outliers as bench
import robustpca

TABLES = ["14_glass", "15_Hepatitis", "18_Ionosphere", "29_Pima", "4_breastw"]
#: our estimators that fit NaN, but CovariancePCA (its refits can take minutes on
#: discrete tables) and the online ones (a stream, not a table's fill)
ESTIMATORS = [
    "PCA",
    "OptimalMeanPCA",
    "R1PCA",
    "HQPCA",
    "ROBPCA",
    "SphericalPCA",
    "PrincipalComponentPursuit",
    "AccAltProj",
    "GoDec",
]
IMPUTERS = {
    "median (scikit-learn)": lambda: SimpleImputer(strategy="median"),
    "KNN (scikit-learn)": lambda: KNNImputer(),
    "iterative (scikit-learn)": lambda: IterativeImputer(random_state=0),
}


def hide(X: np.ndarray, share: float, seed: int) -> np.ndarray:
    """A mask of ``share`` of the cells, at random; no row left without a cell."""
    mask = np.random.default_rng(seed).random(X.shape) < share
    mask[mask.all(axis=1)] = False
    return mask


def fill_error(filled, X, mask, inliers) -> float:
    """RMSE of the hidden cells of the inlier rows, in units of their columns' SD."""
    sd = X[inliers].std(axis=0)
    sd[sd == 0] = 1.0
    cells = mask & inliers[:, None]
    return float(np.sqrt(np.mean((((filled - X) / sd)[cells]) ** 2)))


def _ours(name: str, k: int):
    model = getattr(robustpca, name)(n_components=k)
    if "random_state" in model.get_params():
        model.set_params(random_state=0)

    def fill(X_gaps):
        return np.where(np.isnan(X_gaps), model.fit(X_gaps).reconstruct(X_gaps), X_gaps)

    return fill


def measure(table: str, estimators, k: int, share: float, seed: int, folder=None) -> dict:
    """The fill error and time of each method on one table."""
    X, y = bench.load_table(table, folder)
    X = bench.scale_columns(X)
    mask = hide(X, share, seed)
    X_gaps = np.where(mask, np.nan, X)
    methods = {name: (lambda make=make: make().fit_transform) for name, make in IMPUTERS.items()}
    methods.update({name: _ours(name, k) for name in estimators})
    out = {}
    for name, fill in methods.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            filled = fill()(X_gaps) if name in IMPUTERS else fill(X_gaps)
        out[name] = {
            "rmse": fill_error(filled, X, mask, y == 0),
            "seconds": time.perf_counter() - start,
        }
    return out


def table_markdown(results: dict) -> str:
    """Methods by rows, tables by columns: the RMSE of each fill."""
    tables = list(results)
    methods = list(results[tables[0]])
    lines = ["| method | " + " | ".join(tables) + " |", "|---|" + "---:|" * len(tables)]
    for m in methods:
        cells = " | ".join(f"{results[t][m]['rmse']:.2f}" for t in tables)
        lines.append(f"| {m} | {cells} |")
    return "\n".join(lines)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", nargs="+", default=TABLES)
    parser.add_argument("--estimators", nargs="+", default=ESTIMATORS)
    parser.add_argument("--k", type=int, default=3, help="the rank of our fits (3)")
    parser.add_argument("--share", type=float, default=0.1, help="cells hidden (0.1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", default=None, help="a folder of ADBench .npz tables")
    parser.add_argument("--json", default=None, help="write the results there")
    args = parser.parse_args(argv)
    results = {
        t: measure(t, args.estimators, args.k, args.share, args.seed, args.folder)
        for t in args.tables
    }
    print(table_markdown(results))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    return results


if __name__ == "__main__":
    main()
