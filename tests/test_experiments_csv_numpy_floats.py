"""A fixed bug: ``rows_to_csv`` wrote a NumPy float as ``np.float64(0.5)`` (NumPy 2's
``repr``), no number at all, though it promises that floats read back exactly. A task
that returns ``np.mean(...)`` or an estimator's attribute as it stands writes NumPy
floats."""

from __future__ import annotations

import csv
import io

import numpy as np

from robustpca import experiments


def test_numpy_floats_read_back_exactly():
    value = np.float64(0.1) + np.float64(0.2)
    rows = [{"k": np.int64(10), "error": value, "gap": np.mean([1.0, 2.0, 4.0])}]
    rows.append({"k": 3, "error": np.float32(0.1), "gap": 0.25})
    first, second = csv.DictReader(io.StringIO(experiments.rows_to_csv(rows)))
    assert float(first["error"]) == value
    assert float(first["gap"]) == 7.0 / 3.0
    assert int(first["k"]) == 10
    assert float(second["error"]) == float(np.float32(0.1))
    assert float(second["gap"]) == 0.25
