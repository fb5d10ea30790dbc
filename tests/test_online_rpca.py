"""OnlineRobustPCA (OR-PCA, Feng, Xu & Yan 2013): planted truth, drift, the incremental
convention, the surrogate of Theorem 1, scale equivariance, degenerate input, a real clip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from robustpca import OnlineRobustPCA
from robustpca.solvers.orpca import orpca_loss, orpca_project

from .conftest import projector


def planted_stream(seed, n=600, d=60, rank=2, frac=0.05, gross=30.0, noise=0.05):
    """A low-rank stream with a common level (a 'background' direction), plus gross
    sparse entries and a little dense noise; returns ``X, L, support, basis``."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, rank)))[0]
    coef = rng.normal(size=(n, rank)) * [10.0, 3.0][:rank]
    coef[:, 0] += 40.0  # the common level: most energy on the first direction
    L = coef @ basis.T
    support = rng.random((n, d)) < frac
    S = np.where(support, gross * rng.choice([-1.0, 1.0], size=(n, d)), 0.0)
    return L + S + noise * rng.normal(size=(n, d)), L, support, basis


def rotating_stream(
    seed, n=1200, d=40, speed=np.pi / 1200, gross_frac=0.03, noise=0.5, missing=0.0
):
    """A rank-1 stream whose direction rotates by ``speed`` per sample in a plane (OR-PCA
    learns through residuals clipped at lambda2, about the noise: a drift is followed
    while it moves an entry by less than that over the forgetting window); a share
    ``missing`` of the entries NaN."""
    rng = np.random.default_rng(seed)
    a, b = np.linalg.qr(rng.normal(size=(d, 2)))[0].T
    angles = speed * np.arange(n)
    directions = np.cos(angles)[:, None] * a + np.sin(angles)[:, None] * b
    X = (20 + rng.normal(size=(n, 1))) * directions
    X += np.where(rng.random((n, d)) < gross_frac, 15.0, 0.0) + noise * rng.normal(size=(n, d))
    if missing:
        X[rng.random((n, d)) < missing] = np.nan
    return X, directions


def best_f_measure(score, positive, negative=None):
    """The F-measure at the best global threshold of ``score``."""
    negative = ~positive if negative is None else negative
    pos, neg = np.sort(score[positive]), np.sort(score[negative])
    best = 0.0
    for t in np.quantile(score[positive | negative], np.linspace(0.3, 0.999, 300)):
        tp = pos.size - np.searchsorted(pos, t, "right")
        fp = neg.size - np.searchsorted(neg, t, "right")
        best = max(best, 2 * tp / max(2 * tp + fp + (pos.size - tp), 1))
    return best


def test_planted_basis_and_support_recovered():
    X, L, support, basis = planted_stream(0)
    model = OnlineRobustPCA(2, n_passes=2, random_state=0).fit(X)
    P_true = basis @ basis.T
    assert np.linalg.norm(projector(model.components_) - P_true, 2) < 0.05
    low, sparse = model.decompose(X)
    assert np.linalg.norm(low - L) / np.linalg.norm(L) < 0.06
    found = np.abs(sparse) > 10.0
    assert (found & support).sum() / support.sum() > 0.98  # recall of the gross entries
    assert (found & support).sum() / found.sum() > 0.98  # precision


def test_sparse_entries_barely_move_the_basis():
    """The same stream without its gross entries gives nearly the same subspace, while
    the subspace of ordinary PCA moves (the errors are not symmetric per row)."""
    X, _, support, basis = planted_stream(1, gross=60.0)
    X[support] = np.abs(X[support])  # one-signed errors pull a least-squares fit
    robust = OnlineRobustPCA(2, n_passes=2, random_state=0).fit(X)
    pca_basis = np.linalg.svd(X, full_matrices=False)[2][:2]
    P_true = basis @ basis.T
    err_robust = np.linalg.norm(projector(robust.components_) - P_true, 2)
    err_pca = np.linalg.norm(projector(pca_basis) - P_true, 2)
    assert err_robust < 0.05 and err_pca > 5 * err_robust


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_rotating_subspace_is_followed(missing):
    """With gaps too: the per-feature statistics of the observed entries decay by
    ``forgetting_factor`` per sample, as the dense statistics do."""
    X, directions = rotating_stream(0, missing=missing)
    tracked = OnlineRobustPCA(1, forgetting_factor=0.95, batch_size=10, burn_in=50, random_state=0)
    frozen = OnlineRobustPCA(1, forgetting_factor=1.0, batch_size=10, burn_in=50, random_state=0)
    lags = []
    for start in range(0, X.shape[0], 10):
        tracked.partial_fit(X[start : start + 10])
        frozen.partial_fit(X[start : start + 10])
        if start >= 600:
            u = directions[start + 9]
            lags.append([1 - (model.components_[0] @ u) ** 2 for model in (tracked, frozen)])
    lags = np.array(lags)
    assert (tracked.n_missing_ > 0) == (missing > 0)
    assert lags[:, 0].max() < 0.03  # within 10 degrees of the moving truth throughout
    assert lags[-1, 1] > 5 * lags[-1, 0]  # without forgetting the basis lags behind


def test_partial_fit_over_batches_equals_fit():
    X = planted_stream(2, n=300)[0]
    fitted = OnlineRobustPCA(2, batch_size=25, burn_in=50, random_state=3).fit(X)
    streamed = OnlineRobustPCA(2, batch_size=25, burn_in=50, random_state=3)
    for start in range(0, 300, 25):
        assert streamed.partial_fit(X[start : start + 25]) is streamed
    assert streamed.n_samples_seen_ == fitted.n_samples_seen_ == 300
    np.testing.assert_allclose(streamed.components_, fitted.components_, atol=1e-12)
    np.testing.assert_allclose(streamed.decompose(X[:5])[1], fitted.decompose(X[:5])[1])


def test_partial_fit_decompose_splits_with_the_model_before_the_update():
    X = planted_stream(3, n=300)[0]
    model = OnlineRobustPCA(2, batch_size=50, burn_in=100, random_state=0)
    model.partial_fit(X[:200])
    before = model.decompose(X[200:250])
    low, sparse = model.partial_fit_decompose(X[200:250])
    np.testing.assert_allclose(low, before[0], rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(sparse, before[1], rtol=1e-10, atol=1e-9)
    assert model.n_samples_seen_ == 250
    # OR-PCA's split: X = L + S + a dense residual inside [-lambda2, lambda2]
    assert np.abs(X[200:250] - low - sparse).max() <= model.lambda2_ * (1 + 1e-9)


def test_surrogate_upper_bounds_the_loss_and_converges():
    """Theorem 1 (beta = 1): the surrogate g_t(L_t) bounds the empirical loss f_t(L_t)
    from above, stays close to it, and converges (its changes over doubling horizons
    shrink) on a stationary stream."""
    X = planted_stream(4, n=1600, d=30, rank=1, noise=0.5)[0]
    model = OnlineRobustPCA(1, forgetting_factor=1.0, batch_size=20, burn_in=40, random_state=0)
    surrogates = []
    for start in range(0, 1600, 20):
        model.partial_fit(X[start : start + 20])
        if start + 20 in (200, 400, 800, 1600):
            s = model._state
            seen = X[: start + 20]
            step = orpca_project(seen, s.basis, s.lambda1, s.lambda2, max_iter=500, tol=1e-12)
            loss = orpca_loss(step, s.basis, s.lambda1, s.lambda2)[1]
            f_t = (loss + 0.5 * s.lambda1 * np.sum(s.basis**2)) / seen.shape[0]
            g_t = model.surrogate()
            assert f_t * (1 - 1e-9) <= g_t <= f_t * 1.01
            surrogates.append(g_t)
    changes = np.abs(np.diff(surrogates))
    assert np.all(np.diff(changes) < 0)


def test_basis_minimises_the_surrogate():
    X = planted_stream(5, n=200, d=30)[0]
    model = OnlineRobustPCA(2, batch_size=20, burn_in=40, random_state=0).fit(X)
    s = model._state
    rng = np.random.default_rng(0)
    g = s.surrogate()
    for _ in range(5):
        assert s.surrogate(s.basis + 1e-3 * rng.normal(size=s.basis.shape)) > g


@pytest.mark.parametrize("factor", [1 / 255, 1000.0])
def test_scale_equivariant(factor):
    X = planted_stream(6, n=300)[0]
    a = OnlineRobustPCA(2, random_state=0).fit(X)
    b = OnlineRobustPCA(2, random_state=0).fit(X * factor)
    np.testing.assert_allclose(b.components_, a.components_, atol=1e-8)
    assert b.lambda2_ == pytest.approx(a.lambda2_ * factor, rel=1e-8)
    low_a, sparse_a = a.decompose(X[:50])
    low_b, sparse_b = b.decompose(X[:50] * factor)
    np.testing.assert_allclose(low_b, low_a * factor, rtol=1e-6, atol=1e-8 * factor)
    np.testing.assert_allclose(sparse_b, sparse_a * factor, rtol=1e-6, atol=1e-6 * factor)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"forgetting_factor": 0.0}, "forgetting_factor"),
        ({"forgetting_factor": 1.5}, "forgetting_factor"),
        ({"lambda1": -1.0}, "lambda1"),
        ({"lambda2": "big"}, "lambda2"),
        ({"batch_size": 0}, "batch_size"),
        ({"n_passes": 0}, "n_passes"),
        ({"burn_in": -1}, "burn_in"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1.0}, "tol"),
        ({"n_components": 0}, "n_components"),
    ],
)
def test_bad_parameters_raise_naming_them(params, name):
    X = planted_stream(7, n=40)[0]
    for call in ("fit", "partial_fit"):
        with pytest.raises(ValueError, match=name):
            getattr(OnlineRobustPCA(**params), call)(X)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["zeros", "constant", "one_row_batches"])
def test_degenerate_input_gives_no_nan(kind, dtype):
    X = np.zeros((60, 25), dtype=dtype) if kind == "zeros" else np.full((60, 25), 7.0, dtype)
    if kind == "one_row_batches":
        X = planted_stream(8, n=60, d=25)[0].astype(dtype)
    model = OnlineRobustPCA(2, batch_size=1 if kind == "one_row_batches" else 32)
    model.fit(X)
    for start in range(0, 60, 7):
        low, sparse = model.partial_fit_decompose(X[start : start + 7])
        assert low.dtype == sparse.dtype == dtype
        assert np.isfinite(low).all() and np.isfinite(sparse).all()
    assert np.isfinite(model.components_).all()
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(2), atol=1e-5)
    if kind == "constant":  # the constant level is the low-rank part, nothing is sparse
        np.testing.assert_allclose(low, 7.0, rtol=1e-4)


def test_inputs_never_modified():
    X = planted_stream(9, n=200)[0]
    copy = X.copy()
    model = OnlineRobustPCA(2, random_state=0).fit(X)
    model.partial_fit(X[:50])
    model.partial_fit_decompose(X[50:100])
    model.decompose(X[100:150])
    model.transform(X)
    np.testing.assert_array_equal(X, copy)


def test_memory_does_not_grow_with_the_stream():
    X = planted_stream(10, n=400)[0]
    model = OnlineRobustPCA(2, batch_size=10, burn_in=30, random_state=0)
    sizes = []
    for start in range(0, 400, 10):
        model.partial_fit_decompose(X[start : start + 10])
        s = model._state
        sizes.append(s.basis.size + s.A.size + s.B.size + (0 if model._buffer is None else 1))
    assert model._buffer is None and len(set(sizes[5:])) == 1
    assert sizes[-1] == 60 * 2 + 4 + 60 * 2


def test_predict_after_partial_fit_judges_against_the_latest_rows():
    """A stream's diagnostics: planted outlier rows after the stream are flagged, the
    inliers mostly not, and decision_function = score_samples - offset_."""
    X = planted_stream(11, n=1400, frac=0.0)[0]
    new = X[1300:].copy()
    new[::10] += 30 * np.random.default_rng(1).normal(size=(10, X.shape[1]))
    model = OnlineRobustPCA(2, random_state=0)
    for start in range(0, 1300, 50):
        model.partial_fit(X[start : start + 50])
    flags = model.predict(new) == -1
    assert flags[::10].all() and flags.mean() < 0.2
    assert np.allclose(model.decision_function(new), model.score_samples(new) - model.offset_)
    assert np.isfinite(model.score(new))


@pytest.mark.slow
@given(seed=st.integers(0, 2**16), shift=st.floats(-50, 50))
def test_reconstruction_identity_property(seed, shift):
    """Any batch: the sparse part is the residual soft-thresholded at lambda2_."""
    X = planted_stream(seed % 7, n=80, d=20)[0] + shift
    model = OnlineRobustPCA(1, burn_in=40, random_state=seed).fit(X)
    low, sparse = model.decompose(X[:10])
    residual = X[:10] - low
    expected = np.sign(residual) * np.maximum(np.abs(residual) - model.lambda2_, 0)
    np.testing.assert_allclose(sparse, expected, atol=1e-9 * np.abs(X).max())


def load_highway(shared_data, first=1050, n=100, size=(80, 60)):
    """Grey frames of CDnet's highway at ``size`` and their labels (Pillow)."""
    Image = pytest.importorskip("PIL.Image")
    root = shared_data / "video" / "highway"
    frames, labels = [], []
    for k in range(first, first + n):
        image = Image.open(root / "input" / f"in{k:06d}.jpg").convert("L")
        frames.append(np.asarray(image.resize(size, Image.BILINEAR), dtype=np.float32).ravel())
        truth = Image.open(root / "groundtruth" / f"gt{k:06d}.png")
        labels.append(np.asarray(truth.resize(size, Image.NEAREST)).ravel())
    return np.array(frames), np.array(labels)


@pytest.mark.realdata
def test_highway_cars_separated_from_the_road(shared_data):
    X, labels = load_highway(shared_data)
    model = OnlineRobustPCA(random_state=0, burn_in=50)
    parts = [model.partial_fit_decompose(X[s : s + 25]) for s in range(0, 100, 25)]
    low = np.concatenate([p[0] for p in parts])
    positive, negative = labels == 255, (labels == 0) | (labels == 50)
    f = best_f_measure(np.abs(X - low), positive, negative)
    assert f > 0.75
    assert low.dtype == np.float32 and model.n_samples_seen_ == 100


@pytest.mark.parametrize("model", [OnlineRobustPCA, "GRASTA"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_later_batches_are_validated_as_the_first(model, dtype):
    """A stream's later batches skip validate_data when they are plain finite arrays;
    anything else still gets its errors (infinity, width, magnitude, nested lists) or,
    for a gap (NaN), its count."""
    from robustpca import GRASTA

    cls = GRASTA if model == "GRASTA" else OnlineRobustPCA
    X = planted_stream(12, n=120, d=20)[0].astype(dtype)
    fitted = cls(1, burn_in=40, random_state=0)
    for start in range(0, 80, 20):
        fitted.partial_fit(X[start : start + 20])
    bad = X[80:100].copy()
    bad[3, 4] = np.inf
    with pytest.raises(ValueError, match=r"infinity|inf"):
        fitted.partial_fit_decompose(bad)
    bad[3, 4] = np.nan  # a gap takes the full path, which accepts it
    low, sparse = fitted.partial_fit_decompose(bad)
    assert fitted.n_missing_ == 1 and np.isfinite(low).all() and sparse[3, 4] == 0
    with pytest.raises(ValueError, match="features"):
        fitted.partial_fit_decompose(X[80:100, :-1])
    huge = X[80:100].copy()
    huge[0, 0] = np.finfo(dtype).max / 4
    with pytest.raises(ValueError, match=r"overflow|magnitude|large"):
        fitted.partial_fit_decompose(huge)
    # a Fortran-ordered batch takes the full path to the same split
    low, _ = cls(1, burn_in=40, random_state=0).fit(X[:80]).partial_fit_decompose(X[80:100])
    other = cls(1, burn_in=40, random_state=0).fit(X[:80])
    low_f, _ = other.partial_fit_decompose(np.asfortranarray(X[80:100]))
    np.testing.assert_allclose(low_f, low, rtol=1e-5 if dtype == np.float32 else 1e-10)
    assert fitted.n_samples_seen_ == 100


@pytest.mark.parametrize("model", [OnlineRobustPCA, "GRASTA"])
def test_a_plain_first_batch_is_validated_as_any_other(model):
    """The first batch, when a plain finite float array, skips validate_data: the model
    and its input attributes are those of the fully validated path (a list of lists), a
    refit on an array after a DataFrame drops the names, and bad first batches still
    raise validate_data's errors."""
    import pandas as pd

    from robustpca import GRASTA

    cls = GRASTA if model == "GRASTA" else OnlineRobustPCA
    X = planted_stream(13, n=60, d=12)[0]
    plain = cls(1, burn_in=20, random_state=0).partial_fit(X[:30])
    listed = cls(1, burn_in=20, random_state=0).partial_fit(X[:30].tolist())
    assert plain.n_features_in_ == listed.n_features_in_ == 12
    np.testing.assert_array_equal(plain.components_, listed.components_)
    assert not hasattr(plain, "feature_names_in_")
    named = cls(1, burn_in=20, random_state=0).fit(pd.DataFrame(X, columns=list("abcdefghijkl")))
    assert list(named.feature_names_in_) == list("abcdefghijkl")
    named.fit(X)  # a new fit on an array: no names left
    assert not hasattr(named, "feature_names_in_") and named.n_features_in_ == 12
    for bad, match in (
        (np.full((5, 12), np.inf), r"infinity|inf"),
        (X[:5, 0], "2D"),
        (np.empty((0, 12)), "sample"),
        (np.empty((5, 0)), "feature"),
    ):
        with pytest.raises(ValueError, match=match):
            cls(1, random_state=0).partial_fit(bad)


def test_stream_updates_reuse_one_work_space_and_pickle_without_it():
    """Equal batches share the last update's work space (no new batch-sized memory),
    the splits are those of a model that allocates each time, and the work space is not
    pickled."""
    import pickle

    X = planted_stream(12, n=200)[0]
    model = OnlineRobustPCA(2, batch_size=20, burn_in=20, random_state=0)
    fresh = OnlineRobustPCA(2, batch_size=20, burn_in=20, random_state=0)
    works = []
    for start in range(0, 200, 20):
        low, sparse = model.partial_fit_decompose(X[start : start + 20])
        works.append(model._work)
        fresh._work = None
        low_f, sparse_f = fresh.partial_fit_decompose(X[start : start + 20])
        assert np.array_equal(low, low_f) and np.array_equal(sparse, sparse_f)
        assert not any(np.may_share_memory(model._work, a) for a in (low, sparse))
    assert all(w is works[-1] for w in works[1:])
    copy = pickle.loads(pickle.dumps(model))
    assert copy._work is None
    assert np.array_equal(copy.decompose(X[:20])[0], model.decompose(X[:20])[0])


def test_the_start_hands_its_work_space_to_the_first_update(monkeypatch):
    """At the end of the burn-in the start's alternations and the first update share one
    work space (one batch-sized allocation, not two)."""
    from robustpca.estimators import _online

    seen = []
    start = _online.orpca_initialize

    def recorded(*args, **kwargs):
        seen.append(kwargs.get("work"))
        return start(*args, **kwargs)

    monkeypatch.setattr(_online, "orpca_initialize", recorded)
    X = planted_stream(13, n=60)[0]
    model = OnlineRobustPCA(2, batch_size=20, burn_in=20, random_state=0)
    model.partial_fit_decompose(X[:20])
    assert seen[-1] is not None and seen[-1] is model._work


@pytest.mark.parametrize(("burn_in", "batch"), [(20, 20), (50, 20), (10, 25)])
def test_residual_route_is_partial_fit_decompose_without_the_parts(burn_in, batch):
    """``_partial_fit_residual`` (the video pipeline's) updates the model as
    ``partial_fit_decompose`` does, to the bit, through a burn-in of several batches;
    its residual is ``X - low_rank``, written over the array it is given, and its
    ``low_rank()`` the low-rank part."""
    X = planted_stream(14, n=160)[0].astype(np.float32)
    ours = OnlineRobustPCA(2, burn_in=burn_in, random_state=0)
    theirs = OnlineRobustPCA(2, burn_in=burn_in, random_state=0)
    out = None
    for start in range(0, 160, batch):
        rows = X[start : start + batch]
        low, _ = theirs.partial_fit_decompose(rows)
        low_rank, residual = ours._partial_fit_residual(rows, out)
        if out is not None and out.shape == rows.shape and start >= burn_in + batch:
            assert residual is out
        np.testing.assert_array_equal(residual, rows - low)
        np.testing.assert_array_equal(low_rank(), low)
        np.testing.assert_array_equal(ours.components_, theirs.components_)
        out = residual
    assert ours.n_samples_seen_ == theirs.n_samples_seen_ == 160
    assert ours._residual_into is None
    np.testing.assert_allclose(ours.objective_history_, theirs.objective_history_, rtol=1e-5)
    np.testing.assert_array_equal(ours.decompose(X[:20])[0], theirs.decompose(X[:20])[0])


def test_the_residual_route_takes_one_array_as_work_space_and_output():
    """``orpca_project(..., residual=True)`` given one array as ``work`` and ``out``: the
    residual and the clipped residual were written into the same array, and the
    residual came back clipped."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((40, 8))
    L = np.linalg.qr(rng.standard_normal((8, 2)))[0]
    ref = orpca_project(Z, L, 0.1, 0.2, max_iter=50, tol=1e-10, residual=True)
    shared = np.empty_like(Z)
    got = orpca_project(
        Z, L, 0.1, 0.2, max_iter=50, tol=1e-10, residual=True, work=shared, out=shared
    )
    np.testing.assert_array_equal(got.residual, ref.residual)
    np.testing.assert_array_equal(got.clipped, ref.clipped)


def test_surrogate_before_a_basis_raises_not_fitted():
    """``surrogate()`` of an unfitted model raised an AttributeError on the missing state
    (every other method raises NotFittedError)."""
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        OnlineRobustPCA(n_components=2).surrogate()


@pytest.mark.parametrize("first", [1, 2])
def test_a_first_batch_of_fewer_rows_than_components_is_not_the_start(first):
    """burn_in=0 with a first batch of one row had started the model on it: the
    penalties came from a residual of zero and two of the three basis columns stayed zero
    for ever (a relative residual of 0.67 after 2,000 rows). The burn-in now waits for
    n_components + 1 rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3)) @ rng.normal(size=(3, 12)) + 0.01 * rng.normal(size=(2000, 12))
    model = OnlineRobustPCA(n_components=3, random_state=0, burn_in=0).partial_fit(X[:first])
    for start in range(first, 2000, 32):
        model.partial_fit(X[start : start + 32])
    residual = X - X @ model.components_.T @ model.components_
    assert np.linalg.norm(residual) < 0.02 * np.linalg.norm(X)


@pytest.mark.parametrize("gaps", [False, True])
def test_online_streams_stay_float64_once_they_saw_float64(gaps):
    """The rule of the incremental estimators (as IncrementalPCA's): OR-PCA's basis had
    kept the dtype of its first batch, and GRASTA's took that of the batch holding each
    100th sample."""
    from robustpca import GRASTA

    rng = np.random.default_rng(0)
    X = np.outer(1 + 0.1 * rng.normal(size=300), 5 + rng.random(20))
    X += 0.05 * rng.normal(size=(300, 20))
    if gaps:
        X[rng.random(X.shape) < 0.1] = np.nan
    orpca = OnlineRobustPCA(random_state=0, burn_in=0).partial_fit(X[:30].astype(np.float32))
    for start in range(30, 300, 30):
        orpca.partial_fit(X[start : start + 30])
    grasta = GRASTA(random_state=0, burn_in=0).partial_fit(X[:90])
    grasta.partial_fit(X[90:120].astype(np.float32))  # holds the 100th sample
    for model in (orpca, grasta):
        assert model.components_.dtype == np.float64


def test_changed_penalties_between_partial_fit_calls_are_refused():
    """set_params(lambda1=...) mid-stream had been ignored while get_params showed it."""
    X = np.random.default_rng(0).normal(size=(60, 8))
    model = OnlineRobustPCA(n_components=2, random_state=0).partial_fit(X[:30])
    for name in ("lambda1", "lambda2"):
        model.set_params(**{name: 0.5})
        with pytest.raises(ValueError, match=f"{name} has changed from 'auto' to 0.5"):
            model.partial_fit(X[30:])
        model.set_params(**{name: "auto"})
    model.partial_fit(X[30:])
    assert model.set_params(lambda1=0.5).fit(X).lambda1_ == 0.5  # fit starts again
