"""Outlier cutoffs of training data with missing entries (``diagnostic_reference``'s
``n_observed``). A row with at most ``k`` observed coordinates is fitted exactly: its
orthogonal distance is 0 whatever the subspace. Counted in the OD statistics, such rows
dragged the median of :math:`OD^{2/3}` and its MAD towards 0: on rrcov's hbk with a fifth
of its cells missing (36 of 75 rows fitted exactly at ``k = 2``), the OD cutoff of ROBPCA
fell from 3.2 to 0.44 and it flagged 34 rows, CovariancePCA 37 and RPCA-OM 54, where the
documented outliers are rows 1-14. A row with fewer than ``k`` has no determined scores
either and is left out of the score statistics; ``transform`` gives it, of the scores
that fit it exactly, those of smallest score distance (``observed_fit``'s ``centre`` and
``scale``), where the minimum-norm ones had put it at ``mean_``."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import (
    PCA,
    ROBPCA,
    ConvexOptimalMeanPCA,
    CovariancePCA,
    OptimalMeanPCA,
    OutlierPursuit,
    PrincipalComponentPursuit,
)
from robustpca.diagnostics import diagnostic_reference, observed_counts, outlier_diagnostics

from .conftest import load_table, random_gaps

RULES = {
    "robust": types.SimpleNamespace(_od_cutoff_rule="robust", explained_variance_=[4.0, 1.0]),
    "classical": types.SimpleNamespace(_od_cutoff_rule="classical", explained_variance_=[4.0, 1.0]),
    "scores": types.SimpleNamespace(),
}


def _same_reference(a, b) -> None:
    for name in ("score_center", "score_scale"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12)
    for name in ("od_location", "od_scale"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-12, abs=1e-300)
    assert (a.rule, a.od_cutoff_applies) == (b.rule, b.od_cutoff_applies)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(3, 40),
    n_exact=st.integers(1, 40),
    n_under=st.integers(0, 10),
    rule=st.sampled_from(sorted(RULES)),
    weighted=st.booleans(),
)
def test_rows_fitted_exactly_leave_the_statistics_unchanged(
    seed, n, n_exact, n_under, rule, weighted
):
    """Adding rows with ``k`` observed coordinates (OD 0) leaves the OD statistics as
    they were; adding rows with fewer (OD 0, arbitrary scores) leaves every statistic
    as it was. Frequency weights combine with them (a zero weight removes a row too)."""
    rng = np.random.default_rng(seed)
    k, p = 2, 5
    scores = rng.normal(size=(n, k)) * [3.0, 1.0]
    od = np.abs(rng.normal(size=n)) + 0.1
    observed = rng.integers(k + 1, p + 1, n)
    weights = rng.integers(0, 4, n).astype(float) if weighted else None
    if weighted:
        weights[0] = 1.0
    base = diagnostic_reference(RULES[rule], scores, od, None, weights, n_observed=observed)
    # the rows fitted exactly: determined scores (k observed), and undetermined (< k)
    extra_scores = np.vstack(
        [rng.normal(size=(n_exact, k)) * [3.0, 1.0], 50.0 * rng.normal(size=(n_under, k))]
    )
    extra_observed = np.r_[np.full(n_exact, k), rng.integers(1, k, n_under)]
    m = n_exact + n_under
    all_scores = np.vstack([scores, extra_scores])
    all_od = np.r_[od, np.zeros(m)]
    all_weights = None if weights is None else np.r_[weights, np.ones(m)]
    full = diagnostic_reference(
        RULES[rule],
        all_scores,
        all_od,
        None,
        all_weights,
        n_observed=np.r_[observed, extra_observed],
    )
    for name in ("od_location", "od_scale"):
        assert getattr(full, name) == pytest.approx(getattr(base, name), rel=1e-12)
    assert full.od_cutoff_applies
    if rule == "scores":  # the rows with k observed do count in the score statistics
        with_k = diagnostic_reference(
            RULES[rule],
            np.vstack([scores, extra_scores[:n_exact]]),
            np.r_[od, np.zeros(n_exact)],
            None,
            None if weights is None else np.r_[weights, np.ones(n_exact)],
            n_observed=np.r_[observed, np.full(n_exact, k + 1)],
        )
        np.testing.assert_allclose(full.score_center, with_k.score_center, rtol=1e-12)
        np.testing.assert_allclose(full.score_scale, with_k.score_scale, rtol=1e-12)
    else:
        _same_reference(full, base)
    # without the counts the zeros can only drag the OD location down
    blind = diagnostic_reference(RULES[rule], all_scores, all_od, None, all_weights)
    assert blind.od_location <= full.od_location


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_row_fitted_exactly_gives_no_od_cutoff(rule):
    """No row has a residual degree of freedom: no OD cutoff, finite statistics, no
    warning; the score statistics use every row when none has ``k`` coordinates."""
    rng = np.random.default_rng(0)
    scores, od = rng.normal(size=(20, 2)), np.zeros(20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for observed in (np.full(20, 2), np.ones(20, dtype=int)):
            ref = diagnostic_reference(RULES[rule], scores, od, n_observed=observed)
            assert not ref.od_cutoff_applies and ref.orthogonal_cutoff(0.975) == 0.0
            assert np.isfinite([ref.od_location, ref.od_scale]).all()
            assert np.isfinite(ref.score_center).all() and np.all(ref.score_scale > 0)


def test_n_observed_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="n_observed"):
        diagnostic_reference(RULES["robust"], np.zeros((5, 2)), np.ones(5), n_observed=[3] * 4)


@pytest.fixture(scope="module")
def hbk(shared_data):
    return load_table(shared_data, "hbk")


@pytest.mark.slow
@pytest.mark.parametrize("cls", [ROBPCA, CovariancePCA])
def test_hbk_with_a_fifth_missing_flags_its_outliers_only(hbk, cls):
    """hbk with a fifth of its cells missing (36 of 75 rows fitted exactly): ROBPCA and
    the MCD's PCA flag rows 1-14, as on the complete table (34 and 37 rows before), and
    the OD cutoff stays within 5% of the complete table's."""
    Xm, _ = random_gaps(hbk, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(2, random_state=0).fit(Xm)
    complete = cls(2, random_state=0).fit(hbk)
    np.testing.assert_array_equal(np.flatnonzero(model.predict(Xm) == -1), np.arange(14))
    cutoff = model._outlier_reference.orthogonal_cutoff(0.975)
    assert cutoff == pytest.approx(complete._outlier_reference.orthogonal_cutoff(0.975), rel=0.05)


@pytest.mark.parametrize(
    ("cls", "most"),
    [(PCA, 10), (OptimalMeanPCA, 30), (PrincipalComponentPursuit, 20)],
)
def test_hbk_with_a_fifth_missing_keeps_its_od_cutoff(hbk, cls, most):
    """The other rules on the same table: the OD cutoff stays within a third of the
    complete table's (it fell to 0.0005 for RPCA-OM and 0.31 for PCP, flagging 54 and
    40 rows); the robust fits flag rows 1-14."""
    Xm, _ = random_gaps(hbk, 3)
    params = {} if cls is PrincipalComponentPursuit else {"n_components": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(random_state=0, **params).fit(Xm)
    complete = cls(random_state=0, **params).fit(hbk)
    cutoff = model._outlier_reference.orthogonal_cutoff(0.975)
    assert cutoff == pytest.approx(complete._outlier_reference.orthogonal_cutoff(0.975), rel=1 / 3)
    flagged = model.predict(Xm) == -1
    assert flagged.sum() <= most
    if cls is not PCA:  # classical PCA masks them, complete or not
        assert flagged[:14].all()


def test_the_reference_argument_and_the_stored_statistics_agree(hbk):
    """``outlier_diagnostics(reference=X_train)`` counts the training rows' observed
    coordinates as ``fit`` does."""
    Xm, mask = random_gaps(hbk, 3)
    model = ROBPCA(2, random_state=0).fit(Xm)
    np.testing.assert_array_equal(observed_counts(model, Xm), 3 - mask.sum(axis=1))
    stored = outlier_diagnostics(model, Xm)
    again = outlier_diagnostics(model, Xm, reference=Xm)
    assert again.orthogonal_cutoff == pytest.approx(stored.orthogonal_cutoff, rel=1e-12)
    np.testing.assert_array_equal(again.outliers, stored.outliers)
    assert observed_counts(model, hbk) is None  # complete data: nothing to leave out


def test_a_dask_array_counts_its_rows_lazily(hbk):
    """A model without stored statistics (a Dask fit) estimates them on the Dask ``X``
    itself, counting its observed coordinates in the same pass."""
    da = pytest.importorskip("dask.array")
    Xm, _ = random_gaps(hbk, 3)
    model = PCA(2).fit(Xm)
    expected = outlier_diagnostics(model, Xm)
    model._outlier_reference = None  # as after a Dask fit
    got = outlier_diagnostics(model, da.from_array(Xm, chunks=(25, 3)))
    assert got.orthogonal_cutoff == pytest.approx(expected.orthogonal_cutoff, rel=1e-12)
    np.testing.assert_array_equal(got.outliers, expected.outliers)


def test_rows_with_fewer_than_k_entries_sit_at_the_centre_of_the_data(hbk):
    """RPCA-OM's mean is identified only orthogonally to its subspace: on hbk it lies
    near the outliers, 28.7 score units from the regular rows. The three rows that keep
    one of their three entries (seed 3) were completed at that mean (28.7 in a column
    whose regular values lie in [0, 3.4]) and flagged as leverage points; they now take
    the scores of smallest score distance, inside the regular data, and none is flagged.
    A refit gives what a fresh fit gives."""
    Xm, mask = random_gaps(hbk, 3)
    under = (~mask).sum(axis=1) < 2
    assert under.sum() == 3 and not under[:14].any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalMeanPCA(2, random_state=0).fit(Xm)
    regular = hbk[14:]
    completed = model.reconstruct(Xm)[under]
    assert np.all(completed >= regular.min(axis=0) - 1.0)
    assert np.all(completed <= regular.max(axis=0) + 1.0)
    np.testing.assert_allclose(completed[~mask[under]], hbk[under][~mask[under]], atol=1e-10)
    assert not np.any(model.predict(Xm)[under] == -1)
    other, _ = random_gaps(hbk, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refit = OptimalMeanPCA(2, random_state=0).fit(other).fit(Xm)
    np.testing.assert_array_equal(refit.reconstruct(Xm), model.reconstruct(Xm))


@pytest.mark.parametrize("cls", [ROBPCA, OptimalMeanPCA])
def test_their_score_distance_is_the_smallest_that_fits(hbk, cls):
    """Of the scores that fit the observed coordinates of such a row exactly, the ones
    returned have the smallest score distance: moving along the free direction (the null
    space of ``U_O``) only increases it. The determined rows keep their least squares."""
    from robustpca.solvers.missing import observed_fit

    Xm, mask = random_gaps(hbk, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(2, random_state=0).fit(Xm)
    ref = model._outlier_reference
    scores = model.transform(Xm)
    under = (~mask).sum(axis=1) < 2
    plain = observed_fit(Xm, mask, model.mean_, model.components_)[0]
    np.testing.assert_array_equal(scores[~under], plain[~under])
    for i in np.flatnonzero(under):
        U = model.components_[:, ~mask[i]].T  # 1 x 2: one free direction
        free = np.linalg.svd(U)[2][-1]
        sd = ref.score_distances(scores[i] + np.outer([-1e-3, 0.0, 1e-3, 1.0], free))
        assert sd[1] <= sd[0] and sd[1] <= sd[2] and sd[1] < sd[3]


@pytest.mark.parametrize("cls", [OutlierPursuit, ConvexOptimalMeanPCA])
def test_full_rank_fits_of_bushfire_with_gaps_flag_few_regular_rows(shared_data, cls):
    """Outlier pursuit and CRPCA-OM keep all 5 directions of bushfire (k = d), so every
    row with a gap has fewer than ``k`` observed coordinates. With their minimum-norm
    scores, 32 and 35 flags over five random masks fell outside the documented outliers
    (rows 7-11 and 32-38): such rows were flagged almost at random. With the scores of
    smallest score distance, 8 and 6 do (rows 12 and 13 among them, flagged by outlier
    pursuit on the complete table too)."""
    bushfire = load_table(shared_data, "bushfire")
    documented = np.r_[6:11, 31:38]
    regular_flags = 0
    for seed in range(5):
        Xm, _ = random_gaps(bushfire, seed)
        model = cls(random_state=0).fit(Xm)
        assert model.n_components_ == 5
        flagged = np.flatnonzero(model.predict(Xm) == -1)
        regular_flags += np.setdiff1d(flagged, documented).size
    assert regular_flags <= 10


def test_an_array_api_array_is_counted_on_its_device(hbk):
    """Only the counts cross to the host; they equal NumPy's."""
    xp = pytest.importorskip("array_api_strict")
    Xm, mask = random_gaps(hbk, 3)
    model = ROBPCA(2, random_state=0).fit(Xm)
    np.testing.assert_array_equal(observed_counts(model, xp.asarray(Xm)), 3 - mask.sum(axis=1))
    assert observed_counts(model, xp.asarray(hbk)) is None
    assert observed_counts(model, Xm.astype(object)) is not None  # as fit converts it
