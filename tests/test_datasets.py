"""Loaders (digits, ORL), the block-occlusion protocol, appended outliers and the hints of
failed (offline) downloads."""

from __future__ import annotations

import math
import socket

import numpy as np
import pytest

from robustpca.datasets import (
    DatasetDownloadError,
    ImageDataset,
    append_outliers,
    fetch_adbench,
    fetch_video,
    get_data_home,
    load_digits_images,
    load_orl,
    occlude_blocks,
    read_pgm,
)

# ---------------------------------------------------------------------------- loaders


def test_load_digits_images():
    d = load_digits_images()
    assert isinstance(d, ImageDataset)
    assert d.data.shape == (1797, 64)
    assert d.data.dtype == np.float64
    assert d.image_shape == (8, 8)
    assert d.images.shape == (1797, 8, 8)
    assert d.target.shape == (1797,)
    assert set(np.unique(d.target)) == set(range(10))
    assert d.data.min() == 0 and d.data.max() == 16
    with pytest.raises(AttributeError):
        d.image_shape = (64, 1)  # frozen


@pytest.mark.realdata
def test_load_orl_32x32(shared_data):
    d = load_orl(shared_data)
    assert d.data.shape == (400, 1024)
    assert d.data.dtype == np.float64
    assert d.image_shape == (32, 32)
    assert d.target.dtype == np.int64
    np.testing.assert_array_equal(np.bincount(d.target), [0] + [10] * 40)
    assert np.all(np.diff(d.target) >= 0)
    assert d.data.min() == 2 and d.data.max() == 235
    np.testing.assert_array_equal(d.data, np.round(d.data))


@pytest.mark.realdata
def test_load_orl_original_pgm(shared_data):
    d = load_orl(shared_data, resolution="112x92")
    assert d.data.shape == (400, 112 * 92)
    assert d.data.dtype == np.float64
    assert d.image_shape == (112, 92)
    np.testing.assert_array_equal(d.target, np.repeat(np.arange(1, 41), 10))
    assert d.data.min() == 0 and d.data.max() == 251
    first = read_pgm(shared_data / "raw" / "orl" / "orl_faces" / "s1" / "1.pgm")
    np.testing.assert_array_equal(d.images[0], first)


@pytest.mark.realdata
def test_orl_versions_are_upright_and_aligned(shared_data):
    """The 32x32 faces match crops of the PGM faces upright, not flipped or transposed."""
    from scipy.ndimage import zoom

    small = load_orl(shared_data).images
    big = load_orl(shared_data, resolution="112x92").images
    # the .mat version is a tight crop of the face: crop the PGMs to about the same box
    resized = np.stack([zoom(im[30:106, 5:81], 32 / 76, order=1) for im in big])

    def median_corr(transform):
        a = np.stack([transform(im) for im in small]).reshape(400, -1)
        b = resized.reshape(400, -1)
        a = a - a.mean(axis=1, keepdims=True)
        b = b - b.mean(axis=1, keepdims=True)
        r = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        return float(np.median(r))

    upright = median_corr(lambda im: im)
    assert upright > 0.3
    assert upright > median_corr(lambda im: im[::-1]) + 0.2
    assert upright > median_corr(lambda im: im.T) + 0.2


@pytest.mark.realdata
def test_load_orl_env_var(shared_data, monkeypatch):
    monkeypatch.setenv("ROBUSTPCA_DATA", str(shared_data))
    assert get_data_home() == shared_data
    assert load_orl().data.shape == (400, 1024)


def test_missing_data_home_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match=r"data_home.*ROBUSTPCA_DATA"):
        load_orl()


@pytest.mark.parametrize("resolution", ["32x32", "112x92"])
def test_wrong_data_home_names_the_missing_file(tmp_path, resolution):
    with pytest.raises(FileNotFoundError, match="ROBUSTPCA_DATA") as info:
        load_orl(tmp_path, resolution=resolution)
    assert str(tmp_path / "raw" / "orl") in str(info.value)


def test_load_orl_bad_resolution(tmp_path):
    with pytest.raises(ValueError, match="resolution"):
        load_orl(tmp_path, resolution="48x48")


def test_read_pgm_header_with_comment_and_16_bit(tmp_path):
    img8 = np.arange(6, dtype=np.uint8).reshape(2, 3)
    p8 = tmp_path / "a.pgm"
    p8.write_bytes(b"P5\n# a comment\n3 2\n255\n" + img8.tobytes())
    np.testing.assert_array_equal(read_pgm(p8), img8)

    img16 = np.array([[0, 300], [65535, 7]], dtype=np.uint16)
    p16 = tmp_path / "b.pgm"
    p16.write_bytes(b"P5 2 2 65535\n" + img16.astype(">u2").tobytes())
    out = read_pgm(p16)
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, img16)


def test_read_pgm_rejects_other_formats(tmp_path):
    p = tmp_path / "ascii.pgm"
    p.write_bytes(b"P2\n2 1\n255\n0 1\n")
    with pytest.raises(ValueError, match="P5"):
        read_pgm(p)
    p.write_bytes(b"P5\n4 4\n255\n" + bytes(3))
    with pytest.raises(ValueError, match="truncated"):
        read_pgm(p)


# -------------------------------------------------------------------------- occlusion


def _images(seed=0, n=50, shape=(8, 8)):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 17, size=(n, shape[0] * shape[1])).astype(float)


def test_occlusion_is_reproducible_and_leaves_input_alone():
    X = _images()
    before = X.copy()
    a, mask_a = occlude_blocks(X, (8, 8), random_state=3)
    b, mask_b = occlude_blocks(X, (8, 8), random_state=3)
    _, mask_c = occlude_blocks(X, (8, 8), random_state=4)
    np.testing.assert_array_equal(X, before)
    assert a is not X and not np.shares_memory(a, X)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mask_a, mask_b)
    assert not np.array_equal(mask_a, mask_c)
    rng = np.random.default_rng(3)
    _, mask_d = occlude_blocks(X, (8, 8), random_state=rng)
    np.testing.assert_array_equal(mask_d, mask_a)


@pytest.mark.parametrize(
    ("n", "shape", "image_fraction", "block_fraction"),
    [
        (50, (8, 8), 0.2, 0.25),
        (37, (8, 8), 0.3, 0.1),
        (40, (32, 32), 0.2, 0.25),
        (20, (12, 9), 1.0, 0.5),
    ],
)
def test_occlusion_counts_and_block_geometry(n, shape, image_fraction, block_fraction):
    h, w = shape
    X = _images(n=n, shape=shape)
    Xc, mask = occlude_blocks(
        X, shape, image_fraction=image_fraction, block_fraction=block_fraction, random_state=0
    )
    assert mask.shape == X.shape and mask.dtype == bool
    touched = mask.any(axis=1)
    assert touched.sum() == math.floor(image_fraction * n + 0.5)
    side = min(math.floor(math.sqrt(block_fraction * h * w) + 0.5), h, w)
    for i in np.flatnonzero(touched):
        m = mask[i].reshape(shape)
        rows, cols = np.flatnonzero(m.any(axis=1)), np.flatnonzero(m.any(axis=0))
        # one contiguous square of the expected side
        assert m.sum() == side * side
        assert rows.size == cols.size == side
        assert rows[-1] - rows[0] == cols[-1] - cols[0] == side - 1
    np.testing.assert_array_equal(Xc[~mask], X[~mask])
    np.testing.assert_array_equal(Xc[mask], X.max())


def test_block_area_is_a_quarter_on_the_paper_setting():
    X = _images(n=10, shape=(32, 32))
    _, mask = occlude_blocks(X, (32, 32), random_state=1)
    areas = mask.sum(axis=1)
    assert set(areas[areas > 0]) == {256}  # 16 x 16 = 1024 / 4
    assert (areas > 0).sum() == 2


def test_block_positions_cover_the_image():
    X = np.zeros((400, 64))
    _, mask = occlude_blocks(
        X, (8, 8), image_fraction=1.0, block_fraction=0.25, fill=1.0, random_state=0
    )
    # every one of the 5 x 5 top-left corners of a 4 x 4 block appears
    corners = {tuple(np.argwhere(m.reshape(8, 8))[0]) for m in mask}
    assert corners == {(r, c) for r in range(5) for c in range(5)}


@pytest.mark.parametrize("fill", ["max", "min", "noise", 7.5])
def test_fill_values(fill):
    X = _images() + 1.0  # values in [1, 17]
    Xc, mask = occlude_blocks(X, (8, 8), fill=fill, random_state=0)
    values = Xc[mask]
    if fill == "max":
        assert np.all(values == X.max())
    elif fill == "min":
        assert np.all(values == X.min())
    elif fill == "noise":
        assert np.all((values >= X.min()) & (values <= X.max()))
        assert np.unique(values).size > values.size // 2
    else:
        assert np.all(values == 7.5)


def test_uint8_input_gives_float64():
    X = _images().astype(np.uint8)
    Xc, _ = occlude_blocks(X, (8, 8), random_state=0)
    assert Xc.dtype == np.float64


def test_zero_image_fraction_touches_nothing():
    X = _images()
    Xc, mask = occlude_blocks(X, (8, 8), image_fraction=0.0, random_state=0)
    assert not mask.any()
    np.testing.assert_array_equal(Xc, X)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"image_fraction": 1.5}, "image_fraction"),
        ({"image_fraction": -0.1}, "image_fraction"),
        ({"image_fraction": float("nan")}, "image_fraction"),
        ({"block_fraction": 0.0}, "block_fraction"),
        ({"block_fraction": 2.0}, "block_fraction"),
        ({"fill": "mean"}, "fill"),
        ({"fill": float("inf")}, "fill"),
        ({"fill": None}, "fill"),
    ],
)
def test_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        occlude_blocks(_images(), (8, 8), **kwargs)


def test_type_errors_name_the_parameter():
    with pytest.raises(TypeError, match="image_fraction"):
        occlude_blocks(_images(), (8, 8), image_fraction="0.2")


def test_shape_errors():
    with pytest.raises(ValueError, match="image_shape"):
        occlude_blocks(_images(), (8, 7))
    with pytest.raises(ValueError, match="image_shape"):
        occlude_blocks(_images(), 64)
    with pytest.raises(ValueError, match="2-D"):
        occlude_blocks(_images().reshape(-1, 8, 8), (8, 8))
    X = _images()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        occlude_blocks(X, (8, 8))


def test_append_outliers_to_no_images_with_rescale():
    """No images (0 rows): no range to map the outliers onto, so rescale=True appends them
    as rescale=False does (it failed on the empty images' minimum)."""
    pool = np.arange(20.0).reshape(5, 4)
    empty = np.zeros((0, 4))
    plain = append_outliers(empty, pool, 2, random_state=0)
    stacked, is_outlier = append_outliers(empty, pool, 2, rescale=True, random_state=0)
    assert stacked.shape == (2, 4) and is_outlier.tolist() == [True, True]
    np.testing.assert_array_equal(stacked, plain[0])
    none, flags = append_outliers(empty, pool, fraction=0.5, rescale=True, random_state=0)
    assert none.shape == (0, 4) and flags.shape == (0,)


# ------------------------------------------------------------------- offline fetch hints


def _dead_url() -> str:
    """A local URL on which nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(
    ("fetch", "direct"),
    [
        (lambda home, url: fetch_adbench(home, tables="14_glass", base_url=url), "numpy.load("),
        (lambda home, url: fetch_video("escalator", home, base_url=url), "load_cdnet("),
    ],
    ids=["adbench", "video"],
)
def test_offline_hint_of_the_data_sets_beside_raw(tmp_path, monkeypatch, fetch, direct):
    """fetch_adbench and fetch_video read a verified copy at ROBUSTPCA_DATA (an empty
    folder here, passed over) or data_home=: their hint offers both, and the files read
    directly."""
    monkeypatch.setenv("ROBUSTPCA_DATA", str(tmp_path / "empty"))
    with pytest.raises(DatasetDownloadError) as info:
        fetch(tmp_path / "home", _dead_url())
    message = str(info.value)
    assert "set ROBUSTPCA_DATA=<folder> or pass data_home=<folder>" in message
    assert direct in message
    assert "place the file by hand at " + str(tmp_path / "home") in message  # one file


def test_offline_hint_of_a_folder_says_it_is_verified_as_a_whole(tmp_path):
    """A CDnet clip is a folder verified by the checksum of its listing: the hint names
    that checksum and the folder, and does not ask for one file by hand."""
    from robustpca.datasets._sources import _FOLDERS

    spec = _FOLDERS["video/highway"]
    with pytest.raises(DatasetDownloadError) as info:
        fetch_video("highway", tmp_path, base_url=_dead_url())
    message = str(info.value)
    assert "place the file by hand" not in message
    assert "verified as a whole" in message and spec.listing_sha256 in message
    assert f"of the {len(spec.files)} files of {tmp_path / 'video' / 'highway'}" in message
    assert "pass data_home=<folder>" in message and "load_cdnet(" in message
    assert not (tmp_path / "video" / "highway").exists()


@pytest.mark.realdata
def test_following_the_offline_hint_works(adbench, tmp_path):
    """What the hint says works offline: data_home= a folder holding adbench/ (the real
    data folder here, or the download cache on a fresh clone)."""
    dead = _dead_url()
    with pytest.raises(DatasetDownloadError):
        fetch_adbench(tmp_path, tables="14_glass", base_url=dead)
    folder = fetch_adbench(adbench.parent, tables="14_glass", base_url=dead)
    assert folder == adbench and (folder / "14_glass.npz").is_file()
