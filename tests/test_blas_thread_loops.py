"""The loops of small BLAS products run on one BLAS thread (GRASTA's step per row, the
robust 2-D methods' products per image), as scikit-learn's ``KMeans`` limits its own:
with more threads they waited on each other at every call, several times slower where
another process held a core (``docs/design-notes/linear-algebra.md``). The results are
those of a fit under ``threadpool_limits(1)``, and the limit ends with the fit."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from robustpca import GRASTA, CappedRobust2DPCA, L21TwoDPCA, Robust2DPCA
from robustpca.datasets import load_orl
from robustpca.estimators import _grasta, _l21_two_d, _two_d

CASES = [
    (GRASTA, {}, _grasta, "grasta_process"),
    (Robust2DPCA, {"image_shape": (32, 32), "n_components": (4, 4)}, _two_d,
     "solve_robust_two_d_pca"),
    (CappedRobust2DPCA, {"image_shape": (32, 32), "n_components": (4, 4)}, _two_d,
     "solve_robust_two_d_pca"),
    (L21TwoDPCA, {"image_shape": (32, 32), "n_components": (4, 4)}, _l21_two_d,
     "solve_l21_two_d"),
]  # fmt: skip


def _blas_threads() -> set[int]:
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


@pytest.mark.realdata
@pytest.mark.parametrize(("cls", "params", "module", "solver"), CASES, ids=lambda c: str(c))
def test_the_loop_runs_on_one_blas_thread(shared_data, monkeypatch, cls, params, module, solver):
    X = load_orl(shared_data).data[:120]
    seen: list[set[int]] = []
    original = getattr(module, solver)

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return original(*args, **kwargs)

    with threadpool_limits(1, user_api="blas"):
        reference = cls(random_state=0, **params).fit(X)
    monkeypatch.setattr(module, solver, spy)
    with threadpool_limits(2, user_api="blas"):  # two, whatever the environment's default
        model = cls(random_state=0, **params).fit(X)
        assert _blas_threads() == {2}  # the limit ended with the fit
    assert seen and all(threads == {1} for threads in seen)
    np.testing.assert_array_equal(model.components_, reference.components_)
