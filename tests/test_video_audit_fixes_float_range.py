"""Frames whose magnitudes float32 cannot hold squared (audit of the video API).

``subtract_background`` splits every frame in float32. Float64 frames outside that range
gave, depending on the scale and the method, all-background masks with no error (1e-40
with OR-PCA), an ArpackError (1e-300 with PCP), the estimators' error naming ``X`` and
advising float64 to a user who passed float64 (1e35), or scikit-learn's "Input X contains
infinity" with cast warnings (1e40). Each is now one ValueError naming ``frames`` and
saying to rescale them, raised before the cast and before the model sees a row.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca._validation import magnitude_limit
from robustpca.background_subtraction import subtract_background


def _clip(n=24, shape=(10, 12), seed=0):
    rng = np.random.default_rng(seed)
    frames = 100 + 40 * rng.random(shape) + 2 * rng.normal(size=(n, *shape))
    for t in range(n):
        frames[t, 2:6, t % 8 : t % 8 + 4] += 80
    return frames


class _Unfitted:
    """A batch model that must not be reached."""

    def fit(self, X):
        raise AssertionError("the model was fitted")


@pytest.mark.parametrize("method", ["orpca", "grasta", "pcp", "godec"])
@pytest.mark.parametrize("unit", [1e-40, 1e-300, 1e-25, 1e35, 1e40])
def test_frames_beyond_float32s_range_are_one_error_naming_frames(method, unit):
    frames = _clip() * unit
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cast overflow or division warning first
        with pytest.raises(ValueError, match=r"^frames: .*Rescale the frames") as caught:
            list(subtract_background(frames, method=method))
    assert "float64" not in str(caught.value)


def test_float32_frames_beyond_the_range_are_refused_alike():
    """The estimators' own error advised float64; the route splits float32 anyway."""
    with pytest.raises(ValueError, match=r"^frames: .*magnitude up to 2\.22e\+36") as caught:
        list(subtract_background((_clip() * 1e34).astype(np.float32)))
    assert "float64" not in str(caught.value)


def test_the_batch_route_checks_the_whole_clip_before_the_fit():
    """Each batch within the bound for its own values, the clip over it for all of them
    (a batch method fits them at once): refused before the fit, naming the clip."""
    frames = _clip(n=40, shape=(40, 50))
    # between the bound of a batch's 20,000 values and that of the clip's 80,000
    top = np.sqrt(magnitude_limit(np.float32, 20_000) * magnitude_limit(np.float32, 80_000))
    frames *= top / np.abs(frames).max()
    batches = [frames[i : i + 10] for i in range(0, 40, 10)]
    list(subtract_background(batches[:1], method="orpca"))  # one batch's values pass
    with pytest.raises(ValueError, match=r"^frames: the clip holds values of magnitude"):
        list(subtract_background(batches, method="pcp", model=_Unfitted()))


@pytest.mark.parametrize("method", ["orpca", "pcp"])
@pytest.mark.parametrize("unit", [1e-15, 1e10])
def test_frames_within_the_range_give_the_masks_of_any_unit(method, unit):
    frames = _clip()
    (reference,) = subtract_background(frames, method=method)
    (scaled,) = subtract_background(frames * unit, method=method)
    assert reference.masks.any()
    assert np.mean(scaled.masks != reference.masks) < 0.01


def test_zero_frames_and_missing_pixels_are_not_out_of_range():
    frames = _clip()
    frames[:, 0, 0] = np.nan
    list(subtract_background(frames))
    list(subtract_background(np.zeros((6, 4, 5))))
