"""GoDec's ``card='auto'`` (issue 42, item 5): the cardinality from a robust cutoff on the
residual (:mod:`robustpca.solvers.godec_card`).

Planted truth across sizes, ranks, sparsity levels and shapes (Candès et al. 2011, sec.
4), with noise, a video-like matrix (frames x pixels, a rank-1 background and moving
blocks), missing entries, scale-freeness, the warning when ``S`` is full and gross
errors are left outside it, and real data (salted faces, a CDnet clip).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca.estimators._known_rank import GoDec
from robustpca.solvers.godec import solve_godec
from robustpca.solvers.godec_card import ResidualCutoff, gross_left_out


def candes(n, d, r, alpha, seed=0):
    """Candès et al. (2011), sec. 4.1, as ``benchmarks/bench_known_rank.py``: Gaussian
    factors, a Bernoulli(``alpha``) support, a random sign times 10-50 x the mean |L|."""
    rng = np.random.default_rng(seed)
    L = rng.standard_normal((n, r)) @ rng.standard_normal((r, d))
    support = rng.random((n, d)) < alpha
    magnitude = 10.0 * np.abs(L).mean() * rng.uniform(1.0, 5.0, (n, d))
    S = np.where(support, rng.choice([-1.0, 1.0], (n, d)) * magnitude, 0.0)
    return L + S, L, support


def uniform(n, d, r, alpha, seed=0):
    """Gross errors uniform in [-10, 10] x the mean |L| (Cai et al. 2019, sec. 4): some
    of them are small."""
    rng = np.random.default_rng(seed)
    L = rng.standard_normal((n, r)) @ rng.standard_normal((r, d))
    support = rng.random((n, d)) < alpha
    S = np.where(support, 10 * np.abs(L).mean() * rng.uniform(-1, 1, (n, d)), 0.0)
    return L + S, L, support


def video(frames=150, h=30, w=40, blocks=3, size=6, seed=0):
    """Frames x pixels: a rank-1 background (an image times a slowly varying
    illumination) and ``blocks`` squares of constant grey moving across it."""
    rng = np.random.default_rng(seed)
    L = np.outer(1 + 0.2 * np.sin(np.linspace(0, 6, frames)), rng.uniform(50, 200, h * w))
    X, support = L.copy(), np.zeros(L.shape, bool)
    for _ in range(blocks):
        y0, x0 = rng.integers(0, h - size), rng.integers(0, w - size)
        step, grey = int(rng.choice([-2, -1, 1, 2])), rng.uniform(0, 255)
        for f in range(frames):
            y, x = (y0 + f // 3) % (h - size), (x0 + step * f) % (w - size)
            image = np.zeros((h, w), bool)
            image[y : y + size, x : x + size] = True
            X[f, image.ravel()] = grey
            support[f, image.ravel()] = True
    return X, L, support


def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def fit_silently(model, X):
    """Fit with every warning an error: the defaults must not warn on these problems."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return model.fit(X)


@pytest.mark.slow
def test_default_recovers_the_candes_problem_of_issue_42():
    """Issue 42's target at a fifth of its size (1000 x 1000, rank 50, 5%, where
    card=0.1 reached 0.21 after 100 iterations with a ConvergenceWarning; the full size
    is measured by ``benchmarks/bench_known_rank.py``): GoDec(n_components=r) with its
    defaults recovers L to 1e-4 without a warning and finds the support's size."""
    X, L, support = candes(400, 400, 20, 0.05)
    model = fit_silently(GoDec(n_components=20, random_state=0), X)
    assert rel(model.low_rank_, L) < 1e-4
    assert model.converged_
    assert abs(model.card_ - support.sum()) <= 0.01 * support.sum()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shape", "rank", "alpha", "make"),
    [
        ((300, 300), 15, 0.01, candes),
        ((300, 300), 15, 0.10, candes),
        ((400, 120), 3, 0.05, uniform),
        ((120, 400), 3, 0.05, uniform),
        ((250, 250), 5, 0.10, uniform),
        ((200, 500), 10, 0.05, candes),
    ],
)
def test_planted_problems_of_other_sizes_ranks_and_sparsity(shape, rank, alpha, make):
    """Exact recovery with the defaults at 1% and 10% gross entries, on wide and tall
    matrices, with errors of one magnitude range or of every size down to zero; the
    support found is the planted one but for a few of its smallest entries."""
    X, L, support = make(*shape, rank, alpha, seed=sum(shape) + rank)
    model = fit_silently(GoDec(n_components=rank, random_state=0), X)
    assert rel(model.low_rank_, L) < 1e-6
    found = model.sparse_ != 0
    assert np.count_nonzero(found & ~support) <= 0.01 * support.sum()
    assert np.count_nonzero(support & ~found) <= 0.01 * support.sum()


def test_video_like_matrix_background_and_moving_blocks():
    """Frames x pixels, a rank-1 background and three moving blocks: the background is
    recovered exactly and the blocks are the sparse part (with the true cardinality
    the BRP step leaves gross errors in the fit and warns)."""
    X, L, support = video()
    model = fit_silently(GoDec(n_components=1, random_state=0), X)
    assert rel(model.low_rank_, L) < 1e-6
    found = model.sparse_ != 0
    assert np.count_nonzero(found != support) <= 0.01 * support.sum()


@pytest.mark.parametrize("level", [1e-3, 1e-1])
def test_noise_level_as_with_the_true_cardinality(level):
    """With dense Gaussian noise, L is as accurate as with the planted card given."""
    X, L, support = uniform(300, 300, 5, 0.05, seed=4)
    X = X + level * np.random.default_rng(9).standard_normal(X.shape)
    auto = fit_silently(GoDec(n_components=5, random_state=0), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oracle = GoDec(n_components=5, card=int(support.sum()), random_state=0).fit(X)
    assert rel(auto.low_rank_, L) < 1.1 * rel(oracle.low_rank_, L)
    assert abs(auto.card_ - support.sum()) < 0.05 * support.sum()


@pytest.mark.slow
def test_missing_entries():
    """400 x 300, rank 10, 5% gross errors and 20% of the entries missing: recovered on
    every entry with the defaults."""
    X, L, _ = candes(400, 300, 10, 0.05, seed=3)
    missing = np.random.default_rng(5).random(X.shape) < 0.2
    model = fit_silently(GoDec(n_components=10, random_state=0), np.where(missing, np.nan, X))
    assert rel(model.low_rank_, L) < 1e-6
    assert not np.any(model.sparse_[missing])


def test_the_rule_is_scale_free():
    """Scaling X, or its columns one by one, leaves the estimated card unchanged."""
    X, _, support = uniform(150, 100, 4, 0.05, seed=6)
    d = np.random.default_rng(7).uniform(0.1, 10.0, X.shape[1])
    cards = [
        fit_silently(GoDec(n_components=4, random_state=0), Y).card_
        for Y in (X, 1e-6 * X, 1e6 * X, X * d)
    ]
    assert cards == [support.sum()] * 4


def test_explicit_card_keeps_its_meaning():
    X = uniform(100, 80, 3, 0.05, seed=8)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = GoDec(n_components=3, card=123, random_state=0).fit(X)
        fraction = GoDec(n_components=3, card=0.07, random_state=0).fit(X)
    assert model.card_ == 123 and np.count_nonzero(model.sparse_) <= 123
    assert fraction.card_ == round(0.07 * X.size)


def test_a_full_sparse_part_with_gross_errors_left_out_warns():
    """card far below the number of gross errors: S is full and the entries beyond the
    cutoff outside it carry most of the residual, so fit warns and says what to do;
    the rule's estimate does not warn."""
    X, _, support = candes(200, 200, 5, 0.1, seed=9)
    with pytest.warns(UserWarning, match="raise card, or use card='auto'"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            GoDec(n_components=5, card=int(0.3 * support.sum()), random_state=0).fit(X)
    fit_silently(GoDec(n_components=5, random_state=0), X)


def test_gross_left_out_measures_the_share_of_the_residual():
    """Pure Gaussian residual: a few percent of its energy beyond 3 sds; add gross
    entries outside S and they carry nearly all of it; put them in S and none."""
    rng = np.random.default_rng(10)
    R = rng.standard_normal((200, 100))
    rule = ResidualCutoff()
    count, share = gross_left_out(R, np.zeros_like(R), None, rule, 1.0)
    assert 0.01 < share < 0.06 and count < 0.01 * R.size
    gross = np.zeros_like(R)
    gross[rng.random(R.shape) < 0.05] = 100.0
    share_out = gross_left_out(R + gross, np.zeros_like(R), None, rule, 1.0)[1]
    share_in = gross_left_out(R + gross, np.where(gross != 0, R + gross, 0.0), None, rule, 1.0)
    assert share_out > 0.95 and share_in[1] < 0.06


def test_solver_with_the_rule_is_pure_and_reproducible():
    X, _, support = uniform(80, 60, 3, 0.05, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = solve_godec(X, 3, ResidualCutoff(), rng=np.random.default_rng(0))
        b = solve_godec(X, 3, ResidualCutoff(), rng=np.random.default_rng(0))
    np.testing.assert_array_equal(a.info["low_rank"], b.info["low_rank"])
    assert a.info["card"] == support.sum()


@pytest.mark.parametrize("X", [np.zeros((20, 10)), np.ones((20, 10)), np.eye(20)[:, :10]])
def test_degenerate_inputs(X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = GoDec(n_components=2, random_state=0).fit(X)
    assert np.all(np.isfinite(model.low_rank_)) and np.all(np.isfinite(model.sparse_))
    assert 0 <= model.card_ <= X.size // 2


# ------------------------------------------------------------------------- real data
@pytest.mark.realdata
def test_salted_faces_as_well_as_with_the_true_cardinality(orl):
    """AT&T faces (400 x 1024) with 10% of the pixels set to 255 (seed 0), rank 10: with
    card='auto' the low-rank part is closer to the clean faces than the rank-10 SVD of
    the noisy ones, and the sparse part finds most salted pixels, as with the true
    card (tests/test_known_rank.py)."""
    from robustpca.datasets import add_salt_noise

    X, mask = add_salt_noise(orl.data, 0.1, random_state=0)
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    svd_err = np.linalg.norm((U[:, :10] * s[:10]) @ Vt[:10] - orl.data)
    model = fit_silently(GoDec(n_components=10, random_state=0), X)
    assert np.linalg.norm(model.low_rank_ - orl.data) < 0.92 * svd_err
    assert np.count_nonzero((model.sparse_ != 0) & mask) > 0.8 * mask.sum()


@pytest.mark.realdata
def test_highway_clip_foreground(shared_data):
    """CDnet's highway (100 frames, every 8th, at 80 x 60, grey), rank 1: the sparse part
    is the moving cars, F1 against CDnet's labels above 0.6 (inside the ROI; 255 is
    motion, 0 and 50 static)."""
    from PIL import Image

    clip = shared_data / "video" / "highway"
    frames = sorted((clip / "input").glob("in*.jpg"))[::8][:100]

    def read(path, mode, resample):
        image = Image.open(path).convert(mode) if mode else Image.open(path)
        return np.asarray(image.resize((80, 60), resample), dtype=float).ravel()

    X = np.stack([read(p, "L", Image.BILINEAR) for p in frames])
    labels = np.stack(
        [read(clip / "groundtruth" / f"gt{p.stem[2:]}.png", None, Image.NEAREST) for p in frames]
    )
    model = fit_silently(GoDec(n_components=1, random_state=0), X)
    found, moving, static = model.sparse_ != 0, labels == 255, (labels == 0) | (labels == 50)
    tp = np.count_nonzero(found & moving)
    f1 = 2 * tp / (2 * tp + np.count_nonzero(found & static) + np.count_nonzero(~found & moving))
    assert f1 > 0.6
