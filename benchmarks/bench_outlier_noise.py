"""How much the outlier benchmark's mean AUC moves with the seed and the order of the rows.

Usage (from the repository root)::

    python benchmarks/bench_outlier_noise.py                  # 10 repeats, about 5 minutes
    python benchmarks/bench_outlier_noise.py --repeats 3 --json noise.json

A detector's result on a table depends on arbitrary choices besides the data: its seed
(IForest's trees, ROBPCA's random directions and FAST-MCD starts) and, where values tie,
the order of the rows (ROBPCA's h-subset takes the ``h`` least outlying rows, ties by
row order, as rrcov does). Repeat ``r`` permutes each table's rows by ``r``
(``numpy.random.default_rng(r)``; repeat 0 keeps them) and fits each detector with
``random_state=r``, under :mod:`bench_outliers`' protocol (median/MAD scaling, every
row, ROC AUC against the labels). It reports, per detector, the mean AUC over the
tables at each repeat (their mean, spread and range), and for each pair against the
first detector the paired difference of the means: how often a repeat puts the first
ahead. Then the tables whose AUC moves most.

So it says whether a difference between two detectors' means on the 25 tables is larger
than what the seeds and the row order alone produce.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_outliers import PYOD, load_table, scale_columns, table_names

#: the detectors by default: the recommended configuration and the best pyod detector
DEFAULT = ("ROBPCA(n_components=0.95)", "IForest")


def resolve(name: str) -> tuple[str, str]:
    """``(library, spelling)`` of a detector name (:func:`make`)."""
    import robustpca

    library, _, rest = name.partition(" ")
    if library in ("pyod", "robustpca") and rest:
        return library, rest
    return ("robustpca" if hasattr(robustpca, name.split("(")[0]) else "pyod"), name


def make(name: str, seed: int):
    """A fresh detector ``name`` with ``random_state=seed``: robustpca's, spelled as a
    call (``"ROBPCA(n_components=0.95)"``), or pyod's; ``"pyod X"`` and ``"robustpca
    X"`` say which, and a bare name is robustpca's where it has a class of that name."""
    import importlib

    import robustpca

    library, rest = resolve(name)
    if library == "pyod":  # random_state where the detector takes one (KNN, HBOS do not)
        model = getattr(importlib.import_module(PYOD[rest]), rest)()
        if "random_state" in model.get_params():
            model.set_params(random_state=seed)
        return model
    call = ast.parse(rest, mode="eval").body  # "ROBPCA" or "ROBPCA(n_components=0.95)"
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        cls_name = call.func.id
        params = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    else:
        cls_name, params = rest, {}
    return getattr(robustpca, cls_name)(random_state=seed, **params)


def auc_of(name: str, X: np.ndarray, y: np.ndarray, seed: int) -> float:
    """ROC AUC of detector ``name`` fitted on ``X`` (higher score = more outlying), on
    one BLAS thread. An error or a non-finite score is a failure, counted as 0.5 (a
    random ranking, as ``bench_outlier_candidates.compare`` counts it) and printed."""
    from sklearn.metrics import roc_auc_score
    from threadpoolctl import threadpool_limits

    try:
        with warnings.catch_warnings(), threadpool_limits(1):
            warnings.simplefilter("ignore")
            model = make(name, seed).fit(X)
            if hasattr(model, "decision_scores_"):
                score = np.asarray(model.decision_scores_, dtype=np.float64)
            else:
                score = -np.asarray(model.decision_function(X), dtype=np.float64)
        if not np.all(np.isfinite(score)):
            raise ValueError("non-finite scores")
    except Exception as exc:  # a failure is a measurement
        print(f"  {name} failed (counted as AUC 0.5): {type(exc).__name__}: {exc}", flush=True)
        return 0.5
    return float(roc_auc_score(y, score))


def run(detectors, tables, repeats: int, folder=None) -> dict:
    """``{detector: {table: [AUC at repeat 0, 1, ...]}}``."""
    out: dict[str, dict[str, list[float]]] = {d: {} for d in detectors}
    for table in tables:
        X, y = load_table(table, folder)
        X = scale_columns(X, "robust")
        for r in range(repeats):
            order = (
                np.arange(X.shape[0])
                if r == 0
                else np.random.default_rng(r).permutation(X.shape[0])
            )
            for d in detectors:
                out[d].setdefault(table, []).append(auc_of(d, X[order], y[order], r))
        print(table, *(f"{d}: {np.mean(out[d][table]):.3f}" for d in detectors), flush=True)
    return out


def report(results: dict) -> str:
    """Markdown: the spread of each detector's mean AUC over the repeats, the paired
    differences to the first detector, and the five tables that move most."""
    names = list(results)
    means = {d: np.mean(np.array(list(results[d].values())), axis=0) for d in names}
    lines = [
        "| detector | mean AUC over the repeats | SD | range |",
        "|---|---:|---:|---:|",
    ]
    for d in names:
        m = means[d]
        lines.append(
            f"| {d} | {m.mean():.4f} | {m.std(ddof=1):.4f} | {m.min():.4f}-{m.max():.4f} |"
        )
    first = names[0]
    lines += [
        "",
        "| difference | mean | SD | repeats with the first ahead |",
        "|---|---:|---:|---:|",
    ]
    for d in names[1:]:
        diff = means[first] - means[d]
        lines.append(
            f"| {first} - {d} | {diff.mean():+.4f} | {diff.std(ddof=1):.4f} | "
            f"{int(np.sum(diff >= 0))} of {diff.size} |"
        )
    lines += ["", "| table | " + " | ".join(f"{d} SD (range)" for d in names) + " |"]
    lines.append("|---|" + "---:|" * len(names))
    spread = {t: max(np.ptp(results[d][t]) for d in names) for t in results[first]}
    for t in sorted(spread, key=spread.get, reverse=True)[:5]:
        cells = []
        for d in names:
            values = results[d][t]
            cells.append(f"{np.std(values, ddof=1):.3f} ({min(values):.3f}-{max(values):.3f})")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--detectors", nargs="+", default=list(DEFAULT))
    parser.add_argument("--tables", nargs="+")
    parser.add_argument("--folder", type=Path, help="folder of ADBench .npz tables")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = run(
        args.detectors, args.tables or table_names(args.folder), args.repeats, args.folder
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
