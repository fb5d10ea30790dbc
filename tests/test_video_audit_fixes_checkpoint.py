"""The checkpoint recipe of docs/video.md on float frames (audit of the video API).

The recipe built its detector with ``min_scale=QUANTISATION_SCALE``, the floor of 8-bit
frames: on frames in 0..1 that floor is 255 times the whole signal's noise, and the
masks were empty (F 0.000 on highway, against 0.879 for ``subtract_background(batches)``).
The floor the default stream takes from its first frames was private.
``ForegroundDetector(min_scale="auto")`` now takes that floor, and
``robustpca.foreground.min_scale_for`` gives it.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from robustpca import OnlineRobustPCA
from robustpca.background_subtraction import subtract_background
from robustpca.datasets import load_cdnet
from robustpca.foreground_stream import ForegroundDetector
from robustpca.metrics.change_detection import change_detection_measures


@pytest.fixture(scope="module")
def highway():
    """48 highway frames with traffic, at a quarter size, as floats in 0..1."""
    from _harness import data_home

    path = data_home("video") / "video" / "highway"
    if not (path / "input").is_dir():
        pytest.fail(f"video clips not found at {path}; set ROBUSTPCA_DATA (see SOURCES.md)")
    clip = load_cdnet(path, scale=0.25, numbers=(1050, 1097))
    return clip, clip.frames / 255.0


def _batches(frames, size=16):
    return [frames[i : i + size] for i in range(0, len(frames), size)]


@pytest.mark.realdata
def test_the_recipes_resumed_stream_is_the_default_stream_on_float_frames(highway):
    clip, frames = highway
    assert frames.dtype.kind == "f" and 0.0 <= frames.min() and frames.max() <= 1.0
    batches = _batches(frames)
    default = np.concatenate([part.masks for part in subtract_background(batches)])

    # the recipe: the pair pickled after the first batch, the rest of the stream resumed
    model, detector = OnlineRobustPCA(random_state=0), ForegroundDetector(min_scale="auto")
    first = [p.masks for p in subtract_background(batches[:1], model=model, detector=detector)]
    model, detector = pickle.loads(pickle.dumps((model, detector)))
    rest = [p.masks for p in subtract_background(batches[1:], model=model, detector=detector)]
    resumed = np.concatenate(first + rest)

    np.testing.assert_array_equal(resumed, default)
    f = change_detection_measures(resumed, clip.labels, clip.roi, scored=clip.scored)
    assert f["f_measure"] > 0.5, f  # the cars are found (the old recipe: 0.000, no pixel)


def test_auto_takes_the_floor_of_the_first_frames_and_keeps_it_when_resumed():
    """The floor is the first batch's, as the default stream's, and a resumed call keeps
    it whatever the frames it is given next (a brighter batch would give another)."""
    from robustpca.foreground import min_scale_for

    rng = np.random.default_rng(0)
    frames = 0.2 + 0.01 * rng.normal(size=(24, 10, 12))
    frames[12:] *= 4  # a brighter second half: its own floor would differ
    detector = ForegroundDetector(min_scale="auto")
    model = OnlineRobustPCA(random_state=0)
    list(subtract_background([frames[:12]], model=model, detector=detector))
    assert detector.min_scale == "auto"  # the parameter stays as given
    assert detector.min_scale_ == min_scale_for(frames[:12]) > 0
    model, detector = pickle.loads(pickle.dumps((model, detector)))
    list(subtract_background([frames[12:]], model=model, detector=detector))
    assert detector.min_scale_ == min_scale_for(frames[:12]) != min_scale_for(frames[12:])


def test_min_scale_for_gives_the_floor_of_the_frames():
    from robustpca.foreground import QUANTISATION_SCALE, min_scale_for

    levels = np.arange(256, dtype=np.uint8).reshape(1, 16, 16)
    assert min_scale_for(levels) == QUANTISATION_SCALE
    assert min_scale_for(levels.astype(bool)) == QUANTISATION_SCALE * np.spacing(np.float32(1))
    unit = min_scale_for(levels / 255.0)
    assert unit == QUANTISATION_SCALE * np.spacing(np.float32(1.0))
    assert min_scale_for(np.full((2, 3, 3), np.nan)) == 0.0  # no value seen: no floor
    with_gap = (levels / 255.0).copy()
    with_gap[0, 0, 0] = np.nan
    assert min_scale_for(with_gap) == unit
    with pytest.raises(ValueError, match="frames must hold real numbers"):
        min_scale_for(np.array([["a"]]))


def test_auto_without_its_floor_is_a_clear_error():
    """A detector with ``"auto"`` fed residuals directly has no frames to take the floor
    from: an error saying so, not a comparison of a string with a number."""
    detector = ForegroundDetector(min_scale="auto")
    with pytest.raises(ValueError, match=r"min_scale='auto'.*min_scale_for"):
        detector.update(np.zeros((4, 6, 6)))
    detector.min_scale_ = 0.5
    assert not detector.update(np.zeros((4, 6, 6))).any()
    with pytest.raises(ValueError, match="min_scale must be a non-negative number or 'auto'"):
        ForegroundDetector(min_scale="automatic").update(np.zeros((4, 6, 6)))


def test_the_video_page_builds_its_detector_with_auto():
    page = (Path(__file__).resolve().parents[1] / "docs" / "video.md").read_text()
    assert 'ForegroundDetector(min_scale="auto")' in page
    assert "ForegroundDetector(min_scale=QUANTISATION_SCALE)" not in page
