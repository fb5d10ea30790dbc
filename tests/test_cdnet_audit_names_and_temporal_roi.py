"""``load_cdnet``, from the mutation audit: file names, a one-frame temporal ROI, a JPEG ROI.

A CDnet frame is ``in<digits>.<ext>``, its number the digits right after ``in``; any other
name is documented as a ValueError. ``temporalROI.txt`` holds ``first last`` with
``first <= last``: a one-frame range scores that frame. A ``ROI.jpg`` is cut at mid-grey:
the compression leaves dark grey around the edges of its black, which is not the ROI.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import load_cdnet, write_frames

pytest.importorskip("PIL.Image")


def _clip(root, names):
    (root / "input").mkdir(parents=True)
    frame = np.zeros((4, 6), dtype=np.uint8)
    for name in names:
        write_frames(root / "input", frame[None], pattern=name)
    return root


@pytest.mark.parametrize("odd", ["in_000003.png", "inframe3.png", "in-3.png"])
def test_names_with_text_between_in_and_the_number_are_refused(tmp_path, odd):
    clip = _clip(tmp_path / "clip", ["in000001.png", "in000002.png", odd])
    with pytest.raises(ValueError, match="not a CDnet file name"):
        load_cdnet(clip)


def test_a_one_frame_temporal_roi_scores_that_frame(tmp_path):
    """``temporalROI.txt`` = ``2 2``: frame 2 alone is scored (it has ground truth)."""
    clip = _clip(tmp_path / "clip", [f"in{k:06d}.png" for k in (1, 2, 3)])
    truth = np.zeros((3, 4, 6), dtype=np.uint8)
    write_frames(clip / "groundtruth", truth, pattern="gt{:06d}.png")
    (clip / "temporalROI.txt").write_text("2 2\n")
    loaded = load_cdnet(clip)
    assert loaded.temporal_roi == (2, 2)
    np.testing.assert_array_equal(loaded.scored, [False, True, False])


def test_a_jpeg_roi_is_cut_at_mid_grey(tmp_path):
    """A ROI.jpg black on its left half, white on its right, saved at JPEG quality 30:
    the ROI is the right half exactly, the compression's dark ringing left out."""
    from PIL import Image

    clip = _clip(tmp_path / "clip", ["in000001.png"])
    drawn = np.zeros((4, 6), dtype=np.uint8)
    drawn[:, 3:] = 255
    Image.fromarray(drawn).save(clip / "ROI.jpg", quality=30)
    stored = np.asarray(Image.open(clip / "ROI.jpg").convert("L"))
    assert stored[:, :3].max() > 0  # the compression did leave grey in the black half
    np.testing.assert_array_equal(load_cdnet(clip).roi, drawn > 0)


def test_a_ground_truth_missing_at_the_first_scored_frame_is_an_error(tmp_path):
    """Temporal ROI ``2 3`` with ground truth for frame 3 only: frame 2 is scored, so its
    missing file is the documented ValueError naming it."""
    clip = _clip(tmp_path / "clip", [f"in{k:06d}.png" for k in (1, 2, 3)])
    write_frames(
        clip / "groundtruth", np.zeros((1, 4, 6)), pattern="gt{:06d}.png", frame_numbers=[3]
    )
    (clip / "temporalROI.txt").write_text("2 3\n")
    with pytest.raises(ValueError, match=r"gt000002\.png: ground truth missing"):
        load_cdnet(clip)


def test_a_scaled_roi_agrees_with_the_scaled_labels_outside_it(tmp_path):
    """CDnet marks the pixels outside the ROI 85 in the ground truth; the ROI and the
    labels are both resized with the nearest neighbour (documented), so after halving
    the ROI is still exactly where the labels are not 85 (here: outside is column 1)."""
    from PIL import Image

    clip = _clip(tmp_path / "clip", ["in000001.png", "in000002.png"])
    inside = np.full((4, 6), 255, dtype=np.uint8)
    inside[:, 1] = 0
    Image.fromarray(inside).save(clip / "ROI.bmp")
    labels = np.where(inside > 0, 0, 85).astype(np.uint8)
    write_frames(clip / "groundtruth", np.stack([labels, labels]), pattern="gt{:06d}.png")
    loaded = load_cdnet(clip, scale=0.5)
    assert loaded.roi.shape == (2, 3)
    for frame_labels in loaded.labels:
        np.testing.assert_array_equal(loaded.roi, frame_labels != 85)


def test_frames_are_ordered_by_their_number_not_their_name(tmp_path):
    """Names without zero padding (``in9``, ``in10``, ``in11``) sort as text in another
    order; the clip's frames come in the order of their numbers (documented)."""
    clip = tmp_path / "clip"
    (clip / "input").mkdir(parents=True)
    for k in (9, 10, 11):
        write_frames(clip / "input", np.full((1, 4, 6), 10 * k), pattern=f"in{k}.png")
    loaded = load_cdnet(clip)
    np.testing.assert_array_equal(loaded.frame_numbers, [9, 10, 11])
    np.testing.assert_array_equal(loaded.frames[:, 0, 0], [90, 100, 110])


def test_booleans_are_not_frame_numbers(tmp_path):
    clip = _clip(tmp_path / "clip", ["in000001.png", "in000002.png"])
    with pytest.raises(ValueError, match="two whole CDnet frame numbers"):
        load_cdnet(clip, numbers=(True, 2))


def test_a_png_roi_is_read(tmp_path):
    """Without ROI.bmp, a ROI.png is the region of interest (the loader looks for .bmp,
    .png and .jpg): its black pixels are outside."""
    from PIL import Image

    clip = _clip(tmp_path / "clip", ["in000001.png"])
    inside = np.full((4, 6), 255, dtype=np.uint8)
    inside[:, :2] = 0
    Image.fromarray(inside).save(clip / "ROI.png")
    np.testing.assert_array_equal(load_cdnet(clip).roi, inside > 0)
