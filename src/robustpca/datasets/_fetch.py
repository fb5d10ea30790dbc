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
    ``base_url`` (or the environment variable ``ROBUSTPCA_MIRROR``) replaces GitHub by a
    server laid out like the cache: ``<base_url>/<name>/<file>``, e.g.
    ``<base_url>/orl/ORL_32x32.mat`` and ``<base_url>/orl/orl_faces/s1/1.pgm``.

Image folders
    Only ``fetch_orl(resolution="112x92")`` needs one: the 400 original PGM files (and
    the README), 401 small downloads (8 at a time, over keep-alive connections). Rather
    than pinning 401 hashes here, the folder is verified as a whole: the SHA-256 of its
    ``sha256sum`` listing (``<sha256>  <path>`` lines sorted by path, as in
    ``raw/orl/orl_faces.sha256``) must equal the pinned hash of that listing. A folder
    that fails is downloaded again into a temporary folder, verified, and only then
    moved into place, file by file (other files in the folder are left alone).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ._local import DATA_ENV, ImageDataset, load_digits_images, load_orl, load_yale
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

__all__ = [
    "CACHE_ENV",
    "FETCHERS",
    "MIRROR_ENV",
    "DatasetChecksumError",
    "DatasetDownloadError",
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
    "fetch_yale",
    "get_cache_home",
]

#: Environment variable naming the download cache (the folder that will hold ``raw/``).
CACHE_ENV = "ROBUSTPCA_CACHE"
#: Environment variable naming a mirror laid out as ``<mirror>/<name>/<file>``.
MIRROR_ENV = "ROBUSTPCA_MIRROR"

_GITHUB = "https://raw.githubusercontent.com"
_log = logging.getLogger(__name__)


class DatasetDownloadError(OSError):
    """A data set file could not be downloaded (offline, HTTP error, bad mirror)."""


class DatasetChecksumError(DatasetDownloadError, ValueError):
    """A downloaded file (or image folder) does not have its pinned SHA-256."""


@dataclass(frozen=True)
class _File:
    repo: str
    commit: str
    path: str  # in the repository
    sha256: str


@dataclass(frozen=True)
class _Folder:
    repo: str
    commit: str
    prefix: str  # path of the folder in the repository, with a trailing slash
    files: tuple[str, ...]  # relative to the folder
    listing_sha256: str  # of the sorted `sha256sum` listing of "<folder name>/<file>"


#: Local path under ``raw/`` -> source, as listed in the data folder's SOURCES.md.
_FILES: dict[str, _File] = {
    "orl/ORL_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/ORL_32.mat",
        "c30cb53be2cab2da293eaeb35c1a7c16cad513fa14d0400ad5ed51f03e1ce7c8",
    ),
    "orl/ORL_64x64.mat": _File(
        "NaimaBousnina/Watermarking-for-protected-fingerprint-authentication",
        "c6c6d2da7ca08e6050c4d7140e44c7dab69565a3",
        "ORL_64x64.mat",
        "87e8b6a259f956dfa7052194f49bb20a4c59416bda4a60f53a2ce1b83f2b1a49",
    ),
    "yale/Yale_32x32.mat": _File(
        "tansyab1/CNN-Sparse",
        "c52b9c2c783bf6e350b11962781b7c2d701ce2c4",
        "data/Yale_32x32.mat",
        "beb3cc9f448c1ab786583c8f5429368c299843ee88263f9650ed463004ef7633",
    ),
    "yale/Yale_64x64.mat": _File(
        "tansyab1/CNN-Sparse",
        "c52b9c2c783bf6e350b11962781b7c2d701ce2c4",
        "data/Yale_64x64.mat",
        "2a40d2363ef42466e645523a8d9c5f902a136ab5d03242ca9a642db3872e52ee",
    ),
    "umist/UMIST_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/UMIST.mat",
        "0f1904a78f9067ee5057a22f4327faabc1a856c781c43684eb16a3d6bb27ebff",
    ),
    "coil20/COIL20_32x32.mat": _File(
        "coekgit/WGE_LRP",
        "56c7be95edb3879e43431a6c2dacd4e12cec34cf",
        "COIL20.mat",
        "2a35c105dbb327492b90389e55612bcbf39187bc7c408252239903e4ce7d6958",
    ),
    "extended_yale_b/YaleB_32x32.mat": _File(
        "coekgit/WGE_LRP",
        "56c7be95edb3879e43431a6c2dacd4e12cec34cf",
        "YaleB_32x32.mat",
        "3fbbda4eb781b9bb28025189677b6727706e114eb0215bbfd718f1f4fcb54b99",
    ),
    "cmu_pie/PIE_pose27_32x32.mat": _File(
        "hiroyuki-kasai/NMFLibrary",
        "ed44132dfe1b5495df685006b42259f0bd16bea3",
        "data/PIE_pose27.mat",
        "035fdd73d5f4234d958b3c88f20bd8aae3871080246139896a23e61487134680",
    ),
    "feret/FERET_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/FERET.mat",
        "cfafda804167700492d9998cf1556964226b9cbd1ae6e34fe009e29d8bcd9af6",
    ),
    "feret/FERET_40x40.mat": _File(
        "yinhefeng/Score-level-fusion-of-LRC-and-NRC",
        "f737d1018aae260ffb147ef281481ef1c44df5e2",
        "FERET.mat",
        "92ab64cd64d3475af060be916ef1073c060f944199434c006df6d09a5e2c9603",
    ),
    "ar/AR_100_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/AR_100.mat",
        "c62e104c86da4899a5e730fe4f51cc6dfa3c4cc1770c0e5aef108f6116b43654",
    ),
    "ar/AR_120_50x40.mat": _File(
        "XiaoZhu-05/RGD-NMF",
        "23567eeef0121240b38b914ebb234a9e30fa37a9",
        "AR.mat",
        "2d1065a2570084bedab117296f271346ac7ab5e2eb3d0b339a6061e86c1aeac0",
    ),
    "jaffe/JAFFE_32x32_AdaGAE.mat": _File(
        "hyzhang98/AdaGAE",
        "6d04946060bacd41ee31eba5c124887bca44f369",
        "data/JAFFE.mat",
        "41eeeb529e6b41c6418047498111e1d1942c608e742f950435426bc395ffe846",
    ),
    "jaffe/JAFFE_32x32_NMFLibrary.mat": _File(
        "hiroyuki-kasai/NMFLibrary",
        "034aa3e030707bd7308b1362c157ea84116eedf0",
        "data/JAFFE.mat",
        "37b9f2c6a209155a5d611bc71586de39e8aea3c5e1a74646375ebbc64ddd1595",
    ),
    "mnist/MnistData_05_uni.mat": _File(
        "dxgithubdx/SPDFS",
        "1d4e6948d00c656f6bd21d7aa7330f6bdff21620",
        "data/MnistData_05_uni.mat",
        "22db0fd990758589166587da7018964512c0de2be029ee09f831451ca4c4c3e3",
    ),
    "mnist/t10k-images-idx3-ubyte.gz": _File(
        "FJR-Nancy/joint-cluster-cnn",
        "200274b032ef95aced858ff37ad64d19bc97b665",
        "MNIST_data/t10k-images-idx3-ubyte.gz",
        "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    ),
    "mnist/t10k-labels-idx1-ubyte.gz": _File(
        "FJR-Nancy/joint-cluster-cnn",
        "200274b032ef95aced858ff37ad64d19bc97b665",
        "MNIST_data/t10k-labels-idx1-ubyte.gz",
        "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    ),
    "palm/Palm_16x16.mat": _File(
        "hyzhang98/AdaGAE",
        "6d04946060bacd41ee31eba5c124887bca44f369",
        "data/Palm.mat",
        "3b47e9294036b9b31c9eb2a6e55173725548bdf3a058cde63307bb7c6f49a431",
    ),
    "msra25/MSRA25_16x16.mat": _File(
        "FWang-sdnu/LPSGL-code",
        "81a31fb3f52793dcf727827ead15364e9a13635b",
        "datasets/MSRA25_uni.mat",
        "3c8681c40ebbed2f6dc2d2f30e7c5195e947467e8cf6797faa44753a190cd659",
    ),
    "fei/FEI_partial_500_48x64.mat": _File(
        "TFeiMa/JRC",
        "20b440f052ef9dd03388f48d0304a846f6061bd1",
        "data/FEI.mat",
        "4c9320e7dea174ab66289d1aee4b469e95e4d1116430afbef776cb402e215b02",
    ),
}

_ORL_FACES = _Folder(
    "hakawa-bernardi/orl-face-recognition-pca-svm",
    "3edc842bc89bddbd3d6bcf12d23a4f9c2a493883",
    "orl_faces/",
    ("README", *(f"s{s}/{i}.pgm" for s in range(1, 41) for i in range(1, 11))),
    "7ebf5d45a470fbeda204b52d8067570063b0cbe098e3b2a3fb7c1e7c2c3999e3",
)
_FOLDERS: dict[str, _Folder] = {"orl/orl_faces": _ORL_FACES}

#: For each data set: the loader option that selects files, and its values -> files.
_NEEDS: dict[str, tuple[str | None, dict]] = {
    "orl": (
        "resolution",
        {"32x32": ("ORL_32x32.mat",), "64x64": ("ORL_64x64.mat",), "112x92": ("orl_faces",)},
    ),
    "yale": ("resolution", {"32x32": ("Yale_32x32.mat",), "64x64": ("Yale_64x64.mat",)}),
    "umist": (None, {None: ("UMIST_32x32.mat",)}),
    "coil20": (None, {None: ("COIL20_32x32.mat",)}),
    "extended_yale_b": (None, {None: ("YaleB_32x32.mat",)}),
    "cmu_pie": (None, {None: ("PIE_pose27_32x32.mat",)}),
    "feret": ("resolution", {"32x32": ("FERET_32x32.mat",), "40x40": ("FERET_40x40.mat",)}),
    "ar": ("subset", {"100": ("AR_100_32x32.mat",), "120": ("AR_120_50x40.mat",)}),
    "jaffe": (
        "variant",
        {"adagae": ("JAFFE_32x32_AdaGAE.mat",), "nmflibrary": ("JAFFE_32x32_NMFLibrary.mat",)},
    ),
    "mnist": (
        "subset",
        {
            "3495": ("MnistData_05_uni.mat",),
            "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
        },
    ),
    "palm": (None, {None: ("Palm_16x16.mat",)}),
    "msra25": (None, {None: ("MSRA25_16x16.mat",)}),
    "fei": (None, {None: ("FEI_partial_500_48x64.mat",)}),
}


def get_cache_home(data_home: str | os.PathLike | None = None) -> Path:
    """Folder that holds (or will hold) the downloaded ``raw/<name>/`` files.

    Parameters
    ----------
    data_home : str, path-like or None, default=None
        Explicit folder; else the environment variable ``ROBUSTPCA_CACHE``; else
        ``pooch.os_cache("robustpca")``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from robustpca.datasets import get_cache_home
    >>> get_cache_home("/tmp/robustpca-data").as_posix()
    '/tmp/robustpca-data'
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(CACHE_ENV, "")
    if env:
        return Path(env).expanduser()
    import pooch

    return Path(pooch.os_cache("robustpca"))


def _mirror(base_url: str | None) -> str | None:
    url = base_url if base_url is not None else os.environ.get(MIRROR_ENV, "")
    return url.rstrip("/") if url else None


def _url(name: str, local: str, mirror: str | None, source: _File | _Folder, in_repo: str) -> str:
    if mirror is not None:
        return f"{mirror}/{name}/{local}"
    return f"{_GITHUB}/{source.repo}/{source.commit}/{in_repo}"


def _manual_hint(name: str, target: Path, known_hash: str | None) -> str:
    checksum = f" (sha256 {known_hash.removeprefix('sha256:')})" if known_hash else ""
    return (
        f"On a machine without internet access, place the file by hand at {target}"
        f"{checksum}, point base_url= or {MIRROR_ENV} at a mirror laid out as "
        f"<url>/{name}/<file>, or keep the files under <folder>/raw/{name}/ and call "
        f"load_{name}(<folder>) or set {DATA_ENV}=<folder>."
    )


class _SessionDownloader:
    """A pooch downloader with one keep-alive HTTP session per thread (many small files)."""

    def __init__(self):
        self._local = threading.local()
        self._sessions = []
        self._lock = threading.Lock()

    def __call__(self, url: str, output_file, pooch_obj=None) -> None:
        session = getattr(self._local, "session", None)
        if session is None:
            import requests

            session = self._local.session = requests.Session()
            with self._lock:
                self._sessions.append(session)
        with session.get(url, stream=True, timeout=60) as response:
            response.raise_for_status()
            with open(output_file, "wb") as out:
                for chunk in response.iter_content(chunk_size=1 << 16):
                    out.write(chunk)

    def close(self) -> None:
        for session in self._sessions:
            session.close()


def _download(
    registry: dict, urls: dict, folder: Path, name: str, progressbar, *, workers: int = 1
) -> None:
    """Fetch every registry entry into ``folder`` with pooch, wrapping its errors.

    With ``workers > 1`` the files are fetched by that many threads, each with its own
    keep-alive session, and without progress bars.
    """
    import pooch
    import requests

    store = pooch.create(path=folder, base_url="", registry=registry, urls=urls)

    def fetch(fname: str, **kwargs) -> None:
        try:
            store.fetch(fname, **kwargs)
        except requests.exceptions.RequestException as exc:
            raise DatasetDownloadError(
                f"Could not download data set {name!r}: {urls[fname]} failed ({exc}). "
                + _manual_hint(name, folder / fname, registry[fname])
            ) from exc
        except ValueError as exc:
            if "hash" not in str(exc):
                raise
            raise DatasetChecksumError(
                f"Data set {name!r}: the file downloaded from {urls[fname]} does not have "
                f"the pinned SHA-256 {registry[fname].removeprefix('sha256:')} (nothing was "
                f"stored). The source or mirror serves different bytes. pooch said: {exc}"
            ) from exc

    if workers <= 1:
        for fname in registry:
            fetch(fname, progressbar=progressbar)
        return
    for parent in {(folder / fname).parent for fname in registry}:
        parent.mkdir(parents=True, exist_ok=True)  # pooch's own makedirs would race
    downloader = _SessionDownloader()
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(fetch, fname, downloader=downloader) for fname in registry]
        for future in as_completed(futures):
            future.result()  # the first failure stops the rest
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        downloader.close()


def _listing_sha256(folder: Path, listed_as: str, files) -> str | None:
    """SHA-256 of the ``sha256sum`` listing of ``folder/<file>``, each named
    ``<listed_as>/<file>``; None if a file is missing."""
    lines = []
    for rel in files:
        path = folder / rel
        if not path.is_file():
            return None
        lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {listed_as}/{rel}\n")
    return hashlib.sha256("".join(sorted(lines, key=lambda x: x[66:])).encode()).hexdigest()


def _fetch_folder(name: str, key: str, root: Path, mirror: str | None, progressbar) -> None:
    spec = _FOLDERS[f"{name}/{key}"]
    if _listing_sha256(root / key, key, spec.files) == spec.listing_sha256:
        return
    partial = root / f".{key}.partial"
    urls = {rel: _url(name, f"{key}/{rel}", mirror, spec, spec.prefix + rel) for rel in spec.files}
    _log.info("Downloading %d files of %s/%s to %s.", len(urls), name, key, root / key)
    import pooch

    quiet = pooch.get_logger()  # pooch's own logger, not registered with logging
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        _download(dict.fromkeys(spec.files), urls, partial, name, progressbar, workers=8)
    finally:
        quiet.setLevel(level)
    got = _listing_sha256(partial, key, spec.files)
    if got != spec.listing_sha256:
        shutil.rmtree(partial, ignore_errors=True)
        raise DatasetChecksumError(
            f"Data set {name!r}: the {len(spec.files)} files of {key}/ downloaded from "
            f"{urls[spec.files[0]].rsplit('/', 1)[0]}/... do not match the pinned checksum "
            f"listing (sha256 {spec.listing_sha256} expected, {got} got; nothing was stored)."
        )
    for rel in spec.files:  # replace only the expected files, keep anything else there
        target = root / key / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial / rel, target)
    shutil.rmtree(partial, ignore_errors=True)


def _fetch(name: str, loader: Callable, data_home, base_url, progressbar, **options):
    """Download what ``loader(home, **options)`` needs into the cache, then call it."""
    option, choices = _NEEDS[name]
    value = options.get(option) if option is not None else None
    if value not in choices:
        raise ValueError(f"{option} must be one of {tuple(choices)}, got {value!r}.")
    home = get_cache_home(data_home)
    root = home / "raw" / name
    mirror = _mirror(base_url)
    sources = {f: _FILES[f"{name}/{f}"] for f in choices[value] if f"{name}/{f}" in _FILES}
    registry = {f: f"sha256:{src.sha256}" for f, src in sources.items()}
    urls = {f: _url(name, f, mirror, src, src.path) for f, src in sources.items()}
    _download(registry, urls, root, name, progressbar)
    for key in choices[value]:
        if f"{name}/{key}" in _FOLDERS:
            _fetch_folder(name, key, root, mirror, progressbar)
    return loader(home, **options)


_DATA_HOME = """\
    data_home : str, path-like or None, default=None
        Cache folder that holds ``raw/{name}/``; None is ``$ROBUSTPCA_CACHE`` or
        ``pooch.os_cache("robustpca")``.
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

    def decorate(func):
        doc = func.__doc__.replace("    {data_home}\n", _DATA_HOME.format(name=name))
        func.__doc__ = doc.replace("    {rest}\n", _REST.format(name=name) + "\n")
        return func

    return decorate


@_documented("orl")
def fetch_orl(
    data_home=None, *, resolution: str = "32x32", base_url=None, progressbar=False
) -> ImageDataset:
    """Download (once) and load the AT&T/ORL faces; see :func:`load_orl`.

    ``'32x32'`` is one 0.4 MB ``.mat`` file; ``'112x92'`` the 400 original PGM files and
    their README (4.1 MB in 401 downloads, verified as a folder).

    Parameters
    ----------
    {data_home}
    resolution : {'32x32', '112x92'}, default='32x32'
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
