"""The .mat / IDX loaders of the local benchmark copies: shapes, values, labels, orientation.

Expected numbers are those recorded in ``shared/data/SOURCES.md``. Each file is read once per
module (cached in a module-scoped fixture).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import (
    DATASETS,
    ImageDataset,
    load_digits_images,
    load_fei,
    load_mnist,
    load_orl,
    load_yale,
    read_pgm,
)

# key: (loader name, kwargs, n_samples, image_shape, min, max, (label lo, label hi),
#       (min count, max count) per class, labels sorted)
SPECS = {
    "umist": ("umist", {}, 575, (32, 32), 3, 241, (1, 20), (19, 48), True),
    "coil20": ("coil20", {}, 1440, (32, 32), 0.0, 1.0, (1, 20), (72, 72), True),
    "extended_yale_b": ("extended_yale_b", {}, 2414, (32, 32), 0, 255, (1, 38), (59, 64), True),
    "cmu_pie": ("cmu_pie", {}, 2856, (32, 32), 0, 255, (1, 68), (42, 42), True),
    "feret32": ("feret", {}, 1400, (32, 32), 0, 255, (1, 200), (7, 7), True),
    "feret40": ("feret", {"resolution": "40x40"}, 1400, (40, 40), 0, 255, (1, 200), (7, 7), True),
    "ar100": ("ar", {}, 2600, (32, 32), 4, 255, (1, 100), (26, 26), True),
    "ar120": ("ar", {"subset": "120"}, 1680, (50, 40), 7, 254, (1, 120), (14, 14), True),
    "jaffe_adagae": ("jaffe", {}, 213, (32, 32), 0, 255, (0, 9), (20, 23), False),
    "jaffe_nmf": (
        "jaffe",
        {"variant": "nmflibrary"},
        213,
        (32, 32),
        0,
        254,
        (1, 10),
        (20, 23),
        True,
    ),
    "mnist3495": ("mnist", {}, 3495, (28, 28), 0, 255, (1, 10), (315, 393), True),
    "mnist_test": (
        "mnist",
        {"subset": "test"},
        10000,
        (28, 28),
        0,
        255,
        (0, 9),
        (892, 1135),
        False,
    ),
    "palm": ("palm", {}, 2000, (16, 16), None, None, (1, 100), (20, 20), True),
    "msra25": ("msra25", {}, 1799, (16, 16), 0, 255, (1, 12), (113, 186), False),
    "fei": ("fei", {}, 496, (48, 64), 1, 253, (0, 99), (1, 5), True),
    "fei_all": ("fei", {"drop_non_faces": False}, 500, (48, 64), 0, 253, (0, 99), (5, 5), True),
}


@pytest.fixture(scope="module")
def load(shared_data):
    """``load(key)``: the data set of ``SPECS[key]``, read once per module."""
    cache: dict[str, ImageDataset] = {}

    def get(key: str) -> ImageDataset:
        if key not in cache:
            name, kwargs = SPECS[key][:2]
            cache[key] = DATASETS[name](shared_data, **kwargs)
        return cache[key]

    return get


def corr(a, b) -> float:
    a, b = a - a.mean(), b - b.mean()
    return float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def lr_symmetry(image) -> float:
    """Correlation of an image with its left-right mirror."""
    return corr(image, image[:, ::-1])


# ---------------------------------------------------------------------------- contents


@pytest.mark.realdata
@pytest.mark.parametrize("key", sorted(SPECS))
def test_loader_contents(load, key):
    name, _, n, shape, lo, hi, (label_lo, label_hi), (count_lo, count_hi), is_sorted = SPECS[key]
    d = load(key)
    assert isinstance(d, ImageDataset) and d.name == name and d.description
    assert d.data.shape == (n, shape[0] * shape[1])
    assert d.data.dtype == np.float64 and d.data.flags.c_contiguous
    assert d.image_shape == shape and d.images.shape == (n, *shape)
    assert d.target.shape == (n,) and d.target.dtype == np.int64
    if lo is not None:
        assert d.data.min() == lo
    if hi is not None:
        assert d.data.max() == hi
    if name not in ("coil20", "palm"):
        np.testing.assert_array_equal(d.data, np.round(d.data))
    assert d.target.min() == label_lo and d.target.max() == label_hi
    counts = np.bincount(d.target - label_lo)
    assert len(counts) == label_hi - label_lo + 1 and counts.min() >= 1  # every class present
    assert counts.min() == count_lo and counts.max() == count_hi
    assert bool(np.all(np.diff(d.target) >= 0)) is is_sorted


@pytest.mark.realdata
def test_palm_values_are_kept_unclipped(load):
    d = load("palm")
    assert -11.2 < d.data.min() < -11.0 and 270.7 < d.data.max() < 270.8


@pytest.mark.realdata
def test_mnist_test_label_counts(load):
    d = load("mnist_test")
    counts = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    np.testing.assert_array_equal(np.bincount(d.target), counts)
    assert d.target[0] == 7  # the first official test image is a 7


@pytest.mark.realdata
def test_fei_drops_exactly_the_dog_columns(load):
    full, faces = load("fei_all"), load("fei")
    keep = np.setdiff1d(np.arange(500), [25, 26, 27, 28])
    np.testing.assert_array_equal(faces.data, full.data[keep])
    np.testing.assert_array_equal(full.target, np.repeat(np.arange(100), 5))
    np.testing.assert_array_equal(faces.target, full.target[keep])
    assert np.sum(faces.target == 5) == 1


# ------------------------------------------------------------------------- orientation
# A wrong storage order (C vs F, or images taken as rows instead of columns) shows a square
# image transposed. The mean frontal face is left-right symmetric, while a face is not
# up-down symmetric, so the upright mean is far more mirror-symmetric than its transpose.
# Observed: upright 0.71..0.99 and transposed 0.01..0.58; the smallest gap is 0.17 (JAFFE
# NMFLibrary), hence the 0.1 margin. UMIST (many profile views), COIL-20 (objects) and
# MNIST are checked against their original image files instead. Palm (palmprint texture)
# cannot be checked (SOURCES.md: not verifiable by eye).


@pytest.mark.realdata
@pytest.mark.parametrize(
    "key",
    [
        "extended_yale_b",
        "cmu_pie",
        "feret32",
        "feret40",
        "ar100",
        "ar120",
        "jaffe_adagae",
        "jaffe_nmf",
        "msra25",
        "fei",
    ],
)
def test_mean_face_is_upright(load, key):
    mean = load(key).images.mean(axis=0)
    assert lr_symmetry(mean) > 0.6
    assert lr_symmetry(mean) > lr_symmetry(mean.T) + 0.1


@pytest.mark.realdata
def test_feret_resolutions_agree(load):
    from scipy.ndimage import zoom

    small = load("feret32").images.mean(axis=0)
    big = zoom(load("feret40").images.mean(axis=0), 32 / 40, order=1)
    assert corr(small, big) > 0.9
    assert corr(small, big) > corr(small.T, big) + 0.2


@pytest.mark.realdata
def test_umist_matches_original_pgm(load, shared_data):
    """The mean 32x32 UMIST face matches the mean of the 575 original PGMs (92 wide, 112
    high) resized: observed 0.99 upright, 0.66 transposed, 0.64 upside down."""
    from scipy.ndimage import zoom

    folder = shared_data / "raw" / "umist" / "UMist"
    originals = np.mean([read_pgm(p).astype(float) for p in sorted(folder.glob("*.pgm"))], axis=0)
    reference = zoom(originals, (32 / 112, 32 / 92), order=1)
    mean = load("umist").images.mean(axis=0)
    assert corr(mean, reference) > 0.9
    assert corr(mean, reference) > max(corr(mean.T, reference), corr(mean[::-1], reference)) + 0.2


@pytest.mark.realdata
def test_coil20_matches_original_png(load, shared_data):
    """Object 1's 72 images match the original 128x128 PNGs (poses 0..71) block-averaged
    to 32x32 (observed median correlation 1.00 upright, 0.45 transposed)."""
    from PIL import Image

    folder = shared_data / "raw" / "coil20" / "coil-20-proc"
    png = np.stack(
        [np.asarray(Image.open(folder / f"obj1__{p}.png").convert("L"), float) for p in range(72)]
    )
    reference = png.reshape(72, 32, 4, 32, 4).mean(axis=(2, 4))
    images = load("coil20").images[:72]
    upright = np.median([corr(a, b) for a, b in zip(images, reference, strict=True)])
    transposed = np.median([corr(a.T, b) for a, b in zip(images, reference, strict=True)])
    assert upright > 0.95 and transposed < upright - 0.3


@pytest.mark.realdata
def test_mnist_subset_matches_test_set(load):
    """Class means of the .mat subset match those of the IDX test set (labels digit+1 vs
    digit): observed >= 0.99 for every digit; the transposed '1' only 0.26."""
    subset, test = load("mnist3495"), load("mnist_test")
    for digit in range(10):
        a = subset.images[subset.target == digit + 1].mean(axis=0)
        b = test.images[test.target == digit].mean(axis=0)
        assert corr(a, b) > 0.98
    one = test.images[test.target == 1].mean(axis=0)
    assert corr(one.T, one) < 0.5
    # IDX is row-major: the mean '1' is a vertical stroke, taller than wide
    rows = np.sum(one.sum(axis=1) > one.sum(axis=1).max() / 4)
    cols = np.sum(one.sum(axis=0) > one.sum(axis=0).max() / 4)
    assert rows > 2 * cols


# ------------------------------------------------------------------------------ errors


MISSING = [
    ("umist", {}, "UMIST_32x32.mat"),
    ("coil20", {}, "COIL20_32x32.mat"),
    ("extended_yale_b", {}, "YaleB_32x32.mat"),
    ("cmu_pie", {}, "PIE_pose27_32x32.mat"),
    ("feret", {}, "FERET_32x32.mat"),
    ("feret", {"resolution": "40x40"}, "FERET_40x40.mat"),
    ("ar", {}, "AR_100_32x32.mat"),
    ("ar", {"subset": "120"}, "AR_120_50x40.mat"),
    ("jaffe", {}, "JAFFE_32x32_AdaGAE.mat"),
    ("jaffe", {"variant": "nmflibrary"}, "JAFFE_32x32_NMFLibrary.mat"),
    ("mnist", {}, "MnistData_05_uni.mat"),
    ("mnist", {"subset": "test"}, "t10k-images-idx3-ubyte.gz"),
    ("palm", {}, "Palm_16x16.mat"),
    ("msra25", {}, "MSRA25_16x16.mat"),
    ("fei", {}, "FEI_partial_500_48x64.mat"),
]


@pytest.mark.parametrize(("name", "kwargs", "filename"), MISSING)
def test_missing_file_is_named(tmp_path, name, kwargs, filename):
    with pytest.raises(FileNotFoundError, match="ROBUSTPCA_DATA") as info:
        DATASETS[name](tmp_path, **kwargs)
    assert filename in str(info.value)


@pytest.mark.parametrize(("name", "kwargs", "_"), MISSING)
def test_without_data_home(monkeypatch, name, kwargs, _):
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match=r"data_home.*ROBUSTPCA_DATA"):
        DATASETS[name](**kwargs)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("feret", {"resolution": "80x80"}),
        ("ar", {"subset": "50x40"}),
        ("jaffe", {"variant": "256x256"}),
        ("mnist", {"subset": "train"}),
    ],
)
def test_bad_choice(tmp_path, name, kwargs):
    (argument,) = kwargs
    with pytest.raises(ValueError, match=argument):
        DATASETS[name](tmp_path, **kwargs)


@pytest.mark.realdata
def test_env_var(shared_data, monkeypatch):
    monkeypatch.setenv("ROBUSTPCA_DATA", str(shared_data))
    assert load_mnist(subset="test").data.shape == (10000, 784)
    assert load_fei().data.shape == (496, 3072)


def test_mnist_idx_truncated(tmp_path):
    import gzip

    folder = tmp_path / "raw" / "mnist"
    folder.mkdir(parents=True)
    header = bytes([0, 0, 8, 3]) + np.array([2, 28, 28], dtype=">u4").tobytes()
    with gzip.open(folder / "t10k-images-idx3-ubyte.gz", "wb") as f:
        f.write(header + bytes(28 * 28))  # one image instead of two
    with gzip.open(folder / "t10k-labels-idx1-ubyte.gz", "wb") as f:
        f.write(bytes([0, 0, 8, 1]) + np.array([2], dtype=">u4").tobytes() + bytes(2))
    with pytest.raises(ValueError, match="expected 1568"):
        load_mnist(tmp_path, subset="test")


@pytest.mark.parametrize("content", [b"", b"garbage " * 20, "half"])
def test_damaged_files_are_value_errors_naming_them(tmp_path, content, shared_data):
    """A truncated, empty or foreign MAT or gzip file raised scipy's or gzip's own
    errors (OSError, MatReadError, EOFError, BadGzipFile), naming neither the file nor
    what to do."""
    palm = tmp_path / "raw" / "palm" / "Palm_16x16.mat"
    mnist = tmp_path / "raw" / "mnist" / "t10k-images-idx3-ubyte.gz"
    for path, source in [
        (palm, shared_data / "raw" / "palm" / "Palm_16x16.mat"),
        (mnist, shared_data / "raw" / "mnist" / "t10k-images-idx3-ubyte.gz"),
    ]:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        path.write_bytes(data[: len(data) // 2] if content == "half" else content)
    labels = shared_data / "raw" / "mnist" / "t10k-labels-idx1-ubyte.gz"
    (mnist.parent / labels.name).write_bytes(labels.read_bytes())
    for load, kwargs, path in [
        (DATASETS["palm"], {}, palm),
        (load_mnist, {"subset": "test"}, mnist),
    ]:
        with pytest.raises(ValueError, match="fetch it again") as info:
            load(tmp_path, **kwargs)
        assert str(path) in str(info.value) and "fetch" in str(info.value)


# ---------------------------------------------------------------------------- registry


def test_registry_lists_every_loader():
    assert DATASETS["digits"] is load_digits_images
    assert DATASETS["orl"] is load_orl and DATASETS["yale"] is load_yale
    assert set(DATASETS) == {spec[0] for spec in SPECS.values()} | {"digits", "orl", "yale"}


@pytest.mark.realdata
@pytest.mark.parametrize("key", sorted(SPECS))
def test_registry_names_match(load, key):
    assert DATASETS[load(key).name] is DATASETS[SPECS[key][0]]


@pytest.mark.realdata
def test_orl_64x64_matches_the_mat_file(shared_data):
    """Zhang & Tong's AT&T size: Deng Cai's column-major rows, re-flattened in C order."""
    import scipy.io

    from robustpca.datasets import load_orl

    data = load_orl(shared_data, resolution="64x64")
    fea = scipy.io.loadmat(shared_data / "raw" / "orl" / "ORL_64x64.mat")["fea"]
    assert data.data.shape == (400, 4096) and data.image_shape == (64, 64)
    np.testing.assert_array_equal(data.images[7], fea[7].reshape(64, 64, order="F"))
    np.testing.assert_array_equal(np.bincount(data.target)[1:], np.full(40, 10))
