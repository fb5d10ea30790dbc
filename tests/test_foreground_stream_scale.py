"""The running per-pixel scale of ``ForegroundDetector`` (its class docstring): the first
batch sets it to the batch rule's per-pixel scale, held at half the floor; each later
frame takes a Robbins-Monro step of ``max(3/t, learning_rate)`` with ``t`` the frame's
position in the whole stream, so the scale neither depends on how the stream is cut into
batches nor lags a change of the noise by more than a few batches; and ``noise_floor_``
stays the median of ``scale_``, following the noise down as well as up."""

from __future__ import annotations

import numpy as np

from robustpca.foreground_stream import ForegroundDetector
from robustpca.robust_scale import MAD_CONSTANT


def test_the_first_batch_sets_the_batch_rules_scale_held_at_half_the_floor():
    rng = np.random.default_rng(0)
    R = rng.normal(size=(15, 10, 12))
    R[:, :3, :4] *= 0.3  # quiet pixels: their scale between a quarter and half the floor
    R[:, 5:8, 6:9] *= 0.6  # their scale between half the floor and the floor
    detector = ForegroundDetector()
    detector.update(R)
    e = np.abs(R - np.median(R.reshape(15, -1), axis=1)[:, None, None])
    raw = MAD_CONSTANT * np.median(e, axis=0)
    floor = np.median(raw)
    assert detector.noise_floor_ == floor
    np.testing.assert_array_equal(detector.scale_, np.maximum(raw, floor / 2))
    assert (raw < floor / 2).any() and ((floor / 2 < raw) & (raw < floor)).any()


def test_the_running_scale_does_not_depend_on_the_batches():
    """Frames 20-419 in one batch or in sixteen: the steps are those of the frames'
    places in the stream, so the scales agree but where a batch's end held a pixel."""
    rng = np.random.default_rng(1)
    R = rng.normal(size=(420, 10, 12))
    whole, pieces = ForegroundDetector(), ForegroundDetector()
    whole.update(R[:20])
    pieces.update(R[:20])
    whole.update(R[20:])
    for s in range(20, 420, 25):
        pieces.update(R[s : s + 25])
    free = whole.scale_ > whole.noise_floor_ / 2
    assert free.mean() > 0.95
    np.testing.assert_allclose(pieces.scale_[free], whole.scale_[free], rtol=1e-12)
    assert whole.n_frames_seen_ == pieces.n_frames_seen_ == 420


def test_the_scale_follows_a_louder_background_within_a_few_batches():
    """Ten quiet frames, then half of the frame ten times as loud (leaves that start to
    move): steps of 3/t weigh all frames seen alike, so after thirty loud frames the
    loud pixels' running scale is within a factor 1.6 of the batch rule's over the forty
    frames (steps of the learning rate alone would leave it at a fifth of it)."""
    rng = np.random.default_rng(2)
    R = rng.normal(size=(40, 12, 24))
    R[10:, :, 12:] *= 10.0
    detector = ForegroundDetector()
    for s in range(0, 40, 10):
        detector.update(R[s : s + 10])
    batch = MAD_CONSTANT * np.median(np.abs(R), axis=0)
    ratio = np.median(detector.scale_[:, 12:] / batch[:, 12:])
    assert 1 / 1.6 < ratio < 1.6


def test_the_noise_floor_follows_a_quieter_background():
    """A first batch of rain (noise four times as large), then calm frames with an object
    of ten calm noise scales: the floor is the median running scale and comes down with
    it, and the object is found again."""
    rng = np.random.default_rng(3)
    R = rng.normal(size=(400, 16, 32))
    R[:20] *= 4.0
    truth = np.zeros(R.shape, dtype=bool)
    for t in range(20, 400):
        truth[t, 4:10, t % 28 : t % 28 + 4] = True
    R[truth] += 10.0
    detector = ForegroundDetector()
    masks = np.concatenate([detector.update(R[s : s + 20]) for s in range(0, 400, 20)])
    assert detector.noise_floor_ == np.median(detector.scale_)
    assert detector.noise_floor_ < 1.5
    late = slice(300, 400)
    assert (masks[late] & truth[late]).sum() > 0.8 * truth[late].sum()
    assert not (masks[late] & ~truth[late]).any()
