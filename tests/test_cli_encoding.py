"""``robustpca fit`` where the locale's encoding is not UTF-8 (Windows' cp1252, or the C
locale without coercion): the output files are UTF-8 whatever the locale, as the input
is read, and names the console cannot show are printed as escapes, not a traceback."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
NAMES = ["température", "Zürich", "東京", "σ_noise", "x"]


@pytest.mark.parametrize("chunked", [False, True], ids=["in-memory", "chunked"])
def test_fit_writes_utf8_outputs_under_an_ascii_locale(tmp_path, chunked):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5)) + 0.05 * rng.normal(size=(40, 5))
    X[:3] += 20.0
    labels = [f"échantillon_{i}" for i in range(40)]
    with open(tmp_path / "data.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", *NAMES])
        writer.writerows([label, *row] for label, row in zip(labels, X.tolist(), strict=True))
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "LC_ALL": "C",  # an ASCII locale: no coercion to C.UTF-8, no UTF-8 mode
        "PYTHONCOERCECLOCALE": "0",
        "PYTHONUTF8": "0",
        "PYTHONIOENCODING": "",
    }
    argv = ["fit", "data.csv", "-k", "2", "--index-col", "name", "--out", "out"]
    argv += ["--no-figures", *(["--chunked"] if chunked else [])]
    run = subprocess.run(
        [sys.executable, "-m", "robustpca", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    out = tmp_path / "out"
    for name in ("components.csv", "mean.csv", "scores.csv", "distances.csv"):
        (out / name).read_bytes().decode("utf-8")  # raises if not UTF-8
    header = (out / "components.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",")[1:] == NAMES
    with open(out / "distances.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["sample"] for r in rows] == labels
    if sys.platform != "win32":  # the C locale's stdout is ASCII
        assert b"Most outlying: \\xe9chantillon_" in run.stdout
