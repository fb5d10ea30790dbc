"""Download the benchmark image sets with pooch, verify them, and load them.

Every ``fetch_<name>`` downloads the files that :func:`load_<name>` reads (only those of
the requested resolution / subset / variant), checks each against its pinned SHA-256,
stores it under ``<cache>/raw/<name>/`` and returns the loader's :class:`ImageDataset`.
A second call finds the verified files in the cache and does not touch the network.

Where the files come from
    Each file is pinned to a commit of a public GitHub repository and downloaded from
    ``https://raw.githubusercontent.com/<repo>/<commit>/<path>``; the table below
    (``_FILES``) is the one of ``SOURCES.md`` in the project's data folder. The data
    sets' official sites are mostly gone or need a request form; these copies are the
    ones the project's tests and benchmarks were run on.

Where they go (first match)
    ``data_home`` argument, the environment variable ``ROBUSTPCA_CACHE``, or
    ``pooch.os_cache("robustpca")`` (e.g. ``~/.cache/robustpca`` on Linux). The layout
    ``raw/<name>/...`` is the one the local loaders read, so a folder of hand-placed
    files (the ``ROBUSTPCA_DATA`` folder) can be given as ``data_home``: files whose
    checksum matches are used as they are, others are downloaded again.

Mirrors
    ``base_url`` (or the environment variable ``ROBUSTPCA_MIRROR``) replaces every
    upstream host by one server laid out as ``<base_url>/<name>/<file>``: the path under
    ``raw/`` for the image sets (``<base_url>/orl/ORL_32x32.mat``,
    ``<base_url>/orl/orl_faces/s1/1.pgm``), under the data folder for the rest
    (``<base_url>/adbench/14_glass.npz``, ``<base_url>/video/highway/input/in000470.jpg``).
    A data folder served as it is (``python -m http.server`` in a folder holding one link
    per name to ``raw/<name>``, ``adbench`` and ``video``) is such a mirror.

Beyond the loaders
    The registry also pins what only the tests and benchmarks read: the original image
    folders of Yale (two repositories), UMIST and COIL-20, ADBench's 25 tables and the
    CDnet clips and escalator matrix (``_sources``). ``_download._fetch_data_sets``
    downloads whole data sets into a folder laid out as the project's data folder
    (``raw/<name>/``, ``adbench/``, ``video/``), as the test fixtures do when no local copy
    exists.

Image folders
    Of the loaders only ``fetch_orl(resolution="112x92")`` needs one: the 400 original
    PGM files and the README, 401 small downloads (8 at a time, over keep-alive
    connections). Rather than pinning one hash per file, a folder is verified as a whole:
    the SHA-256 of its ``sha256sum`` listing (``<sha256>  <path>`` lines sorted by path,
    as in ``raw/orl/orl_faces.sha256``) must equal the pinned hash of that listing. A
    folder that fails is downloaded again into a temporary folder, verified, and only then
    moved into place, file by file (other files in the folder are left alone).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ._download import (  # noqa: F401 (re-exported: tests use _fetch.<name>)
    _fetch,
    _fetch_folder,
    _fetch_keys,
    _listing_sha256,
    _mirror,
    _url,
    get_cache_home,
)
from ._local import ImageDataset, _fill_doc, load_digits_images, load_orl, load_yale
from ._mat_loaders import (
    load_ar,
    load_cmu_pie,
    load_coil20,
    load_extended_yale_b,
    load_fei,
    load_feret,
    load_jaffe,
    load_mnist,
    load_msra25,
    load_palm,
    load_umist,
)
from ._sources import (  # noqa: F401 (re-exported)
    _FILES,
    _FOLDERS,
    _NEEDS,
    CACHE_ENV,
    MIRROR_ENV,
    DatasetChecksumError,
    DatasetDownloadError,
)

__all__ = [
    "FETCHERS",
    "DatasetChecksumError",
    "DatasetDownloadError",
    "fetch_adbench",
    "fetch_ar",
    "fetch_cmu_pie",
    "fetch_coil20",
    "fetch_dataset",
    "fetch_extended_yale_b",
    "fetch_fei",
    "fetch_feret",
    "fetch_jaffe",
    "fetch_mnist",
    "fetch_msra25",
    "fetch_orl",
    "fetch_palm",
    "fetch_umist",
    "fetch_video",
    "fetch_yale",
    "get_cache_home",
]


_DATA_HOME = """\
    data_home : str, path-like or None, default=None
        Cache folder that holds ``raw/{name}/``; None is ``$ROBUSTPCA_DATA`` where its
        files have the pinned checksums (read there; nothing is written to it), else
        ``$ROBUSTPCA_CACHE`` or ``pooch.os_cache("robustpca")``.
"""

_REST = """\
    base_url : str or None, default=None
        Mirror laid out as ``<base_url>/{name}/<file>``; None is ``$ROBUSTPCA_MIRROR`` or
        the pinned GitHub sources.
    progressbar : bool, default=False
        Show pooch's download progress bar (needs tqdm).

    Returns
    -------
    ImageDataset
        What :func:`~robustpca.datasets.load_{name}` returns for the same options.

    Raises
    ------
    DatasetDownloadError
        If a file cannot be downloaded (offline, HTTP error); the message says how to
        place the files by hand.
    DatasetChecksumError
        If a downloaded file does not have its pinned SHA-256.
"""


def _documented(name: str):
    """Put the parameters shared by every fetcher in place of ``{data_home}``/``{rest}``."""
    return _fill_doc(data_home=_DATA_HOME.format(name=name), rest=_REST.format(name=name) + "\n")


@_documented("orl")
def fetch_orl(
    data_home=None, *, resolution: str = "32x32", base_url=None, progressbar=False
) -> ImageDataset:
    """Download (once) and load the AT&T/ORL faces; see :func:`load_orl`.

    ``'32x32'`` and ``'64x64'`` are one ``.mat`` file each (0.4 MB at 32x32);
    ``'112x92'`` the 400 original PGM files and their README (4.1 MB in 401 downloads,
    verified as a folder).

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '64x64', '112x92'}, default='32x32'
    {rest}
    Examples
    --------
    >>> from robustpca.datasets import fetch_orl
    >>> faces = fetch_orl()  # doctest: +SKIP
    >>> faces.data.shape  # doctest: +SKIP
    (400, 1024)
    """
    return _fetch("orl", load_orl, data_home, base_url, progressbar, resolution=resolution)


@_documented("yale")
def fetch_yale(
    data_home=None, *, resolution: str = "32x32", base_url=None, progressbar=False
) -> ImageDataset:
    """Download (once) and load the Yale faces; see :func:`load_yale`.

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '64x64'}, default='32x32'
    {rest}
    """
    return _fetch("yale", load_yale, data_home, base_url, progressbar, resolution=resolution)


@_documented("umist")
def fetch_umist(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """Download (once) and load the UMIST faces, 32x32; see :func:`load_umist`.

    Parameters
    ----------
    {data_home}
    {rest}
    """
    return _fetch("umist", load_umist, data_home, base_url, progressbar)


@_documented("coil20")
def fetch_coil20(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """Download (once) and load COIL-20, 32x32; see :func:`load_coil20`.

    Parameters
    ----------
    {data_home}
    {rest}
    """
    return _fetch("coil20", load_coil20, data_home, base_url, progressbar)


@_documented("extended_yale_b")
def fetch_extended_yale_b(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """Download (once) and load Extended Yale B, 32x32; see :func:`load_extended_yale_b`.

    Parameters
    ----------
    {data_home}
    {rest}
    """
    return _fetch("extended_yale_b", load_extended_yale_b, data_home, base_url, progressbar)


@_documented("cmu_pie")
def fetch_cmu_pie(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """Download (once) and load CMU-PIE pose C27, 32x32; see :func:`load_cmu_pie`.

    Parameters
    ----------
    {data_home}
    {rest}
    """
    return _fetch("cmu_pie", load_cmu_pie, data_home, base_url, progressbar)


@_documented("feret")
def fetch_feret(
    data_home=None, *, resolution: str = "32x32", base_url=None, progressbar=False
) -> ImageDataset:
    """Download (once) and load the FERET 200 x 7 subset; see :func:`load_feret`.

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '40x40'}, default='32x32'
    {rest}
    """
    return _fetch("feret", load_feret, data_home, base_url, progressbar, resolution=resolution)


@_documented("ar")
def fetch_ar(data_home=None, *, subset: str = "100", base_url=None, progressbar=False):
    """Download (once) and load an AR face subset; see :func:`load_ar`.

    Parameters
    ----------
    {data_home}
    subset : {'100', '120'}, default='100'
    {rest}
    """
    return _fetch("ar", load_ar, data_home, base_url, progressbar, subset=subset)


@_documented("jaffe")
def fetch_jaffe(data_home=None, *, variant: str = "adagae", base_url=None, progressbar=False):
    """Download (once) and load JAFFE, 32x32; see :func:`load_jaffe`.

    Parameters
    ----------
    {data_home}
    variant : {'adagae', 'nmflibrary'}, default='adagae'
    {rest}
    """
    return _fetch("jaffe", load_jaffe, data_home, base_url, progressbar, variant=variant)


@_documented("mnist")
def fetch_mnist(data_home=None, *, subset: str = "3495", base_url=None, progressbar=False):
    """Download (once) and load MNIST; see :func:`load_mnist`.

    Parameters
    ----------
    {data_home}
    subset : {'3495', 'test'}, default='3495'
    {rest}
    """
    return _fetch("mnist", load_mnist, data_home, base_url, progressbar, subset=subset)


@_documented("palm")
def fetch_palm(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """Download (once) and load the Palm prints, 16x16; see :func:`load_palm`.

    Parameters
    ----------
    {data_home}
    {rest}
    """
    return _fetch("palm", load_palm, data_home, base_url, progressbar)


@_documented("msra25")
def fetch_msra25(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """Download (once) and load MSRA25, 16x16; see :func:`load_msra25`.

    Parameters
    ----------
    {data_home}
    {rest}
    """
    return _fetch("msra25", load_msra25, data_home, base_url, progressbar)


@_documented("fei")
def fetch_fei(
    data_home=None, *, drop_non_faces: bool = True, base_url=None, progressbar=False
) -> ImageDataset:
    """Download (once) and load the partial FEI faces; see :func:`load_fei`.

    Parameters
    ----------
    {data_home}
    drop_non_faces : bool, default=True
    {rest}
    """
    return _fetch("fei", load_fei, data_home, base_url, progressbar, drop_non_faces=drop_non_faces)


def _fetch_digits(data_home=None, *, base_url=None, progressbar=False) -> ImageDataset:
    """scikit-learn's bundled digits: nothing to download."""
    return load_digits_images()


#: Data set name -> fetcher, for every name of ``DATASETS`` ('digits' needs no download).
FETCHERS: dict[str, Callable[..., ImageDataset]] = {
    "digits": _fetch_digits,
    "orl": fetch_orl,
    "yale": fetch_yale,
    "umist": fetch_umist,
    "coil20": fetch_coil20,
    "extended_yale_b": fetch_extended_yale_b,
    "cmu_pie": fetch_cmu_pie,
    "feret": fetch_feret,
    "ar": fetch_ar,
    "jaffe": fetch_jaffe,
    "mnist": fetch_mnist,
    "palm": fetch_palm,
    "msra25": fetch_msra25,
    "fei": fetch_fei,
}


def fetch_dataset(
    name: str, data_home=None, *, base_url=None, progressbar=False, **options
) -> ImageDataset:
    """Download (once) and load the data set called ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`FETCHERS` (the names of ``DATASETS``): ``'orl'``, ``'yale'``,
        ``'palm'``, ... ``'digits'`` is bundled with scikit-learn and downloads nothing.
    data_home, base_url, progressbar
        As in :func:`fetch_orl`.
    **options
        The data set's own option (``resolution``, ``subset``, ``variant`` or
        ``drop_non_faces``).

    Returns
    -------
    ImageDataset

    Raises
    ------
    ValueError
        If ``name`` or an option value is unknown.
    DatasetDownloadError, DatasetChecksumError
        As in :func:`fetch_orl`.

    Examples
    --------
    >>> from robustpca.datasets import fetch_dataset
    >>> fetch_dataset("digits").data.shape
    (1797, 64)
    >>> palm = fetch_dataset("palm")  # doctest: +SKIP
    """
    try:
        fetcher = FETCHERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"name={name!r} is not one of {sorted(FETCHERS)}.") from None
    return fetcher(data_home, base_url=base_url, progressbar=progressbar, **options)


#: The ADBench tables that :func:`fetch_adbench` knows (file names without ``.npz``).
_ADBENCH_TABLES = tuple(k[8:-4] for k in _FILES if k.startswith("adbench/"))
_VIDEOS = ("highway", "fall", "traffic", "escalator")


def fetch_adbench(data_home=None, *, tables=None, base_url=None, progressbar=False) -> Path:
    """Download (once) ADBench's "Classical" outlier-detection tables and return their folder.

    Each ``<table>.npz`` holds ``X`` (rows x features) and ``y`` (1 = anomaly), as
    published by ADBench (Han et al., "ADBench: Anomaly Detection Benchmark", NeurIPS 2022)
    at a pinned commit of ``Minqi824/ADBench``: the 25 tables with at most 50,000 rows and
    500 features that come first in its numbering. Cite ADBench and each table's source.

    Parameters
    ----------
    data_home : str, path-like or None, default=None
        Folder that holds (or will hold) ``adbench/``; None is ``$ROBUSTPCA_DATA`` where
        its tables have the pinned checksums (read there; nothing is written to it),
        else ``$ROBUSTPCA_CACHE`` or ``pooch.os_cache("robustpca")``.
    tables : str, iterable of str or None, default=None
        Table names, the files' without ``.npz`` (``"14_glass"``, ``"25_musk"``, ...);
        None downloads all 25.
    base_url, progressbar
        As in :func:`fetch_orl` (a mirror serves ``<base_url>/adbench/<table>.npz``).

    Returns
    -------
    pathlib.Path
        The folder ``<data_home>/adbench``.

    Raises
    ------
    ValueError
        If a table name is unknown.
    DatasetDownloadError, DatasetChecksumError
        As in :func:`fetch_orl`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.datasets import fetch_adbench
    >>> folder = fetch_adbench(tables=["14_glass"])  # doctest: +SKIP
    >>> np.load(folder / "14_glass.npz")["X"].shape  # doctest: +SKIP
    (214, 7)
    """
    names = (
        _ADBENCH_TABLES
        if tables is None
        else tuple([tables] if isinstance(tables, str) else tables)
    )
    unknown = sorted(set(names) - set(_ADBENCH_TABLES))
    if unknown:
        raise ValueError(f"tables {unknown} are not among {_ADBENCH_TABLES}.")
    keys = [f"adbench/{t}.npz" for t in names]
    return _fetch_keys(keys, data_home, base_url=base_url, progressbar=progressbar) / "adbench"


def fetch_video(name="highway", data_home=None, *, base_url=None, progressbar=False) -> Path:
    """Download (once) a video clip for background subtraction and return its path.

    ``"highway"`` (CDnet 2014 baseline/highway, frames 470-1700, 320x240), ``"fall"``
    (dynamicBackground/fall, frames 1401-1600, 720x480) and ``"traffic"``
    (cameraJitter/traffic, frames 900-1570, 320x240, scored on the whole frame) are
    folders in CDnet's layout (frames, ground truth, ROI, temporal ROI) for
    :func:`load_cdnet`; ``"escalator"`` is
    the I2R escalator matrix (Li et al., IEEE TIP 2004), a ``.mat`` file with ``X`` (one
    130x160 frame per column). The frames are those of public repositories at pinned
    commits, verified as a folder (see the module notes). Cite CDnet (Goyette et al. 2012,
    Wang et al. 2014) or Li et al. (2004).

    Parameters
    ----------
    name : {'highway', 'fall', 'traffic', 'escalator'}, default='highway'
    data_home : str, path-like or None, default=None
        Folder that holds (or will hold) ``video/``; None is ``$ROBUSTPCA_DATA`` where
        its clip has the pinned checksums (read there; nothing is written to it), else
        ``$ROBUSTPCA_CACHE`` or ``pooch.os_cache("robustpca")``.
    base_url, progressbar
        As in :func:`fetch_orl` (a mirror serves ``<base_url>/video/<clip>/...``).

    Returns
    -------
    pathlib.Path
        ``<data_home>/video/<name>`` (a folder), or ``<data_home>/video/escalator.mat``.

    Raises
    ------
    ValueError
        If ``name`` is unknown.
    DatasetDownloadError, DatasetChecksumError
        As in :func:`fetch_orl`.

    Examples
    --------
    >>> from robustpca.datasets import fetch_video, load_cdnet
    >>> clip = load_cdnet(fetch_video("highway"), scale=0.5)  # doctest: +SKIP
    """
    if name not in _VIDEOS:
        raise ValueError(f"name={name!r} is not one of {_VIDEOS}.")
    key = "video/escalator.mat" if name == "escalator" else f"video/{name}"
    return _fetch_keys([key], data_home, base_url=base_url, progressbar=progressbar) / key
