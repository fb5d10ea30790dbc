"""The family of ROBPCA detector configurations, chosen across tables by leave-one-out.

Usage (from the repository root)::

    python benchmarks/bench_outlier_family.py --json family.json          # the 25 tables
    python benchmarks/bench_outlier_family.py --folder heldout --tables 37_Stamps ... \\
        --json family_heldout.json
    python benchmarks/bench_outlier_family.py --report family.json family_heldout.json

A configuration is a rank rule (13) and a way of combining the score distance (SD) and
the orthogonal distance (OD) of a ROBPCA fit into one outlyingness (6): 78 in all, the
family of ``docs/design-notes/outlier-recommendation.md`` ("The earlier recommendation"). Each table
is scaled by its columns' median and MAD (:func:`bench_outliers.scale_columns`), each
rank rule fits ``ROBPCA(n_components=k, random_state=0)`` once, and the six
outlyingnesses of that fit are scored by their ROC AUC against the labels.

``--report`` merges per-table runs and estimates how a choice made across tables
transfers to a table not used in it: each fold of a leave-one-table-out
cross-validation picks the configuration of best mean AUC on the other tables and scores
it on the one left out. Nothing is tuned per table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_outliers import load_table, scale_columns, table_names  # noqa: E402

#: rank rules: name -> (n_components for ROBPCA, or a function of the number of columns)
RANKS: dict[str, object] = {
    "auto": "auto",
    **{f"k={k}": k for k in range(1, 6)},
    **{f"{int(share * 100)}%": share for share in (0.5, 0.6, 0.7, 0.9, 0.95)},
    "sqrt(d)": lambda d: int(np.round(np.sqrt(d))),
    "log2(d)": lambda d: int(np.round(np.log2(d))),
}
COMBINATIONS = ("max of ratios", "OD alone", "likelihood", "sum of squared ratios",
                "max of normal scores", "sum of normal scores")  # fmt: skip


def _normal_scores(diag, k: int) -> tuple[np.ndarray, np.ndarray]:
    """SD and OD as standard normal scores, by the Wilson-Hilferty cube root of their
    squares: ``SD^2`` against chi-square(k), ``OD^(2/3)`` against its median and MAD
    (rrcov's OD model). ``OutlierDiagnostics.normal_outlyingness``, the maximum's
    combination here, takes the OD cutoff's own location and scale instead."""
    k = max(k, 1)
    z_sd = (np.cbrt(diag.score_distances**2 / k) - (1 - 2 / (9 * k))) / np.sqrt(2 / (9 * k))
    t = np.cbrt(diag.orthogonal_distances**2)
    mad = stats.median_abs_deviation(t, scale="normal")
    z_od = (t - np.median(t)) / (mad if mad > 0 else max(float(np.std(t)), 1e-300))
    return z_sd, z_od


def outlyingnesses(model, X: np.ndarray) -> dict[str, np.ndarray]:
    """The six outlyingnesses (:data:`COMBINATIONS`) of the rows of ``X`` under ``model``."""
    from robustpca.diagnostics import outlier_diagnostics

    diag = outlier_diagnostics(model, X)
    c_sd = diag.score_cutoff if diag.score_cutoff > 0 else 1.0
    c_od = diag.orthogonal_cutoff if diag.orthogonal_cutoff > 0 else 1.0
    r_sd, r_od = diag.score_distances / c_sd, diag.orthogonal_distances / c_od
    z_sd, z_od = _normal_scores(diag, int(model.n_components_))
    return {
        "max of ratios": -model.decision_function(X),
        "OD alone": diag.orthogonal_distances,
        "likelihood": model.mahalanobis(X),
        "sum of squared ratios": r_sd**2 + r_od**2,
        "max of normal scores": diag.normal_outlyingness,
        "sum of normal scores": z_sd + z_od,
    }


def run_table(name: str, folder) -> dict[str, float]:
    """``{"rank rule | combination": AUC}`` of one table (NaN where a fit failed)."""
    from sklearn.metrics import roc_auc_score

    from robustpca import ROBPCA

    X, y = load_table(name, folder)
    Xs = scale_columns(X, "robust")
    d = Xs.shape[1]
    out: dict[str, float] = {}
    for rule, spec in RANKS.items():
        k = spec(d) if callable(spec) else spec
        if isinstance(k, int):
            k = int(np.clip(k, 1, d - 1))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = ROBPCA(n_components=k, random_state=0).fit(Xs)
                scores = outlyingnesses(model, Xs)
        except Exception as exc:  # a failed fit scores NaN for all six
            print(f"  {name} {rule}: {type(exc).__name__}: {exc}", file=sys.stderr)
            scores = {}
        for combination in COMBINATIONS:
            s = scores.get(combination)
            ok = s is not None and np.all(np.isfinite(s))
            out[f"{rule} | {combination}"] = float(roc_auc_score(y, s)) if ok else float("nan")
    return out


def leave_one_table_out(aucs: dict[str, dict[str, float]], configs=None) -> dict:
    """Each table's AUC under the configuration of best mean AUC on the other tables
    (a failure counts as 0.5), and which configurations were chosen."""
    tables = sorted(aucs)
    if len(tables) < 2:
        raise ValueError(f"leaving one table out needs at least two tables, got {tables}.")
    configs = list(configs or next(iter(aucs.values())))
    A = np.array([[aucs[t].get(c, np.nan) for c in configs] for t in tables])
    A = np.where(np.isfinite(A), A, 0.5)
    held, chosen = [], []
    for i in range(len(tables)):
        rest = np.delete(A, i, axis=0).mean(axis=0)
        j = int(np.argmax(rest))
        held.append(A[i, j])
        chosen.append(configs[j])
    best = int(np.argmax(A.mean(axis=0)))
    picks: dict[str, int] = {}
    for c in chosen:
        picks[c] = picks.get(c, 0) + 1
    return {
        "held_out_mean": float(np.mean(held)),
        "chosen": dict(sorted(picks.items(), key=lambda kv: -kv[1])),
        "best_in_sample": configs[best],
        "best_in_sample_mean": float(A[:, best].mean()),
        "per_config_mean": dict(zip(configs, A.mean(axis=0).tolist(), strict=True)),
    }


def report(paths: list[Path]) -> str:
    aucs: dict[str, dict[str, float]] = {}
    for path in paths:
        aucs.update(json.loads(path.read_text()))
    lines = [f"{len(aucs)} tables"]
    families = {
        "all 78": None,
        "the likelihood, 13 rank rules": [f"{r} | likelihood" for r in RANKS],
        "the maximum of ratios, 13 rank rules": [f"{r} | max of ratios" for r in RANKS],
        "6 combinations, rrcov's automatic rank": [f"auto | {c}" for c in COMBINATIONS],
    }
    for label, configs in families.items():
        res = leave_one_table_out(aucs, configs)
        top = ", ".join(f"{c} ({n})" for c, n in list(res["chosen"].items())[:3])
        lines.append(
            f"{label}: leave-one-table-out {res['held_out_mean']:.3f}; in sample "
            f"{res['best_in_sample']} {res['best_in_sample_mean']:.3f}; chosen: {top}"
        )
    means = leave_one_table_out(aucs)["per_config_mean"]
    lines.append("best ten in sample:")
    for c, m in sorted(means.items(), key=lambda kv: -kv[1])[:10]:
        lines.append(f"  {m:.3f}  {c}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", type=Path, help="folder of ADBench .npz tables")
    ap.add_argument("--tables", nargs="+")
    ap.add_argument("--json", type=Path, help="write {table: {config: AUC}} here")
    ap.add_argument("--report", type=Path, nargs="+", help="report these runs, merged")
    args = ap.parse_args(argv)
    if args.report:
        print(report(args.report))
        return 0
    results: dict[str, dict[str, float]] = {}
    for name in args.tables or table_names(args.folder):
        tic = time.perf_counter()
        results[name] = run_table(name, args.folder)
        best = max(results[name].items(), key=lambda kv: np.nan_to_num(kv[1]))
        print(
            f"{name}: {time.perf_counter() - tic:.1f} s, best {best[0]} {best[1]:.3f}", flush=True
        )
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
