"""GoDec with missing entries: the EM step against the ALS step, one run.

Usage (from the repository root)::

    python benchmarks/bench_godec_gaps.py           # rrcov's tables (8 masks) and planted
    python benchmarks/bench_godec_gaps.py --quick   # 2 masks, the small planted problems

``solve_godec(..., observed=, missing_step=)`` with ``'em'`` (the BRP step on the data
completed by the current ``L``) and ``'als'`` (one sweep of alternating least squares on
the entries neither missing nor in ``S``); see :func:`robustpca.solvers.godec.solve_godec`.

* Tables: rrcov's hbk, octane, wood, bushfire and starsCYG (``ROBUSTPCA_DATA`` or
  ``../shared/data``), rank 2 (starsCYG: 1), ``card`` a tenth of the observed entries
  (GoDec's default), masks of ``tests/conftest.py::random_gaps`` (a tenth of the cells;
  seed 3 a fifth), ``max_iter=100``, ``tol=1e-7`` (the defaults). Reported: how many
  masks converged, the iterations, and on how many masks ALS ended at the lower objective
  (the problem is not convex: the two can end in different local minima).
* Planted: ``L`` of rank ``r`` (N(0, 1/r) factors), 5% gross errors (uniform in +-5 x 10
  times the mean ``|L|``), a fraction of the cells missing, ``card`` the observed errors,
  ``max_iter=1000``. Reported: wall time (one BLAS thread is what the figures in the
  solver's docstring used), iterations and the relative error of ``L``, with ``r`` times
  the share of the entries the ALS sweep leaves out (the ``'auto'`` rule's measure).

Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _rrcov import rrcov_tables
from robustpca.solvers.godec import solve_godec

TABLES = {"hbk": 2, "octane": 2, "wood": 2, "bushfire": 2, "starsCYG": 1}
PLANTED = [(200, 200, 5, 0.1), (500, 500, 25, 0.1), (1000, 300, 10, 0.2), (1000, 1000, 50, 0.1)]


def gaps(X: np.ndarray, seed: int) -> np.ndarray:
    """The observed mask of tests/conftest.py::random_gaps."""
    missing = np.random.default_rng(seed).random(X.shape) < (0.2 if seed == 3 else 0.1)
    missing[missing.all(axis=1), 0] = False
    return ~missing


def fit(X, observed, r, card, step, max_iter):
    start = time.perf_counter()
    result = solve_godec(
        np.where(observed, X, 0.0), r, card, max_iter=max_iter, observed=observed,
        rng=np.random.default_rng(0), missing_step=step,
    )  # fmt: skip
    return result, time.perf_counter() - start


def tables(n_masks: int) -> None:
    print(f"rrcov tables, {n_masks} masks, max_iter=100: converged / iterations")
    for name, X in rrcov_tables(TABLES).items():
        r = TABLES[name]
        runs = {"em": [], "als": []}
        for seed in range(n_masks):
            observed = gaps(X, seed)
            card = round(0.1 * observed.sum())
            for step in runs:
                runs[step].append(fit(X, observed, r, card, step, 100)[0])
        pairs = zip(runs["als"], runs["em"], strict=True)
        lower = sum(a.objective[-1] < e.objective[-1] for a, e in pairs)
        cells = [
            f"{step.upper()} {sum(x.converged for x in res)}/{n_masks} "
            f"[{', '.join(str(x.n_iter) for x in res)}]"
            for step, res in runs.items()
        ]
        print(f"  {name:9s} " + " | ".join(cells) + f" | ALS lower {lower}/{n_masks}")


def planted(problems) -> None:
    print("planted: time (s), iterations, relative error of L")
    for m, n, r, fraction in problems:
        rng = np.random.default_rng(0)
        L = rng.standard_normal((m, r)) @ rng.standard_normal((r, n)) / np.sqrt(r)
        support = rng.random((m, n)) < 0.05
        S = np.where(support, rng.uniform(-5, 5, (m, n)) * 10 * np.abs(L).mean(), 0.0)
        observed = rng.random((m, n)) >= fraction
        card = int((support & observed).sum())
        out = min(1.0, ((~observed).sum() + card) / observed.size)
        cells = []
        for step in ("em", "als"):
            result, seconds = fit(L + S, observed, r, card, step, 1000)
            error = np.linalg.norm(result.info["low_rank"] - L) / np.linalg.norm(L)
            cells.append(f"{step.upper()} {seconds:.2f} s, {result.n_iter}, {error:.1e}")
        print(f"  {m}x{n} r={r} {fraction:.0%} missing (r x share {r * min(out, 1 - out):.2f}): "
              + " | ".join(cells))  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 masks, small problems")
    args = parser.parse_args(argv)
    tables(2 if args.quick else 8)
    planted(PLANTED[:2] if args.quick else PLANTED)


if __name__ == "__main__":
    sys.exit(main())
