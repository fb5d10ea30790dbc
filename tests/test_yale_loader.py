"""The Yale faces loader: shapes, labels, orientation, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import load_yale


@pytest.mark.realdata
@pytest.mark.parametrize(("resolution", "side"), [("32x32", 32), ("64x64", 64)])
def test_load_yale(shared_data, resolution, side):
    d = load_yale(shared_data, resolution=resolution)
    assert d.data.shape == (165, side * side)
    assert d.data.dtype == np.float64 and d.data.flags.c_contiguous
    assert d.image_shape == (side, side) and d.images.shape == (165, side, side)
    assert d.target.dtype == np.int64
    np.testing.assert_array_equal(d.target, np.repeat(np.arange(1, 16), 11))
    assert d.data.min() == 0 and d.data.max() == 255
    np.testing.assert_array_equal(d.data, np.round(d.data))
    assert d.name == "yale" and resolution in d.description


@pytest.mark.realdata
@pytest.mark.parametrize(("resolution", "side"), [("32x32", 32), ("64x64", 64)])
def test_yale_faces_are_upright(shared_data, resolution, side):
    """The mean loaded face matches a crop of the mean original GIF face ('normal'
    condition of the 15 subjects) upright far better than flipped or transposed (best
    crop searched for each orientation)."""
    from PIL import Image
    from scipy.ndimage import zoom

    folder = shared_data / "raw" / "yale" / "yalefaces"
    originals = [Image.open(folder / f"subject{s:02d}.normal").convert("L") for s in range(1, 16)]
    mean_original = np.mean([np.asarray(im, dtype=float) for im in originals], axis=0)
    mean_face = load_yale(shared_data, resolution=resolution).images.mean(axis=0)

    def corr(a, b):
        a, b = a - a.mean(), b - b.mean()
        return float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))

    def best_crop(face):
        return max(
            corr(zoom(mean_original[top : top + s, left : left + s], side / s, order=1), face)
            for s in (100, 120, 140, 160)
            for top in range(0, 243 - s, 12)
            for left in range(0, 320 - s, 12)
        )

    upright = best_crop(mean_face)  # upright 0.78 (32x32), 0.75 (64x64); others <= 0.44
    assert upright > 0.6
    assert upright > best_crop(mean_face[::-1]) + 0.2
    assert upright > best_crop(mean_face.T) + 0.2


@pytest.mark.realdata
def test_load_yale_env_var(shared_data, monkeypatch):
    monkeypatch.setenv("ROBUSTPCA_DATA", str(shared_data))
    assert load_yale(resolution="64x64").data.shape == (165, 4096)


@pytest.mark.parametrize("resolution", ["32x32", "64x64"])
def test_load_yale_missing_file_is_named(tmp_path, resolution):
    with pytest.raises(FileNotFoundError, match="ROBUSTPCA_DATA") as info:
        load_yale(tmp_path, resolution=resolution)
    assert f"Yale_{resolution}.mat" in str(info.value)


def test_load_yale_bad_resolution(tmp_path):
    with pytest.raises(ValueError, match="resolution"):
        load_yale(tmp_path, resolution="320x243")


def test_load_yale_without_data_home(monkeypatch):
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match=r"data_home.*ROBUSTPCA_DATA"):
        load_yale()
