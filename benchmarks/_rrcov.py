"""R's rrcov beside robustpca: the data both sides fit, and one ``Rscript`` call that fits
them all (``which_method.py``, ``bench_rrcov.py``, ``bench_projection_pursuit.py``).

Optional: used only where ``Rscript`` with rrcov is installed; CI never needs R.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from _harness import data_home

#: rrcov's five data tables, read from ``$ROBUSTPCA_DATA/rrcov`` or ``../shared/data/rrcov``
RRCOV_TABLES = ("hbk", "bushfire", "wood", "octane", "starsCYG")

#: R's rrcov estimators run on the same data when ``Rscript`` with rrcov is installed (never
#: needed: ``--no-r`` or no R skips them). ``k`` is passed as is; ``@flag`` FALSE marks
#: rrcov's outliers; the loadings give the subspace.
R_METHODS = {
    "rrcov::PcaHubert": "PcaHubert(x, k = k)",
    "rrcov::PcaHubert (alpha=0.5)": "PcaHubert(x, k = k, alpha = 0.5)",
    "rrcov::PcaLocantore": "PcaLocantore(x, k = k)",
    "rrcov::PcaGrid": "PcaGrid(x, k = k)",
    "rrcov::PcaClassic": "PcaClassic(x, k = k)",
}


#: The R side of :func:`run_jobs`: the jobs table (first argument) and the output file
#: (second); then, in the loop over the jobs, the table ``x`` and the rank ``k`` of job i.
_READ_JOBS = r"""args <- commandArgs(trailingOnly = TRUE)
jobs <- read.csv(args[1], stringsAsFactors = FALSE)
out <- file(args[2], "w")
"""
_FOR_EACH_JOB = r"""for (i in seq_len(nrow(jobs))) {
  x <- as.matrix(read.csv(jobs$path[i], header = FALSE)); k <- jobs$k[i]
"""


def r_driver(body: str, *, libraries: str = "library(rrcov)", setup: str = "") -> str:
    """An R script for :func:`run_jobs`: it loads ``libraries``, reads the jobs, runs
    ``setup`` once, then ``body`` for each job, which writes the job's line (its id
    first) to ``out``."""
    head = f"suppressMessages({libraries})\n" + _READ_JOBS + setup
    return head + _FOR_EACH_JOB + body + "}\nclose(out)\n"


#: R's side of ``_harness.cpu_per_call``: ``time_fit(f)`` is the CPU seconds of one
#: ``f()`` or, if shorter than 0.2 s, the mean over a loop of 0.2 s; with the last value.
R_TIME_FIT = r"""time_fit <- function(f) {
  st <- system.time(fit <- f())
  cpu <- st[["user.self"]] + st[["sys.self"]]
  if (cpu < 0.2) {
    loops <- ceiling(0.2 / max(cpu, 0.001))
    st <- system.time(for (l in seq_len(loops)) fit <- f())
    cpu <- (st[["user.self"]] + st[["sys.self"]]) / loops
  }
  list(cpu = cpu, fit = fit)
}
"""


R_DRIVER = r_driver(r"""  set.seed(0)
  t <- system.time(fit <- try(eval(parse(text = jobs$call[i])), silent = TRUE))[["elapsed"]]
  if (inherits(fit, "try-error")) {
    writeLines(paste(jobs$id[i], t, "FAIL", "", sep = ","), out)
    next
  }
  flagged <- paste(which(!fit@flag), collapse = " ")
  loadings <- paste(format(as.vector(getLoadings(fit)), digits = 17), collapse = " ")
  writeLines(paste(jobs$id[i], t, flagged, loadings, sep = ","), out)
""")


def r_available() -> bool:
    import shutil

    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(rrcov))"], capture_output=True, check=False
    )
    return probe.returncode == 0


def rrcov_tables(names: Iterable[str] = RRCOV_TABLES) -> dict:
    """{name: X} of the rrcov tables among ``names`` that are on this machine, without the
    response ``y`` that ``octane.csv`` holds in its first column (rrcov's examples drop
    it: ``octane[, -1]``; the tests' ``load_table`` does the same)."""
    folder = data_home() / "rrcov"
    data = {}
    for name in names:
        path = folder / f"{name}.csv"
        if path.exists():
            header = path.read_text(encoding="utf-8").split("\n", 1)[0].split(",")
            X = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
            data[name] = X[:, [j for j, c in enumerate(header) if c.strip().strip('"') != "y"]]
    return data


def synthetic(n: int, p: int, seed: int = 0) -> np.ndarray:
    """Rank-5 structure plus noise, the first 10% of the rows shifted."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(p, 5)))[0]
    X = rng.normal(size=(n, 5)) * [5.0, 4.0, 3.0, 2.0, 1.0] @ basis.T
    X += 0.1 * rng.normal(size=(n, p))
    X[: n // 10] += 8.0 * rng.normal(size=p)
    return X


def run_jobs(
    driver: str,
    data: dict,
    jobs_of: Callable[[object, np.ndarray], Iterable[tuple[object, int, str]]],
    *args: str,
) -> list[tuple[tuple, list[str]]]:
    """Run the R ``driver`` once, with ``Rscript``, on every job.

    ``data`` maps a key to a table ``X``, written once as CSV; ``jobs_of(key, X)`` yields
    the ``(label, k, R call)`` of the jobs on it. The driver is called with the jobs table
    (columns ``id, path, k, call``), the output file and ``args``, and writes one line
    per job, its id first. Returns ``((key, label), the other fields)`` per output line.
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        jobs, keys = ["id,path,k,call"], {}
        for i, (key, X) in enumerate(data.items()):
            path = folder / f"d{i}.csv"
            np.savetxt(path, X, delimiter=",", fmt="%.17g")
            for label, k, call in jobs_of(key, X):
                jobs.append(f'{len(jobs)},{path},{k},"{call}"')
                keys[len(jobs) - 1] = (key, label)
        (folder / "jobs.csv").write_text("\n".join(jobs) + "\n")
        (folder / "driver.R").write_text(driver)
        script = [str(folder / name) for name in ("driver.R", "jobs.csv", "o.csv")]
        subprocess.run(["Rscript", *script, *args], check=True, capture_output=True)
        lines = (folder / "o.csv").read_text().splitlines()
    out = []
    for line in lines:
        job, *fields = line.split(",")
        out.append((keys[int(job)], fields))
    return out


def parse_flagged(field: str) -> np.ndarray:
    """rrcov's flagged rows (1-based, space-separated) as 0-based indices."""
    return np.array([int(v) - 1 for v in field.split()], dtype=int)


def parse_loadings(field: str, p: int) -> np.ndarray:
    """rrcov's loadings (R's column-major ``as.vector`` of a p x k matrix) as p x k."""
    return np.array([float(v) for v in field.split()]).reshape(-1, p).T


def run_r(datasets: dict, methods=R_METHODS) -> dict:
    """{(dataset id, method): (seconds, flagged 0-based indices, loadings p x k) or None}.

    ``datasets`` maps an id to ``(X, k)``; one ``Rscript`` call fits them all.
    """
    lines = run_jobs(
        R_DRIVER,
        {key: X for key, (X, _) in datasets.items()},
        lambda key, X: [(method, datasets[key][1], call) for method, call in methods.items()],
    )
    out: dict = {}
    for (key, method), (seconds, flagged, loadings) in lines:
        if flagged == "FAIL":
            out[(key, method)] = None
            continue
        X = datasets[key][0]
        out[(key, method)] = (
            float(seconds),
            parse_flagged(flagged),
            parse_loadings(loadings, X.shape[1]),
        )
    return out
