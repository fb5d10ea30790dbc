"""Known-rank robust PCA: our AccAltProj and GoDec against the PyPI codes and our PCP.

Usage (from the repository root)::

    python benchmarks/bench_known_rank.py                    # 500^2, 1000^2; 5%, 10%
    python benchmarks/bench_known_rank.py --sizes 500,1000,2000,5000x500 --json out.json
    python benchmarks/bench_known_rank.py --quick            # 200^2, 5% (seconds)

The comparison codes are optional and run where they import:

* ``rpca`` (PyPI ``rpca``, ``rpca.RobustPCA``): a port of the authors' MATLAB
  AccAltProj, given the rank, with its defaults (``tol=1e-5``, ``max_iter=100``,
  ``beta_init = 4 beta``), and once more with our default ``beta_init = beta`` (the
  algorithm as ours then, up to two differences of that port: it first subtracts
  the column means, and it takes zeta_0 from the smallest of the top ``r``
  singular values, ``svds`` returning them in ascending order; its ``low_rank_ +
  mean_`` is compared with ``L``);
* hyperspy's ``hyperspy.learn.rpca_godec``: the semi-soft GoDec of Zhou & Tao's code
  (soft thresholding at ``lambda1 = 1/sqrt(n)`` instead of a cardinality bound; its
  defaults ``power=0``, ``tol=1e-3``, ``maxiter=1000`` unless ``--hyperspy-maxiter``).

Ours: ``AccAltProj(n_components=r)``, ``GoDec(n_components=r, card=|supp S|)`` (the true
cardinality), ``GoDec(n_components=r)`` (``card='auto'``, estimated) and
``PrincipalComponentPursuit()`` (rank not given), all with their defaults; AccAltProj
and GoDec once more at ``tol=--target-tol`` (default 1e-5), which recovers ``L`` to
about 1e-4, the accuracy of issue 14's target (a third of PCP's time), where their
default ``tol=1e-7`` recovers it to about 1e-7. The data (Candès et al. 2011, sec. 4.1,
as in issue 14): ``L = A B^T`` with standard normal ``n x r`` factors, ``r = 0.05 n``; a
Bernoulli(``p``) support, on which ``S`` is a random sign times a uniform magnitude in
``[1, 5]`` times 10 times the mean
``|L|``. Reported per fit: wall time (one run, ``--repeat`` for the best of several),
iterations, the relative error ``||L_hat - L||_F / ||L||_F``, the numerical rank of
``L_hat`` (``numpy.linalg.matrix_rank``'s default tolerance) and the F1 score of the
support of ``S_hat`` against that of ``S``. BLAS is limited to ``--blas-threads``
threads (default 1) with threadpoolctl; the CPU time (``time.process_time``) is
reported beside the wall time because on a shared, oversubscribed machine it varies
less (with one thread it is the time the fit computed). Nothing is asserted.
"""

from __future__ import annotations

import datetime as _dt
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _harness as harness  # noqa: E402


def make_problem(shape: tuple[int, int], rank_fraction: float, sparse_fraction: float, seed):
    """``(X, L, support)`` of the Candès et al. setup described in the module docstring;
    the rank is ``rank_fraction`` of the short side."""
    rng = np.random.default_rng(seed)
    n, d = shape
    r = max(1, round(rank_fraction * min(n, d)))
    L = rng.standard_normal((n, r)) @ rng.standard_normal((r, d))
    support = rng.random((n, d)) < sparse_fraction
    magnitude = 10.0 * np.abs(L).mean() * rng.uniform(1.0, 5.0, (n, d))
    S = np.where(support, rng.choice([-1.0, 1.0], (n, d)) * magnitude, 0.0)
    return L + S, L, support


def parse_shape(text: str) -> tuple[int, int]:
    """``"1000"`` is 1000 x 1000, ``"5000x500"`` is 5000 x 500."""
    n, _, d = text.lower().partition("x")
    return int(n), int(d or n)


def label(shape: tuple[int, int]) -> str:
    n, d = shape
    return f"{n}^2" if n == d else f"{n} x {d}"


def f1_support(found: np.ndarray, truth: np.ndarray) -> float:
    tp = np.count_nonzero(found & truth)
    fp = np.count_nonzero(found & ~truth)
    fn = np.count_nonzero(~found & truth)
    return 2 * tp / max(2 * tp + fp + fn, 1)


# ------------------------------------------------------------------------- the codes
def ours_accaltproj(X, r, support, seed, tol=1e-7):
    from robustpca.estimators._known_rank import AccAltProj

    m = AccAltProj(n_components=r, random_state=seed, tol=tol).fit(X)
    return m.low_rank_, m.sparse_, m.n_iter_


def ours_godec(X, r, support, seed, tol=1e-7):
    from robustpca.estimators._known_rank import GoDec

    m = GoDec(n_components=r, card=int(support.sum()), random_state=seed, tol=tol).fit(X)
    return m.low_rank_, m.sparse_, m.n_iter_


def ours_godec_auto(X, r, support, seed):
    from robustpca.estimators._known_rank import GoDec

    m = GoDec(n_components=r, random_state=seed).fit(X)  # card='auto': estimated
    return m.low_rank_, m.sparse_, m.n_iter_


def ours_pcp(X, r, support, seed):
    from robustpca.estimators._convex import PrincipalComponentPursuit

    m = PrincipalComponentPursuit(random_state=seed).fit(X)
    return m.low_rank_, m.sparse_, m.n_iter_


def rpca_accaltproj(X, r, support, seed, same_beta_init=False):
    from rpca import RobustPCA

    beta = 1.0 / (2.0 * (X.shape[0] * X.shape[1]) ** 0.25)  # its default beta
    kwargs = {"beta_init": beta} if same_beta_init else {}
    m = RobustPCA(n_components=r, verbose=False, **kwargs).fit(X)
    # it decomposes X - mean_ (the column means): its estimate of L is low_rank_ + mean_
    return m.low_rank_ + m.mean_, m.sparse_, int(m.end_iter_)


def hyperspy_godec(X, r, support, seed, maxiter=1000):
    from hyperspy.learn import rpca_godec

    # hyperspy wants (n_features, n_samples); the problem is square and symmetric in law
    L, S = rpca_godec(X.T, r, random_state=seed, maxiter=maxiter)[:2]
    return L.T, S.T, None  # it does not return its iteration count


def available(module: str) -> str | None:
    """None if ``module`` imports, else the reason in words."""
    try:
        __import__(module)
    except Exception as exc:  # any import failure means "not available"
        return f"not installed ({type(exc).__name__})"
    return None


# ----------------------------------------------------------------------------- main
def parse_args(argv=None):
    p = harness.benchmark_parser(__doc__, 1)
    p.add_argument("--sizes", default="500,1000", help="comma-separated shapes: n (n x n) or NxD")
    p.add_argument("--fractions", default="0.05,0.1", help="corruption fractions")
    p.add_argument("--rank-fraction", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=1, help="best of this many timed fits")
    p.add_argument("--no-pcp", action="store_true", help="leave out our PCP")
    p.add_argument("--hyperspy-maxiter", type=int, default=1000)
    p.add_argument(
        "--target-tol",
        type=float,
        default=1e-5,
        help="also fit ours at this tol (issue 14 asks for recovery to 1e-4; 0: leave out)",
    )
    p.add_argument("--quick", action="store_true", help="n = 200, 5%% only")
    p.add_argument("--json", type=Path, help="also write every number to this file")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.fractions = "200", "0.05"
    args.sizes = [parse_shape(v) for v in args.sizes.split(",")]
    args.fractions = [float(v) for v in args.fractions.split(",")]
    return args


def codes(args):
    out = [
        ("robustpca AccAltProj", ours_accaltproj, None),
        ("robustpca GoDec", ours_godec, None),
        ("robustpca GoDec, card='auto'", ours_godec_auto, None),
        ("rpca AccAltProj", rpca_accaltproj, available("rpca")),
        (
            "rpca AccAltProj, beta_init=beta (ours)",
            lambda X, r, sup, seed: rpca_accaltproj(X, r, sup, seed, same_beta_init=True),
            available("rpca"),
        ),
        (
            "hyperspy GoDec (semi-soft)",
            lambda X, r, sup, seed: hyperspy_godec(X, r, sup, seed, args.hyperspy_maxiter),
            available("hyperspy.learn"),
        ),
    ]
    if args.target_tol:
        tol = args.target_tol
        out[3:3] = [
            (
                f"robustpca AccAltProj, tol={tol:g}",
                lambda X, r, sup, seed: ours_accaltproj(X, r, sup, seed, tol),
                None,
            ),
            (
                f"robustpca GoDec, tol={tol:g}",
                lambda X, r, sup, seed: ours_godec(X, r, sup, seed, tol),
                None,
            ),
        ]
    if not args.no_pcp:
        out.append(("robustpca PCP", ours_pcp, None))
    return out


def run_cell(fn, X, L, support, r, seed, repeat):
    best, best_cpu, out = np.inf, np.inf, None
    for _ in range(max(1, repeat)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c0, t0 = time.process_time(), time.perf_counter()
            out = fn(X, r, support, seed)
            best = min(best, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.process_time() - c0)
    L_hat, S_hat, n_iter = out
    return {
        "seconds": best,
        "cpu_seconds": best_cpu,
        "n_iter": n_iter,
        "rel_error": float(np.linalg.norm(L_hat - L) / np.linalg.norm(L)),
        "rank": int(np.linalg.matrix_rank(L_hat)),
        "f1": f1_support(np.asarray(S_hat) != 0, support),
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    import scipy.linalg  # noqa: F401  (load every BLAS before limiting them)
    from threadpoolctl import threadpool_limits

    import robustpca  # noqa: F401

    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        return run(args)


def run(args) -> dict:
    started = _dt.datetime.now().isoformat(timespec="seconds")
    machine = harness.machine_description()
    print(f"# Known-rank robust PCA benchmark, {started}")
    print(
        f"machine: {machine['platform']}; {machine['cpu_model']}; {machine['cpu_count']} CPUs;"
        f" BLAS threads: {args.blas_threads}; load average at start: "
        f"{' / '.join(f'{v:.2f}' for v in machine.get('loadavg_start', []))}"
    )
    print("versions: " + ", ".join(f"{k} {v}" for k, v in machine["versions"].items()))
    rows, results = [], []
    for shape in args.sizes:
        for p in args.fractions:
            X, L, support = make_problem(shape, args.rank_fraction, p, args.seed)
            r = max(1, round(args.rank_fraction * min(shape)))
            cell = {"shape": list(shape), "fraction": p, "rank": r, "fits": {}}
            for name, fn, missing in codes(args):
                if missing:
                    cell["fits"][name] = {"status": missing}
                    rows.append([f"{label(shape)}, {p:.0%}", name, missing] + ["-"] * 7)
                    continue
                res = run_cell(fn, X, L, support, r, args.seed, args.repeat)
                cell["fits"][name] = res
                rows.append(
                    [
                        f"{label(shape)}, {p:.0%}",
                        name,
                        harness.fmt_seconds(res["seconds"]),
                        harness.fmt_seconds(res["cpu_seconds"]),
                        "-" if res["n_iter"] is None else str(res["n_iter"]),
                        f"{res['rel_error']:.1e}",
                        str(res["rank"]),
                        f"{res['f1']:.4f}",
                        "",
                        "",
                    ]
                )
                print(f"  {label(shape)} {p:.0%} {name}: {res}", flush=True)
            pcp = cell["fits"].get("robustpca PCP", {})
            if "seconds" in pcp:
                for row in rows[-len(cell["fits"]) :]:
                    fit = cell["fits"][row[1]]
                    if "seconds" in fit:
                        row[8] = f"{fit['seconds'] / pcp['seconds']:.2f}"
                        row[9] = f"{fit['cpu_seconds'] / pcp['cpu_seconds']:.2f}"
            results.append(cell)
    headers = ["problem", "code", "wall (s)", "CPU (s)", "iters", "rel. error of L", "rank"]
    headers += ["F1 of supp S", "wall / our PCP", "CPU / our PCP"]
    table = harness.markdown_table(headers, rows, right=set(range(2, 10)))
    print()
    print(table)
    out = {
        "command": "python benchmarks/bench_known_rank.py " + " ".join(sys.argv[1:]),
        "started": started,
        "finished": _dt.datetime.now().isoformat(timespec="seconds"),
        "machine": machine,
        "args": {k: v for k, v in vars(args).items() if k != "json"},
        "results": results,
        "table": table,
    }
    harness.write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
