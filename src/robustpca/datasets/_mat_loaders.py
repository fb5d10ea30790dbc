"""Loaders for the other local benchmark copies: MATLAB ``.mat`` files and MNIST IDX files.

Each reads ``<data_home>/raw/<dataset>/...`` (``data_home`` or ``$ROBUSTPCA_DATA``) and, like
:func:`~robustpca.datasets.load_orl`, returns an :class:`~robustpca.datasets.ImageDataset` whose
``data`` has one image per row, float64, flattened in C order, so that
``data[i].reshape(image_shape)`` is image ``i`` upright. Pixel values and labels are kept as
stored in the file (each docstring says the range and whether labels are 0- or 1-based).
The storage layout of every file (row- or column-major, images as rows or columns) is the one
recorded in the data description ``SOURCES.md`` next to ``raw/``.

Most files differ only in that layout, so each is described by a :class:`_MatFile` and read by
:func:`_read_mat`; the loaders of a single file are built by :func:`_file_loader`.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ._local import (
    REFETCH_HINT,
    ImageDataset,
    _images_to_rows,
    _load_mat,
    _loader_doc,
    _require,
    get_data_home,
)

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

#: 0-based columns of ``FEI_partial_500_48x64.mat`` that hold dog photos, not faces.
FEI_NON_FACE_COLUMNS = (25, 26, 27, 28)


@dataclass(frozen=True)
class _MatFile:
    """Where ``raw/<name>/<filename>`` keeps its images and labels, and how they are stored.

    ``images``/``labels``: the variables (``"AllSet.X"`` is field ``X`` of the struct
    ``AllSet``); the images are flattened in ``order`` ('F' column-major, 'C' row-major),
    one per row (per column if ``columns``), to ``image_shape`` (None: the file's
    ``im_height``/``im_width``). ``description`` becomes ``ImageDataset.description``.
    """

    filename: str
    description: str
    images: str = "fea"
    labels: str = "gnd"
    image_shape: tuple[int, int] | None = (32, 32)
    order: str = "F"
    columns: bool = False


def _nie_file(filename: str, description: str) -> _MatFile:
    """A Feiping Nie style ``X``/``Y``/``im_height``/``im_width`` file, column-major rows."""
    return _MatFile(filename, description, images="X", labels="Y", image_shape=None)


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}.")


def _labels(array) -> np.ndarray:
    labels = np.asarray(array).ravel()
    if not np.array_equal(labels, np.round(labels)):
        raise ValueError("labels in the file are not integers.")
    return labels.astype(np.int64)


def _variable(mat: dict, key: str):
    """``mat[key]``, or for ``"Struct.field"`` the field of a 1x1 MATLAB struct."""
    struct, _, field = key.rpartition(".")
    return mat[struct][field][0, 0] if struct else mat[key]


def _read_mat(data_home, name: str, spec: _MatFile) -> ImageDataset:
    """The images and labels of ``raw/<name>/<spec.filename>`` as an :class:`ImageDataset`."""
    home = get_data_home(data_home)
    mat = _load_mat(home / "raw" / name / spec.filename, home)
    image_shape = spec.image_shape
    if image_shape is None:
        image_shape = (
            int(np.asarray(mat["im_height"]).item()),
            int(np.asarray(mat["im_width"]).item()),
        )
    data = _images_to_rows(
        _variable(mat, spec.images), image_shape, order=spec.order, columns=spec.columns
    )
    return ImageDataset(
        data=data,
        target=_labels(_variable(mat, spec.labels)),
        image_shape=image_shape,
        name=name,
        description=spec.description,
    )


def _read_choice(data_home, name: str, option: str, value: str, files: dict[str, _MatFile]):
    """:func:`_read_mat` of ``files[value]``, ``value`` being the loader's keyword ``option``."""
    _check_choice(option, value, tuple(files))
    return _read_mat(data_home, name, files[value])


_FILE_LOADER_DOC = """{summary}

    Parameters
    ----------
    {{data_home}}

    Returns
    -------
    ImageDataset
{returns}
    {{raises}}

    Notes
    -----
{notes}    """


class _FileLoader(Protocol):
    """The signature of a loader built by :func:`_file_loader`."""

    def __call__(self, data_home: str | os.PathLike | None = None) -> ImageDataset: ...


def _file_loader(name: str, spec: _MatFile, doc: str) -> _FileLoader:
    """The public ``load_<name>(data_home=None)`` of a data set stored as the one ``spec``.

    ``doc`` is its docstring in short: the summary line, the paragraph that describes the
    returned data set, and the paragraph of notes (separated by blank lines, indented by
    4); they are put into the numpydoc sections that these loaders share.
    """
    summary, returns, notes = doc.split("\n\n")

    def load(data_home: str | os.PathLike | None = None) -> ImageDataset:
        return _read_mat(data_home, name, spec)

    load.__name__ = load.__qualname__ = f"load_{name}"
    load.__doc__ = _FILE_LOADER_DOC.format(
        summary=summary,
        returns="".join(f"    {line}\n" for line in returns.split("\n")),
        notes=notes.rstrip(" "),
    )
    return _loader_doc(name, file=spec.filename)(load)


load_umist = _file_loader(
    "umist",
    _MatFile(
        "UMIST_32x32.mat", "UMIST faces (20 subjects, varying pose), 32x32 (UMIST_32x32.mat)."
    ),
    """UMIST faces (20 subjects, 575 images from profile to frontal), 32x32.

    ``data`` (575, 1024) float64 with pixel values 3..241, ``target`` the subject
    numbers 1..20 (1-based; 19 to 48 images each, sorted), ``image_shape`` (32, 32).

    ``fea``/``gnd`` file, one image per row flattened column-major; re-flattened in C order.
    """,
)

load_coil20 = _file_loader(
    "coil20",
    _MatFile(
        "COIL20_32x32.mat",
        "COIL-20 objects (20 x 72 poses), Deng Cai's 32x32 version scaled to [0, 1].",
    ),
    """COIL-20 objects: 20 objects x 72 poses (5 degree steps), Deng Cai's 32x32 version.

    ``data`` (1440, 1024) float64 with values in [0, 1] (the file is already scaled,
    unlike the 0..255 face sets), ``target`` the object numbers 1..20 (1-based, 72
    each, sorted), ``image_shape`` (32, 32).

    ``fea``/``gnd`` file, one image per row flattened column-major; re-flattened in C order.
    Within each object the images follow the poses 0..71 of ``coil-20-proc/objK__P.png``.
    """,
)

load_extended_yale_b = _file_loader(
    "extended_yale_b",
    _MatFile(
        "YaleB_32x32.mat",
        "Extended Yale B cropped faces (38 subjects), Deng Cai's 32x32 version.",
    ),
    """Extended Yale B cropped faces: 38 subjects, 2,414 frontal images under varied light.

    ``data`` (2414, 1024) float64 with pixel values 0..255, ``target`` 1..38 (1-based;
    59 to 64 images each, sorted), ``image_shape`` (32, 32).

    Deng Cai's ``YaleB_32x32.mat``: one image per row flattened column-major; re-flattened
    in C order. The labels 1..38 are consecutive (the original subject numbers skip 14).
    """,
)

load_cmu_pie = _file_loader(
    "cmu_pie",
    _MatFile(
        "PIE_pose27_32x32.mat",
        "CMU-PIE pose C27 (frontal) subset, 68 subjects x 42, Deng Cai's 32x32 version.",
    ),
    """CMU-PIE pose C27 (frontal): 68 subjects x 42 illumination/expression images, 32x32.

    ``data`` (2856, 1024) float64 with pixel values 0..255, ``target`` 1..68 (1-based,
    42 each, sorted), ``image_shape`` (32, 32).

    Deng Cai's ``fea``/``gnd`` format, one image per row flattened column-major; re-flattened
    in C order. Only this frontal subset is available locally, not the full 11,554 images.
    """,
)

_FERET_FILES = {
    "32x32": _MatFile(
        "FERET_32x32.mat", "FERET subset (200 subjects x 7 images), 32x32 (FERET_32x32.mat)."
    ),
    "40x40": _MatFile(
        "FERET_40x40.mat",
        "FERET subset (200 subjects x 7 images), 40x40 (FERET_40x40.mat).",
        images="all_data",
        labels="all_label",
        image_shape=(40, 40),
        columns=True,
    ),
}


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
    return _read_choice(data_home, "feret", "resolution", resolution, _FERET_FILES)


_AR_FILES = {
    "100": _MatFile(
        "AR_100_32x32.mat",
        "AR faces, 100 subjects x 26 images incl. sunglasses/scarf occlusions, 32x32 "
        "(AR_100_32x32.mat).",
    ),
    "120": _MatFile(
        "AR_120_50x40.mat",
        "AR faces, 120 subjects x 14 non-occluded images, 50x40 (AR_120_50x40.mat).",
        image_shape=(50, 40),
    ),
}


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
    return _read_choice(data_home, "ar", "subset", subset, _AR_FILES)


_JAFFE_FILES = {
    "adagae": _MatFile(
        "JAFFE_32x32_AdaGAE.mat",
        "JAFFE faces (whole head), 32x32, AdaGAE copy (labels 0..9).",
        images="X",
        labels="Y",
        order="C",
    ),
    "nmflibrary": _MatFile(
        "JAFFE_32x32_NMFLibrary.mat",
        "JAFFE faces (tight crop), 32x32, NMFLibrary copy (labels 1..10).",
        images="AllSet.X",
        labels="AllSet.y",
        columns=True,
    ),
}


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
    return _read_choice(data_home, "jaffe", "variant", variant, _JAFFE_FILES)


def _read_idx(path, expected_ndim: int) -> np.ndarray:
    """A gzipped IDX file of unsigned bytes (MNIST format: big-endian header, C order)."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError) as error:  # gzip.BadGzipFile is an OSError
        raise ValueError(
            f"{path}: cannot be read as a gzip file ({error}); {REFETCH_HINT}."
        ) from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file; {REFETCH_HINT}.")
    ndim = raw[3]
    if ndim != expected_ndim:
        raise ValueError(f"{path}: IDX file has {ndim} dimensions, expected {expected_ndim}.")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    offset = 4 + 4 * ndim
    size = int(np.prod(shape))
    if len(raw) - offset != size:
        raise ValueError(
            f"{path}: {len(raw) - offset} data bytes, expected {size}; {REFETCH_HINT}."
        )
    return np.frombuffer(raw, dtype=np.uint8, count=size, offset=offset).reshape(shape)


def _mnist_test_set(data_home) -> ImageDataset:
    """The official MNIST test set from ``raw/mnist/t10k-{images-idx3,labels-idx1}-ubyte.gz``."""
    home = get_data_home(data_home)
    folder = home / "raw" / "mnist"
    images = _read_idx(_require(folder / "t10k-images-idx3-ubyte.gz", home), 3)
    labels = _read_idx(_require(folder / "t10k-labels-idx1-ubyte.gz", home), 1)
    if images.shape[1:] != (28, 28) or images.shape[0] != labels.shape[0]:
        raise ValueError(
            f"MNIST test files disagree: images {images.shape}, labels {labels.shape}."
        )
    return ImageDataset(
        data=images.reshape(images.shape[0], 28 * 28).astype(np.float64),
        target=labels.astype(np.int64),
        image_shape=(28, 28),
        name="mnist",
        description="MNIST, the official 10,000-image test set (labels = digit).",
    )


_MNIST_3495 = _MatFile(
    "MnistData_05_uni.mat",
    "MNIST, 3,495-image class-balanced subset (labels = digit + 1).",
    images="X",
    labels="Y",
    image_shape=(28, 28),
    order="C",
)


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
    _check_choice("subset", subset, ("3495", "test"))
    if subset == "3495":
        return _read_mat(data_home, "mnist", _MNIST_3495)
    return _mnist_test_set(data_home)


load_palm = _file_loader(
    "palm",
    _nie_file(
        "Palm_16x16.mat", "Palmprints (100 palms x 20), 16x16, from Feiping Nie's collection."
    ),
    """Palmprints: 100 palms x 20 images, 16x16 (Hou et al., 2009, as cited by Nie 2014).

    ``data`` (2000, 256) float64 with values about -11.1..270.8 (the file's values,
    including overshoot of a bicubic resize; not clipped), ``target`` the palm numbers
    1..100 (1-based, 20 each, sorted), ``image_shape`` (16, 16).

    Read column-major like the other files of the same collection (MSRA25, ...). For
    palmprint texture the pixel order cannot be confirmed by eye, so the orientation of
    these images is unverified.
    """,
)

load_msra25 = _file_loader(
    "msra25",
    _nie_file(
        "MSRA25_16x16.mat", "MSRA25 faces (12 subjects), 16x16, from Feiping Nie's collection."
    ),
    """MSRA25 faces (Nie 2014's 'MSRA'): 1,799 images of 12 subjects, 16x16.

    ``data`` (1799, 256) float64 with pixel values 0..255, ``target`` the subject
    numbers 1..12 (1-based, 113 to 186 each, **not** sorted), ``image_shape`` (16, 16).

    ``X`` holds one image per row flattened column-major; re-flattened in C order.
    """,
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
