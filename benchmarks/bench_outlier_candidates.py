"""Principled default detectors, each fixed from theory and evaluated once on the
ADBench tables of ``bench_outliers.py``, against IForest.

Usage (from the repository root)::

    python benchmarks/bench_outlier_candidates.py --scaling both --json candidates.json
    python benchmarks/bench_outlier_candidates.py --report candidates.json pyod.json

The first command runs the three candidates under ``bench_outliers.py``'s protocol
(:func:`bench_outliers.evaluate`: fit on all rows, columns scaled, ROC AUC and AP, one
BLAS thread, a forked child per table); its JSON has ``bench_outliers.py``'s format, so
``bench_outliers.py --from-json`` merges it with pyod's. The second reports the
candidates against the pyod detectors of a ``bench_outliers.py --json`` run (``--also``
adds other detectors of those files as rows): mean AUC and AP, mean rank among all the
rows, the paired difference to IForest with a 90% bootstrap interval over the tables,
the tables won, and the **split-half rate**: the share of 200 random halves of the
tables on which the row's mean AUC is at least IForest's (about 0.5 for two detectors
that are level: how often a mean over fewer, other tables would still favour it).

The candidates were written down with their reasons before any was run
(``docs/design-notes/outlier-recommendation.md``, *Principled candidates*); nothing in
them was chosen by looking at the tables:

- :class:`CVLikelihood` ("a"): the probabilistic PCA density of a ROBPCA fit whose rank
  is the one of largest held-out likelihood (the estimators' robust ``score``, 3-fold
  cross-validation over ``k = 1 .. min(kmax, d - 1)``), rows ranked by their likelihood.
- :class:`RankAveragedLikelihood` ("b"): no rank to choose: the mean over ``k = 1 ..
  K`` of the rows' normalised ranks of :math:`m^2`, ``K`` ROBPCA's automatic rank.
- :class:`FullDistance` ("c"): the robust full distance of DD-SIMCA (Pomerantsev 2008;
  Pomerantsev & Rodionova 2014) at ROBPCA's automatic rank: :math:`SD^2` and
  :math:`OD^2` each modelled as a scaled chi-square whose degrees of freedom are
  estimated from its median and interquartile range, and summed in those units.
- :class:`DiagonalNoiseLikelihood` ("d", written down after the first three had run,
  before it ran): the recommended configuration (two components, the likelihood) with
  the noise of factor analysis instead of probabilistic PCA's: each coordinate of the
  residual its own robust variance, so that a column the two components explain well
  weighs its deviations by its own small spread rather than by the average one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_outliers import (  # noqa: E402
    SEED,
    LikelihoodOutlyingness,
    evaluate,
    markdown_table,
    table_names,
)

NAMES = {
    "a": "robustpca ROBPCA, likelihood at the cross-validated rank (a)",
    "b": "robustpca ROBPCA, likelihood averaged over ranks 1..auto (b)",
    "c": "robustpca ROBPCA, DD-SIMCA full distance (c)",
    "d": "robustpca ROBPCA(n_components=2), likelihood with diagonal noise (d)",
}
REFERENCE = "pyod IForest"


def _robpca(n_components="auto", kmax=10):
    from robustpca import ROBPCA

    return ROBPCA(n_components=n_components, kmax=kmax, random_state=SEED)


class CVLikelihood:
    """(a) ROBPCA's probabilistic PCA density at the rank of largest 3-fold held-out
    likelihood (``score``), over ``k = 1 .. min(kmax, d - 1)``; ``decision_function``
    is minus :math:`m^2` (:class:`bench_outliers.LikelihoodOutlyingness`)."""

    def __init__(self, kmax: int = 10, cv: int = 3):
        self.kmax = kmax
        self.cv = cv

    def fit(self, X, y=None):
        from sklearn.model_selection import GridSearchCV, KFold

        ks = list(range(1, max(min(self.kmax, X.shape[1] - 1), 1) + 1))
        folds = KFold(self.cv, shuffle=True, random_state=SEED)  # tables sorted by label
        search = GridSearchCV(_robpca(kmax=self.kmax), {"n_components": ks}, cv=folds)
        self.n_components_ = int(search.fit(X).best_params_["n_components"])
        self.detector_ = LikelihoodOutlyingness(_robpca(self.n_components_, self.kmax)).fit(X)
        return self

    def decision_function(self, X):
        return self.detector_.decision_function(X)


class RankAveragedLikelihood:
    """(b) Minus the mean over ``k = 1 .. K`` of the normalised ranks of the rows'
    :math:`m^2` at rank ``k``; ``K`` is ROBPCA's automatic rank (rrcov's rule). Scores
    only the rows it was fitted on (ranks are relative to them)."""

    def __init__(self, kmax: int = 10):
        self.kmax = kmax

    def fit(self, X, y=None):
        from scipy.stats import rankdata

        self.n_components_ = int(_robpca(kmax=self.kmax).fit(X).n_components_)
        ranks = []
        for k in range(1, self.n_components_ + 1):
            m2 = -LikelihoodOutlyingness(_robpca(k, self.kmax)).fit(X).decision_function(X)
            ranks.append(rankdata(m2) / X.shape[0])
        self.training_scores_ = -np.mean(ranks, axis=0)
        return self

    def decision_function(self, X):
        return self.training_scores_


def chi2_weight(u: np.ndarray) -> float:
    r"""The weight :math:`N / u_0` of the scaled chi-square :math:`u_0 \chi^2_N / N` fitted
    to ``u`` by its median :math:`M` and interquartile range :math:`S` (DD-SIMCA's robust
    estimate): ``N`` solves :math:`\operatorname{med}\chi^2_N / \operatorname{IQR}\chi^2_N
    = M / S` (real, in [0.05, 1e5]), and :math:`N / u_0 = \operatorname{med}\chi^2_N / M`.
    Then :math:`N u / u_0` is :math:`\chi^2_N`. Zero for a ``u`` of zero median."""
    from scipy import optimize, stats

    u = np.asarray(u, dtype=np.float64)
    median = float(np.median(u))
    q1, q3 = np.quantile(u, [0.25, 0.75])
    if not median > 0:
        return 0.0
    if not q3 > q1:
        return 1.0 / median

    def gap(log_n):
        n = np.exp(log_n)
        iqr = np.diff(stats.chi2.ppf([0.25, 0.75], n))[0]
        return stats.chi2.median(n) / iqr - median / (q3 - q1)

    lo, hi = np.log(0.05), np.log(1e5)
    if gap(lo) >= 0:
        dof = 0.05
    elif gap(hi) <= 0:
        dof = 1e5
    else:
        dof = float(np.exp(optimize.brentq(gap, lo, hi)))
    return float(stats.chi2.median(dof)) / median


class FullDistance:
    """(c) DD-SIMCA's full distance :math:`N_h\\,h/h_0 + N_v\\,v/v_0` at ROBPCA's
    automatic rank, :math:`h = SD^2`, :math:`v = OD^2` (the diagnostics' distances), each
    weight from :func:`chi2_weight` on the training distances."""

    def __init__(self, kmax: int = 10):
        self.kmax = kmax

    def fit(self, X, y=None):
        from robustpca.diagnostics import outlier_diagnostics

        self.estimator_ = _robpca(kmax=self.kmax).fit(X)
        self.n_components_ = int(self.estimator_.n_components_)
        diag = outlier_diagnostics(self.estimator_, X)
        self.weights_ = (
            chi2_weight(diag.score_distances**2),
            chi2_weight(diag.orthogonal_distances**2),
        )
        return self

    def decision_function(self, X):
        from robustpca.diagnostics import outlier_diagnostics

        diag = outlier_diagnostics(self.estimator_, X)
        h, v = diag.score_distances**2, diag.orthogonal_distances**2
        return -(self.weights_[0] * h + self.weights_[1] * v)


def robust_scales(R: np.ndarray) -> np.ndarray:
    """Each column's spread about zero: ``1.4826`` times its median absolute value, or
    where that is zero ``1.2533`` times its mean absolute value (the benchmark's column
    scaling, :func:`bench_outliers.scale_columns`); zero for a column of zeros."""
    A = np.abs(np.asarray(R, dtype=np.float64))
    scale = 1.4826 * np.median(A, axis=0)
    return np.where(scale > 0, scale, 1.2533 * A.mean(axis=0))


class DiagonalNoiseLikelihood:
    r"""(d) :math:`SD^2 + \sum_j r_j^2 / \psi_j` at two components: the score distance of
    the recommended configuration and the residual :math:`r = x - \hat x` of each
    coordinate in units of its own robust spread :math:`\sqrt{\psi_j}` over the
    training rows (:func:`robust_scales`), the Mahalanobis distance of factor analysis
    at ROBPCA's loadings. A coordinate with no training residual is left out."""

    def __init__(self, n_components: int = 2):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.estimator_ = _robpca(self.n_components).fit(X)
        self.n_components_ = int(self.estimator_.n_components_)
        self.noise_scales_ = robust_scales(X - self.estimator_.reconstruct(X))
        return self

    def decision_function(self, X):
        from robustpca.diagnostics import outlier_diagnostics

        sd = outlier_diagnostics(self.estimator_, X).score_distances
        R = X - self.estimator_.reconstruct(X)
        kept = self.noise_scales_ > 0
        return -(sd**2 + np.sum((R[:, kept] / self.noise_scales_[kept]) ** 2, axis=1))


MAKERS = {
    "a": CVLikelihood,
    "b": RankAveragedLikelihood,
    "c": FullDistance,
    "d": DiagonalNoiseLikelihood,
}


# ------------------------------------------------------------------------- report
def compare(
    candidate: list[dict],
    peers: dict[str, list[dict]],
    reference: str = REFERENCE,
    *,
    reference_records: list[dict] | None = None,
    n_splits: int = 200,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict:
    """One candidate's records against the peers' (``{name: records}``) on the tables
    all share: mean AUC and AP, mean rank among the peers and it (a failure last), the
    mean paired AUC difference to ``reference`` with a 90% bootstrap interval, the tables
    won and the split-half rate (module docstring). ``reference_records``: the
    reference's records where it is not among the peers (the reference's own row, which
    must not be ranked against a copy of itself). A failure counts as an AUC of 0.5 in
    the differences, the candidate's or the reference's."""
    from scipy.stats import rankdata

    own = {r["table"]: r for r in candidate}
    others = {name: {r["table"]: r for r in recs} for name, recs in peers.items()}
    against = others[reference] if reference_records is None else None
    if against is None:
        against = {r["table"]: r for r in reference_records or []}
    tables = [t for t in own if t in against and all(t in o for o in others.values())]
    if not tables:
        raise ValueError(
            "compare: the candidate, the reference and the peers share no table (runs on "
            "different table sets?)"
        )
    auc = np.array([own[t].get("auc", np.nan) for t in tables])
    ap = np.array([own[t].get("ap", np.nan) for t in tables])
    ref = np.array([against[t].get("auc", np.nan) for t in tables])
    grid = [[o[t].get("auc", -np.inf) for t in tables] for o in others.values()]
    grid.append(np.where(np.isnan(auc), -np.inf, auc))
    ranks = np.apply_along_axis(lambda col: rankdata(-col), 0, np.array(grid))[-1]
    # a failure ranks at random, the candidate's or the reference's
    diff = np.where(np.isnan(auc), 0.5, auc) - np.where(np.isnan(ref), 0.5, ref)
    rng = np.random.default_rng(seed)
    n = len(tables)
    boot = [diff[rng.integers(0, n, n)].mean() for _ in range(n_boot)]
    halves = [diff[rng.permutation(n)[: (n + 1) // 2]].mean() >= 0 for _ in range(n_splits)]
    return {
        "tables": n,
        "mean_auc": float(np.nanmean(auc)),
        "mean_ap": float(np.nanmean(ap)),
        "mean_rank": float(ranks.mean()),
        "finished": int(np.sum(~np.isnan(auc))),
        "diff": float(diff.mean()),
        "diff_interval": [float(v) for v in np.percentile(boot, [5, 95])],
        "wins": int(np.sum(diff > 0)),
        "split_half": float(np.mean(halves)),
    }


def report(candidates: dict[str, dict[str, list[dict]]], peers: dict) -> str:
    """Markdown: one table per scaling, with a row for each detector of ``candidates``
    and each pyod detector of ``peers``; every row against IForest (:func:`compare`),
    ranked among all the rows."""
    lines = []
    for scaling, runs in candidates.items():
        if scaling not in peers:
            continue
        everyone = dict(runs)
        everyone.update({k: v for k, v in peers[scaling].items() if k.startswith("pyod")})
        if REFERENCE not in everyone:
            continue
        rows = []
        for name, records in everyone.items():
            others = {k: v for k, v in everyone.items() if k != name}
            # IForest's own row: against itself, ranked among the others only
            c = compare(records, others, reference_records=everyone[REFERENCE])
            lo, hi = c["diff_interval"]
            rows.append(
                [
                    name,
                    f"{c['mean_auc']:.3f}",
                    f"{c['mean_ap']:.3f}",
                    f"{c['mean_rank']:.1f}",
                    f"{c['finished']}/{c['tables']}",
                    f"{c['diff']:+.3f} [{lo:+.3f}, {hi:+.3f}]",
                    f"{c['wins']}",
                    f"{c['split_half']:.2f}",
                ]
            )
        header = [
            "detector",
            "mean ROC AUC",
            "mean AP",
            "mean rank",
            "finished",
            "AUC - IForest [90%]",
            "tables won",
            "halves >= IForest",
        ]
        label = {"robust": "median and MAD", "minmax": "min-max (ADBench's)"}[scaling]
        lines += [f"**Columns scaled by {label}.**", "", markdown_table(header, rows), ""]
    return "\n".join(lines).rstrip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", nargs="+", choices=sorted(MAKERS), default=["a", "b", "c"])
    parser.add_argument("--tables", nargs="+")
    parser.add_argument("--folder", type=Path, help="folder of ADBench .npz tables")
    parser.add_argument("--scaling", choices=["robust", "minmax", "both"], default="robust")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per fit")
    parser.add_argument("--json", type=Path, help="write the runs here")
    parser.add_argument(
        "--report", type=Path, nargs="+", help="candidate and peer --json files: compare"
    )
    parser.add_argument(
        "--also", nargs="+", default=[], help="with --report: other detectors to show as rows"
    )
    args = parser.parse_args(argv)
    if args.report:
        merged: dict[str, dict[str, list[dict]]] = {}
        for path in args.report:
            for scaling, results in json.loads(path.read_text()).items():
                merged.setdefault(scaling, {}).update(results)
        shown = set(NAMES.values()) | set(args.also)
        ours = {s: {k: v for k, v in r.items() if k in shown} for s, r in merged.items()}
        print(report(ours, merged))
        return 0
    scalings = ["robust", "minmax"] if args.scaling == "both" else [args.scaling]
    tables = args.tables or table_names(args.folder)
    runs: dict[str, dict[str, list[dict]]] = {}
    for scaling in scalings:
        runs[scaling] = {}
        for key in args.candidates:
            recs = evaluate(
                MAKERS[key], tables, scaling=scaling, folder=args.folder, timeout=args.timeout
            )
            runs[scaling][NAMES[key]] = recs
            done = [r["auc"] for r in recs if "auc" in r]
            print(f"{scaling:>6} {NAMES[key]}: AUC {np.mean(done) if done else np.nan:.3f}")
            if args.json:
                args.json.write_text(json.dumps(runs, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
