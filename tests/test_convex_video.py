"""PCP on video shapes (issue 40, item 5): ``lam='video'`` and ``center='median'``.

A clip of ``n`` frames of ``d`` pixels is a wide matrix whose background is of rank one
(a static camera) or a few (slow illumination changes). With ``lam='auto'``,
:math:`1/\\sqrt{\\max(n, d)}`, a change over one whole frame is on the edge between the
two terms, so the noise of every frame enters the low-rank part and its rank grows with
the clip; ``lam='video'`` asks a whole-frame change to last about ten frames. Where the
rank is that low, the nuclear norm shrinks the background itself, which the temporal
median taken out first (``center='median'``) avoids. Planted clips (a rank-one
background, slow illumination, moving blocks, noise) and a real CDnet clip.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PrincipalComponentPursuit
from robustpca.estimators._convex import VIDEO_PERSISTENCE
from robustpca.solvers.alm import solve_pcp
from robustpca.solvers.alm_types import column_offset


def planted_video(seed=0, n=60, h=24, w=32, noise=2.0):
    """``n`` frames of ``h x w`` pixels, one per row: a static scene lit by a slowly
    varying brightness (rank one), two blocks moving across it (the foreground, +90 and
    -70 grey levels) and Gaussian noise of ``noise`` grey levels."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    scene = 80 + 60 * np.sin(xx / 5.0) * np.cos(yy / 7.0) + 40 * (yy / h)
    brightness = 1 + 0.05 * np.sin(np.arange(n) / 9.0)
    L = brightness[:, None] * scene.ravel()[None, :]
    S = np.zeros((n, h, w))
    for i in range(n):
        x0 = (2 * i) % (w - 6)
        S[i, 4:10, x0 : x0 + 6] = 90.0
        y0 = i % (h - 5)
        S[i, y0 : y0 + 5, 20:25] = -70.0
    S = S.reshape(n, -1)
    return L + S + noise * rng.standard_normal((n, h * w)), L, S


def detection(S_hat, S, threshold=20.0):
    """Recall and precision of ``|S_hat| > threshold`` for the support of ``S``."""
    found, true = np.abs(S_hat) > threshold, S != 0
    hits = np.count_nonzero(found & true)
    return hits / np.count_nonzero(true), hits / max(np.count_nonzero(found), 1)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("shape", [(40, 900), (900, 40), (50, 50)])
def test_video_lambda_is_the_documented_formula(shape):
    X = np.random.default_rng(0).normal(size=shape)
    video = PrincipalComponentPursuit(lam="video", max_iter=2, gap_tol=None).fit(X)
    auto = PrincipalComponentPursuit(max_iter=2, gap_tol=None).fit(X)
    assert VIDEO_PERSISTENCE == 10
    assert video.lam_ == pytest.approx(1.0 / np.sqrt(10 * max(shape)), rel=1e-15)
    assert auto.lam_ == pytest.approx(1.0 / np.sqrt(max(shape)), rel=1e-15)  # unchanged


def test_bad_lam_and_center_name_the_parameter():
    X = np.random.default_rng(0).normal(size=(20, 30))
    with pytest.raises(ValueError, match="lam must be 'auto', 'video'"):
        PrincipalComponentPursuit(lam="movie").fit(X)
    with pytest.raises((TypeError, ValueError), match="center"):
        PrincipalComponentPursuit(center="mean").fit(X)


def test_video_rule_gives_the_rank_of_a_static_camera_and_finds_the_blocks():
    """The default puts the frames' noise into L (rank in the tens); the video rule with
    the median leaves the rank-one illumination change, recovers the moving blocks
    exactly in support and the background to the noise level, certified to gap_tol."""
    X, L, S = planted_video()
    auto = PrincipalComponentPursuit(random_state=0).fit(X)
    video = PrincipalComponentPursuit(lam="video", center="median", random_state=0).fit(X)
    assert auto.rank_ >= 10
    assert video.rank_ <= 2
    assert video.converged_ and video.duality_gap_ <= 1e-3
    recall, precision = detection(video.sparse_, S)
    assert recall == 1.0 and precision == 1.0
    assert np.linalg.norm(video.low_rank_ - L) < 0.03 * np.linalg.norm(L)
    np.testing.assert_allclose(video.mean_, np.median(X, axis=0))


def test_median_removes_the_shrinkage_of_a_low_rank_background():
    """At the video lambda without the median the nuclear norm darkens the background
    (L below the data's median where the scene is bright), and the bias reaches S as
    false detections; with the median neither."""
    X, L, S = planted_video()
    raw = PrincipalComponentPursuit(lam="video", random_state=0).fit(X)
    med = PrincipalComponentPursuit(lam="video", center="median", random_state=0).fit(X)
    assert detection(raw.sparse_, S)[1] < 0.95 <= detection(med.sparse_, S)[1]
    err = [np.linalg.norm(m.low_rank_ - L) for m in (raw, med)]
    assert err[1] < 0.6 * err[0]


def test_median_centring_equals_pcp_of_the_centred_data():
    """center='median' is PCP of X - median, block by block, with the median added to L."""
    X, _, _ = planted_video(n=30, h=12, w=16)
    med = np.median(X, axis=0)
    lam = 1.0 / np.sqrt(10 * X.shape[1])
    kwargs = {"lam": lam, "gap_tol": 1e-4, "return_dual": False}
    one = solve_pcp(X, center="median", rng=np.random.default_rng(0), **kwargs)
    two = solve_pcp(X - med, rng=np.random.default_rng(0), **kwargs)
    assert one.n_iter == two.n_iter
    np.testing.assert_allclose(one.mean, med)
    np.testing.assert_allclose(one.info["low_rank"], two.info["low_rank"] + med, atol=1e-8)
    np.testing.assert_allclose(one.info["sparse"], two.info["sparse"], atol=1e-8)
    assert one.info["duality_gap"] <= 1e-4


def test_column_offset_counts_only_observed_entries():
    X = np.array([[1.0, 5.0, 0.0], [2.0, np.nan, 0.0], [9.0, 7.0, np.nan]])
    observed = ~np.isnan(X)
    observed[:, 2] = False
    np.testing.assert_allclose(column_offset(X, "median", observed), [2.0, 6.0, 0.0])
    np.testing.assert_allclose(column_offset(X, True, observed), [4.0, 6.0, 0.0])
    assert column_offset(X, False) is None
    Xf = np.nan_to_num(X)
    np.testing.assert_allclose(column_offset(Xf, "median"), np.median(Xf, axis=0))


def test_median_centring_with_missing_entries():
    X, _, _ = planted_video(n=40, h=12, w=16)
    X = X.copy()
    X[np.random.default_rng(1).random(X.shape) < 0.05] = np.nan
    model = PrincipalComponentPursuit(lam="video", center="median", random_state=0).fit(X)
    np.testing.assert_allclose(model.mean_, np.nanmedian(X, axis=0))
    assert np.isfinite(model.low_rank_).all() and model.rank_ <= 3


@pytest.mark.realdata
def test_video_rule_on_a_cdnet_clip(shared_data):
    """Highway at quarter size (80 x 60), 150 frames: the video rule's background is of
    low rank and its sparse part finds the cars at least as well as the temporal median
    (F at the best global threshold, CDnet's labels)."""
    from robustpca.datasets import load_cdnet
    from robustpca.metrics.change_detection import best_threshold_f_measure

    clip = load_cdnet(shared_data / "video" / "highway", scale=0.25, numbers=(1050, 1199))
    frames = clip.frames.astype(np.float64)
    X = frames.reshape(len(frames), -1)
    model = PrincipalComponentPursuit(lam="video", center="median", random_state=0).fit(X)
    assert model.converged_ and model.duality_gap_ <= 1e-3
    assert model.rank_ <= 5

    def best_f(scores):
        return best_threshold_f_measure(
            np.abs(scores).reshape(frames.shape), clip.labels, clip.roi, scored=clip.scored
        )[0]

    median = best_f(X - np.median(X, axis=0))
    assert best_f(model.sparse_) >= median - 0.01 and median > 0.6


# ------------------------------------------------- the faster routes equal the former ones
@pytest.mark.parametrize(("wide", "shape"), [(True, (40, 300)), (False, (300, 40))])
def test_clipped_spectrum_by_its_eigenvectors_equals_the_formed_operator(wide, shape):
    """The refined certificate applies ``P = I + E diag(c) E^T`` by its few eigenvectors
    (4 m flops an entry instead of 2 x side): the same as ``P`` formed, and the singular
    values of the result are clipped at 1."""
    from robustpca.solvers.alm_gap import _clip_into, _clipped_spectrum

    rng = np.random.default_rng(0)
    Y = 0.05 * rng.normal(size=shape)
    Y += 0.6 * np.outer(rng.normal(size=shape[0]), rng.normal(size=shape[1])) / 5
    G = np.asfortranarray(np.triu(Y @ Y.T if wide else Y.T @ Y))
    E, c = _clipped_spectrum(G)
    assert 0 < E.shape[1] < E.shape[0] / 2  # the eigenvector route
    P = (E * c) @ E.T + np.eye(E.shape[0])
    out = _clip_into(E, c, Y, np.empty_like(Y), wide)
    np.testing.assert_allclose(out, P @ Y if wide else Y @ P, rtol=0, atol=1e-13)
    assert np.linalg.norm(out, 2) == pytest.approx(1.0, abs=1e-12)


def test_certificate_grams_by_syrk_equal_numpy_products(monkeypatch):
    """PCP's certificate on wide data with blocks narrower than n accumulates its Gram
    matrices by SciPy's syrk in place: the same gap as NumPy's products of the blocks."""
    from robustpca.solvers import alm_gap

    X, _, _ = planted_video(n=60, h=24, w=32)
    kwargs = {"lam": 0.02, "rng": np.random.default_rng(0), "return_dual": False}
    routes = []
    for numpy_products in (False, True):
        monkeypatch.setattr(alm_gap, "_numpy_grams", lambda data, sparse, v=numpy_products: v)
        routes.append(solve_pcp(X, gap_tol=1e-9, max_iter=30, **dict(kwargs)))
    (a, b) = routes
    assert a.n_iter == b.n_iter == 30
    assert a.info["duality_gap"] == pytest.approx(b.info["duality_gap"], rel=1e-9, abs=1e-13)
    np.testing.assert_allclose(a.info["low_rank"], b.info["low_rank"], rtol=0, atol=1e-8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_median_offset_is_numpys_median_to_the_bit(dtype, order):
    """``center="median"``'s offset (by blocks of columns) equals ``numpy.median`` along
    the rows, ties and even counts included, and leaves the data alone."""
    rng = np.random.default_rng(3)
    X = np.asarray(np.round(rng.normal(size=(40, 1500)), 1), dtype=dtype, order=order)
    before = X.copy()
    got = column_offset(X, "median")
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.median(X, axis=0).astype(np.float64))
    np.testing.assert_array_equal(X, before)
