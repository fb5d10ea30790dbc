"""Every constructor parameter of every estimator refuses a value of no meaning.

A value that no parameter accepts (an arbitrary object, an unknown string, NaN, a complex
number) raises a ``ValueError`` or ``TypeError`` naming the parameter at ``fit``, whatever
the other parameters: scikit-learn checks every parameter, so a value that the chosen
option ignores is still a mistake. Found by a fuzz of every parameter (2026-11-28):
PCP's and outlier pursuit's ``center`` took any truthy value, ``CovariancePCA``'s
``n_starts`` failed inside FAST-MCD ("need at least one array to concatenate"),
RPCA-OM's ``p`` and ``threshold`` and kernel PCA-L21's ``kernel_params`` were checked
only under the option using them, ``coef0`` took NaN, and ``ROBPCA(n_components=None)``
failed on ``int(None)``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import robustpca

from .conftest import make_estimator

#: The 2-D estimators read each row as an image of this shape.
IMAGES = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}
NONSENSE = [object(), "bogus", float("nan"), 1 + 1j]


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 20)) + 0.1 * rng.normal(size=(40, 20))
    X[:3] += 20.0
    return X


def _cases():
    for name in robustpca.ESTIMATOR_NAMES:
        for param in make_estimator(name).get_params():
            # random_state goes to scikit-learn's check_random_state and its message
            if param != "random_state":
                yield name, param


@pytest.mark.parametrize(("name", "param"), list(_cases()))
def test_a_value_of_no_meaning_is_refused_by_name(name, param):
    X = _data()
    base = {"image_shape": (4, 5)} if name in IMAGES else {}
    for value in NONSENSE:
        estimator = make_estimator(name, **base).set_params(**{param: value})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # the name as a word: "p" or "mu" alone would match any message
            with pytest.raises((ValueError, TypeError), match=rf"\b{re.escape(param)}\b"):
                estimator.fit(X)


def test_robpca_n_components_none_is_every_direction():
    X = _data()[:, :8]
    every = make_estimator("ROBPCA", n_components=None).fit(X)
    eight = make_estimator("ROBPCA", n_components=8).fit(X)
    assert every.n_components_ == 8
    np.testing.assert_array_equal(every.components_, eight.components_)
    np.testing.assert_array_equal(every.predict(X), eight.predict(X))


def test_center_must_be_a_bool():
    """``center="no"`` had centred (a non-empty string is truthy); PCP's message names
    its other valid value."""
    with pytest.raises(TypeError, match="center must be a bool or 'median'"):
        robustpca.PrincipalComponentPursuit(center="no").fit(_data())
