"""robustpca's ROBPCA and spherical PCA against robpy's, the robust PCA of PyPI's robpy.

robpy (Leyder, Raymaekers, Rousseeuw, Servotte & Verdonck) pins scikit-learn below 1.7,
so it runs in an environment of its own, whose Python this script calls::

    python3 -m venv ../venv-robpy && ../venv-robpy/bin/pip install robpy threadpoolctl
    python benchmarks/bench_robpy.py --robpy-python ../venv-robpy/bin/python
    python benchmarks/bench_robpy.py --quick        # seconds; ours only without robpy

``--robpy-python`` defaults to ``$ROBPY_PYTHON``. The data are those of
``bench_rrcov.py`` (the five rrcov tables and its seeded synthetic tables). Pairs:
``ROBPCA`` / ``robpy.pca.ROBPCA`` and ``SphericalPCA`` / ``robpy.pca.PCALocantore``, at
``k = 2``. Reported per pair: the **CPU seconds** of one fit (the median of
``--repeat``; both sides with one BLAS thread through threadpoolctl), the ratio robpy /
ours (above 1: we are faster), the sine of the largest principal angle between the two
subspaces and, on the synthetic tables, each one's sine to the planted top-``k``
subspace. The methods are not the same computations: robpy's ROBPCA draws random
directions for its outlyingness, has its own ``h`` rule and centres on the mean of all
the data (robpy 0.0.6, ``ROBPCA.fit``); its spherical PCA has its own spatial median.
``docs/rrcov.md`` compares ours with rrcov, the reference.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_rrcov
from _harness import MIN_TIMED_SECONDS, cpu_per_call, markdown_table, subspace_sin
from bench_rrcov import datasets

#: Our estimator and robpy's class, per pair.
PAIRS = {"ROBPCA": "ROBPCA", "SphericalPCA": "PCALocantore"}

#: Runs in robpy's environment: argv = jobs JSON, output JSON, k, repeat.
ROBPY_DRIVER = """
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")  # scikit-learn's deprecations of robpy's calls
from robpy import pca
try:
    from threadpoolctl import threadpool_limits
except ImportError:  # timed with the environment's threads
    import contextlib
    threadpool_limits = lambda n: contextlib.nullcontext()
jobs, out, k, repeat = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
results = []
with threadpool_limits(1):
    for job in jobs:
        X = np.load(job["path"])
        cpu, model = [], None
        for r in range(repeat):
            kwargs = {"random_seed": r} if job["cls"] == "ROBPCA" else {}

            def make(cls=job["cls"], kwargs=kwargs):
                model = getattr(pca, cls)(n_components=k, **kwargs)
                model.fit(X)  # (robpy's fit need not return the model)
                return model

            seconds, model = cpu_per_call(make)  # bench_rrcov's timing (_harness)
            cpu.append(seconds)
        results.append({"key": job["key"], "name": job["name"], "seconds": float(np.median(cpu)),
                        "components": np.asarray(model.components_).tolist()})
json.dump(results, open(out, "w"))
"""


def _driver() -> str:
    """The driver with ``_harness.cpu_per_call`` (short fits timed over a loop, as ours
    are) prepended: robpy's environment does not have this folder on its path."""
    timing = f"MIN_TIMED_SECONDS = {MIN_TIMED_SECONDS}\n\n" + inspect.getsource(cpu_per_call)
    head, body = ROBPY_DRIVER.split("jobs, out, k, repeat", 1)
    return (
        "from __future__ import annotations\n" + head + timing + "\n\njobs, out, k, repeat" + body
    )


def run_robpy(python: str, data: dict, k: int, repeat: int) -> dict:
    """``(key, name) -> (CPU seconds, loadings p x k)`` from robpy's environment."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        jobs = []
        for i, (key, X) in enumerate(data.items()):
            path = folder / f"{i}.npy"
            np.save(path, X)
            jobs += [{"key": key, "name": n, "cls": c, "path": str(path)} for n, c in PAIRS.items()]
        (folder / "jobs.json").write_text(json.dumps(jobs))
        (folder / "driver.py").write_text(_driver())
        out = folder / "out.json"
        driver, jobs_file = str(folder / "driver.py"), str(folder / "jobs.json")
        subprocess.run([python, driver, jobs_file, str(out), str(k), str(repeat)], check=True)
        rows = json.loads(out.read_text())
    return {(r["key"], r["name"]): (r["seconds"], np.array(r["components"])) for r in rows}


def run_ours(data: dict, k: int, repeat: int) -> dict:
    """``(key, name) -> (CPU seconds, loadings p x k)``: ``bench_rrcov``'s timing of ours."""
    fits = bench_rrcov.run_ours(data, k, repeat, list(PAIRS))
    return {key: (seconds, loadings) for key, (seconds, _, loadings) in fits.items()}


def planted(key: str, p: int, k: int) -> np.ndarray | None:
    """The top ``k`` planted directions of ``bench_rrcov``'s synthetic tables (the first
    draw of their generator, ``_rrcov.synthetic``, seed 0), None for the real tables."""
    if not key.startswith("synthetic"):
        return None
    return np.linalg.qr(np.random.default_rng(0).normal(size=(p, 5)))[0][:, :k]


def report(data: dict, ours: dict, theirs: dict, k: int) -> str:
    rows = []
    for key, X in data.items():
        truth = planted(key, X.shape[1], k)
        for name, cls in PAIRS.items():
            seconds, V = ours[(key, name)]
            ref = theirs.get((key, name))
            t_ref, V_ref = ref if ref is not None else (None, None)
            cells = [key, f"{X.shape[0]} x {X.shape[1]}", f"{name} / {cls}", f"{seconds:.3f}"]
            cells.append("-" if t_ref is None else f"{t_ref:.3f}")
            cells.append("-" if t_ref is None or seconds <= 0 else f"{t_ref / seconds:.1f}")
            cells.append("-" if V_ref is None else f"{subspace_sin(V, V_ref):.1e}")
            if truth is None:
                cells.append("-")
            else:
                theirs_sine = "-" if V_ref is None else f"{subspace_sin(V_ref, truth):.2f}"
                cells.append(f"{subspace_sin(V, truth):.2f} / {theirs_sine}")
            rows.append(cells)
    headers = ["data", "n x p", "ours / robpy", "ours (CPU s)", "robpy (CPU s)", "robpy / ours"]
    headers += ["sine to robpy", "sine to the planted subspace, ours / robpy"]
    return markdown_table(headers, rows, right={3, 4, 5, 6, 7})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robpy-python", default=os.environ.get("ROBPY_PYTHON"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("-k", type=int, default=2)
    args = parser.parse_args(argv)
    data = datasets(args.quick)
    repeat = 1 if args.quick else args.repeat
    ours = run_ours(data, args.k, repeat)
    theirs = run_robpy(args.robpy_python, data, args.k, repeat) if args.robpy_python else {}
    if not theirs:
        print("no --robpy-python (or $ROBPY_PYTHON): robustpca's timings only", file=sys.stderr)
    print(report(data, ours, theirs, args.k))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
