"""R's rrcov on the same data as ``which_method.py``: one ``Rscript`` call fits them all.

Optional: used only where ``Rscript`` with rrcov is installed; CI never needs R.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

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
R_DRIVER = r"""
suppressMessages(library(rrcov))
args <- commandArgs(trailingOnly = TRUE)
jobs <- read.csv(args[1], stringsAsFactors = FALSE)
out <- file(args[2], "w")
for (i in seq_len(nrow(jobs))) {
  x <- as.matrix(read.csv(jobs$path[i], header = FALSE)); k <- jobs$k[i]
  set.seed(0)
  t <- system.time(fit <- try(eval(parse(text = jobs$call[i])), silent = TRUE))[["elapsed"]]
  if (inherits(fit, "try-error")) {
    writeLines(paste(jobs$id[i], t, "FAIL", "", sep = ","), out)
    next
  }
  flagged <- paste(which(!fit@flag), collapse = " ")
  loadings <- paste(format(as.vector(getLoadings(fit)), digits = 17), collapse = " ")
  writeLines(paste(jobs$id[i], t, flagged, loadings, sep = ","), out)
}
close(out)
"""


def r_available() -> bool:
    import shutil
    import subprocess

    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(rrcov))"], capture_output=True, check=False
    )
    return probe.returncode == 0


def run_r(datasets: dict, methods=R_METHODS) -> dict:
    """{(dataset id, method): (seconds, flagged 0-based indices, loadings p x k) or None}.

    ``datasets`` maps an id to ``(X, k)``; one ``Rscript`` call fits them all.
    """
    import subprocess
    import tempfile

    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        jobs = ["id,path,k,call"]
        for key, (X, k) in datasets.items():
            path = folder / f"d{len(jobs)}.csv"
            np.savetxt(path, X, delimiter=",", fmt="%.17g")
            for method, call in methods.items():
                jobs.append(f'{len(jobs)},{path},{k},"{call}"')
                results[len(jobs) - 1] = (key, method, X.shape[1], k)
        (folder / "jobs.csv").write_text("\n".join(jobs) + "\n")
        (folder / "driver.R").write_text(R_DRIVER)
        subprocess.run(
            ["Rscript", str(folder / "driver.R"), str(folder / "jobs.csv"), str(folder / "o.csv")],
            check=True,
            capture_output=True,
        )
        lines = (folder / "o.csv").read_text().splitlines()
    out: dict = {}
    for line in lines:
        job, seconds, flagged, loadings = line.split(",")
        key, method, p, k = results[int(job)]
        if flagged == "FAIL":
            out[(key, method)] = None
            continue
        idx = np.array([int(v) - 1 for v in flagged.split()], dtype=int)
        V = np.array([float(v) for v in loadings.split()]).reshape(k, p).T
        out[(key, method)] = (float(seconds), idx, V)
    return out
