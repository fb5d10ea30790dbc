"""A fixed bug (found by the mutation audit of ``foreground_gaps.py``): a
:class:`~robustpca.foreground_stream.ForegroundDetector` with ``min_scale > 0`` whose first
batch observes no pixel (all NaN) took a noise floor of 1.0, below ``min_scale``. Such a
batch now leaves no scale, whatever ``min_scale``: no pixel was seen.

Documented: ``min_scale`` is "the least noise floor" (the class's Parameters; step 3 of
:mod:`robustpca.foreground`: the floor is "never below ``min_scale``"), and "frames with no
pixel seen have no foreground and give the scale no unit" (the class docstring). With
``min_scale = 0`` such a batch indeed leaves no scale; with ``min_scale > 0`` it goes
through ``foreground_gaps.gap_pixel_scale``, which returns the floor 1.0 where no pixel is
observed without applying the rule's ``min_scale`` (``floor_of`` is not called), so
``noise_floor_`` is 1.0 and ``score`` of the next batch divides by 1.0, not ``min_scale``.
A black first batch (zeros, no NaN) gets ``min_scale``, as documented; the next batch,
whose pixel scales are below ``min_scale``, is then scored at ``min_scale`` after either.

Repro::

    d = ForegroundDetector(min_scale=5.0).partial_fit(np.full((2, 8, 8), np.nan))
    d.noise_floor_  # 1.0, not >= 5.0
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground_stream import ForegroundDetector


@pytest.mark.parametrize("min_scale", [2.0, 5.0])
def test_a_first_batch_with_no_pixel_seen_keeps_the_floor_at_min_scale(min_scale):
    unseen = ForegroundDetector(min_scale=min_scale).partial_fit(np.full((2, 8, 8), np.nan))
    black = ForegroundDetector(min_scale=min_scale).partial_fit(np.zeros((2, 8, 8)))
    assert black.noise_floor_ == min_scale
    if hasattr(unseen, "scale_"):  # or it left no scale at all, as with min_scale = 0
        assert unseen.noise_floor_ >= min_scale
    batch = 0.1 * np.random.default_rng(0).normal(size=(3, 8, 8))  # pixel scales < min_scale
    np.testing.assert_allclose(unseen.score(batch), black.score(batch))
