"""benchmarks/which_method.py notes a fit that did not converge, as robustpca warns it.

A fixed bug: ``fit_and_diagnose`` wrote ``note = "not converged"`` when a warning's
*message* contained "converge". robustpca's estimators say it with a
``ConvergenceWarning`` whose message reads "<Estimator> reached max_iter=... before its
stopping criterion fell below tol=...", without that word, so the note was never written
for them: tables.csv and breakdown.csv showed fits stopped at ``max_iter`` as if they
had converged. ``robustpca fit`` (the CLI's ``_methods``) recognises the warning by its
category, as the benchmark now does.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import which_method


@pytest.mark.parametrize("name", ["OptimalMeanPCA", "PrincipalComponentPursuit", "HQPCA"])
def test_a_fit_stopped_at_max_iter_is_noted(name, monkeypatch):
    monkeypatch.setitem(which_method.VARIANTS, name, [{"max_iter": 1}])
    variant = which_method.with_centred_variants([name])[1]
    X, _ = which_method.planted("orthogonal", 0.1, seed=0)
    with warnings.catch_warnings(record=True) as caught:  # the estimator does warn
        warnings.simplefilter("always")
        which_method.make(variant, 2, 0).fit(X)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    model, _, _, note = which_method.fit_and_diagnose(variant, X, 2, 0)
    assert model is not None and not model.converged_
    assert note == "not converged"
