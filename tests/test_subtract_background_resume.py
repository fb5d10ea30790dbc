"""``subtract_background`` resumed from a pickled model and detector: a long stream (a
camera feed) checkpointed between two batches goes on, after a restart, exactly where
the uninterrupted stream goes, in the burn-in or after it.
"""

import pickle

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.background_subtraction import subtract_background
from robustpca.foreground import QUANTISATION_SCALE
from robustpca.foreground_stream import ForegroundDetector


def _clip(n=96, shape=(18, 24), seed=0):
    rng = np.random.default_rng(seed)
    scene = 60 + 120 * rng.random(shape)
    frames = scene + 3 * rng.normal(size=(n, *shape))
    for t in range(n):
        frames[t, 4:10, (2 * t) % 18 : (2 * t) % 18 + 6] += 70
    return np.clip(frames, 0, 255).astype(np.uint8)


def _batches(frames, size=16):
    return [frames[i : i + size] for i in range(0, len(frames), size)]


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
@pytest.mark.parametrize("stop", [2, 5])  # in the burn-in (100 frames) or after it
def test_a_resumed_stream_is_the_uninterrupted_stream(cls, stop):
    frames = _clip() if stop == 2 else _clip(n=160)
    batches = _batches(frames)
    method = "orpca" if cls is OnlineRobustPCA else "grasta"
    detector = ForegroundDetector(min_scale=QUANTISATION_SCALE)
    whole = list(
        subtract_background(batches, method=method, model=cls(random_state=0), detector=detector)
    )
    default = list(subtract_background(batches, method=method, random_state=0))
    for a, b in zip(whole, default, strict=True):  # the default pipeline's masks
        np.testing.assert_array_equal(a.masks, b.masks)

    model, detector = cls(random_state=0), ForegroundDetector(min_scale=QUANTISATION_SCALE)
    first = list(subtract_background(batches[:stop], method=method, model=model, detector=detector))
    model, detector = pickle.loads(pickle.dumps((model, detector)))
    rest = list(subtract_background(batches[stop:], method=method, model=model, detector=detector))
    assert rest[0].start == 0
    for a, b in zip(whole, first + rest, strict=True):
        np.testing.assert_array_equal(a.background, b.background)
        np.testing.assert_array_equal(a.masks, b.masks)


def test_a_detector_is_for_the_online_methods_only():
    with pytest.raises(ValueError, match="detector applies to the online methods"):
        next(subtract_background(_clip(n=8), method="pcp", detector=ForegroundDetector()))
    with pytest.raises(TypeError, match="detector must be a ForegroundDetector"):
        next(subtract_background(_clip(n=8), detector=object()))
