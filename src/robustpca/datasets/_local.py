"""Loaders for image data: scikit-learn's bundled digits and local copies of ORL and Yale.

Every loader returns an :class:`ImageDataset` whose ``data`` has one flattened image per
row, in C order, so that ``data[i].reshape(image_shape)`` shows the image upright.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .._docstrings import as_in_source

__all__ = [
    "ImageDataset",
    "get_data_home",
    "load_digits_images",
    "load_orl",
    "load_yale",
    "read_pgm",
]

#: Environment variable naming the folder that holds ``raw/<dataset>/...``.
DATA_ENV = "ROBUSTPCA_DATA"

_F = TypeVar("_F", bound=Callable[..., Any])

_ORL_RESOLUTIONS = ("32x32", "64x64", "112x92")
_YALE_RESOLUTIONS = ("32x32", "64x64")


@dataclass(frozen=True, eq=False)
class ImageDataset:
    """Images flattened to rows, with labels and the shape to view them.

    Parameters
    ----------
    data : ndarray of shape (n_samples, height * width), float64
        One image per row, flattened in C (row-major) order.
    target : ndarray of shape (n_samples,), int64
        Class label of each image.
    image_shape : tuple of int
        ``(height, width)``; ``data[i].reshape(image_shape)`` is image ``i`` upright.
    name : str
        Short name of the data set.
    description : str
        Where the images come from, in one or two sentences.

    Examples
    --------
    >>> from robustpca.datasets import load_digits_images
    >>> digits = load_digits_images()
    >>> digits.images.shape
    (1797, 8, 8)
    """

    data: np.ndarray
    target: np.ndarray
    image_shape: tuple[int, int]
    name: str = ""
    description: str = ""

    @property
    def images(self) -> np.ndarray:
        """The data as an array of shape (n_samples, height, width) (a view)."""
        return self.data.reshape(-1, *self.image_shape)

    @property
    def n_samples(self) -> int:
        """Number of images."""
        return int(self.data.shape[0])


_DATA_HOME_DOC = """\
    data_home : str, path-like or None, default=None
        Folder holding ``raw/{name}/``; None reads ``ROBUSTPCA_DATA``.
"""

_RAISES_DOC = """\
    Raises
    ------
    FileNotFoundError
        If no data folder is given or {missing} is missing.
"""

_CHOICE_DOC = """\
    ValueError
        If ``{option}`` is not one of the values above{also}.
"""

_MAT_ORDER_NOTES_DOC = """\
    Notes
    -----
    The ``.mat`` {files} each image flattened column-major (MATLAB order); this
    loader transposes it so that rows are flattened in C order like every other loader.
"""


def _loader_doc(
    name: str,
    *,
    file: str | None = None,
    option: str | None = None,
    also: str = "",
    mat_order: str | None = None,
) -> Callable[[_F], _F]:
    """Fill the ``{data_home}`` and ``{raises}`` lines that every loader's docstring shares.

    ``file``: the one file the loader reads (``raw/<name>/<file>``), named in the
    FileNotFoundError; ``option``: the keyword whose bad value raises a ValueError,
    ``also`` what else does, as the end of that sentence. ``mat_order``, if given, fills
    a ``{notes}`` line with the Notes on re-flattening the column-major ``.mat`` images,
    whose subject and verb it is (``"file stores"``).
    """
    missing = f"``raw/{name}/{file}``" if file else "an expected file"
    raises = _RAISES_DOC.format(missing=missing)
    if option is not None:
        raises += _CHOICE_DOC.format(option=option, also=also)
    sections = {"data_home": _DATA_HOME_DOC.format(name=name), "raises": raises}
    if mat_order is not None:
        sections["notes"] = _MAT_ORDER_NOTES_DOC.format(files=mat_order)
    return _fill_doc(**sections)


def _fill_doc(**sections: str) -> Callable[[_F], _F]:
    """Put ``sections[key]`` in place of every docstring line ``{key}`` (indented by 4).

    For the numpydoc parts that several functions share, written once (as scipy's
    ``doccer`` does); each part is whole lines, ending with a newline.
    """

    def decorate(func: _F) -> _F:
        if func.__doc__:  # None under python -OO
            doc = as_in_source(func.__doc__)
            for key, text in sections.items():
                doc = doc.replace(f"    {{{key}}}\n", text)
            func.__doc__ = doc
        return func

    return decorate


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """Folder holding ``raw/<dataset>/``: ``data_home``, else ``$ROBUSTPCA_DATA``.

    Parameters
    ----------
    data_home : str, path-like or None, default=None
        Explicit folder; takes precedence over the environment variable.

    Returns
    -------
    pathlib.Path
        The folder (not checked for existence; loaders check the files they need).

    Raises
    ------
    FileNotFoundError
        If ``data_home`` is None and ``ROBUSTPCA_DATA`` is unset or empty.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV, "")
    if env:
        return Path(env).expanduser()
    raise FileNotFoundError(
        "No data folder given: pass data_home=<folder holding raw/> or set the environment "
        f"variable {DATA_ENV} to that folder."
    )


def _require(path: Path, data_home: Path) -> Path:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found. data_home={str(data_home)!r} must be the folder holding "
            f"raw/ (given as data_home=... or by the environment variable {DATA_ENV})."
        )
    return path


#: How to get a file again: the hint of the errors of damaged files.
REFETCH_HINT = (
    "the file is damaged (truncated or replaced): delete it and fetch it again with the "
    "data set's fetch_* function, which checks its SHA-256"
)


def _load_mat(path: Path, data_home: Path) -> dict:
    """``scipy.io.loadmat`` of ``path``, with the FileNotFoundError of :func:`_require`
    and a ``ValueError`` naming a file that cannot be read as a MAT file."""
    from scipy.io import loadmat
    from scipy.io.matlab import MatReadError

    try:
        return loadmat(_require(path, data_home))
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, MatReadError) as error:
        raise ValueError(
            f"{path}: cannot be read as a MAT file ({error}); {REFETCH_HINT}."
        ) from None


def _images_to_rows(
    array, image_shape: tuple[int, int], *, order: str = "F", columns: bool = False
) -> np.ndarray:
    """Stored image vectors -> (n, h*w) float64 rows flattened in C order.

    ``array`` holds one image per row (or per column if ``columns``), each flattened in
    ``order`` ('F': MATLAB column-major, 'C': row-major) to ``image_shape``.
    """
    array = np.asarray(array)
    if columns:
        array = array.T
    height, width = image_shape
    if array.ndim != 2 or array.shape[1] != height * width:
        raise ValueError(
            f"expected image vectors of length {height * width}, got array of shape {array.shape}."
        )
    n = array.shape[0]
    images = array.reshape(n, height, width, order=order)
    return np.ascontiguousarray(images, dtype=np.float64).reshape(n, height * width)


def load_digits_images() -> ImageDataset:
    """The 1,797 8x8 handwritten digits bundled with scikit-learn (no download).

    Pixels are integers 0..16 stored as float64; labels are the digits 0..9.

    Returns
    -------
    ImageDataset
        ``data`` (1797, 64) float64, ``target`` (1797,) int64, ``image_shape`` (8, 8).

    Examples
    --------
    >>> from robustpca.datasets import load_digits_images
    >>> d = load_digits_images()
    >>> d.data.shape, d.data.dtype, d.image_shape
    ((1797, 64), dtype('float64'), (8, 8))
    """
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return ImageDataset(
        data=np.ascontiguousarray(bunch.data, dtype=np.float64),
        target=np.asarray(bunch.target, dtype=np.int64),
        image_shape=(8, 8),
        name="digits",
        description="UCI optical handwritten digits, 8x8, as bundled with scikit-learn.",
    )


_PGM_TOKEN = re.compile(rb"(?:\s|#[^\n\r]*[\n\r])*([^\s#]+)")


def read_pgm(path: str | os.PathLike) -> np.ndarray:
    """Read a binary (P5) PGM image with numpy only.

    Parameters
    ----------
    path : str or path-like
        The ``.pgm`` file.

    Returns
    -------
    ndarray of shape (height, width)
        uint8 if the header's maxval is below 256, else big-endian 16-bit as uint16.

    Raises
    ------
    ValueError
        If the file is not a P5 PGM or is truncated.
    """
    raw = Path(path).read_bytes()
    fields, pos = [], 0
    for _ in range(4):
        match = _PGM_TOKEN.match(raw, pos)
        if match is None:
            raise ValueError(f"{path}: truncated or malformed PGM header.")
        fields.append(match.group(1))
        pos = match.end()
    if fields[0] != b"P5":
        raise ValueError(f"{path}: not a binary PGM (magic {fields[0]!r}, expected b'P5').")
    try:
        width, height, maxval = (int(f) for f in fields[1:])
    except ValueError:
        raise ValueError(f"{path}: non-integer size or maxval in the PGM header.") from None
    if width <= 0 or height <= 0 or not 0 < maxval < 65536:
        raise ValueError(
            f"{path}: invalid PGM header (width={width}, height={height}, maxval={maxval})."
        )
    pos += 1  # exactly one whitespace byte separates the header from the raster
    dtype = np.dtype(np.uint8) if maxval < 256 else np.dtype(">u2")
    size = width * height * dtype.itemsize
    if len(raw) - pos < size:
        raise ValueError(f"{path}: truncated raster ({len(raw) - pos} of {size} bytes).")
    pixels = np.frombuffer(raw, dtype=dtype, count=width * height, offset=pos)
    return pixels.reshape(height, width).astype(dtype.newbyteorder("="))


@_loader_doc("orl", option="resolution", mat_order="file stores")
def load_orl(data_home: str | os.PathLike | None = None, *, resolution: str = "32x32"):
    """The AT&T/ORL faces: 40 subjects x 10 images, from a local copy.

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '64x64', '112x92'}, default='32x32'
        ``'32x32'`` and ``'64x64'`` read Deng Cai's ``raw/orl/ORL_32x32.mat`` and
        ``ORL_64x64.mat`` (cropped and resized faces; 64x64 is Zhang & Tong's size);
        ``'112x92'`` reads the 400 original PGM files ``raw/orl/orl_faces/sN/M.pgm``
        (height 112, width 92).

    Returns
    -------
    ImageDataset
        ``data`` (400, 1024), (400, 4096) or (400, 10304) float64 with pixel values 0..255,
        ``target`` the subject numbers 1..40 (10 images each, sorted), ``image_shape``
        (32, 32), (64, 64) or (112, 92). The PGM images come subject by subject, ``1.pgm`` to
        ``10.pgm``.

    {raises}

    {notes}

    References
    ----------
    F. Samaria and A. Harter, "Parameterisation of a stochastic model for human face
    identification", 2nd IEEE Workshop on Applications of Computer Vision, 1994.
    """
    if resolution not in _ORL_RESOLUTIONS:
        raise ValueError(f"resolution must be one of {_ORL_RESOLUTIONS}, got {resolution!r}.")
    home = get_data_home(data_home)
    folder = home / "raw" / "orl"
    if resolution in ("32x32", "64x64"):
        side = int(resolution.split("x")[0])
        mat = _load_mat(folder / f"ORL_{resolution}.mat", home)
        # row i is the image flattened in Fortran order; re-flatten in C order
        data = _images_to_rows(mat["fea"], (side, side), order="F")
        target = np.asarray(mat["gnd"], dtype=np.int64).ravel()
        shape = (side, side)
        description = (
            f"AT&T/ORL faces, Deng Cai's cropped {resolution} version (ORL_{resolution}.mat)."
        )
    else:
        root = _require(folder / "orl_faces", home)
        images, labels = [], []
        for subject in range(1, 41):
            for index in range(1, 11):
                image = read_pgm(_require(root / f"s{subject}" / f"{index}.pgm", home))
                if image.shape != (112, 92):
                    raise ValueError(
                        f"s{subject}/{index}.pgm has shape {image.shape}, expected (112, 92)."
                    )
                images.append(image)
                labels.append(subject)
        data = np.stack(images).astype(np.float64).reshape(len(images), -1)
        target = np.asarray(labels, dtype=np.int64)
        shape = (112, 92)
        description = "AT&T/ORL faces, the 400 original 112x92 PGM images."
    return ImageDataset(
        data=data, target=target, image_shape=shape, name="orl", description=description
    )


@_loader_doc("yale", option="resolution", mat_order="files store")
def load_yale(data_home: str | os.PathLike | None = None, *, resolution: str = "32x32"):
    """The Yale faces: 15 subjects x 11 images (expressions, glasses, lighting).

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '64x64'}, default='32x32'
        Reads Deng Cai's ``raw/yale/Yale_32x32.mat`` or ``raw/yale/Yale_64x64.mat``
        (cropped and resized faces). Guo (2013) denoises 64x64 Yale images.

    Returns
    -------
    ImageDataset
        ``data`` (165, 1024) or (165, 4096) float64 with pixel values 0..255,
        ``target`` the subject numbers 1..15 (11 images each, sorted), ``image_shape``
        (32, 32) or (64, 64).

    {raises}

    {notes}

    References
    ----------
    P. N. Belhumeur, J. P. Hespanha and D. J. Kriegman, "Eigenfaces vs. Fisherfaces:
    recognition using class specific linear projection", IEEE TPAMI 19(7), 1997.
    """
    if resolution not in _YALE_RESOLUTIONS:
        raise ValueError(f"resolution must be one of {_YALE_RESOLUTIONS}, got {resolution!r}.")
    home = get_data_home(data_home)
    mat = _load_mat(home / "raw" / "yale" / f"Yale_{resolution}.mat", home)
    side = int(resolution.split("x")[0])
    # row i is the (side, side) image flattened in Fortran order; re-flatten in C order
    data = _images_to_rows(mat["fea"], (side, side), order="F")
    return ImageDataset(
        data=data,
        target=np.asarray(mat["gnd"], dtype=np.int64).ravel(),
        image_shape=(side, side),
        name="yale",
        description=f"Yale faces, Deng Cai's cropped {resolution} version (Yale_{resolution}.mat).",
    )
