"""ROBPCA, SphericalPCA and ProjectionPursuitPCA equal rrcov beyond its five tables.

rrcov 1.7-2 and pcaPP 2.0-3 on ten synthetic data sets with planted outliers, tall,
square and wide (60 x 8, 40 x 12, 100 x 3, 30 x 30, 25 x 60; ``tests/reference/
rrcov_synthetic/make_fixtures.R`` made the data and the fits, and describes both). On
the 40 x 12, 30 x 30 and 25 x 60 sets ROBPCA takes the projected-MCD route of
``PcaHubert`` (rank above ``n / 5``), which among the tables only wood and octane take;
on the others the MCD of the scores. Everything is compared as on the
tables (``tests/test_robpca.py``, ``tests/test_projection_pursuit.py``): eigenvalues,
centre, loadings, distances, cutoffs and flags.

``PcaCov`` is not compared here: on these data FAST-MCD's 500 random starts reach
different local minima of the MCD criterion in robustbase and here, and each is lower
than the other's on some data sets (``a_60x8``: robustbase's criterion is -0.408 under
``set.seed(1)``, the fixtures' seed, from tests/reference/inline_values/make_values.R;
ours is -0.398 with ``random_state=0`` and -0.454 with ``random_state=2``). The tables,
where the minimum is clear, compare it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from robustpca import ROBPCA, ProjectionPursuitPCA, SphericalPCA

from .test_projection_pursuit import assert_equals_pcapp
from .test_robpca import assert_equals_rrcov

FOLDER = Path(__file__).parent / "reference" / "rrcov_synthetic"
with open(FOLDER / "fits.csv", encoding="utf-8", newline="") as _f:
    FITS = {(r["method"], r["table"], int(r["k"])): r for r in csv.DictReader(_f)}
PP = {"PcaGrid": "grid", "PcaProj": "proj"}


def _data(name: str) -> np.ndarray:
    return np.loadtxt(FOLDER / "data" / f"{name}.csv", delimiter=",", ndmin=2)


@pytest.mark.parametrize(("method", "table", "k"), sorted(FITS), ids=lambda v: str(v))
def test_equals_rrcov_on_synthetic_data(method, table, k):
    ref, X = FITS[(method, table, k)], _data(table)
    auto = "auto" if k == 0 else k
    if method == "PcaHubert":
        assert_equals_rrcov(ROBPCA(n_components=auto, random_state=0).fit(X), X, ref)
    elif method == "PcaLocantore":
        model = SphericalPCA(n_components=auto, scale_on="sphere").fit(X)
        assert_equals_rrcov(model, X, ref)
    else:  # k = 0 is rrcov's k = rank (n_components=None), on tall data only
        model = ProjectionPursuitPCA(n_components=None if k == 0 else k, method=PP[method])
        assert_equals_pcapp(model.fit(X), X, ref, method)


def test_the_fixtures_cover_every_shape_and_method():
    tables = {table for _, table, _ in FITS}
    assert len(tables) == 10
    for method in ("PcaHubert", "PcaLocantore", "PcaGrid", "PcaProj"):
        assert {table for m, table, _ in FITS if m == method} == tables
