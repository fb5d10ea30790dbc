"""Corruption protocols: salt noise, half-width squares and appended outlier images."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.ndimage import zoom

from robustpca.datasets import (
    add_salt_noise,
    append_outliers,
    load_palm,
    occlude_blocks,
    occlude_half_width_squares,
)

from .conftest import SEEDS


def _images(seed=0, n=50, shape=(8, 8)):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(n, shape[0] * shape[1])).astype(float)


def _zoom_rows(rows, source, target):
    """The reference resize, image by image."""
    factors = np.divide(target, source)
    resized = [
        zoom(r.reshape(source), factors, order=1, mode="nearest", grid_mode=True) for r in rows
    ]
    return np.stack(resized).reshape(len(rows), -1)


# -------------------------------------------------------------------------- salt noise


def test_salt_noise_moved_but_still_importable_from_transfer():
    from robustpca import transfer
    from robustpca.datasets import corruption

    assert transfer.add_salt_noise is corruption.add_salt_noise is add_salt_noise


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, n=st.integers(1, 20), d=st.integers(1, 20), fraction=st.floats(0.0, 1.0))
def test_salt_noise_counts_values_and_input(seed, n, d, fraction):
    X = np.random.default_rng(seed).normal(size=(n, d))
    before = X.copy()
    noisy, mask = add_salt_noise(X, fraction, random_state=seed)
    np.testing.assert_array_equal(X, before)
    assert mask.shape == X.shape and mask.dtype == bool
    assert mask.sum() == math.floor(fraction * (n * d) + 0.5)  # round(fraction * X.size)
    np.testing.assert_array_equal(noisy[mask], X.max())
    np.testing.assert_array_equal(noisy[~mask], X[~mask])
    again, mask_again = add_salt_noise(X, fraction, random_state=seed)
    np.testing.assert_array_equal(again, noisy)
    np.testing.assert_array_equal(mask_again, mask)


def test_salt_noise_draws_positions_uniformly():
    X = np.zeros((10, 10))
    hits = sum(add_salt_noise(X, 0.1, value=1.0, random_state=s)[1] for s in range(400))
    # each entry is hit with probability 0.1: 40 +- 6 out of 400
    assert 20 < hits.min() and hits.max() < 62


@pytest.mark.realdata
def test_salt_noise_on_orl(orl):
    """Guo's sec. 5 protocol at sigma = 5% on the 400 ORL faces: 20,480 pixels set to 235."""
    before = orl.data.copy()
    noisy, mask = add_salt_noise(orl.data, 0.05, random_state=0)
    np.testing.assert_array_equal(orl.data, before)
    assert mask.sum() == 20_480
    assert np.all(noisy[mask] == 235.0)
    np.testing.assert_array_equal(noisy[~mask], orl.data[~mask])
    # spread over the images: every face gets some noise (51 pixels on average)
    per_image = mask.sum(axis=1)
    assert per_image.min() > 20 and per_image.max() < 90


# ---------------------------------------------------------- Nie & Huang's occlusion


@pytest.mark.parametrize(
    ("shape", "side"), [((8, 8), 4), ((12, 10), 5), ((10, 7), 4), ((4, 10), 4), ((1, 1), 1)]
)
def test_half_width_squares_geometry(shape, side):
    X = _images(n=30, shape=shape)
    Xc, mask = occlude_half_width_squares(X, shape, image_fraction=0.3, random_state=1)
    touched = mask.any(axis=1)
    assert touched.sum() == 9
    for m in mask[touched]:
        m = m.reshape(shape)
        rows, cols = np.flatnonzero(m.any(axis=1)), np.flatnonzero(m.any(axis=0))
        assert m.sum() == side * side and rows.size == cols.size == side
        assert rows[-1] - rows[0] == cols[-1] - cols[0] == side - 1
    np.testing.assert_array_equal(Xc[mask], X.max())
    np.testing.assert_array_equal(Xc[~mask], X[~mask])


def test_half_width_squares_are_quarter_blocks_on_square_images():
    """On square images the protocol is occlude_blocks with block_fraction 1/4, draw for draw."""
    X = _images(n=40, shape=(32, 32))
    for fill in ("max", "noise"):
        a = occlude_half_width_squares(X, (32, 32), image_fraction=0.3, fill=fill, random_state=5)
        b = occlude_blocks(
            X, (32, 32), image_fraction=0.3, block_fraction=0.25, fill=fill, random_state=5
        )
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.realdata
@pytest.mark.parametrize("image_fraction", [0.1, 0.2, 0.3])
def test_half_width_squares_on_orl(orl, image_fraction):
    """Nie & Huang sec. V.A on the 400 ORL faces: 40/80/120 faces with a 16 x 16 square."""
    before = orl.data.copy()
    Xc, mask = occlude_half_width_squares(
        orl.data, orl.image_shape, image_fraction=image_fraction, random_state=0
    )
    np.testing.assert_array_equal(orl.data, before)
    touched = mask.any(axis=1)
    assert touched.sum() == round(400 * image_fraction)
    assert set(mask.sum(axis=1)[touched]) == {256}
    np.testing.assert_array_equal(Xc[~touched], orl.data[~touched])
    again, _ = occlude_half_width_squares(
        orl.data, orl.image_shape, image_fraction=image_fraction, random_state=0
    )
    np.testing.assert_array_equal(again, Xc)


@pytest.mark.realdata
def test_half_width_squares_on_original_orl(shared_data):
    """On the 112 x 92 PGM faces the square is 46 x 46 (half the width), not a quarter area."""
    from robustpca.datasets import load_orl

    big = load_orl(shared_data, resolution="112x92")
    _, mask = occlude_half_width_squares(big.data, big.image_shape, random_state=0)
    areas = mask.sum(axis=1)
    assert (areas > 0).sum() == 80
    assert set(areas[areas > 0]) == {46 * 46}


@pytest.mark.parametrize(
    ("kwargs", "match", "error"),
    [
        ({"image_fraction": 1.2}, "image_fraction", ValueError),
        ({"image_fraction": "0.1"}, "image_fraction", TypeError),
        ({"fill": "mean"}, "fill", ValueError),
    ],
)
def test_half_width_squares_errors(kwargs, match, error):
    with pytest.raises(error, match=match):
        occlude_half_width_squares(_images(), (8, 8), **kwargs)
    with pytest.raises(ValueError, match="image_shape"):
        occlude_half_width_squares(_images(), (8, 9))


# ------------------------------------------------------------------- appended outliers


def test_append_outliers_resizes_and_stacks():
    faces = _images(n=12, shape=(8, 6))
    pool = _images(seed=1, n=9, shape=(4, 3)) + 1000.0
    before = faces.copy(), pool.copy()
    X, is_outlier = append_outliers(
        faces, pool, 4, image_shape=(8, 6), outlier_shape=(4, 3), random_state=2
    )
    np.testing.assert_array_equal(faces, before[0])
    np.testing.assert_array_equal(pool, before[1])
    assert X.shape == (16, 48) and X.dtype == np.float64
    np.testing.assert_array_equal(is_outlier, [False] * 12 + [True] * 4)
    np.testing.assert_array_equal(X[:12], faces)
    # the appended rows are four distinct pool images, each resized by scipy's zoom
    chosen = np.random.default_rng(2).choice(9, size=4, replace=False)
    np.testing.assert_allclose(X[12:], _zoom_rows(pool[chosen], (4, 3), (8, 6)))
    assert len({tuple(r) for r in X[12:]}) == 4
    # bilinear: values stay within the pool's range
    assert X[12:].min() >= pool.min() - 1e-9 and X[12:].max() <= pool.max() + 1e-9


def test_append_outliers_is_reproducible_and_depends_on_the_seed():
    faces, pool = _images(n=10), _images(seed=3, n=30)
    a = append_outliers(faces, pool, 5, random_state=0)
    b = append_outliers(faces, pool, 5, random_state=0)
    c = append_outliers(faces, pool, 5, random_state=1)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    # same pixel count and no shapes: appended as they are
    rows = {tuple(r) for r in pool}
    assert all(tuple(r) in rows for r in a[0][10:])


@pytest.mark.parametrize(("fraction", "expected"), [(0.0, 0), (0.1, 1), (0.25, 3), (1.0, 10)])
def test_append_outliers_fraction_counts_relative_to_the_images(fraction, expected):
    # round half up: 0.25 * 10 = 2.5 -> 3
    X, is_outlier = append_outliers(_images(n=10), _images(n=20), fraction=fraction)
    assert is_outlier.sum() == expected and X.shape[0] == 10 + expected


def test_append_outliers_rescale_maps_the_value_range():
    faces = np.linspace(0.0, 1.0, 10 * 16).reshape(10, 16)  # images in [0, 1]
    pool = np.linspace(-20.0, 300.0, 5 * 16).reshape(5, 16)
    X, is_outlier = append_outliers(faces, pool, 5, rescale=True, random_state=0)
    out = X[is_outlier]
    assert out.min() == pytest.approx(0.0) and out.max() == pytest.approx(1.0)
    raw, _ = append_outliers(faces, pool, 5, random_state=0)
    np.testing.assert_allclose(out, (raw[10:] + 20.0) / 320.0)


def test_append_outliers_accepts_image_datasets():
    from robustpca.datasets import ImageDataset, load_digits_images

    digits = load_digits_images()
    big = ImageDataset(
        data=_images(n=6, shape=(16, 16)),
        target=np.zeros(6, dtype=np.int64),
        image_shape=(16, 16),
    )
    X, is_outlier = append_outliers(big, digits, 2, random_state=0)
    assert X.shape == (8, 256) and is_outlier.sum() == 2
    # same pixel count as a plain array: appended as they are, no shape needed
    same, _ = append_outliers(np.zeros((3, 64)), digits, 2, random_state=0)
    assert {tuple(r) for r in same[3:]} <= {tuple(r) for r in digits.data}
    # 8x8 digits upsampled by 2: four pixels per original pixel, up to interpolation
    np.testing.assert_allclose(
        X[6:].reshape(2, 16, 16).mean(axis=(1, 2)),
        digits.data[np.random.default_rng(0).choice(1797, 2, replace=False)].mean(axis=1),
        rtol=0.1,
    )


@pytest.mark.parametrize(
    ("args", "kwargs", "match", "error"),
    [
        ((3,), {"fraction": 0.1}, "exactly one", ValueError),
        ((), {}, "exactly one", ValueError),
        ((21,), {}, "n_outliers=21", ValueError),
        ((-1,), {}, "n_outliers=-1", ValueError),
        ((2.5,), {}, "n_outliers", TypeError),
        ((), {"fraction": -0.5}, "fraction", ValueError),
        ((), {"fraction": "10%"}, "fraction", TypeError),
        ((2,), {"order": 7}, "order", ValueError),
    ],
)
def test_append_outliers_parameter_errors(args, kwargs, match, error):
    with pytest.raises(error, match=match):
        append_outliers(_images(n=10), _images(n=20), *args, **kwargs)


def test_append_outliers_shape_errors():
    faces, small = _images(n=5), _images(n=5, shape=(4, 4))
    with pytest.raises(ValueError, match="give image_shape and outlier_shape"):
        append_outliers(faces, small, 2)
    with pytest.raises(ValueError, match="give image_shape and outlier_shape"):
        append_outliers(faces, small, 2, outlier_shape=(4, 4))
    with pytest.raises(ValueError, match=r"outlier_shape=\(4, 5\)"):
        append_outliers(faces, small, 2, image_shape=(8, 8), outlier_shape=(4, 5))
    with pytest.raises(ValueError, match="outliers must be a 2-D"):
        append_outliers(faces, np.zeros(16), 1)
    with pytest.raises(ValueError, match="images must be finite"):
        append_outliers(np.full((2, 4), np.nan), np.zeros((2, 4)), 1)


@pytest.mark.realdata
def test_append_palm_outliers_to_orl(orl, shared_data):
    """Nie & Huang sec. V.B: Palm prints (16 x 16) upsampled to 32 x 32 and appended to ORL.

    20% of the 400 faces: 80 palms, drawn from the 2,000 without replacement.
    """
    palm = load_palm(shared_data)
    before = orl.data.copy()
    X, is_outlier = append_outliers(orl, palm, fraction=0.2, random_state=0)
    np.testing.assert_array_equal(orl.data, before)
    assert X.shape == (480, 1024) and is_outlier.sum() == 80
    np.testing.assert_array_equal(X[:400], orl.data)
    chosen = np.random.default_rng(0).choice(2000, size=80, replace=False)
    np.testing.assert_allclose(X[400:], _zoom_rows(palm.data[chosen], (16, 16), (32, 32)))
    # resizing keeps each palm's mean brightness (bilinear, pixel-area grid)
    np.testing.assert_allclose(X[400:].mean(axis=1), palm.data[chosen].mean(axis=1), rtol=0.02)
    # and a downsampled face looks like the appended palm at the palm's own size
    back = _zoom_rows(X[400:], (32, 32), (16, 16))
    corr = [np.corrcoef(a, b)[0, 1] for a, b in zip(back, palm.data[chosen], strict=True)]
    assert np.median(corr) > 0.9


@pytest.mark.realdata
def test_palm_outliers_pull_pca_away_from_the_faces(orl, shared_data):
    """The appended palms are outliers for the faces' subspace: the PCA basis of the mixture
    reconstructs the faces worse (eq. 38) than the basis of the faces alone.

    Measured e(20) = 514.0 (faces alone) vs 565.6 (faces + 80 palms), 10% worse.
    """
    from robustpca import PCA
    from robustpca.metrics import projection_reconstruction_error

    palm = load_palm(shared_data)
    X, is_outlier = append_outliers(orl, palm, 80, random_state=0)
    clean = PCA(n_components=20).fit(orl.data)
    mixed = PCA(n_components=20).fit(X)
    e_clean = projection_reconstruction_error(clean.components_, orl.data, orl.data)
    e_mixed = projection_reconstruction_error(
        mixed.components_, X[~is_outlier], orl.data, mean=mixed.mean_
    )
    assert e_mixed > 1.05 * e_clean
