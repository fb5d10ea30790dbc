"""Public helpers on inputs at their edges: Qn, the rank rules, the plots, the metrics."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

from robustpca import PCA
from robustpca.diagnostics import outlier_diagnostics
from robustpca.metrics import projection_reconstruction_error
from robustpca.plotting import montage, plot_gallery, plot_outlier_map
from robustpca.qn_scale import qn
from robustpca.rank_selection import select_n_components, spherical_spectrum
from robustpca.robust_scale import mad

matplotlib.use("Agg")


@pytest.mark.parametrize("x", [[1.0, np.nan, 3.0, 4.0], np.r_[np.ones(70), np.full(80, np.nan)]])
def test_qn_refuses_nan(x):
    """NaN gave a valid-looking 3.42, and stalled the selection for n > 100 (pcaPP errs)."""
    with pytest.raises(ValueError, match="NaN"):
        qn(x)


def test_qn_of_fewer_than_two_values():
    assert qn([]) == 0.0 and qn([2.0]) == 0.0
    np.testing.assert_array_equal(qn(np.zeros((0, 3))), np.zeros(3))


def test_mad_of_nothing():
    with pytest.raises(ValueError, match="at least one"):
        mad([])


def test_variance_shares_of_huge_eigenvalues():
    """The sum of 1e308-sized eigenvalues overflowed: the shares became NaN."""
    ev = [1e308] * 4
    assert select_n_components(ev, 0.1) == 1
    assert select_n_components(ev, 0.6) == 3
    assert select_n_components(np.array(ev) * 1e-300, 0.6) == 3


@pytest.mark.parametrize(("rank", "error"), [(-3, ValueError), (2.7, TypeError), ("a", TypeError)])
def test_rank_is_checked(rank, error):
    with pytest.raises(error, match="rank"):
        select_n_components([6.0, 2.0, 1.0], "auto", rank=rank)


def test_spherical_spectrum_has_one_value_per_direction_with_variance():
    X = np.random.default_rng(0).normal(size=(3, 10))
    ev, rank = spherical_spectrum(X)
    assert ev.shape == (rank,) and rank == 2
    for bad in ({"max_iter": -1}, {"max_iter": 2.5}, {"tol": float("nan")}):
        with pytest.raises((TypeError, ValueError), match=next(iter(bad))):
            spherical_spectrum(X, **bad)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_images": 0}, "n_images"),
        ({"indices": [0.7]}, "indices"),
        ({"image_shape": (1, 2, 3)}, "image_shape"),
        ({"image_shape": (3, 3)}, "image_shape"),
        ({"cmap": "nope"}, "cmap"),
    ],
)
def test_gallery_parameters(kwargs, name):
    images = np.random.default_rng(0).normal(size=(5, 6))
    params = {"image_shape": (2, 3), **kwargs}
    with pytest.raises(ValueError, match=name):
        plot_gallery({"a": images}, **params)


def test_montage_parameters():
    images = np.zeros((2, 6))
    with pytest.raises(ValueError, match="gap"):
        montage(images, (2, 3), gap=-1)
    with pytest.raises(ValueError, match="image_shape"):
        montage(images, (4, 3))
    assert montage(images, (2, 3), gap=0).shape == (2, 6)


def test_outlier_map_labels_by_position():
    """A Series' labels were read by index label: a KeyError, or the wrong names."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    X[:3] += 20
    diagnostics = outlier_diagnostics(PCA(n_components=1).fit(X), X)
    names = [f"s{i}" for i in range(30)]
    series = pd.Series(names, index=rng.permutation(30) + 100)
    ax = plot_outlier_map(diagnostics, labels=series)
    written = sorted(t.get_text() for t in ax.texts)
    assert written == sorted(names[i] for i in np.flatnonzero(diagnostics.outliers))
    with pytest.raises(TypeError, match="labels"):
        plot_outlier_map(diagnostics, labels=True)


def test_projection_error_at_huge_scales():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]]) * 1e300
    C = np.array([[1.0, 1.0], [0.0, 2.0]]) * 1e300
    W = np.array([[1.0, 0.0]])
    small = projection_reconstruction_error(W, X / 1e300, C / 1e300)
    assert projection_reconstruction_error(W, X, C) == pytest.approx(small * 1e300, rel=1e-12)


@pytest.mark.parametrize(
    "weights", [np.r_[np.nan, np.ones(19)], -np.ones(20), np.ones(5)], ids=["nan", "neg", "len"]
)
def test_diagnostic_reference_checks_its_weights(weights):
    """NaN and negative weights were dropped silently, a wrong length broadcast."""
    from robustpca.diagnostics import diagnostic_reference

    X = np.random.default_rng(0).normal(size=(20, 4))
    model = PCA(n_components=2).fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        diagnostic_reference(
            model, model.transform(X), model.reconstruction_error(X), sample_weight=weights
        )
