"""Edge cases of the known-rank, transfer and re-weighting solvers: GoDec's power
iterations, AccAltProj's first threshold, R-T-PCA's step without a shared part and the
comparison methods' ranks, exact fits without smoothing, and ``random_state``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import (
    AccAltProj,
    GeneralizedMeanPCA,
    GoDec,
    OptimalMeanPCA,
    Robust2DPCA,
    RobustTransferPCA,
)
from robustpca.solvers import StopReason
from robustpca.solvers.transfer import lipschitz_constant
from robustpca.transfer import COMPARISON_METHODS, recover_target


def _uncentred_low_rank(seed=1, m=300, n=120):
    """A level of 100 plus two directions (rank 3, sigma_1 / sigma_3 about 100) and 5%
    gross entries: GoDec has no offset, so the level is one more direction of L."""
    rng = np.random.default_rng(seed)
    L = 100.0 + rng.normal(size=(m, 2)) @ rng.normal(size=(2, n))
    S = np.where(rng.random(L.shape) < 0.05, 40 * rng.normal(size=L.shape), 0.0)
    return L, S


@pytest.mark.parametrize("power", [0, 2, 4, 6, 12])
def test_godec_power_iterations_keep_the_weak_directions(power):
    """More power steps approximate the top singular subspace better; without an
    orthonormal basis between them the columns collapsed onto the level's direction
    (power 4: error 1.4e-2, against 1e-8 for 0-3)."""
    L, S = _uncentred_low_rank()
    card = int(np.count_nonzero(S))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = GoDec(n_components=3, power=power, card=card, random_state=0, max_iter=300)
        model.fit(L + S)
    assert np.linalg.norm(model.low_rank_ - L) / np.linalg.norm(L) < 1e-6


def test_godec_many_power_steps_stay_finite():
    rng = np.random.default_rng(2)
    X = (rng.normal(size=(60, 3)) * [100.0, 10.0, 1.0]) @ rng.normal(size=(3, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = GoDec(n_components=3, power=200, random_state=0, max_iter=20).fit(X)
    assert np.isfinite(model.low_rank_).all()


def test_accaltproj_auto_beta_init_follows_the_given_beta():
    X = np.random.default_rng(3).normal(size=(40, 6)) @ np.random.default_rng(4).normal(
        size=(6, 30)
    )
    default = AccAltProj(n_components=6).fit(X)
    assert default.beta_init_ == default.beta_
    given = AccAltProj(n_components=6, beta=0.05).fit(X)
    assert given.beta_ == given.beta_init_ == 0.05
    explicit = AccAltProj(n_components=6, beta=0.05, beta_init=0.2).fit(X)
    assert explicit.beta_init_ == 0.2


def test_transfer_lipschitz_constant_counts_only_the_parts_present():
    assert lipschitz_constant(1.0, 2.0) == 6.0
    assert lipschitz_constant(1.0, 2.0, n_shared=0) == 4.0  # E_t and M_t
    assert lipschitz_constant(1.0, 2.0, n_shared=0, n_target=0) == 2.0
    rng = np.random.default_rng(5)
    source, target = rng.random((30, 16)), rng.random((20, 16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = RobustTransferPCA(n_shared=0, n_source=1, n_target=2, max_iter=200)
        default.fit(target, source=source)
    assert default.eta_ == 2.0  # max(1 + 1, 1 + 1) x alpha = 1
    history = default.objective_history_  # non-increasing at that step (Lemma 1)
    assert np.all(np.diff(history) <= 1e-12 * abs(history[0]))


@pytest.mark.parametrize("method", sorted(COMPARISON_METHODS))
@pytest.mark.parametrize(("n_shared", "n_target"), [(2, 0), (0, 2), (2, 1)])
def test_comparison_methods_take_zero_ranks(method, n_shared, n_target):
    rng = np.random.default_rng(6)
    source, target = rng.random((30, 16)), rng.random((20, 16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = (
            recover_target(
                method,
                source,
                target,
                n_shared=n_shared,
                n_source=1,
                n_target=n_target,
                max_iter=50,
            )
            if method.startswith("R-")
            else recover_target(
                method, source, target, n_shared=n_shared, n_source=1, n_target=n_target
            )
        )
    assert out.shape == target.shape and np.isfinite(out).all()
    assert np.linalg.matrix_rank(out, tol=1e-8) <= n_shared + n_target


@pytest.mark.parametrize("method", sorted(COMPARISON_METHODS))
def test_comparison_methods_check_their_ranks(method):
    rng = np.random.default_rng(7)
    source, target = rng.random((30, 16)), rng.random((20, 16))
    for bad, error, match in [
        ({"n_shared": -3}, ValueError, "n_shared=-3 must be >= 0"),
        ({"n_shared": 1.5}, TypeError, "n_shared must be an int"),
        ({"n_target": True}, TypeError, "n_target must be an int"),
        ({"n_shared": 0, "n_target": 0}, ValueError, "n_shared \\+ n_target must be >= 1"),
    ]:
        with pytest.raises(error, match=match):
            recover_target(method, source, target, **bad)
    if method in ("PCA", "S-PCA"):
        with pytest.raises(ValueError, match="exceeds the rank"):
            recover_target(method, source, target, n_shared=30, n_target=30)


@pytest.mark.parametrize(
    "make",
    [
        lambda: GeneralizedMeanPCA(n_components=1, delta=0.0),
        lambda: Robust2DPCA(n_components=1, epsilon=0.0),
        lambda: GeneralizedMeanPCA(n_components=1),
    ],
)
def test_an_exact_fit_without_smoothing_stops(make):
    """Data the model fits exactly: the loop stops there instead of re-weighting the
    rows by their rounding (100 iterations, an objective rising at rounding level)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 1)) @ rng.normal(size=(1, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        model = make().fit(X)
    assert model.stop_reason_ == StopReason.EXACT and model.converged_
    np.testing.assert_allclose(model.reconstruct(X), X, atol=1e-9)


def test_a_near_exact_fit_still_iterates():
    """Residuals well above rounding (noise of 1e-6) are fitted, not taken as exact."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 1)) @ rng.normal(size=(1, 5)) + 1e-6 * rng.normal(size=(40, 5))
    model = GeneralizedMeanPCA(n_components=1, delta=0.0).fit(X)
    assert model.stop_reason_ != StopReason.EXACT


@pytest.mark.parametrize("value", [-1, "abc", 1.5])
def test_random_state_errors_name_it(value):
    with pytest.raises(ValueError, match="random_state"):
        OptimalMeanPCA(random_state=value).fit(np.random.default_rng(0).normal(size=(20, 4)))
