"""The colour magnitude (step 1, the root mean square over channels) does not depend on
the residual's units: the scores of a colour residual given in tiny units are those of
the same residual in ordinary units, including where the squares of its typical pixels
would be subnormal and where whole pixels are exact zeros."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground import foreground_masks, foreground_score


def _colour_residual(seed: int = 0) -> np.ndarray:
    """Colour noise with an object, a glint a million times the noise, and a soft-
    thresholded look: a third of the pixels exactly zero in every channel."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(21, 12, 14, 3))
    R[rng.random(R.shape[:3]) < 0.35] = 0.0
    R[5, 3:8, 4:9] += 20.0
    R[9, 10, 2] = 1e6
    return R


@pytest.mark.parametrize("unit", [1e-150, 1e-160, 1e-200])
def test_colour_scores_in_tiny_units_are_the_ordinary_ones(unit):
    """``foreground_score`` and ``foreground_masks`` are documented as scale-free (the
    magnitudes near the ends of the dtype's range are rescaled per pixel so that the masks
    do not depend on the residual's units). At these units the glint's square is a normal
    number while the noise's squares are subnormal, and the zero pixels divide 0 by 0
    in a per-pixel rescaling."""
    R = _colour_residual()
    expected = foreground_score(R)
    got = foreground_score(R * unit)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(foreground_masks(R * unit), foreground_masks(R))
