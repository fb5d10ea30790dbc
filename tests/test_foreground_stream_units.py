"""``ForegroundDetector`` is scale-free once it has seen signal, as the batch rule is: a
stream given in other units gives the same masks, also through a batch whose residual is
exactly zero (a frozen camera repeating its last frame, fitted exactly), after which the
floor keeps its last value rather than a constant in absolute units."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground_stream import ForegroundDetector


def _stream(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(120, 20, 24))
    R[30:60] = 0.0  # frozen frames: an exact fit
    truth = np.zeros(R.shape, dtype=bool)
    for t in range(60, 120):
        truth[t, 6:12, 3 * t % 18 : 3 * t % 18 + 6] = True
    R[truth] += 15.0
    return R, truth


@pytest.mark.parametrize("unit", [1e-3, 1e3])
def test_a_frozen_stretch_leaves_the_masks_scale_free(unit):
    R, truth = _stream()
    masks = {}
    for k in (1.0, unit):
        detector = ForegroundDetector()
        masks[k] = np.concatenate([detector.update(k * R[s : s + 10]) for s in range(0, 120, 10)])
    np.testing.assert_array_equal(masks[unit], masks[1.0])
    assert (masks[1.0] & truth).sum() > 0.8 * truth.sum() and not (masks[1.0] & ~truth).any()
