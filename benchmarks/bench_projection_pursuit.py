"""ProjectionPursuitPCA against R's rrcov PcaGrid and PcaProj: the same fits, and their cost.

One command (needs ``Rscript`` with rrcov and pcaPP; Debian ``r-cran-rrcov r-cran-pcapp``)::

    python benchmarks/bench_projection_pursuit.py             # about a minute
    python benchmarks/bench_projection_pursuit.py --quick     # seconds: one small table
    python benchmarks/bench_projection_pursuit.py --no-r      # ours only

Data: the five rrcov tables (``$ROBUSTPCA_DATA/rrcov`` or ``../shared/data/rrcov``) and
seeded synthetic tables (rank-5 structure plus noise, 10% shifted rows; the generator of
``bench_rrcov.py``, ``_rrcov.synthetic``), ``k = 2`` by default. For each table and
method (``grid`` / ``PcaGrid``, ``proj`` / ``PcaProj``, MAD index) it reports

* the **CPU seconds** of one fit, the median of ``--repeat`` fits, both sides with one
  BLAS thread (threadpoolctl here; R's BLAS is single-threaded), R timed with
  ``system.time`` inside one ``Rscript`` run;
* the **ratio** rrcov / ours (above 1: we are faster);
* the **agreement**: the largest relative difference of the eigenvalues, the sine of
  the largest principal angle between the subspaces, and whether the flags agree.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _rrcov
from _harness import markdown_table, median_cpu_fit, subspace_sin

R_CALLS = {"grid": "PcaGrid(x, k = k)", "proj": "PcaProj(x, k = k)"}

R_DRIVER = _rrcov.r_driver(
    r"""  cpu <- numeric(reps)
  for (r in seq_len(reps)) {
    res <- time_fit(function() eval(parse(text = jobs$call[i])))
    cpu[r] <- res$cpu
    fit <- res$fit
  }
  flagged <- paste(which(!fit@flag), collapse = " ")
  ev <- paste(format(fit@eigenvalues, digits = 17), collapse = " ")
  loadings <- paste(format(as.vector(getLoadings(fit)), digits = 17), collapse = " ")
  writeLines(paste(jobs$id[i], median(cpu), flagged, ev, loadings, sep = ","), out)
""",
    libraries="{library(rrcov); library(pcaPP)}",
    setup="reps <- as.integer(args[3])\n" + _rrcov.R_TIME_FIT,
)


def datasets(quick: bool) -> dict:
    data = _rrcov.rrcov_tables(("hbk",) if quick else _rrcov.RRCOV_TABLES)
    shapes = [(300, 10)] if quick else [(1000, 20), (10000, 20), (200, 1000)]
    for n, p in shapes:
        data[f"synthetic {n} x {p}"] = _rrcov.synthetic(n, p)
    return data


def run_r(data: dict, k: int, repeat: int) -> dict:
    """{(table, method): (CPU seconds, flagged 0-based, eigenvalues, loadings p x k)}."""
    results = {}
    lines = _rrcov.run_jobs(
        R_DRIVER, data, lambda key, X: [(m, k, call) for m, call in R_CALLS.items()], str(repeat)
    )
    for (key, method), (seconds, flagged, ev, loadings) in lines:
        p = data[key].shape[1]
        V = _rrcov.parse_loadings(loadings, p)
        eig = np.array([float(v) for v in ev.split()])
        results[(key, method)] = (float(seconds), _rrcov.parse_flagged(flagged), eig, V)
    return results


def run_ours(data: dict, k: int, repeat: int) -> dict:
    from threadpoolctl import threadpool_limits

    from robustpca.estimators._projection_pursuit import ProjectionPursuitPCA

    results = {}
    with threadpool_limits(1):
        for key, X in data.items():
            for method in R_CALLS:
                seconds, model = median_cpu_fit(
                    lambda r, method=method: ProjectionPursuitPCA(n_components=k, method=method),
                    X,
                    repeat,
                )
                flagged = np.flatnonzero(model.predict(X) == -1)
                results[(key, method)] = (
                    seconds,
                    flagged,
                    model.explained_variance_,
                    model.components_.T,
                )
    return results


def report(data: dict, ours: dict, theirs: dict) -> str:
    rows = []
    for key, X in data.items():
        for method in R_CALLS:
            t_ours, f_ours, ev_ours, V_ours = ours[(key, method)]
            shape = f"{X.shape[0]} x {X.shape[1]}"
            ref = theirs.get((key, method))
            if ref is None:
                rows.append([key, shape, method, f"{t_ours:.3f}", "-", "-", "-", "-", "-"])
                continue
            t_r, f_r, ev_r, V_r = ref
            ratio = f"{t_r / t_ours:.2f}" if t_ours > 0 else "-"
            ev_diff = float(np.max(np.abs(ev_ours - ev_r) / np.abs(ev_r)))
            same = "yes" if np.array_equal(np.sort(f_ours), np.sort(f_r)) else "no"
            rows.append(
                [
                    key,
                    shape,
                    method,
                    f"{t_ours:.3f}",
                    f"{t_r:.3f}",
                    ratio,
                    f"{ev_diff:.1e}",
                    f"{subspace_sin(V_ours, V_r):.1e}",
                    same,
                ]
            )
    headers = [
        "data",
        "n x p",
        "method",
        "ours (CPU s)",
        "rrcov (CPU s)",
        "rrcov / ours",
        "eigenvalues rel. diff",
        "sine to rrcov",
        "same flags",
    ]
    return markdown_table(headers, rows, right={3, 4, 5, 6, 7})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one table, one small shape")
    parser.add_argument("--no-r", action="store_true", help="do not run R's rrcov")
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    data = datasets(args.quick)
    ours = run_ours(data, args.k, args.repeat)
    theirs = {} if args.no_r or not _rrcov.r_available() else run_r(data, args.k, args.repeat)
    print(report(data, ours, theirs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
