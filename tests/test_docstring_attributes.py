"""Every public fitted attribute of every estimator is named in its class docstring's
Attributes section (the rendered API page of the class; ``BaseSubspaceEstimator``'s
section, where ``n_missing_`` and ``offset_`` were documented, is not shown there)."""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest

import robustpca

#: Constructor arguments beyond the defaults for a 40 x 6 matrix.
SPECIAL = {
    "TwoDPCA": {"image_shape": (2, 3), "n_components": 1},
    "GLRAM": {"image_shape": (2, 3), "n_components": 1},
    "Robust2DPCA": {"image_shape": (2, 3), "n_components": 1},
    "CappedRobust2DPCA": {"image_shape": (2, 3), "n_components": 1},
    "L21TwoDPCA": {"image_shape": (2, 3), "n_components": 1},
    "RobustTransferPCA": {"n_shared": 2, "n_source": 1, "n_target": 1},
    "OnlineRobustPCA": {"burn_in": 10, "batch_size": 10},
    "GRASTA": {"burn_in": 10, "batch_size": 10},
}
NAMES = [
    name
    for name in robustpca.__all__
    if inspect.isclass(getattr(robustpca, name)) and hasattr(getattr(robustpca, name), "fit")
]


def _documented(cls) -> set[str]:
    """The names of the Attributes section (entries and one-line lists of names)."""
    doc = inspect.getdoc(cls) or ""
    match = re.search(r"^Attributes\n-+\n(.*?)(?=^\w[\w ]*\n-{3,}\n|\Z)", doc, re.S | re.M)
    assert match, f"{cls.__name__} has no Attributes section"
    names = set()
    for line in match.group(1).splitlines():
        if line and not line[0].isspace():
            head = re.sub(r"\([^)]*\)", "", line.split(" : ")[0])
            names.update(re.findall(r"\b([A-Za-z]\w*_)(?!\w)", head))
    return names


def _fitted(name, X):
    cls = getattr(robustpca, name)
    params = cls().get_params()
    kwargs = dict(SPECIAL.get(name, {}))
    if "n_components" in params:
        kwargs.setdefault("n_components", 2)
    if "random_state" in params:
        kwargs["random_state"] = 0
    estimator = cls(**kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "RobustTransferPCA":
            source = np.random.default_rng(1).standard_normal((30, X.shape[1]))
            return estimator.fit(X, source=source)
        return estimator.fit(X)


def _public_fitted(estimator) -> set[str]:
    return {k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")}


def test_names_cover_the_estimators():
    assert set(robustpca.ESTIMATOR_NAMES) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_fitted_attributes_are_documented(name):
    X = np.random.default_rng(0).standard_normal((40, 6))
    got = _public_fitted(_fitted(name, X))
    documented = _documented(getattr(robustpca, name))
    assert not got - documented, f"{name}: undocumented {sorted(got - documented)}"


TAKE_GAPS = [n for n in NAMES if getattr(robustpca, n)().__sklearn_tags__().input_tags.allow_nan]


@pytest.mark.parametrize("name", TAKE_GAPS)
def test_attributes_set_with_missing_entries_are_documented(name):
    """With NaN (for the estimators that take it) some solvers leave other attributes."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    X[3, 2] = X[17, 0] = np.nan
    cls = getattr(robustpca, name)
    got = _public_fitted(_fitted(name, X))
    documented = _documented(cls)
    assert not got - documented, f"{name}: undocumented {sorted(got - documented)}"


@pytest.mark.parametrize("name", NAMES)
def test_documented_attributes_are_set(name):
    """The converse: no entry names an attribute a fit on complete data leaves unset
    (``n_missing_`` is not documented where it is never set, as on the 2-D estimators)."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    estimator = _fitted(name, X)
    absent = {a for a in _documented(type(estimator)) if not hasattr(estimator, a)}
    assert not absent, f"{name}: documented but not set {sorted(absent)}"
