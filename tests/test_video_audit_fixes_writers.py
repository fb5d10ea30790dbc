"""The video writers' inputs (audit of the video API): ``write_masks`` wrote NaN masks as
foreground (``NaN != 0``), and ``write_frames`` cut float frame numbers to ints (1.5 and
2.9 named files 1 and 2; 1.2 and 1.7 were "a number more than once"). Both are now a
ValueError naming the argument, before anything is written for an array."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import write_frames, write_masks


@pytest.mark.parametrize("as_batches", [False, True])
def test_nan_masks_are_refused(tmp_path, as_batches):
    masks = np.zeros((3, 4, 4))
    masks[2, 1, 1] = np.nan
    data = [masks[:2], masks[2:]] if as_batches else masks
    with pytest.raises(ValueError, match="masks hold NaN"):
        write_masks(tmp_path / "m", data)
    written = sorted(p.name for p in (tmp_path / "m").glob("*")) if as_batches else []
    assert written == (["bin000001.png", "bin000002.png"] if as_batches else [])
    assert as_batches or not (tmp_path / "m").exists()  # an array: nothing written


def test_float_masks_without_nan_are_written(tmp_path):
    paths = write_masks(tmp_path, np.array([[[0.0, 0.5], [1.0, -2.0]]]))
    assert [p.name for p in paths] == ["bin000001.png"]


@pytest.mark.parametrize("numbers", [[1.5, 2.9], [1.2, 1.7], [1, np.nan], [True, False]])
def test_frame_numbers_that_are_not_integers_are_refused(tmp_path, numbers):
    with pytest.raises(ValueError, match="frame_numbers must hold integers"):
        write_frames(tmp_path / "f", np.zeros((2, 4, 4)), frame_numbers=numbers)
    with pytest.raises(ValueError, match="frame_numbers must hold integers"):
        write_masks(tmp_path / "m", np.zeros((2, 4, 4), bool), frame_numbers=numbers)
    assert not (tmp_path / "f").exists() and not (tmp_path / "m").exists()


def test_integral_frame_numbers_of_any_dtype_are_taken(tmp_path):
    frames = np.zeros((2, 4, 4))
    assert [p.name for p in write_frames(tmp_path, frames, frame_numbers=[7.0, 8.0])] == [
        "bg000007.png",
        "bg000008.png",
    ]
    numbers = np.array([9, 10], dtype=np.uint16)
    assert [p.name for p in write_masks(tmp_path, frames > 0, frame_numbers=numbers)] == [
        "bin000009.png",
        "bin000010.png",
    ]
