"""Frame and mask writers, from the mutation audit: file-name patterns, values taken.

``write_frames`` documents a ValueError for a ``pattern`` with more than one field: the
pattern is formatted with the frame's number alone, and two fields (even two copies of
the same one) are not a file name for one frame number.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import write_frames

pytest.importorskip("PIL.Image")


@pytest.mark.parametrize("pattern", ["bg{0}_{0}.png", "bg{0}-{0:03d}.png"])
def test_a_pattern_with_two_fields_is_refused_before_writing(tmp_path, pattern):
    """Nothing is written: the error comes before the folder is made."""
    with pytest.raises(ValueError, match="fields"):
        write_frames(tmp_path / "out", np.zeros((2, 4, 4)), pattern=pattern)
    assert not (tmp_path / "out").exists()


def test_a_pattern_without_a_field_refuses_a_second_frame(tmp_path):
    """``pattern="background.png"`` names one file: two frames are a ValueError (the
    second would overwrite the first), one frame is written."""
    with pytest.raises(ValueError, match="no field for the frame number"):
        write_frames(tmp_path / "two", np.zeros((2, 4, 4)), pattern="background.png")
    assert not (tmp_path / "two").exists()
    written = write_frames(tmp_path / "one", np.zeros((1, 4, 4)), pattern="background.png")
    assert [p.name for p in written] == ["background.png"]


def test_write_masks_writes_every_nonzero_value_as_foreground(tmp_path):
    """Masks are foreground where nonzero (documented): negative values (a signed
    residual used as a mask) are written 255 like positive ones, zero as 0."""
    Image = pytest.importorskip("PIL.Image")
    from robustpca.datasets import write_masks

    masks = np.array([[[-3.0, 0.0], [0.5, -0.25]]])
    (path,) = write_masks(tmp_path, masks)
    np.testing.assert_array_equal(np.asarray(Image.open(path)), [[255, 0], [255, 255]])


def test_complex_frames_are_a_type_error(tmp_path):
    """Frames must be real numbers: complex ones are a TypeError, not written with their
    imaginary part dropped."""
    with pytest.raises(TypeError, match="real numbers"):
        write_frames(tmp_path / "c", np.ones((1, 4, 4), dtype=complex))
    assert not list((tmp_path / "c").glob("*.png"))
