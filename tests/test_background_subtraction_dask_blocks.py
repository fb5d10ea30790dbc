"""A dask clip's blocks are its layout, not the caller's batches: a clip whose frames
were selected by a boolean mask (blocks of unknown, possibly zero, length) streams as
the same frames given as NumPy batches, instead of failing on an empty block."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.background_subtraction import subtract_background

da = pytest.importorskip("dask.array")


def _clip() -> np.ndarray:
    rng = np.random.default_rng(3)
    scene = rng.uniform(40, 200, size=(12, 16))
    frames = scene + rng.normal(size=(60, 12, 16))
    for t in range(60):
        frames[t, 4:8, t % 12 : t % 12 + 4] += 80
    return frames.astype(np.float32)


@pytest.mark.parametrize("method", ["orpca", "pcp"])
def test_a_masked_dask_clip_skips_its_empty_blocks(method):
    frames = _clip()
    keep = np.ones(60, dtype=bool)
    keep[20:40] = False  # the second block of 20 frames is dropped whole
    lazy = da.from_array(frames, chunks=(20, 12, 16))[da.from_array(keep, chunks=20)]
    got = list(subtract_background(lazy, method=method))
    kept = frames[keep]
    want = list(subtract_background([kept[:20], kept[20:]], method=method))
    assert [p.start for p in got] == [0, 20]
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a.frames, b.frames)
        np.testing.assert_array_equal(a.masks, b.masks)
        np.testing.assert_array_equal(np.asarray(a.background), np.asarray(b.background))


def test_a_dask_clip_with_no_frame_left_is_refused():
    lazy = da.from_array(_clip(), chunks=(20, 12, 16))[da.from_array(np.zeros(60, bool), 20)]
    with pytest.raises(ValueError, match="holds no frame"):
        list(subtract_background(lazy))
