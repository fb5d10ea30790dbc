"""Fixes from the documentation audit: the outlier map's title under the skew rule, the
occlusion protocols on an ``ImageDataset``, and ``plot_gallery``'s error for a 1-D panel.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import ROBPCA
from robustpca.datasets import (
    load_digits_images,
    occlude_blocks,
    occlude_half_width_squares,
)
from robustpca.diagnostics import outlier_diagnostics
from robustpca.plotting import plot_gallery, plot_outlier_map

from .conftest import load_table

pytest.importorskip("matplotlib")


@pytest.mark.realdata
def test_skew_map_title_names_the_adjusted_boxplot_not_a_quantile(shared_data):
    """ROBPCA(skew=True) on octane: the cutoffs are adjusted-boxplot fences, the same at
    every quantile, so the title names the rule; it named the (unused) quantile."""
    X = load_table(shared_data, "octane")
    model = ROBPCA(n_components=2, skew=True, random_state=0).fit(X)
    titles, cutoffs = set(), set()
    for quantile in (0.9, 0.975, 0.999):
        diag = outlier_diagnostics(model, X, quantile=quantile)
        assert diag.rule == "skew"
        cutoffs.add((diag.score_cutoff, diag.orthogonal_cutoff))
        titles.add(plot_outlier_map(diag).get_title())
    assert len(cutoffs) == 1
    assert titles == {"Outlier map, adjusted-boxplot cutoffs (skew rule)"}
    # the quantile rules still name their quantile
    classical = outlier_diagnostics(ROBPCA(n_components=2, random_state=0).fit(X), X)
    assert "97.5% quantile" in plot_outlier_map(classical).get_title()


@pytest.mark.parametrize("occlude", [occlude_blocks, occlude_half_width_squares])
def test_occlusion_takes_an_image_dataset(occlude):
    """An ImageDataset is read as its data and brings its image_shape, as in
    append_outliers; it raised a TypeError from float()."""
    digits = load_digits_images()
    before = digits.data.copy()
    expected = occlude(digits.data, digits.image_shape, random_state=0)
    for got in (
        occlude(digits, digits.image_shape, random_state=0),
        occlude(digits, random_state=0),
    ):
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(digits.data, before)
    with pytest.raises(ValueError, match="image_shape"):
        occlude(digits, (4, 4), random_state=0)
    with pytest.raises(ValueError, match="image_shape"):  # an array brings no shape
        occlude(digits.data, random_state=0)


@pytest.mark.parametrize("position", [0, 1])
def test_gallery_names_a_1d_panel(position):
    """A 1-D panel is reported as such; the first was reported as a mismatch with "the
    number of columns of images (-1)"."""
    images = np.random.default_rng(0).uniform(size=(4, 6))
    panels = [("a", images), ("b", images)]
    panels[position] = ("flat", images[0])
    with pytest.raises(ValueError, match=r"panels\['flat'\] must be 2-D") as info:
        plot_gallery(panels, (2, 3))
    assert "(-1)" not in str(info.value)
