"""Equivariance to the data's unit and origin: ``fit(c X + b)`` is ``fit(X)`` moved.

**Scale, at the ends of the float range.**

Robust PCA is used on data in any unit (volts or microvolts, counts or billions). Every
estimator whose model has no constant in data units gives, on ``c X``, the components,
flags and (scaled) scores it gives on ``X``. The factors are powers of two, so the
scaling itself is exact and any difference is the estimator's: an absolute constant
(a floor, a tolerance) or an overflow. GoDec's power steps, which cube the data's scale,
overflowed from about 1e103 (an ``AssertionError``) and underflowed from about 1e-103
(a subspace 0.9 off in sine) before its solver worked on the data divided by a power of
two.

R-1 PCA's Gram iteration on wide data, ROBPCA's outlyingness (rrcov's zero thresholds,
1e-12 in data units) and PCAproj (pcaPP's ``zero.tol``, 1e-16 in squared data units)
were not either, until their constants were taken relative to the data's scale.

Not scale-equivariant by design, and so not tested here:

* :class:`~robustpca.KernelL21PCA`: the kernel's ``gamma`` (default ``1 / n_features``,
  as scikit-learn's ``KernelPCA``) is in inverse squared data units;
* :class:`~robustpca.RankConstrainedRobustPCA`: ``beta / alpha`` is its Huber threshold
  in data units (documented);
* :class:`~robustpca.SphericalPCA`: rrcov's spatial median stops on steps below
  ``delta * sqrt(p)``, an absolute tolerance kept to equal rrcov's ``PcaLocantore``
  (``tests/test_spherical_covariance.py``).

The image estimators and R-T-PCA are left to their own modules.

**Translation.** Every estimator with an offset (``mean_``) gives, on ``X + b``, the
components and flags it gives on ``X`` and a mean moved by ``b``. CRPCA-OM with missing
entries did not: its observed-entries ALM started and stopped on the uncentred data, so
a shift of 1e6 turned its subspace by 8e-3 in sine and changed 5 of bushfire's flags (and
on octane it took 135-143 iterations, against 37-41 centred).

**Row order.** The same estimators but CovariancePCA (FAST-MCD's random subsets are
drawn by row index, as robustbase's) and the online ones (a stream is seen in its order)
give the same fit whatever the order of the rows.

**Column order and signs.** The same estimators but GoDec (a Gaussian draw per column)
and GRASTA (a random subset of entries per row, drawn by column index) give the same fit,
its components moved with the columns, whatever their order and signs.

**A constant column** changes nothing for the estimators whose constants do not grow with
the dimension and that have an offset (not AccAltProj, GoDec, SphericalPCA,
OnlineRobustPCA or GRASTA).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustpca

from .conftest import load_table, random_gaps

#: every estimator on tables whose model has no constant in data units
NOT_EQUIVARIANT = {"KernelL21PCA", "RankConstrainedRobustPCA", "SphericalPCA"}
IMAGES = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}
NAMES = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if name not in NOT_EQUIVARIANT | IMAGES | {"RobustTransferPCA"}
]
#: convex programs: their penalty sets the rank
PENALISED = {"PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA"}
EXPONENTS = [-400, -60, 60, 400]
CASES = [(name, False) for name in NAMES] + [
    (name, True) for name in NAMES if getattr(robustpca, name)._supports_missing
]


#: no offset by default; ``center=True`` subtracts the (observed) column means
CENTRED_ON_REQUEST = {"PrincipalComponentPursuit", "OutlierPursuit"}
#: the known-rank and online low-rank plus sparse models have no offset at all
NO_OFFSET = {"AccAltProj", "GoDec", "OnlineRobustPCA", "GRASTA"}
SHIFTED = [(name, gaps) for name, gaps in CASES if name not in NO_OFFSET]


def _model(name: str, centred: bool):
    cls = getattr(robustpca, name)
    params = cls().get_params()
    kwargs = {"center": True} if centred and name in CENTRED_ON_REQUEST else {}
    if "random_state" in params:
        kwargs["random_state"] = 0
    if "n_components" in params and name not in PENALISED:
        kwargs["n_components"] = 2
    return cls(**kwargs)


def _ids(cases):
    return [f"{n}-{'gaps' if g else 'complete'}" for n, g in cases]


def _bushfire(shared_data, gaps: bool):
    X = load_table(shared_data, "bushfire")
    return random_gaps(X, 0)[0] if gaps else X


def _fit(name: str, X, centred: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fits themselves are compared
        return _model(name, centred).fit(X)


@pytest.fixture(scope="module")
def fitted(shared_data):
    """``fitted(table, gaps, name, centred=False)``: the fit of the table (with
    ``random_gaps(X, 0)`` where ``gaps``), made once for the module's tests, which only
    read it (``centred`` changes only the models of ``CENTRED_ON_REQUEST``)."""
    fits = {}

    def get(table: str, gaps: bool, name: str, centred: bool = False):
        key = (table, gaps, name, centred and name in CENTRED_ON_REQUEST)
        if key not in fits:
            X = load_table(shared_data, table)
            fits[key] = _fit(name, random_gaps(X, 0)[0] if gaps else X, centred)
        return fits[key]

    return get


#: PCA-GM with gaps: its weights r^(p - 2) are not scaled by a power of two, so the two
#: fits differ by rounding, and its fixed point amplifies that: stopped at tol 1e-6,
#: 1e-8, 1e-10 or 1e-12 (208-604 iterations), the components of 2^e X differed by
#: 2e-11 to 1.2e-10 (1.07e-10 at the default on an AMD EPYC, 2026-11-28).
#: GRASTA with gaps: at 2^-60 and 2^60 the fits are identical to the bit; at 2^+-400 the
#: first gradient already differs in its last bit (the observed fit's rounding does not
#: scale exactly there), and the adaptive steps carry it: 7.8e-11 in the components and
#: 1.5e-10 of the largest score since the steps are bounded by the first gradient
#: (3.6e-12 before; measured 2026-12-06).
SCALE_ATOL = {("GeneralizedMeanPCA", True): 5e-10, ("GRASTA", True): 3e-10}


@pytest.mark.realdata
@pytest.mark.parametrize(("name", "gaps"), CASES, ids=_ids(CASES))
def test_fit_of_scaled_data_is_the_scaled_fit(shared_data, fitted, name, gaps):
    """bushfire (38 x 5, outliers in rows 7-11 and 32-38), complete and with a tenth of
    its cells missing: at ``c = 2**e``, ``e`` in -400, -60, 60, 400, the components
    agree to 1e-10 (``SCALE_ATOL``), the scores of ``c X`` are ``c`` times those of ``X`` to 1e-10
    relative, and the flags are the same."""
    X = _bushfire(shared_data, gaps)
    reference = fitted("bushfire", gaps, name)
    scores, flags = reference.transform(X), reference.predict(X)
    assert np.isfinite(scores).all()
    atol = SCALE_ATOL.get((name, gaps), 1e-10)
    for exponent in EXPONENTS:
        c = np.ldexp(1.0, exponent)
        model = _fit(name, X * c)
        np.testing.assert_allclose(model.components_, reference.components_, rtol=0, atol=atol)
        scaled = np.asarray(model.transform(X * c)) / c
        np.testing.assert_allclose(scaled, scores, rtol=0, atol=atol * np.abs(scores).max())
        np.testing.assert_array_equal(model.predict(X * c), flags)


#: the MCD needs more rows than columns
TALL_ONLY = {"CovariancePCA"}
WIDE = [name for name in NAMES if name not in TALL_ONLY]


@pytest.mark.realdata
@pytest.mark.parametrize("name", WIDE)
def test_wide_fit_of_scaled_data_is_the_scaled_fit(shared_data, fitted, name):
    """octane (39 x 226) takes the wide routes: R1-PCA's Gram iteration, whose 4th
    power of the data's scale overflowed from about 1e78 (a crash at 2^400) and
    underflowed at 2^-400 (a subspace 0.26 off), and ROBPCA's outlyingness, whose zero
    thresholds were absolute (a subspace 3e-2 off at 2^-60). Components to 1e-10, the
    same flags."""
    X = load_table(shared_data, "octane")
    reference = fitted("octane", False, name)
    flags = reference.predict(X)
    for exponent in EXPONENTS:
        c = np.ldexp(1.0, exponent)
        model = _fit(name, X * c)
        np.testing.assert_allclose(model.components_, reference.components_, rtol=0, atol=1e-10)
        np.testing.assert_array_equal(model.predict(X * c), flags)


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["bushfire", "wood"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: robustpca.ROBPCA(2, mcd=False, random_state=0),
        lambda: robustpca.ProjectionPursuitPCA(2, method="proj", random_state=0),
    ],
    ids=["ROBPCA-outlyingness", "PCAproj"],
)
def test_other_routes_of_scaled_data(shared_data, table, make):
    """ROBPCA without its MCD shortcut (its outlyingness: on wood at 2^-60 the subspace
    was 0.35 off) and PCAproj (pcaPP's zero.tol in squared data units: on wood at
    2^-30 every candidate was dropped, the components the identity)."""
    X = load_table(shared_data, table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = make().fit(X)
        for exponent in EXPONENTS:
            c = np.ldexp(1.0, exponent)
            model = make().fit(X * c)
            P, Q = reference.components_, model.components_
            np.testing.assert_allclose(Q.T @ Q, P.T @ P, rtol=0, atol=1e-10)
            np.testing.assert_array_equal(model.predict(X * c), reference.predict(X))


@pytest.mark.realdata
@pytest.mark.parametrize(("name", "gaps"), SHIFTED, ids=_ids(SHIFTED))
def test_fit_of_shifted_data_is_the_shifted_fit(shared_data, fitted, name, gaps):
    """bushfire, complete and with gaps (PCP and outlier pursuit with ``center=True``),
    moved by ``b = s * (1, ..., 2)``, ``s`` 1e3 and
    1e6 (its entries are about 100-500): the subspace agrees to 1e-6 in sine, ``mean_``
    moves by ``b`` to 1e-6 of the data's scale, and the flags are the same."""
    X = _bushfire(shared_data, gaps)
    reference = fitted("bushfire", gaps, name, centred=True)
    flags = reference.predict(X)
    k = min(2, reference.n_components_)
    scale = float(np.nanmax(np.abs(X)))
    for shift in (1e3, 1e6):
        b = shift * np.linspace(1.0, 2.0, X.shape[1])
        model = _fit(name, X + b, centred=True)
        cosines = np.linalg.svd(
            reference.components_[:k] @ model.components_[:k].T, compute_uv=False
        )
        assert np.sqrt(max(0.0, 1.0 - cosines.min() ** 2)) < 1e-6
        np.testing.assert_allclose(model.mean_ - b, reference.mean_, rtol=0, atol=1e-6 * scale)
        np.testing.assert_array_equal(model.predict(X + b), flags)


#: FAST-MCD draws its random subsets by row index (as robustbase's does): one of three
#: orders of bushfire moved CovariancePCA's subspace by 3e-2
#: and an online fit sees its rows in their order, by design (each batch moves the model)
ORDER_DEPENDENT = {"CovariancePCA", "OnlineRobustPCA", "GRASTA"}
PERMUTED = [(name, gaps) for name, gaps in CASES if name not in ORDER_DEPENDENT]


@pytest.mark.realdata
@pytest.mark.parametrize(("name", "gaps"), PERMUTED, ids=_ids(PERMUTED))
def test_fit_of_permuted_rows_is_the_same_fit(shared_data, fitted, name, gaps):
    """bushfire, complete and with gaps, its rows in three random orders: the subspace
    agrees to 1e-6 in sine and each row keeps its flag."""
    X = _bushfire(shared_data, gaps)
    reference = fitted("bushfire", gaps, name)
    flags = reference.predict(X)
    k = min(2, reference.n_components_)
    rng = np.random.default_rng(1)
    for _ in range(3):
        order = rng.permutation(X.shape[0])
        model = _fit(name, X[order])
        cosines = np.linalg.svd(
            reference.components_[:k] @ model.components_[:k].T, compute_uv=False
        )
        assert np.sqrt(max(0.0, 1.0 - cosines.min() ** 2)) < 1e-6
        np.testing.assert_array_equal(model.predict(X[order]), flags[order])


#: GoDec's first low-rank step multiplies by a Gaussian matrix with one row per column,
#: so another column order is another draw (as another ``random_state`` is): on
#: bushfire with gaps its subspace moved by up to 0.3 in sine
#: GRASTA draws each row's random subset of entries by column index
COLUMN_ORDER_DEPENDENT = {"GoDec", "GRASTA"}
COLUMNS = [(name, gaps) for name, gaps in CASES if name not in COLUMN_ORDER_DEPENDENT]


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["bushfire", "starsCYG"])
@pytest.mark.parametrize(("name", "gaps"), COLUMNS, ids=_ids(COLUMNS))
def test_fit_of_permuted_and_flipped_columns_is_the_same_fit(
    shared_data, fitted, table, name, gaps
):
    """bushfire (``k = 2`` of 5 columns) and starsCYG (``k = 2`` of 2: the subspace is
    the whole space, so only the basis is tested), complete and with gaps, its columns in
    three random orders with random signs: the components move with the columns (to
    1e-6 in sine), the scores agree up to the sign of each component (to 1e-8 of their
    largest) and every flag is kept. R1-PCA at ``k = p`` turned its basis with the column
    order (3 of starsCYG's flags), its Huber weights being ratios of rounding errors."""
    X = load_table(shared_data, table)
    X = random_gaps(X, 0)[0] if gaps else X
    reference = fitted(table, gaps, name)
    flags, scores = reference.predict(X), np.abs(reference.transform(X))
    k = min(2, reference.n_components_)
    rng = np.random.default_rng(1)
    for _ in range(3):
        order = rng.permutation(X.shape[1])
        signs = rng.choice([-1.0, 1.0], X.shape[1])
        model = _fit(name, X[:, order] * signs)
        components = np.empty_like(model.components_)
        components[:, order] = model.components_ * signs
        cosines = np.linalg.svd(reference.components_[:k] @ components[:k].T, compute_uv=False)
        assert np.sqrt(max(0.0, 1.0 - cosines.min() ** 2)) < 1e-6
        moved = np.abs(model.transform(X[:, order] * signs))
        np.testing.assert_allclose(moved, scores, rtol=0, atol=1e-8 * scores.max())
        np.testing.assert_array_equal(model.predict(X[:, order] * signs), flags)


#: the known-rank models have no offset, and their thresholds scale with the dimensions;
#: SphericalPCA's spatial median stops on steps below ``delta * sqrt(p)``
DIMENSION_DEPENDENT = {"AccAltProj", "GoDec", "SphericalPCA"} | NO_OFFSET
CONSTANT = [name for name in NAMES if name not in DIMENSION_DEPENDENT]


@pytest.mark.realdata
@pytest.mark.parametrize("name", CONSTANT)
def test_a_constant_column_changes_nothing(shared_data, fitted, name):
    """bushfire with a constant column (0 or 7, a dead sensor) inserted second: the
    components are those without it (1e-6 in sine, the column's loadings below 1e-8) and
    every flag is kept. CovariancePCA's MCD could not choose among its h-subsets, every
    one singular, and turned the subspace by 1.0 in sine (7 of 12 flags changed)."""
    X = load_table(shared_data, "bushfire")
    reference = fitted("bushfire", False, name, centred=True)
    flags = reference.predict(X)
    k = min(2, reference.n_components_)
    for value in (0.0, 7.0):
        padded = np.insert(X, 1, value, axis=1)
        model = _fit(name, padded, centred=True)
        assert np.abs(model.components_[:k, 1]).max() < 1e-8
        cosines = np.linalg.svd(
            reference.components_[:k] @ np.delete(model.components_[:k], 1, axis=1).T,
            compute_uv=False,
        )
        assert np.sqrt(max(0.0, 1.0 - cosines.min() ** 2)) < 1e-6
        np.testing.assert_array_equal(model.predict(padded), flags)
