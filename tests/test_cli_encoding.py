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
LABELS = [f"échantillon_{i}" for i in range(40)]


ROUTES = {"in-memory": [], "chunked": ["--chunked"]}
#: ``python -m robustpca fit`` once per route, in one interpreter (each start imports
#: scikit-learn): between them ``main`` puts stdout's error handling back as it was.
DRIVER = """
import runpy, sys
for route, extra in {routes!r}.items():
    print("=== " + route, flush=True)
    sys.argv = ["robustpca", *{argv!r}, "--out", "out-" + route, *extra]
    try:
        runpy.run_module("robustpca", run_name="__main__", alter_sys=True)
    except SystemExit as done:
        if done.code:
            raise
"""


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """The folder of ``data.csv`` and both routes' outputs, and each route's stdout."""
    folder = tmp_path_factory.mktemp("ascii-locale")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5)) + 0.05 * rng.normal(size=(40, 5))
    X[:3] += 20.0
    with open(folder / "data.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", *NAMES])
        writer.writerows([label, *row] for label, row in zip(LABELS, X.tolist(), strict=True))
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "LC_ALL": "C",  # an ASCII locale: no coercion to C.UTF-8, no UTF-8 mode
        "PYTHONCOERCECLOCALE": "0",
        "PYTHONUTF8": "0",
        "PYTHONIOENCODING": "",
    }
    argv = ["fit", "data.csv", "-k", "2", "--index-col", "name", "--no-figures"]
    run = subprocess.run(
        [sys.executable, "-c", DRIVER.format(routes=ROUTES, argv=argv)],
        cwd=folder,
        env=env,
        capture_output=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    parts = run.stdout.split(b"=== ")[1:]
    stdout = {part.split(b"\n", 1)[0].decode().strip(): part for part in parts}
    assert set(stdout) == set(ROUTES)
    return folder, stdout


@pytest.mark.parametrize("route", ROUTES)
def test_fit_writes_utf8_outputs_under_an_ascii_locale(fitted, route):
    folder, stdout = fitted
    out = folder / f"out-{route}"
    for name in ("components.csv", "mean.csv", "scores.csv", "distances.csv"):
        (out / name).read_bytes().decode("utf-8")  # raises if not UTF-8
    header = (out / "components.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",")[1:] == NAMES
    with open(out / "distances.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["sample"] for r in rows] == LABELS
    if sys.platform != "win32":  # the C locale's stdout is ASCII
        assert b"Most outlying: \\xe9chantillon_" in stdout[route]
