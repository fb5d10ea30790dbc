"""Kernel PCA-L21 (Nie & Huang sec. III.D): PCA-L21 on the kernel PCA embedding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist
from sklearn.decomposition import KernelPCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics import roc_auc_score

from robustpca import L21PCA
from robustpca.estimators import BaseSubspaceEstimator
from robustpca.estimators._kernel_l21 import _KERNELS as _NAMED_KERNELS
from robustpca.estimators._kernel_l21 import KernelL21PCA

from .conftest import occluded_faces, peak_memory


def data(seed, n, d, outliers=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + rng.normal(size=d)
    X += 0.3 * rng.normal(size=(n, d))
    if outliers:
        X[: max(1, n // 8)] += 5 * rng.normal(size=(max(1, n // 8), d))
    return X


def same_up_to_column_signs(A, B, atol):
    signs = np.sign(np.sum(A * B, axis=0))
    signs[signs == 0] = 1.0
    np.testing.assert_allclose(A, B * signs, atol=atol)


def poly2_features(X):
    """Explicit feature map of (x.y + 1)^2: [1, sqrt(2) x, vec(x x^T)]."""
    quad = np.einsum("ni,nj->nij", X, X).reshape(X.shape[0], -1)
    return np.hstack([np.ones((X.shape[0], 1)), np.sqrt(2) * X, quad])


# -- exact equivalences ---------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(40, 7), (12, 30), (30, 30)])
def test_linear_kernel_full_embedding_is_l21pca(n, d):
    """With k(x, y) = x.y the embedding is the centred data in an orthonormal basis of
    its span, and PCA-L21 is rotation invariant (sec. II.A): the same iterates, the
    same objective (8), the same projections (up to sign) and reconstruction errors,
    also on new samples with a part outside the training span."""
    X = data(0, n, d)
    X_new = np.random.default_rng(1).normal(size=(5, d)) * 3
    kernel = KernelL21PCA(3, kernel="linear").fit(X)
    linear = L21PCA(3).fit(X)
    assert kernel.n_iter_ == linear.n_iter_
    np.testing.assert_allclose(kernel.objective_history_, linear.objective_history_, rtol=1e-9)
    same_up_to_column_signs(kernel.transform(X), linear.transform(X), atol=1e-8)
    same_up_to_column_signs(kernel.transform(X_new), linear.transform(X_new), atol=1e-8)
    for Z in (X, X_new):
        np.testing.assert_allclose(
            kernel.reconstruction_error(Z), linear.reconstruction_error(Z), atol=1e-8
        )


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "poly", "degree": 2, "gamma": 1.0, "coef0": 1.0},
        {"kernel": lambda a, b: (a @ b + 1.0) ** 2},
        {"kernel": lambda a, b, c=0.0: (a @ b + c) ** 2, "kernel_params": {"c": 1.0}},
    ],
    ids=["poly", "callable", "callable-params"],
)
def test_nonlinear_kernel_is_l21pca_on_the_explicit_feature_map(params):
    """Sec. III.D: for a kernel with an explicit feature map phi, kernel PCA-L21 is
    PCA-L21 on phi(X); the feature-space reconstruction error matches too."""
    X = data(2, 25, 3)
    X_new = data(3, 6, 3)
    kernel = KernelL21PCA(3, **params).fit(X)
    explicit = L21PCA(3).fit(poly2_features(X))
    np.testing.assert_allclose(kernel.objective_history_, explicit.objective_history_, rtol=1e-8)
    for Z in (X, X_new):
        same_up_to_column_signs(
            kernel.transform(Z), explicit.transform(poly2_features(Z)), atol=1e-7
        )
        np.testing.assert_allclose(
            kernel.reconstruction_error(Z),
            explicit.reconstruction_error(poly2_features(Z)),
            atol=1e-7,
        )


def test_embedding_of_k_directions_is_kernel_pca():
    """With n_embedding = n_components the constraint set is the whole embedding: the
    fit is scikit-learn's KernelPCA (and objective 8 cannot change)."""
    X = data(4, 50, 5)
    model = KernelL21PCA(4, kernel="rbf", gamma=0.1, n_embedding=4).fit(X)
    kpca = KernelPCA(4, kernel="rbf", gamma=0.1).fit(X)
    same_up_to_column_signs(model.transform(X), kpca.transform(X), atol=1e-8)
    np.testing.assert_allclose(model.eigenvalues_, kpca.eigenvalues_, rtol=1e-10)
    assert np.ptp(model.objective_history_) <= 1e-10 * model.objective_history_[0]


# -- properties -----------------------------------------------------------------------

shapes = st.tuples(st.integers(6, 40), st.integers(1, 30), st.integers(0, 10_000))
kernels = st.sampled_from(["rbf", "laplacian", "poly", "sigmoid", "cosine", "linear"])


@settings(max_examples=40, deadline=None)
@given(shape=shapes, kernel=kernels, k=st.integers(1, 5), log_gamma=st.floats(-3, 1))
def test_objective_never_decreases_and_lemma1_holds_in_feature_space(shape, kernel, k, log_gamma):
    """Theorem 1: Algorithm 2 never decreases objective (8). Lemma 1 / eq. (12) in the
    kernel's feature space: ||Phi||_21 <= ||Phi - Phi W W^T||_21 + ||Phi W||_21 <=
    sqrt(2) ||Phi||_21, with the reconstruction error computed from the kernel alone
    (for positive semi-definite kernels: the sigmoid kernel has no feature space)."""
    n, d, seed = shape
    X = data(seed, n, d)
    X0 = X.copy()
    model = KernelL21PCA(min(k, n), kernel=kernel, gamma=10.0**log_gamma, max_iter=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Z = model.fit_transform(X)
    np.testing.assert_array_equal(X, X0)
    h = model.objective_history_
    assert np.all(np.isfinite(h)) and np.all(np.diff(h) >= -1e-9 * np.abs(h[:-1]) - 1e-12)
    np.testing.assert_allclose(Z, model.transform(X), atol=1e-8 * max(1.0, np.abs(Z).max()))
    W = model.components_
    np.testing.assert_allclose(W @ W.T, np.eye(W.shape[0]), atol=1e-10)
    if kernel == "sigmoid":
        return
    total = np.linalg.norm(model.embed(X) - model.mean_, axis=1).sum()
    err = model.reconstruction_error(X)
    split = err.sum() + np.linalg.norm(Z, axis=1).sum()
    scale = 1e-7 * max(total, 1e-12)
    assert total - scale <= split <= np.sqrt(2) * total + scale
    assert h[-1] == pytest.approx(np.linalg.norm(Z, axis=1).sum(), rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_transform_of_training_data_equals_fit_transform(kernel):
    X = data(5, 30, 6)
    model = KernelL21PCA(3, kernel=kernel, gamma=0.2)
    Z = model.fit_transform(X)
    np.testing.assert_allclose(model.transform(X), Z, atol=1e-9)
    np.testing.assert_allclose(model.fit(X).transform(X), Z, atol=1e-9)
    assert model.score_samples(X).shape == (30,)
    assert list(model.get_feature_names_out()) == [f"kernell21pca{i}" for i in range(3)]


def test_truncated_embedding_and_defaults():
    X = data(6, 30, 4)
    full = KernelL21PCA(3, gamma=0.5).fit(X)
    assert full.n_embedding_ == 29  # rank of the centred rbf kernel on 30 distinct points
    assert full.components_.shape == (3, 29) and full.eigenvectors_.shape == (30, 29)
    small = KernelL21PCA(3, gamma=0.5, n_embedding=10).fit(X)
    assert small.components_.shape == (3, 10)
    assert KernelL21PCA(gamma=0.5, n_embedding=10).fit(X).n_components_ == 10
    assert KernelL21PCA(kernel="linear").fit(X).n_embedding_ == 4


# -- input handling -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"kernel": "precomputed"}, ValueError, "kernel"),
        ({"kernel": "gaussian"}, ValueError, "kernel"),
        ({"kernel": lambda a, b: a @ b, "kernel_params": [1]}, TypeError, "kernel_params"),
        ({"gamma": -1.0}, ValueError, "gamma"),
        ({"degree": -1}, ValueError, "degree"),
        ({"coef0": "1"}, TypeError, "coef0"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": 21}, ValueError, "n_components"),
        ({"n_components": 2.0}, TypeError, "n_components"),
        ({"n_embedding": 0}, ValueError, "n_embedding"),
        ({"n_embedding": 21}, ValueError, "n_embedding"),
        ({"n_components": 5, "n_embedding": 4}, ValueError, "n_embedding"),
        ({"init": "kpca"}, ValueError, "init"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"callback": 1}, TypeError, "callback"),
    ],
)
def test_bad_parameters_name_themselves(params, error, match):
    X = data(7, 20, 4)
    with pytest.raises(error, match=match):
        KernelL21PCA(**{"n_components": 2, **params}).fit(X)


def test_transform_checks_shape_and_fit():
    X = data(8, 20, 4)
    with pytest.raises(NotFittedError):
        KernelL21PCA(2).transform(X)
    model = KernelL21PCA(2).fit(X)
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :3])


def test_float32_outputs_are_float32():
    """transform, reconstruction_error and score_samples of a float32 fit on float32
    data agree on their dtype (reconstruction_error was float64)."""
    X = np.random.default_rng(4).normal(size=(25, 4)).astype(np.float32)
    model = KernelL21PCA(n_components=2, random_state=0).fit(X)
    outputs = [model.transform(X), model.reconstruction_error(X), model.score_samples(X)]
    assert [a.dtype for a in outputs] == [np.float32] * 3


def test_no_map_back_to_the_input_space():
    """On the base class, but with no inverse_transform/reconstruct (a pre-image problem):
    the methods are absent, not broken, and fit_transform equals transform."""
    X = data(8, 20, 4)
    model = KernelL21PCA(2, gamma=0.5)
    assert isinstance(model, BaseSubspaceEstimator)
    assert not hasattr(model, "inverse_transform") and not hasattr(model, "reconstruct")
    Z = model.fit_transform(X)
    np.testing.assert_allclose(Z, model.transform(X), atol=1e-10)


def test_dask_input_is_refused_with_a_type_error():
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match="KernelL21PCA"):
        KernelL21PCA(2).fit(da.from_array(data(8, 20, 4), chunks=10))


def test_callback_stops_and_max_iter_warns():
    X = data(9, 40, 5)
    model = KernelL21PCA(2, callback=lambda it, state: it >= 1).fit(X)
    assert model.n_iter_ == 1 and not model.converged_
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        KernelL21PCA(2, max_iter=1, tol=0).fit(X)


def test_random_init_is_reproducible():
    X = data(10, 30, 5)
    a = KernelL21PCA(2, init="random", random_state=1).fit(X)
    b = KernelL21PCA(2, init="random", random_state=1).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "cosine", "poly"])
@pytest.mark.parametrize(
    "X",
    [
        np.zeros((10, 4)),
        np.repeat(np.random.default_rng(0).normal(size=(3, 5)), 4, axis=0),
        np.c_[np.random.default_rng(1).normal(size=(15, 2)), np.ones((15, 2))],
    ],
    ids=["zeros", "duplicates", "constant-features"],
)
def test_degenerate_data_give_finite_fits(X, kernel):
    """No NaN: zero-variance kernels get zero coordinates and a completed basis."""
    model = KernelL21PCA(3, kernel=kernel, random_state=0).fit(X)
    assert np.isfinite(model.transform(X)).all()
    assert np.isfinite(model.reconstruction_error(X)).all()
    assert np.isfinite(model.objective_history_).all()


# -- real data ------------------------------------------------------------------------


@pytest.mark.realdata
@pytest.mark.parametrize("fill", ["max", "min"])
def test_faces_kernel_l21_subspace_is_closer_to_the_clean_faces_than_kpca(orl, fill):
    """The kernel analogue of Nie & Huang's sec. V.A claim (PCA-L21 beats PCA on
    occluded images), which the paper states for kernels without experiments: fitted
    on AT&T faces with 20% of them occluded (rbf kernel, median-distance gamma), the
    PCA-L21 subspace lies closer, in the kernel feature space, to the clean faces than
    the kernel PCA subspace of the same dimension. Sums of distances, seed 0, white
    block: 220.35 / 221.15 (k = 10), 174.41 / 176.74 (k = 40); black block 217.12 /
    218.54 and 173.40 / 177.05; seed 1 alike. The margins are small (0.4-2%). Both
    flag the occluded faces by their feature-space reconstruction error (ROC AUC
    0.987-1.000; PCA-L21 at least as high as KPCA in all 9 settings tried)."""
    X, mask = occluded_faces(orl, fill=fill)
    gamma = 1.0 / np.median(pdist(X, "sqeuclidean"))
    for k in (10, 40):
        l21 = KernelL21PCA(k, gamma=gamma).fit(X)
        kpca = KernelL21PCA(k, gamma=gamma, n_embedding=k).fit(X)
        assert l21.converged_
        assert l21.reconstruction_error(orl.data).sum() < kpca.reconstruction_error(orl.data).sum()
        assert roc_auc_score(mask.any(axis=1), l21.reconstruction_error(X)) > 0.98


@pytest.mark.parametrize("kernel", sorted(_NAMED_KERNELS))
def test_self_similarity_by_blocks_is_the_kernel_diagonal(kernel):
    """The named kernels' ``k(x, x)`` come from the diagonals of row blocks; they equal
    the kernel called on each row alone (a zero row included, for cosine)."""
    X = np.abs(np.random.default_rng(0).normal(size=(600, 12)))
    X[5] = 0.0
    model = KernelL21PCA(n_components=2, kernel=kernel, random_state=0).fit(X[:80])
    one_by_one = np.array([model._kernel(x[None, :])[0, 0] for x in X])
    np.testing.assert_allclose(model._self_similarity(X), one_by_one, rtol=1e-14, atol=1e-14)


@pytest.mark.slow
def test_fit_and_scores_hold_one_kernel_at_a_time():
    """Memory: the training kernel is centred in place and the eigensolver's copy is the
    only other ``n x n`` array (the fit peaked at 3 kernels; 2 now); scoring holds one
    ``n x n_train`` kernel (it held 2-3)."""
    n = 1500
    X = np.random.default_rng(1).normal(size=(n, 10))
    kernel_bytes = n * n * 8
    model = KernelL21PCA(n_components=3, n_embedding=40, random_state=0)
    assert peak_memory(lambda: model.fit(X)) < 2.3 * kernel_bytes
    assert peak_memory(lambda: model.score_samples(X)) < 1.3 * kernel_bytes


def test_a_kernel_with_non_finite_values_is_a_clear_error():
    """``kernel='poly'`` with ``degree=1.5`` takes powers of negative numbers: the fit
    failed in the eigensolver ("SVD did not converge")."""
    X = np.random.default_rng(0).normal(size=(30, 5))
    with pytest.raises(ValueError, match=r"non-integer degree=1\.5"):
        KernelL21PCA(kernel="poly", degree=1.5).fit(X)
    model = KernelL21PCA(n_components=2, kernel="poly", degree=2.0).fit(X)
    with pytest.raises(ValueError, match="kernel='poly' gave non-finite values"):
        model.set_params(degree=1.5).transform(X)


def _projector(model):
    V = model.eigenvectors_
    return V @ V.T


@pytest.mark.realdata
def test_arpack_embedding_equals_lapack_on_the_faces(orl):
    """ARPACK's top pairs of the AT&T faces' kernel (400 samples, 10 pairs) are LAPACK's:
    eigenvalues to 1e-12, the embedding's projector to 1e-9, and the fits' scores."""
    X, _ = occluded_faces(orl, fill="max")
    gamma = 1.0 / np.median(pdist(X, "sqeuclidean"))
    fits = {
        solver: KernelL21PCA(5, gamma=gamma, n_embedding=10, eigen_solver=solver).fit(X)
        for solver in ("dense", "arpack")
    }
    dense, arpack = fits["dense"], fits["arpack"]
    np.testing.assert_allclose(arpack.eigenvalues_, dense.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(_projector(arpack), _projector(dense), atol=1e-9)
    np.testing.assert_allclose(arpack.score_samples(X), dense.score_samples(X), rtol=1e-7)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=5
def test_auto_takes_arpack_for_few_pairs_of_many_samples(monkeypatch, eigsh_calls):
    """``'auto'``: ARPACK above 1,000 samples for at most n / 40 pairs, LAPACK otherwise;
    ARPACK's failure to converge falls back to LAPACK."""
    from scipy.sparse.linalg import ArpackNoConvergence

    import robustpca.estimators._kernel_l21 as module

    calls = eigsh_calls
    X = np.random.default_rng(0).normal(size=(1200, 6))
    auto = KernelL21PCA(2, n_embedding=30, max_iter=5).fit(X)
    assert calls == [30]
    KernelL21PCA(2, n_embedding=31, max_iter=5).fit(X)  # 40 * 31 > 1200
    KernelL21PCA(2, n_embedding=30, max_iter=5).fit(X[:1000])
    assert calls == [30]
    dense = KernelL21PCA(2, n_embedding=30, max_iter=5, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=1e-12)

    def no_convergence(*args, **kwargs):
        raise ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((1200, 0)))

    monkeypatch.setattr(module, "eigsh", no_convergence)
    fallback = KernelL21PCA(2, n_embedding=30, max_iter=5).fit(X)
    np.testing.assert_array_equal(fallback.eigenvalues_, dense.eigenvalues_)


def test_arpack_needs_a_truncated_embedding():
    X = np.random.default_rng(0).normal(size=(30, 4))
    with pytest.raises(ValueError, match="eigen_solver='arpack' needs an int n_embedding"):
        KernelL21PCA(2, eigen_solver="arpack").fit(X)
    with pytest.raises(ValueError, match="eigen_solver='lobpcg' must be one of"):
        KernelL21PCA(2, eigen_solver="lobpcg").fit(X)


@pytest.mark.parametrize("kernel", ["laplacian", "rbf", "chi2"])
def test_float32_outputs_of_every_kernel(kernel):
    """scikit-learn's laplacian kernel is float64 whatever its input: cast back."""
    X = np.abs(np.random.default_rng(0).normal(size=(40, 5))).astype(np.float32)
    model = KernelL21PCA(3, kernel=kernel, random_state=0).fit(X)
    for method in ("transform", "embed", "reconstruction_error", "score_samples"):
        assert getattr(model, method)(X).dtype == np.float32, method


@pytest.mark.parametrize("kernel", ["chi2", "additive_chi2"])
def test_chi_squared_kernels_need_non_negative_data(kernel):
    X = np.abs(np.random.default_rng(1).normal(size=(30, 4)))
    model = KernelL21PCA(2, kernel=kernel, random_state=0)
    assert model.__sklearn_tags__().input_tags.positive_only
    assert not KernelL21PCA(2).__sklearn_tags__().input_tags.positive_only
    with pytest.raises(ValueError, match="Negative values in data passed to KernelL21PCA"):
        model.fit(X - 1.0)
    fitted = model.fit(X)
    with pytest.raises(ValueError, match="Negative values in data"):
        fitted.transform(-X)
    frozen = X.copy()
    frozen.flags.writeable = False  # a read-only memmap, as scikit-learn's checks pass
    np.testing.assert_allclose(fitted.transform(frozen), fitted.transform(X))
    np.testing.assert_allclose(
        KernelL21PCA(2, kernel=kernel, random_state=0).fit(frozen).components_,
        fitted.components_,
    )


def test_a_pickle_holds_the_eigenvectors_once():
    """The embedding's coefficients V Lambda^{-1/2} are formed per call from
    ``eigenvectors_`` and ``eigenvalues_``, not stored beside them (a pickle of 1,000
    rows had been 16 MB, twice the eigenvectors); the transform is the same after a
    round trip."""
    import pickle

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    model = KernelL21PCA(2, kernel="rbf").fit(X)
    data = pickle.dumps(model)
    assert len(data) < 1.2 * model.eigenvectors_.nbytes
    Q = rng.normal(size=(7, 5))
    np.testing.assert_array_equal(pickle.loads(data).transform(Q), model.transform(Q))
