"""The documented layout of :func:`robustpca.plotting.montage` and
:func:`~robustpca.plotting.plot_gallery`, from the mutation audit of ``plotting.py``.

``montage``: images side by side, each upright (``images[i].reshape(image_shape)``),
separated by ``gap`` pixels of NaN (drawn in the colormap's "bad" colour), in an array of
shape ``(h + 2 gap, n (w + gap) + gap)``. ``plot_gallery``: one row per panel, one column
per shown sample, all rows on one grey scale fixed by the first two panels (so a
reconstruction's overshoot shows as such), ``indices`` within ``[-n, n)``, default the
first ``n_images`` samples.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.plotting import montage, plot_gallery

pytest.importorskip("matplotlib")


def _images(n=4, h=2, w=3, seed=0):
    """Images whose pixels are all distinct, so a transposed or shifted copy differs."""
    rng = np.random.default_rng(seed)
    return rng.permutation(n * h * w).reshape(n, h * w).astype(float) + 1.0


@pytest.mark.parametrize("gap", [0, 1, 2])
def test_montage_places_each_image_upright_between_nan_borders(gap):
    """Image ``c`` is ``images[c].reshape(h, w)`` at rows ``[gap, gap + h)`` and columns
    from ``gap + c (w + gap)``; every other pixel is NaN (the "bad" colour)."""
    h, w = 2, 3
    images = _images(h=h, w=w)
    strip = montage(images, (h, w), gap=gap)
    assert strip.shape == (h + 2 * gap, len(images) * (w + gap) + gap)
    covered = np.zeros(strip.shape, dtype=bool)
    for c, image in enumerate(images):
        left = gap + c * (w + gap)
        np.testing.assert_array_equal(strip[gap : gap + h, left : left + w], image.reshape(h, w))
        covered[gap : gap + h, left : left + w] = True
    assert np.isnan(strip[~covered]).all()
    assert not np.isnan(strip[covered]).any()


def test_montage_rejects_images_that_are_not_a_2d_stack():
    """One flattened image (1-D) is not an ``(n_images, h * w)`` stack: a clear error."""
    with pytest.raises(ValueError, match="2-D"):
        montage(np.arange(6.0), (2, 3))


def _clims(fig):
    return {tuple(ax.images[0].get_clim()) for ax in fig.axes}


def test_gallery_grey_scale_is_that_of_the_first_two_panels_on_the_shown_samples():
    """Every row shares the range of the finite pixels of the first two panels over the
    shown samples: neither a third panel's overshoot, nor a sample left out, nor a NaN
    (an occluded pixel) moves it."""
    original = _images(n=6)
    corrupted = original.copy()
    corrupted[0, 0] = np.nan  # a missing pixel
    corrupted[1, 1] = -5.0  # below the original's range
    corrupted[5, 2] = 1e6  # a sample that is not shown
    overshoot = original * 3.0  # a reconstruction beyond the range
    fig = plot_gallery(
        {"original": original, "corrupted": corrupted, "reconstructed": overshoot},
        (2, 3),
        indices=[0, 1, 2],
    )
    shown = np.concatenate([original[:3].ravel(), corrupted[:3].ravel()])
    shown = shown[np.isfinite(shown)]
    assert len(fig.axes) == 3
    assert _clims(fig) == {(shown.min(), shown.max())}


def test_gallery_of_missing_pixels_only_has_a_usable_grey_scale():
    """First panels with no finite pixel: the scale falls back to (0, 1), not a range of
    zero width."""
    images = np.full((2, 6), np.nan)
    fig = plot_gallery({"a": images}, (2, 3))
    ((vmin, vmax),) = _clims(fig)
    assert vmin < vmax


def test_gallery_shows_at_most_the_samples_there_are():
    """``n_images`` beyond the number of samples shows every sample once."""
    images = _images(n=3)
    fig = plot_gallery({"a": images}, (2, 3), n_images=8)
    np.testing.assert_array_equal(fig.axes[0].images[0].get_array(), montage(images, (2, 3)))


def test_gallery_negative_indices_count_from_the_end():
    """``indices`` within ``[-n, n)``, as NumPy indexing: -1 is the last sample."""
    images = _images(n=4)
    fig = plot_gallery({"a": images}, (2, 3), indices=[-1, -4])
    np.testing.assert_array_equal(
        fig.axes[0].images[0].get_array(), montage(images[[3, 0]], (2, 3))
    )
    with pytest.raises(ValueError, match="indices"):
        plot_gallery({"a": images}, (2, 3), indices=[-5])


def test_gallery_rejects_panels_of_other_shapes_and_no_panels():
    """Panels share the sample order and image size; at least one panel is needed."""
    images = _images(n=4)
    with pytest.raises(ValueError, match="must have shape"):
        plot_gallery({"a": images, "b": images[:3]}, (2, 3))
    with pytest.raises(ValueError, match="at least one"):
        plot_gallery({}, (2, 3))


def test_gallery_title_is_drawn():
    """``title`` becomes the figure's title; rows are labelled in the panels' order."""
    fig = plot_gallery([("x", _images()), ("y", _images(seed=1))], (2, 3), title="Faces")
    # the figure-level texts (Figure.get_suptitle needs matplotlib 3.8; 3.7 is supported)
    assert [text.get_text() for text in fig.texts] == ["Faces"]
    assert [ax.texts[0].get_text() for ax in fig.axes] == ["x", "y"]
