"""Missing entries: our estimators against tensorly's and qolmat's robust PCA, one run.

Usage (from the repository root; tensorly and qolmat in the same environment, e.g.
``python -m venv /work/venv-miss && /work/venv-miss/bin/pip install -e . tensorly
qolmat``)::

    python benchmarks/bench_missing.py            # both problems, 3 seeds
    python benchmarks/bench_missing.py --quick    # one small seed (seconds)
    python benchmarks/bench_missing.py --json out.json
    python benchmarks/bench_missing.py --faces-figure docs/missing_faces.png  # and exit

Problems (seeded, float64):

* ``rows``: 500 x 50, a planted rank-5 affine subspace (scores of scale 3, offset 1),
  noise 0.05, 10% of the rows replaced by gross outliers (N(0, 10^2) entries), 10% of
  the cells missing at random -- the setting of the subspace estimators (issue 12).
* ``cells``: 400 x 300, rank 10 (``U V^T`` with N(0, 1/10) factors scaled to unit
  entries), 5% of the cells gross errors (uniform in [-5, 5]), 20% missing -- the
  setting of principal component pursuit (Candes et al. 2011, sec. 4).

Competitors: ``tensorly.decomposition.robust_pca(X, mask)`` (the masked PCP-type ALM of
TensorLy; its defaults ``reg_E = reg_J = 1``, ``n_iter_max=100``; plus ``reg_E =
1/sqrt(max(n, d))`` as PCP's lambda), and qolmat's ``RpcaPcp`` (PCP by ALM on the
observed entries, its default lambda) and ``RpcaNoisy`` (the rank-``k`` noisy RPCA of
qolmat, ``rank=k``). Ours: every estimator that fits missing entries, with the planted
``k``. Reported per method (mean over seeds): wall time, the sine of the largest
principal angle between the top-``k`` subspace of the centred fitted low-rank matrix and
the planted one, the RMSE of the filled missing entries of the inliers against the
clean values (``rows``), and the relative error of the low-rank matrix over all entries
(``cells``, the target of PCP). Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

import robustpca


def _fits_missing(name: str) -> bool:
    estimator = getattr(robustpca, name)()
    return bool(estimator.__sklearn_tags__().input_tags.allow_nan) and "image_shape" not in (
        estimator.get_params()
    )


#: Every exported estimator that fits missing entries (its ``allow_nan`` tag), so that
#: new ones are measured without an edit here.
OURS = {name: getattr(robustpca, name) for name in robustpca.ESTIMATOR_NAMES if _fits_missing(name)}


def problem_rows(seed: int, n=500, d=50, k=5):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    clean = 1.0 + 3.0 * rng.normal(size=(n, k)) @ basis.T
    X = clean + 0.05 * rng.normal(size=(n, d))
    outliers = np.zeros(n, dtype=bool)
    outliers[: n // 10] = True
    X[outliers] = 10.0 * rng.normal(size=(outliers.sum(), d))
    missing = rng.random((n, d)) < 0.10
    missing[missing.all(axis=1), 0] = False
    return X, missing, clean, basis, outliers, k


def problem_cells(seed: int, n=400, d=300, k=10):
    rng = np.random.default_rng(seed)
    L = rng.normal(scale=np.sqrt(1 / k), size=(n, k)) @ rng.normal(size=(k, d))
    basis = np.linalg.svd(L - L.mean(axis=0), full_matrices=False)[2][:k].T
    X = L.copy()
    gross = rng.random((n, d)) < 0.05
    X[gross] = rng.uniform(-5, 5, size=gross.sum())
    missing = rng.random((n, d)) < 0.20
    return X, missing, L, basis, np.zeros(n, dtype=bool), k


def sine(L: np.ndarray, basis: np.ndarray, k: int) -> float:
    """Largest principal-angle sine between the top-k subspace of centred L and basis."""
    V = np.linalg.svd(L - L.mean(axis=0), full_matrices=False)[2][:k].T
    s = np.linalg.svd(basis.T @ V, compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - s.min() ** 2)))


def run_ours(cls, Xm, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(n_components=k)
        if "random_state" in model.get_params():
            model.set_params(random_state=0)
        t0 = time.perf_counter()
        model.fit(Xm)
        seconds = time.perf_counter() - t0
        # the convex programs' L (gross cells set aside in S); the others' projection
        fitted = getattr(model, "low_rank_", None)
        return (model.reconstruct(Xm) if fitted is None else fitted), seconds


def competitors():
    out = {}
    try:
        from tensorly.decomposition import robust_pca

        def tensorly_default(Xm, k):
            mask = (~np.isnan(Xm)).astype(float)
            t0 = time.perf_counter()
            L, _ = robust_pca(np.nan_to_num(Xm), mask=mask, verbose=0)
            return np.asarray(L), time.perf_counter() - t0

        def tensorly_lambda(Xm, k):
            mask = (~np.isnan(Xm)).astype(float)
            t0 = time.perf_counter()
            L, _ = robust_pca(
                np.nan_to_num(Xm), mask=mask, reg_E=1 / np.sqrt(max(Xm.shape)), verbose=0
            )
            return np.asarray(L), time.perf_counter() - t0

        out["tensorly robust_pca (defaults)"] = tensorly_default
        out["tensorly robust_pca (reg_E=1/sqrt(max(n,d)))"] = tensorly_lambda
    except ImportError:
        print("tensorly not installed: left out")
    try:
        from qolmat.imputations.rpca.rpca_noisy import RpcaNoisy
        from qolmat.imputations.rpca.rpca_pcp import RpcaPcp

        def qolmat_pcp(Xm, k):
            t0 = time.perf_counter()
            L, _ = RpcaPcp(random_state=0, verbose=False).decompose(Xm, ~np.isnan(Xm))
            return np.asarray(L), time.perf_counter() - t0

        def qolmat_noisy(Xm, k):
            t0 = time.perf_counter()
            L, _ = RpcaNoisy(random_state=0, rank=k, verbose=False).decompose(Xm, ~np.isnan(Xm))
            return np.asarray(L), time.perf_counter() - t0

        out["qolmat RpcaPcp"] = qolmat_pcp
        out["qolmat RpcaNoisy (rank=k)"] = qolmat_noisy
    except ImportError:
        print("qolmat not installed: left out")
    return out


def measure(problem, seeds):
    rows = {}
    methods = {f"robustpca {n}": (lambda Xm, k, c=c: run_ours(c, Xm, k)) for n, c in OURS.items()}
    methods.update(competitors())
    for seed in seeds:
        X, missing, clean, basis, outliers, k = problem(seed)
        Xm = X.copy()
        Xm[missing] = np.nan
        fill = missing & ~outliers[:, None]
        for name, fit in methods.items():
            if name == "robustpca CovariancePCA" and X.shape[1] > 100:
                continue  # the MCD in hundreds of dimensions, refitted per imputation
            try:
                L, seconds = fit(Xm.copy(), k)
            except Exception as error:  # a failing competitor is a row, not a crash
                rows.setdefault(name, []).append({"error": f"{type(error).__name__}: {error}"})
                continue
            L = np.asarray(L, dtype=float)
            inl = ~outliers
            rows.setdefault(name, []).append(
                {
                    "seconds": seconds,
                    "sine": sine(L[inl], basis, k) if np.isfinite(L).all() else float("nan"),
                    "fill_rmse": float(np.sqrt(np.mean((L[fill] - clean[fill]) ** 2))),
                    "rel_error": float(
                        np.linalg.norm(L[inl] - clean[inl]) / np.linalg.norm(clean[inl])
                    ),
                }
            )
    return rows


def table(title, rows) -> str:
    lines = [
        f"### {title}",
        "",
        "| method | time (s) | sin(largest angle) | fill RMSE (inliers) | rel. error of L |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, runs in rows.items():
        ok = [r for r in runs if "error" not in r]
        if not ok:
            lines.append(f"| {name} | failed: {runs[0]['error'][:60]} | | | |")
            continue
        mean = {key: float(np.mean([r[key] for r in ok])) for key in ok[0]}
        # a mean over the seeds that ran says how many failed
        failed = (
            f" ({len(runs) - len(ok)} of {len(runs)} seeds failed)" if len(ok) < len(runs) else ""
        )
        lines.append(
            f"| {name}{failed} | {mean['seconds']:.3f} | {mean['sine']:.4f} | "
            f"{mean['fill_rmse']:.4f} | {mean['rel_error']:.4f} |"
        )
    return "\n".join(lines)


def faces_figure(path: str) -> dict:
    """The occluded AT&T faces (32 x 32, 20% occluded by a block of 25% of the image):
    RPCA-OM (k = 20) fitted on the occluded pixels vs with the block marked missing.
    Saves the gallery and returns the relative errors against the clean images."""
    from robustpca.datasets import load_orl
    from robustpca.datasets.corruption import occlude_blocks
    from robustpca.plotting import plot_gallery

    faces = load_orl()
    X = np.asarray(faces.data, dtype=np.float64)
    corrupted, block = occlude_blocks(X, faces.image_shape, random_state=0)
    gaps = corrupted.copy()
    gaps[block] = np.nan
    fitted, _ = run_ours(robustpca.OptimalMeanPCA, corrupted, 20)
    masked, _ = run_ours(robustpca.OptimalMeanPCA, gaps, 20)
    occluded = np.flatnonzero(block.any(axis=1))
    errors = {
        name: float(np.linalg.norm(R[occluded] - X[occluded]) / np.linalg.norm(X[occluded]))
        for name, R in (("occluded pixels fitted", fitted), ("block marked missing", masked))
    }
    fig = plot_gallery(
        {
            "clean": X,
            "occluded": corrupted,
            f"fitted ({errors['occluded pixels fitted']:.3f})": fitted,
            f"masked ({errors['block marked missing']:.3f})": masked,
        },
        faces.image_shape,
        indices=occluded[:8],
        title="RPCA-OM on occluded faces: the block fitted, or marked missing",
    )
    fig.savefig(path, dpi=110)
    return errors


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, smaller problems")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--faces-figure", default=None, help="write the faces figure, exit")
    args = parser.parse_args(argv)
    if args.faces_figure:
        errors = faces_figure(args.faces_figure)
        print(json.dumps(errors, indent=1))
        return errors
    seeds = range(1 if args.quick else args.seeds)
    problems = {
        "rows: 500 x 50, rank 5, 10% outlier rows, 10% missing": (
            (lambda s: problem_rows(s, n=200, d=20, k=3)) if args.quick else problem_rows
        ),
        "cells: 400 x 300, rank 10, 5% gross cells, 20% missing": (
            (lambda s: problem_cells(s, n=100, d=60, k=3)) if args.quick else problem_cells
        ),
    }
    results = {}
    for title, problem in problems.items():
        results[title] = measure(problem, seeds)
        print(table(title, results[title]) + "\n", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    return results


if __name__ == "__main__":
    main()
