"""Gaps in metrics/change_detection.py found by mutation testing.

* change_detection_counts counts frames in chunks of 64; every test clip had fewer
  frames, so a chunk that dropped its last frame went unnoticed;
* the ROI is "nonzero inside": only 0/255 images were tested, so reading it as
  ``> 127`` (which empties a 0/1 ROI) went unnoticed;
* best_threshold_f_measure refuses NaN scores: only a NaN at a positive pixel was
  tested; one at a negative pixel (which would count as a false positive of every
  threshold) went unrefused unnoticed.
"""

import numpy as np
import pytest

from robustpca.metrics import best_threshold_f_measure, change_detection_counts


def _brute_counts(masks, labels, roi):
    """CDnet's rule pixel by pixel: 255 positive, 0 and 50 negative, inside the ROI."""
    inside = np.broadcast_to(roi != 0, labels.shape)
    positive = (labels == 255) & inside
    negative = ((labels == 0) | (labels == 50)) & inside
    tp = int(np.sum(masks & positive))
    fp = int(np.sum(masks & negative))
    return tp, fp, int(np.sum(positive)) - tp, int(np.sum(negative)) - fp


@pytest.mark.parametrize("n_frames", [63, 64, 65, 130])
def test_counts_of_clips_longer_than_a_chunk_equal_the_pixel_sums(n_frames):
    """Clips of more than 64 frames: the counts are the sums over every frame (the
    frames at the ends of the chunks included)."""
    rng = np.random.default_rng(n_frames)
    labels = rng.choice(np.array([0, 50, 85, 170, 255], dtype=np.uint8), size=(n_frames, 3, 4))
    masks = rng.random((n_frames, 3, 4)) < 0.5
    roi = rng.random((3, 4)) < 0.8
    assert change_detection_counts(masks, labels, roi) == _brute_counts(masks, labels, roi)
    ones = np.ones((3, 4))
    assert change_detection_counts(masks, labels) == _brute_counts(masks, labels, ones)


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64])
def test_a_zero_one_roi_counts_as_inside_where_nonzero(dtype):
    """A 0/1 ROI of any real dtype is the boolean one: inside where nonzero."""
    labels = np.array([[255, 255, 0, 0]])
    masks = np.array([[True, False, True, False]])
    roi = np.array([[True, False, False, True]])
    expected = change_detection_counts(masks, labels, roi)
    assert expected == (1, 0, 0, 1)
    assert change_detection_counts(masks, labels, roi.astype(dtype)) == expected


def test_best_threshold_refuses_nan_at_a_negative_pixel():
    """A NaN score is refused wherever it is counted, at a negative pixel too."""
    scores = np.array([[0.9, 0.8, np.nan, 0.1]])
    labels = np.array([[255, 255, 0, 0]])
    with pytest.raises(ValueError, match="NaN"):
        best_threshold_f_measure(scores, labels)
