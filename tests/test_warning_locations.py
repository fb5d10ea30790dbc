"""Every warning names the user's line, whichever public method led to it: a fixed
``stacklevel`` had named a line of the library on most paths (``_base.py:356``,
``_incremental.py:137``), and the default filter then showed a warning once for all the
user's calls (:func:`robustpca._warnings.external_stacklevel`)."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from robustpca import HQPCA, L1PCA, OptimalMeanPCA

X = np.random.default_rng(0).normal(size=(60, 8)) * np.linspace(3.0, 0.5, 8)


def _locations(call) -> set[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "the call gave no warning"
    return {w.filename for w in caught if issubclass(w.category, UserWarning)}


@pytest.mark.parametrize("method", ["fit", "fit_predict", "fit_transform"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: OptimalMeanPCA(2, max_iter=1),  # ConvergenceWarning, through partial_fit's class
        lambda: L1PCA(2, max_iter=1),  # ConvergenceWarning of the base class
        lambda: HQPCA(2, kernel_width=0.05),  # a UserWarning of the estimator's own
    ],
    ids=["OptimalMeanPCA", "L1PCA", "HQPCA"],
)
def test_a_fit_warns_at_the_users_line(make, method):
    assert _locations(lambda: getattr(make(), method)(X)) == {__file__}


def test_dask_fits_and_searches_warn_at_the_users_line():
    lazy = da.from_array(X, chunks=20)
    assert _locations(lambda: OptimalMeanPCA(2, max_iter=1).fit(lazy)) == {__file__}
    search = GridSearchCV(OptimalMeanPCA(max_iter=1), {"n_components": [1, 2]}, cv=2)
    assert _locations(lambda: search.fit(X)) == {__file__}
    assert issubclass(ConvergenceWarning, UserWarning)
