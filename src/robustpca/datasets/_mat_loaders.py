"""Loaders for the other local benchmark copies: MATLAB ``.mat`` files and MNIST IDX files.

Each reads ``<data_home>/raw/<dataset>/...`` (``data_home`` or ``$ROBUSTPCA_DATA``) and, like
:func:`~robustpca.datasets.load_orl`, returns an :class:`~robustpca.datasets.ImageDataset` whose
``data`` has one image per row, float64, flattened in C order, so that
``data[i].reshape(image_shape)`` is image ``i`` upright. Pixel values and labels are kept as
stored in the file (each docstring says the range and whether labels are 0- or 1-based).
The storage layout of every file (row- or column-major, images as rows or columns) is the one
recorded in the data description ``SOURCES.md`` next to ``raw/``.
"""

from __future__ import annotations

import gzip
import os

import numpy as np

from ._local import ImageDataset, _images_to_rows, _load_mat, _loader_doc, _require, get_data_home

__all__ = [
    "load_ar",
    "load_cmu_pie",
    "load_coil20",
    "load_extended_yale_b",
    "load_fei",
    "load_feret",
    "load_jaffe",
    "load_mnist",
    "load_msra25",
    "load_palm",
    "load_umist",
]

_FERET_RESOLUTIONS = ("32x32", "40x40")
_AR_SUBSETS = ("100", "120")
_JAFFE_VARIANTS = ("adagae", "nmflibrary")
_MNIST_SUBSETS = ("3495", "test")

#: 0-based columns of ``FEI_partial_500_48x64.mat`` that hold dog photos, not faces.
FEI_NON_FACE_COLUMNS = (25, 26, 27, 28)


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}.")


def _labels(array) -> np.ndarray:
    labels = np.asarray(array).ravel()
    if not np.array_equal(labels, np.round(labels)):
        raise ValueError("labels in the file are not integers.")
    return labels.astype(np.int64)


def _column_major_mat(
    data_home,
    name: str,
    filename: str,
    description: str,
    *,
    images: str,
    labels: str,
    image_shape: tuple[int, int] | None = None,
) -> ImageDataset:
    """``raw/<name>/<filename>``, one image per row flattened column-major: ``mat[images]``
    and ``mat[labels]``; the shape is ``image_shape`` or the file's ``im_height``/``im_width``.
    """
    home = get_data_home(data_home)
    mat = _load_mat(home / "raw" / name / filename, home)
    if image_shape is None:
        image_shape = (
            int(np.asarray(mat["im_height"]).item()),
            int(np.asarray(mat["im_width"]).item()),
        )
    return ImageDataset(
        data=_images_to_rows(mat[images], image_shape, order="F"),
        target=_labels(mat[labels]),
        image_shape=image_shape,
        name=name,
        description=description,
    )


def _deng_cai(
    data_home, name: str, filename: str, image_shape: tuple[int, int], description: str
) -> ImageDataset:
    """A Deng Cai style ``fea``/``gnd`` file: one image per row, column-major."""
    return _column_major_mat(
        data_home, name, filename, description, images="fea", labels="gnd", image_shape=image_shape
    )


@_loader_doc("umist", file="UMIST_32x32.mat")
def load_umist(data_home: str | os.PathLike | None = None) -> ImageDataset:
    """UMIST faces (20 subjects, 575 images from profile to frontal), 32x32.

    Parameters
    ----------
    {data_home}

    Returns
    -------
    ImageDataset
        ``data`` (575, 1024) float64 with pixel values 3..241, ``target`` the subject
        numbers 1..20 (1-based; 19 to 48 images each, sorted), ``image_shape`` (32, 32).

    {raises}

    Notes
    -----
    ``fea``/``gnd`` file, one image per row flattened column-major; re-flattened in C order.
    """
    return _deng_cai(
        data_home,
        "umist",
        "UMIST_32x32.mat",
        (32, 32),
        "UMIST faces (20 subjects, varying pose), 32x32 (UMIST_32x32.mat).",
    )


@_loader_doc("coil20", file="COIL20_32x32.mat")
def load_coil20(data_home: str | os.PathLike | None = None) -> ImageDataset:
    """COIL-20 objects: 20 objects x 72 poses (5 degree steps), Deng Cai's 32x32 version.

    Parameters
    ----------
    {data_home}

    Returns
    -------
    ImageDataset
        ``data`` (1440, 1024) float64 with values in [0, 1] (the file is already scaled,
        unlike the 0..255 face sets), ``target`` the object numbers 1..20 (1-based, 72
        each, sorted), ``image_shape`` (32, 32).

    {raises}

    Notes
    -----
    ``fea``/``gnd`` file, one image per row flattened column-major; re-flattened in C order.
    Within each object the images follow the poses 0..71 of ``coil-20-proc/objK__P.png``.
    """
    return _deng_cai(
        data_home,
        "coil20",
        "COIL20_32x32.mat",
        (32, 32),
        "COIL-20 objects (20 x 72 poses), Deng Cai's 32x32 version scaled to [0, 1].",
    )


@_loader_doc("extended_yale_b", file="YaleB_32x32.mat")
def load_extended_yale_b(data_home: str | os.PathLike | None = None) -> ImageDataset:
    """Extended Yale B cropped faces: 38 subjects, 2,414 frontal images under varied light.

    Parameters
    ----------
    {data_home}

    Returns
    -------
    ImageDataset
        ``data`` (2414, 1024) float64 with pixel values 0..255, ``target`` 1..38 (1-based;
        59 to 64 images each, sorted), ``image_shape`` (32, 32).

    {raises}

    Notes
    -----
    Deng Cai's ``YaleB_32x32.mat``: one image per row flattened column-major; re-flattened
    in C order. The labels 1..38 are consecutive (the original subject numbers skip 14).
    """
    return _deng_cai(
        data_home,
        "extended_yale_b",
        "YaleB_32x32.mat",
        (32, 32),
        "Extended Yale B cropped faces (38 subjects), Deng Cai's 32x32 version.",
    )


@_loader_doc("cmu_pie", file="PIE_pose27_32x32.mat")
def load_cmu_pie(data_home: str | os.PathLike | None = None) -> ImageDataset:
    """CMU-PIE pose C27 (frontal): 68 subjects x 42 illumination/expression images, 32x32.

    Parameters
    ----------
    {data_home}

    Returns
    -------
    ImageDataset
        ``data`` (2856, 1024) float64 with pixel values 0..255, ``target`` 1..68 (1-based,
        42 each, sorted), ``image_shape`` (32, 32).

    {raises}

    Notes
    -----
    Deng Cai's ``fea``/``gnd`` format, one image per row flattened column-major; re-flattened
    in C order. Only this frontal subset is available locally, not the full 11,554 images.
    """
    return _deng_cai(
        data_home,
        "cmu_pie",
        "PIE_pose27_32x32.mat",
        (32, 32),
        "CMU-PIE pose C27 (frontal) subset, 68 subjects x 42, Deng Cai's 32x32 version.",
    )


@_loader_doc("feret", option="resolution")
def load_feret(
    data_home: str | os.PathLike | None = None, *, resolution: str = "32x32"
) -> ImageDataset:
    """FERET subset: 200 subjects x 7 images.

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '40x40'}, default='32x32'
        ``'32x32'`` reads ``raw/feret/FERET_32x32.mat`` (``fea``/``gnd``, images as rows);
        ``'40x40'`` reads ``raw/feret/FERET_40x40.mat`` (``all_data`` (1600, 1400), images
        as columns, ``all_label``). Both are flattened column-major in the file.

    Returns
    -------
    ImageDataset
        ``data`` (1400, 1024) or (1400, 1600) float64 with pixel values 0..255, ``target``
        the subject numbers 1..200 (1-based, 7 each, sorted), ``image_shape`` (32, 32) or
        (40, 40).

    {raises}
    """
    _check_choice("resolution", resolution, _FERET_RESOLUTIONS)
    description = f"FERET subset (200 subjects x 7 images), {resolution} (FERET_{resolution}.mat)."
    if resolution == "32x32":
        return _deng_cai(data_home, "feret", "FERET_32x32.mat", (32, 32), description)
    home = get_data_home(data_home)
    mat = _load_mat(home / "raw" / "feret" / "FERET_40x40.mat", home)
    return ImageDataset(
        data=_images_to_rows(mat["all_data"], (40, 40), order="F", columns=True),
        target=_labels(mat["all_label"]),
        image_shape=(40, 40),
        name="feret",
        description=description,
    )


@_loader_doc("ar", option="subset")
def load_ar(data_home: str | os.PathLike | None = None, *, subset: str = "100") -> ImageDataset:
    """AR faces, one of two local subsets.

    Parameters
    ----------
    {data_home}
    subset : {'100', '120'}, default='100'
        ``'100'``: ``raw/ar/AR_100_32x32.mat``, 100 subjects x 26 images at 32x32 (two
        sessions x 13, including 3 with sunglasses and 3 with a scarf: real occlusions).
        ``'120'``: ``raw/ar/AR_120_50x40.mat``, 120 subjects x 14 non-occluded images at
        50x40 (height 50, width 40).

    Returns
    -------
    ImageDataset
        ``data`` (2600, 1024) or (1680, 2000) float64 with pixel values in 0..255,
        ``target`` the subject numbers (1-based: 1..100 or 1..120, sorted),
        ``image_shape`` (32, 32) or (50, 40).

    {raises}

    Notes
    -----
    Both files store one image per row flattened column-major; re-flattened in C order.
    """
    _check_choice("subset", subset, _AR_SUBSETS)
    if subset == "100":
        filename, shape = "AR_100_32x32.mat", (32, 32)
        what = "100 subjects x 26 images incl. sunglasses/scarf occlusions, 32x32"
    else:
        filename, shape = "AR_120_50x40.mat", (50, 40)
        what = "120 subjects x 14 non-occluded images, 50x40"
    return _deng_cai(data_home, "ar", filename, shape, f"AR faces, {what} ({filename}).")


@_loader_doc("jaffe", option="variant")
def load_jaffe(
    data_home: str | os.PathLike | None = None, *, variant: str = "adagae"
) -> ImageDataset:
    """JAFFE: 213 images of 10 Japanese female models posing 7 expressions, 32x32.

    Parameters
    ----------
    {data_home}
    variant : {'adagae', 'nmflibrary'}, default='adagae'
        Two different crops. ``'adagae'`` reads ``raw/jaffe/JAFFE_32x32_AdaGAE.mat`` (whole
        head including hair; ``X`` (213, 1024) float64 with images as rows flattened
        row-major; ``Y`` 0..9). ``'nmflibrary'`` reads ``raw/jaffe/JAFFE_32x32_NMFLibrary.mat``
        (tight face crop; ``AllSet.X`` (1024, 213) uint8 with images as columns flattened
        column-major; ``AllSet.y`` 1..10).

    Returns
    -------
    ImageDataset
        ``data`` (213, 1024) float64 with pixel values 0..255 (0..254 for
        ``'nmflibrary'``), ``image_shape`` (32, 32), ``target`` as stored: **0-based**
        0..9 and not sorted for ``'adagae'``, **1-based** 1..10 and sorted for
        ``'nmflibrary'`` (20 to 23 images per subject). The subject numbering of the two
        files is not known to agree.

    {raises}
    """
    _check_choice("variant", variant, _JAFFE_VARIANTS)
    home = get_data_home(data_home)
    folder = home / "raw" / "jaffe"
    if variant == "adagae":
        mat = _load_mat(folder / "JAFFE_32x32_AdaGAE.mat", home)
        data = _images_to_rows(mat["X"], (32, 32), order="C")
        target = _labels(mat["Y"])
        description = "JAFFE faces (whole head), 32x32, AdaGAE copy (labels 0..9)."
    else:
        mat = _load_mat(folder / "JAFFE_32x32_NMFLibrary.mat", home)
        all_set = mat["AllSet"]
        data = _images_to_rows(all_set["X"][0, 0], (32, 32), order="F", columns=True)
        target = _labels(all_set["y"][0, 0])
        description = "JAFFE faces (tight crop), 32x32, NMFLibrary copy (labels 1..10)."
    return ImageDataset(
        data=data, target=target, image_shape=(32, 32), name="jaffe", description=description
    )


def _read_idx(path, expected_ndim: int) -> np.ndarray:
    """A gzipped IDX file of unsigned bytes (MNIST format: big-endian header, C order)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file.")
    ndim = raw[3]
    if ndim != expected_ndim:
        raise ValueError(f"{path}: IDX file has {ndim} dimensions, expected {expected_ndim}.")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    offset = 4 + 4 * ndim
    size = int(np.prod(shape))
    if len(raw) - offset != size:
        raise ValueError(f"{path}: {len(raw) - offset} data bytes, expected {size}.")
    return np.frombuffer(raw, dtype=np.uint8, count=size, offset=offset).reshape(shape)


@_loader_doc("mnist", option="subset", also=", or an IDX file is malformed")
def load_mnist(data_home: str | os.PathLike | None = None, *, subset: str = "3495") -> ImageDataset:
    """MNIST handwritten digits, 28x28: a balanced 3,495-image subset or the 10k test set.

    Parameters
    ----------
    {data_home}
    subset : {'3495', 'test'}, default='3495'
        ``'3495'`` reads ``raw/mnist/MnistData_05_uni.mat`` (Feiping Nie's class-balanced
        subset; ``X`` (3495, 784), images as rows flattened row-major). ``'test'`` reads the
        official test set ``raw/mnist/t10k-images-idx3-ubyte.gz`` and
        ``t10k-labels-idx1-ubyte.gz`` (IDX format, row-major).

    Returns
    -------
    ImageDataset
        ``data`` (3495, 784) or (10000, 784) float64 with pixel values 0..255,
        ``image_shape`` (28, 28), ``target`` as stored: for ``'3495'`` **1-based**, the
        digit plus one (1..10, 315 to 393 each, sorted); for ``'test'`` the digits
        themselves, **0-based** 0..9 (not sorted). Subtract 1 from the ``'3495'`` labels to
        compare the two.

    {raises}
    """
    _check_choice("subset", subset, _MNIST_SUBSETS)
    home = get_data_home(data_home)
    folder = home / "raw" / "mnist"
    if subset == "3495":
        mat = _load_mat(folder / "MnistData_05_uni.mat", home)
        data = _images_to_rows(mat["X"], (28, 28), order="C")
        target = _labels(mat["Y"])
        description = "MNIST, 3,495-image class-balanced subset (labels = digit + 1)."
    else:
        images = _read_idx(_require(folder / "t10k-images-idx3-ubyte.gz", home), 3)
        labels = _read_idx(_require(folder / "t10k-labels-idx1-ubyte.gz", home), 1)
        if images.shape[1:] != (28, 28) or images.shape[0] != labels.shape[0]:
            raise ValueError(
                f"MNIST test files disagree: images {images.shape}, labels {labels.shape}."
            )
        data = images.reshape(images.shape[0], 28 * 28).astype(np.float64)
        target = labels.astype(np.int64)
        description = "MNIST, the official 10,000-image test set (labels = digit)."
    return ImageDataset(
        data=data, target=target, image_shape=(28, 28), name="mnist", description=description
    )


def _nie(data_home, name: str, filename: str, description: str) -> ImageDataset:
    """A Feiping Nie style ``X``/``Y``/``im_height``/``im_width`` file, column-major rows."""
    return _column_major_mat(data_home, name, filename, description, images="X", labels="Y")


@_loader_doc("palm", file="Palm_16x16.mat")
def load_palm(data_home: str | os.PathLike | None = None) -> ImageDataset:
    """Palmprints: 100 palms x 20 images, 16x16 (Hou et al., 2009, as cited by Nie 2014).

    Parameters
    ----------
    {data_home}

    Returns
    -------
    ImageDataset
        ``data`` (2000, 256) float64 with values about -11.1..270.8 (the file's values,
        including overshoot of a bicubic resize; not clipped), ``target`` the palm numbers
        1..100 (1-based, 20 each, sorted), ``image_shape`` (16, 16).

    {raises}

    Notes
    -----
    Read column-major like the other files of the same collection (MSRA25, ...). For
    palmprint texture the pixel order cannot be confirmed by eye, so the orientation of
    these images is unverified.
    """
    return _nie(
        data_home,
        "palm",
        "Palm_16x16.mat",
        "Palmprints (100 palms x 20), 16x16, from Feiping Nie's collection.",
    )


@_loader_doc("msra25", file="MSRA25_16x16.mat")
def load_msra25(data_home: str | os.PathLike | None = None) -> ImageDataset:
    """MSRA25 faces (Nie 2014's 'MSRA'): 1,799 images of 12 subjects, 16x16.

    Parameters
    ----------
    {data_home}

    Returns
    -------
    ImageDataset
        ``data`` (1799, 256) float64 with pixel values 0..255, ``target`` the subject
        numbers 1..12 (1-based, 113 to 186 each, **not** sorted), ``image_shape`` (16, 16).

    {raises}

    Notes
    -----
    ``X`` holds one image per row flattened column-major; re-flattened in C order.
    """
    return _nie(
        data_home,
        "msra25",
        "MSRA25_16x16.mat",
        "MSRA25 faces (12 subjects), 16x16, from Feiping Nie's collection.",
    )


@_loader_doc("fei", file="FEI_partial_500_48x64.mat")
def load_fei(
    data_home: str | os.PathLike | None = None, *, drop_non_faces: bool = True
) -> ImageDataset:
    """A partial FEI face set: 500 of the 2,800 images, 48x64 (height x width, landscape).

    Parameters
    ----------
    {data_home}
    drop_non_faces : bool, default=True
        Remove the 4 dog photos stored at 0-based columns 25-28 of the file (see
        ``FEI_NON_FACE_COLUMNS``). With False all 500 images are returned.

    Returns
    -------
    ImageDataset
        ``data`` (496, 3072) or (500, 3072) float64 with pixel values 1..253 (0..253
        with the dog photos), ``image_shape`` (48, 64). The file has **no labels**:
        ``target`` is the **0-based**
        subject index ``column // 5`` (0..99), from the order of 100 subjects x 5
        consecutive images stated by the file's source. The dog photos fall in subject 5's
        block, so with ``drop_non_faces=True`` subject 5 keeps a single image (column 29)
        and the other 99 subjects 5 each.

    {raises}

    Notes
    -----
    The file's ``FEI`` (3072, 500) holds one image per column, flattened row-major. The
    images include head rotations (profiles), not only frontal faces.
    """
    home = get_data_home(data_home)
    mat = _load_mat(home / "raw" / "fei" / "FEI_partial_500_48x64.mat", home)
    data = _images_to_rows(mat["FEI"], (48, 64), order="C", columns=True)
    target = np.arange(data.shape[0], dtype=np.int64) // 5
    description = "FEI faces, partial (500 of 2,800 images), 48x64; subject index from order"
    if drop_non_faces:
        keep = np.ones(data.shape[0], dtype=bool)
        keep[list(FEI_NON_FACE_COLUMNS)] = False
        data, target = np.ascontiguousarray(data[keep]), target[keep]
        description += ", the 4 dog photos removed."
    else:
        description += "; includes 4 dog photos (columns 25-28)."
    return ImageDataset(
        data=data, target=target, image_shape=(48, 64), name="fei", description=description
    )
