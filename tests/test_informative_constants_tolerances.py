"""The tolerances of the constant columns
(:mod:`robustpca.solvers.informative_coordinates`).

:func:`constant_columns` names the columns whose observed entries are *all equal*: a
column that varies, however little, is data. :func:`model_constants` keeps a training
constant as unused by the model where its mean is the constant and no component loads
on the column, "both to the square root of the components' precision (relative to the
largest constant or mean entry)": a real loading, however small against the others, is
a use of the column; rounding of the components' own precision (float32's) is not; and
the mean is compared relative to the data's magnitude.
"""

from __future__ import annotations

import numpy as np

from robustpca.solvers.informative_coordinates import (
    ConstantColumns,
    constant_columns,
    model_constants,
)


def test_a_column_that_varies_is_not_constant():
    """Entries equal but for relative 1e-12 (or an absolute 1e-300) are not constant."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X[:, 1] = 7.0 * (1.0 + 1e-12 * np.arange(20))
    X[:, 2] = 0.0
    X[3, 2] = 1e-300
    assert constant_columns(X) is None
    X[:, 1] = 7.0
    found = constant_columns(X)
    np.testing.assert_array_equal(found.mask, [False, True, False])


def _constants(values):
    values = np.asarray(values, dtype=np.float64)
    return ConstantColumns(values != 0, values)


def test_a_small_loading_is_a_use_of_the_column():
    """A component loading 1e-3 on the constant column: the model uses it."""
    constants = _constants([0.0, 0.0, 5.0])
    components = np.array([[0.6, 0.8 * np.sqrt(1 - 1e-6), 1e-3 * 0.8]])
    assert model_constants(constants, np.array([1.0, 2.0, 5.0]), components) is None
    unloaded = np.array([[0.6, 0.8, 0.0]])
    kept = model_constants(constants, np.array([1.0, 2.0, 5.0]), unloaded)
    np.testing.assert_array_equal(kept.mask, [False, False, True])


def test_float32_rounding_is_no_loading():
    """float32 components whose loading on the column is float32 rounding (1e-6)."""
    constants = _constants([0.0, 0.0, 5.0])
    components = np.array([[0.6, 0.8, 1e-6]], dtype=np.float32)
    kept = model_constants(constants, np.array([1.0, 2.0, 5.0]), components)
    np.testing.assert_array_equal(kept.mask, [False, False, True])


def test_the_mean_is_compared_relative_to_the_data():
    """A constant of 1e9 whose fitted mean is off by rounding (1e9 * 1e-15) is kept;
    a mean 1e-3 off a constant of 5 is not the constant."""
    constants = _constants([0.0, 1e9])
    components = np.array([[1.0, 0.0]])
    kept = model_constants(constants, np.array([3.0, 1e9 * (1 + 1e-15)]), components)
    np.testing.assert_array_equal(kept.mask, [False, True])
    constants = _constants([0.0, 5.0])
    assert model_constants(constants, np.array([3.0, 5.001]), components) is None
