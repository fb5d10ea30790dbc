"""Downloading and verifying the pinned files with pooch: the cache and mirror, the
per-file and per-folder (listing) checksums, and the atomic move into the cache (see
:mod:`robustpca.datasets._fetch` for the scheme).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from ._local import DATA_ENV
from ._sources import (
    _BEYOND_DATA_FOLDER,
    _FILES,
    _FOLDERS,
    _GITHUB,
    _NEEDS,
    _OUTSIDE_RAW,
    CACHE_ENV,
    MIRROR_ENV,
    DatasetChecksumError,
    DatasetDownloadError,
    _File,
    _Folder,
)

#: the logger keeps the name it had before the split of ``_fetch``
_log = logging.getLogger("robustpca.datasets._fetch")


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


def _data_env_home(keys) -> Path | None:
    """``$ROBUSTPCA_DATA`` (the loaders' data folder) where it holds every pinned file
    and folder of ``keys`` (``"<name>/<file or folder>"``) with its checksum: the fetchers
    read such a copy as it is and write nothing there; None otherwise."""
    env = os.environ.get(DATA_ENV, "")
    if not env:
        return None
    home = Path(env).expanduser()
    for key in keys:
        name, rel = key.split("/", 1)
        path = _root(home, name) / rel
        if key in _FILES:
            if not path.is_file() or _sha256(path) != _FILES[key].sha256:
                return None
        elif _listing_sha256(path, rel, _FOLDERS[key].files) != _FOLDERS[key].listing_sha256:
            return None
    return home


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _mirror(base_url: str | None) -> str | None:
    url = base_url if base_url is not None else os.environ.get(MIRROR_ENV, "")
    return url.rstrip("/") if url else None


def _url(name: str, local: str, mirror: str | None, source: _File | _Folder, in_repo: str) -> str:
    if mirror is not None:
        return f"{mirror}/{name}/{local}"
    return f"{_GITHUB}/{source.repo}/{source.commit}/{in_repo}"


def _root(home: Path, name: str) -> Path:
    """Where data set ``name`` lives under a data folder: ``raw/<name>/`` for the image sets,
    ``<name>/`` for the tables and clips kept beside ``raw/`` (as in the data folder)."""
    return home / name if name in _OUTSIDE_RAW else home / "raw" / name


def _folder_url(name: str, key: str, rel: str, mirror: str | None, spec: _Folder) -> str:
    """URL of file ``rel`` of folder ``key``: the mirror, or its own pinned repository."""
    elsewhere = dict(spec.elsewhere)
    if rel in elsewhere:
        return _url(name, f"{key}/{rel}", mirror, elsewhere[rel], elsewhere[rel].path)
    return _url(name, f"{key}/{rel}", mirror, spec, spec.prefix + rel)


#: How a data set kept beside ``raw/`` is read without its fetcher.
_READ_DIRECTLY = {
    "adbench": "or read a table directly with numpy.load(<folder>/adbench/<table>.npz)",
    "video": "or read a CDnet clip directly with load_cdnet(<folder>/video/<clip>)",
}


def _local_copy_hint(name: str) -> str:
    """The hints' last way: a local copy of the data, where the functions read it."""
    if name in _OUTSIDE_RAW:
        return (
            f"keep the files under <folder>/{name}/ and set {DATA_ENV}=<folder> or pass "
            f"data_home=<folder> to the fetcher (files there with the pinned checksums are "
            f"used as they are), {_READ_DIRECTLY[name]}"
        )
    return (
        f"keep the files under <folder>/raw/{name}/ and set {DATA_ENV}=<folder> (the "
        f"fetchers and loaders read the files there with the pinned checksums as they "
        f"are), or call load_{name}(<folder>)"
    )


def _manual_hint(name: str, target: Path, known_hash: str | None) -> str:
    """How else to get the file ``target`` of data set ``name`` (a failed download's)."""
    checksum = f" (sha256 {known_hash.removeprefix('sha256:')})" if known_hash else ""
    return (
        f"On a machine without internet access, place the file by hand at {target}"
        f"{checksum}, point base_url= or {MIRROR_ENV} at a mirror laid out as "
        f"<url>/{name}/<file>, or {_local_copy_hint(name)}."
    )


def _folder_hint(name: str, place: Path, rel: str, spec: _Folder) -> str:
    """How else to get the folder ``place`` (spec ``spec``) whose file ``rel`` failed: it
    is verified as a whole, so one file put by hand does not do."""
    return (
        f"{place / rel} is one of the {len(spec.files)} files of {place}, which is "
        f"verified as a whole, not file by file: the SHA-256 of its sha256sum listing "
        f"('<sha256>  {place.name}/<file>' lines sorted by path) must be "
        f"{spec.listing_sha256}. On a machine without internet access, copy all its "
        f"files by hand into {place}, point base_url= or {MIRROR_ENV} at a mirror laid out "
        f"as <url>/{name}/{place.name}/<file>, or {_local_copy_hint(name)}."
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
    registry: dict,
    urls: dict,
    folder: Path,
    name: str,
    progressbar,
    *,
    workers: int = 1,
    place: Path | None = None,
    spec: _Folder | None = None,
) -> None:
    """Fetch every registry entry into ``folder`` with pooch, wrapping its errors.

    With ``workers > 1`` the files are fetched by that many threads, each with its own
    keep-alive session, and without progress bars. ``place``: where a file put by hand
    is found (the errors' hint), where ``folder`` is a temporary one (default: it).
    ``spec``: the folder spec when the entries are the files of a folder verified as a
    whole (the hint then says so).
    """
    place = folder if place is None else place
    import pooch
    import requests

    store = pooch.create(path=folder, base_url="", registry=registry, urls=urls)

    def fetch(fname: str, **kwargs) -> None:
        try:
            store.fetch(fname, **kwargs)
        except requests.exceptions.RequestException as exc:
            raise DatasetDownloadError(
                f"Could not download data set {name!r}: {urls[fname]} failed ({exc}). "
                + (
                    _manual_hint(name, place / fname, registry[fname])
                    if spec is None
                    else _folder_hint(name, place, fname, spec)
                )
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
    partial = root / f".{key}.partial-{os.getpid()}"  # one per process: no two write there
    urls = {rel: _folder_url(name, key, rel, mirror, spec) for rel in spec.files}
    _log.info("Downloading %d files of %s/%s to %s.", len(urls), name, key, root / key)
    import pooch

    quiet = pooch.get_logger()  # pooch's own logger, not registered with logging
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        _download(
            dict.fromkeys(spec.files),
            urls,
            partial,
            name,
            progressbar,
            workers=8,
            place=root / key,
            spec=spec,
        )
    except BaseException:  # nothing half-downloaded stays in the cache
        shutil.rmtree(partial, ignore_errors=True)
        raise
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
    if not isinstance(value, (str, type(None))) or value not in choices:
        raise ValueError(f"{option} must be one of {tuple(choices)}, got {value!r}.")
    if data_home is None:
        local = _data_env_home([f"{name}/{key}" for key in choices[value]])
        if local is not None:
            return loader(local, **options)
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


def _fetch_keys(keys, data_home=None, *, base_url=None, progressbar=False) -> Path:
    """Download the pinned files and folders ``keys`` (``"<name>/<file or folder>"``, keys
    of ``_FILES`` and ``_FOLDERS``) into a data folder laid out as the shared one
    (``raw/<name>/...``, ``adbench/``, ``video/``), skipping those already there with the
    pinned checksum, and return that folder (``data_home`` or the cache).
    """
    keys = list(keys)
    unknown = [k for k in keys if k not in _FILES and k not in _FOLDERS]
    if unknown:
        raise ValueError(f"no pinned source for {unknown}.")
    local = _data_env_home(keys) if data_home is None else None
    if local is not None:
        return local
    home = get_cache_home(data_home)
    mirror = _mirror(base_url)
    by_name: dict[str, list[str]] = {}
    for key in keys:
        by_name.setdefault(key.split("/", 1)[0], []).append(key)
    import pooch

    quiet = pooch.get_logger()
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        for name, group in by_name.items():
            root = _root(home, name)
            files = {k.split("/", 1)[1]: _FILES[k] for k in group if k in _FILES}
            if files:
                registry = {f: f"sha256:{src.sha256}" for f, src in files.items()}
                urls = {f: _url(name, f, mirror, src, src.path) for f, src in files.items()}
                _download(registry, urls, root, name, progressbar, workers=min(8, len(files)))
            for key in group:
                if key in _FOLDERS:
                    _fetch_folder(name, key.split("/", 1)[1], root, mirror, progressbar)
    finally:
        quiet.setLevel(level)
    return home


def _fetch_data_sets(names, data_home=None, *, base_url=None) -> Path:
    """Every pinned file and folder of the data sets ``names`` (``"orl"``, ...,
    ``"adbench"``, ``"video"``) downloaded into a data folder (see :func:`_fetch_keys`);
    a failed download says how else to get the data."""
    pinned = [k for k in (*_FILES, *_FOLDERS) if k not in _BEYOND_DATA_FOLDER]
    keys = {name: [k for k in pinned if k.split("/", 1)[0] == name] for name in names}
    unknown = [name for name, found in keys.items() if not found]
    if unknown:
        raise ValueError(f"no data set called {unknown} to download.")
    home = get_cache_home(data_home)
    try:
        return _fetch_keys([k for found in keys.values() for k in found], home, base_url=base_url)
    except DatasetChecksumError:
        raise
    except DatasetDownloadError as exc:
        raise DatasetDownloadError(
            f"downloading the data into {home} failed:\n  {exc}\nTo get the data, either: "
            f"run again online (the pinned files are downloaded once, with their checksums, "
            f"into ${CACHE_ENV} or pooch's cache); or set {MIRROR_ENV} to a mirror laid out "
            f"as <url>/<name>/<file> (e.g. <url>/orl/ORL_32x32.mat, <url>/video/highway/...); "
            f"or set {DATA_ENV} to a copy of the data folder (raw/<name>/..., rrcov/, "
            "adbench/, video/). See CONTRIBUTING.md, 'Real data'."
        ) from exc
