"""Fetchers: pinned sources, downloads from a local HTTP mirror, cache, and failures.

No test reaches the internet: every download goes to a ``http.server`` on 127.0.0.1 that
serves the real data (``shared_data/raw``, laid out as ``<mirror>/<name>/<file>``), and an
autouse fixture points ``ROBUSTPCA_MIRROR`` at a closed port by default.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import socket
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from robustpca.datasets import (
    DATASETS,
    FETCHERS,
    DatasetChecksumError,
    DatasetDownloadError,
    _fetch,
    fetch_dataset,
    fetch_orl,
    fetch_palm,
    get_cache_home,
    load_orl,
    load_palm,
)
from robustpca.datasets._fetch import _FILES, _FOLDERS, _NEEDS

pytestmark = pytest.mark.realdata


def _dead_url() -> str:
    """A local URL on which nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class _Mirror:
    """A threaded HTTP server on 127.0.0.1 serving ``root``; records the paths asked for."""

    def __init__(self, root: Path):
        self.requests: list[str] = []
        mirror = self

        class Handler(SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as on real servers
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall per response

            def do_GET(self):
                mirror.requests.append(self.path)
                super().do_GET()

            def log_message(self, *args):
                pass

        handler = functools.partial(Handler, directory=str(root))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def mirror(shared_data):
    server = _Mirror(shared_data / "raw")
    yield server
    server.close()


@pytest.fixture
def make_mirror():
    servers = []

    def make(root):
        servers.append(_Mirror(root))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


@pytest.fixture(autouse=True)
def _never_the_internet(monkeypatch, tmp_path):
    """Default mirror: a closed local port; default cache: a temporary folder."""
    monkeypatch.setenv("ROBUSTPCA_MIRROR", _dead_url())
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "default-cache"))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _assert_same(a, b):
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.target, b.target)
    assert a.image_shape == b.image_shape and a.name == b.name


# ------------------------------------------------------------------- pinned sources


def test_pinned_hashes_match_sources_md_and_the_local_files(shared_data):
    rows = {}
    for line in (shared_data / "SOURCES.md").read_text().splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) > 5:
            rows[cells[0]] = cells
    for local, src in _FILES.items():
        assert rows[local][1:4] == [src.repo, src.path, src.commit], local
        assert rows[local][5] == src.sha256, local
        assert _sha256(shared_data / "raw" / local) == src.sha256, local


def test_pinned_folder_listing_matches_the_local_checksum_list(shared_data):
    spec = _FOLDERS["orl/orl_faces"]
    root = shared_data / "raw" / "orl"
    listing = root / "orl_faces.sha256"
    assert _sha256(listing) == spec.listing_sha256
    listed = sorted(line.split("  ", 1)[1] for line in listing.read_text().splitlines())
    assert listed == sorted(f"orl_faces/{rel}" for rel in spec.files)
    assert (
        _fetch._listing_sha256(root / "orl_faces", "orl_faces", spec.files) == spec.listing_sha256
    )
    lines = (shared_data / "SOURCES.md").read_text().splitlines()
    row = next(r for r in lines if r.startswith("| `orl/orl_faces/`"))
    assert spec.repo in row and spec.commit in row and spec.listing_sha256 in row


def test_every_loader_option_has_pinned_files():
    assert set(FETCHERS) == set(DATASETS)
    for name, (option, choices) in _NEEDS.items():
        for value, files in choices.items():
            for f in files:
                assert f"{name}/{f}" in _FILES or f"{name}/{f}" in _FOLDERS, (name, value, f)
            if option is not None:
                with pytest.raises(FileNotFoundError):  # a valid option for the loader
                    DATASETS[name]("/nonexistent", **{option: value})


def test_default_urls_are_raw_github_at_the_pinned_commit(monkeypatch):
    monkeypatch.delenv("ROBUSTPCA_MIRROR")
    src = _FILES["orl/ORL_32x32.mat"]
    url = _fetch._url("orl", "ORL_32x32.mat", _fetch._mirror(None), src, src.path)
    assert url == (
        "https://raw.githubusercontent.com/greatQntgz/MPRBC/"
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8/data/ORL_32.mat"
    )
    spec = _FOLDERS["orl/orl_faces"]
    url = _fetch._url("orl", "orl_faces/s1/1.pgm", None, spec, spec.prefix + "s1/1.pgm")
    assert url.endswith(f"orl-face-recognition-pca-svm/{spec.commit}/orl_faces/s1/1.pgm")
    assert _fetch._url("palm", "Palm_16x16.mat", "http://m/x", src, "-") == (
        "http://m/x/palm/Palm_16x16.mat"
    )


# ------------------------------------------------------------------------- downloads


_SINGLE_FILE_CASES = [
    (name, {option: value} if option else {})
    for name, (option, choices) in _NEEDS.items()
    for value, files in choices.items()
    if not any(f"{name}/{f}" in _FOLDERS for f in files)
]


@pytest.mark.parametrize(
    ("name", "options"), _SINGLE_FILE_CASES, ids=[f"{n}-{o}" for n, o in _SINGLE_FILE_CASES]
)
def test_fetch_equals_the_local_loader(name, options, mirror, shared_data, tmp_path):
    mirror.requests.clear()
    fetched = fetch_dataset(name, tmp_path, base_url=mirror.url, **options)
    _assert_same(fetched, DATASETS[name](shared_data, **options))
    files = _NEEDS[name][1][next(iter(options.values()), None)]
    assert sorted(mirror.requests) == sorted(f"/{name}/{f}" for f in files)
    for f in files:
        assert _sha256(tmp_path / "raw" / name / f) == _FILES[f"{name}/{f}"].sha256


@pytest.mark.parametrize(
    ("name", "options"),
    [("palm", {}), ("yale", {"resolution": "64x64"}), ("orl", {"resolution": "64x64"})],
)
def test_second_fetch_is_served_from_the_cache(name, options, mirror, tmp_path):
    first = fetch_dataset(name, tmp_path, base_url=mirror.url, **options)
    mirror.requests.clear()
    _assert_same(fetch_dataset(name, tmp_path, base_url=mirror.url, **options), first)
    assert mirror.requests == []


def test_fetch_orl_pgm_folder(mirror, shared_data, tmp_path):
    mirror.requests.clear()
    fetched = fetch_orl(tmp_path, resolution="112x92", base_url=mirror.url)
    _assert_same(fetched, load_orl(shared_data, resolution="112x92"))
    assert len(mirror.requests) == 401 and "/orl/orl_faces/README" in mirror.requests
    assert sorted(p.name for p in (tmp_path / "raw" / "orl").iterdir()) == ["orl_faces"]
    mirror.requests.clear()
    fetch_orl(tmp_path, resolution="112x92", base_url=mirror.url)
    assert mirror.requests == []


def test_environment_variables_choose_cache_and_mirror(mirror, shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "env-cache"))
    monkeypatch.setenv("ROBUSTPCA_MIRROR", mirror.url + "/")
    assert get_cache_home() == tmp_path / "env-cache"
    assert get_cache_home(tmp_path / "x") == tmp_path / "x"
    _assert_same(fetch_palm(), load_palm(shared_data))
    assert (tmp_path / "env-cache" / "raw" / "palm" / "Palm_16x16.mat").is_file()
    monkeypatch.delenv("ROBUSTPCA_CACHE")
    import pooch

    assert get_cache_home() == Path(pooch.os_cache("robustpca"))


def test_hand_placed_files_are_used_without_network(shared_data, tmp_path):
    """A ROBUSTPCA_DATA-style folder works as data_home: matching files need no download."""
    target = tmp_path / "raw" / "palm"
    target.mkdir(parents=True)
    shutil.copy(shared_data / "raw" / "palm" / "Palm_16x16.mat", target)
    _assert_same(fetch_palm(tmp_path), load_palm(shared_data))  # the mirror is a dead port


def test_corrupted_cache_file_is_downloaded_again(mirror, shared_data, tmp_path):
    fetch_palm(tmp_path, base_url=mirror.url)
    cached = tmp_path / "raw" / "palm" / "Palm_16x16.mat"
    cached.write_bytes(b"not a mat file")
    mirror.requests.clear()
    _assert_same(fetch_palm(tmp_path, base_url=mirror.url), load_palm(shared_data))
    assert mirror.requests == ["/palm/Palm_16x16.mat"]


# -------------------------------------------------------------------------- failures


def test_checksum_mismatch_is_a_clear_error(shared_data, tmp_path, make_mirror):
    bad = tmp_path / "mirror" / "palm"
    bad.mkdir(parents=True)
    content = bytearray((shared_data / "raw" / "palm" / "Palm_16x16.mat").read_bytes())
    content[-1] ^= 0xFF  # one flipped byte
    (bad / "Palm_16x16.mat").write_bytes(bytes(content))
    server = make_mirror(tmp_path / "mirror")
    cache = tmp_path / "cache"
    with pytest.raises(DatasetChecksumError) as info:
        fetch_palm(cache, base_url=server.url)
    message = str(info.value)
    assert "'palm'" in message and f"{server.url}/palm/Palm_16x16.mat" in message
    assert _FILES["palm/Palm_16x16.mat"].sha256 in message
    assert isinstance(info.value, ValueError) and isinstance(info.value, OSError)
    assert not (cache / "raw" / "palm" / "Palm_16x16.mat").exists()


def test_dead_port_is_a_clear_offline_error(tmp_path):
    dead = _dead_url()
    with pytest.raises(DatasetDownloadError) as info:
        fetch_palm(tmp_path, base_url=dead)
    assert not isinstance(info.value, DatasetChecksumError)
    message = str(info.value)
    assert "'palm'" in message and f"{dead}/palm/Palm_16x16.mat" in message
    assert str(tmp_path / "raw" / "palm" / "Palm_16x16.mat") in message
    assert _FILES["palm/Palm_16x16.mat"].sha256 in message  # to check a hand-placed copy
    assert "ROBUSTPCA_DATA" in message and "load_palm" in message
    assert isinstance(info.value, OSError)
    # the default (a dead ROBUSTPCA_MIRROR here) fails the same way
    with pytest.raises(DatasetDownloadError, match="ROBUSTPCA_DATA"):
        fetch_orl(tmp_path)


def test_missing_file_on_the_mirror_is_a_download_error(tmp_path, make_mirror):
    (tmp_path / "empty").mkdir()
    server = make_mirror(tmp_path / "empty")
    with pytest.raises(DatasetDownloadError, match="404"):
        fetch_palm(tmp_path / "cache", base_url=server.url)


def _small_folder(shared_data, monkeypatch):
    """Replace the ORL folder spec by its first two images (same mechanism, 2 downloads)."""
    root = shared_data / "raw" / "orl"
    files = ("s1/1.pgm", "s1/2.pgm")
    spec = _FOLDERS["orl/orl_faces"]
    small = type(spec)(
        spec.repo,
        spec.commit,
        spec.prefix,
        files,
        _fetch._listing_sha256(root / "orl_faces", "orl_faces", files),
    )
    monkeypatch.setitem(_FOLDERS, "orl/orl_faces", small)
    return small


def test_folder_checksum_mismatch_stores_nothing(shared_data, tmp_path, make_mirror, monkeypatch):
    spec = _small_folder(shared_data, monkeypatch)
    served = tmp_path / "mirror" / "orl" / "orl_faces" / "s1"
    served.mkdir(parents=True)
    source = shared_data / "raw" / "orl" / "orl_faces" / "s1"
    shutil.copy(source / "1.pgm", served)
    (served / "2.pgm").write_bytes((source / "2.pgm").read_bytes()[:-1] + b"\x00")
    server = make_mirror(tmp_path / "mirror")
    root = tmp_path / "cache" / "raw" / "orl"
    with pytest.raises(DatasetChecksumError, match=spec.listing_sha256) as info:
        _fetch._fetch_folder("orl", "orl_faces", root, server.url, False)
    assert "'orl'" in str(info.value) and f"{server.url}/orl/orl_faces" in str(info.value)
    assert not root.exists() or list(root.iterdir()) == []


def test_corrupted_cached_folder_is_replaced_file_by_file(
    shared_data, tmp_path, mirror, monkeypatch
):
    spec = _small_folder(shared_data, monkeypatch)
    root = tmp_path / "raw" / "orl"
    (root / "orl_faces" / "s1").mkdir(parents=True)
    (root / "orl_faces" / "s1" / "2.pgm").write_bytes(b"truncated")
    (root / "orl_faces" / "notes.txt").write_text("mine")
    mirror.requests.clear()
    _fetch._fetch_folder("orl", "orl_faces", root, mirror.url, False)
    assert sorted(mirror.requests) == ["/orl/orl_faces/s1/1.pgm", "/orl/orl_faces/s1/2.pgm"]
    assert (
        _fetch._listing_sha256(root / "orl_faces", "orl_faces", spec.files) == spec.listing_sha256
    )
    assert (root / "orl_faces" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in root.iterdir()) == ["orl_faces"]  # no partial folder left


def test_folder_download_offline_is_a_clear_error(tmp_path):
    dead = _dead_url()
    root = tmp_path / "raw" / "orl"
    with pytest.raises(DatasetDownloadError, match=f"{dead}/orl/orl_faces/") as info:
        fetch_orl(tmp_path, resolution="112x92", base_url=dead)
    assert "'orl'" in str(info.value) and "ROBUSTPCA_DATA" in str(info.value)
    assert not (root / "orl_faces").exists()


def test_bad_name_and_options_fail_before_any_download(tmp_path):
    with pytest.raises(ValueError, match="resolution must be one of"):
        fetch_orl(tmp_path, resolution="48x48")
    with pytest.raises(ValueError, match="subset must be one of"):
        fetch_dataset("mnist", tmp_path, subset="train")
    with pytest.raises(ValueError, match="name='nope' is not one of"):
        fetch_dataset("nope")
    assert not (tmp_path / "raw").exists()
    assert fetch_dataset("digits").data.shape == (1797, 64)  # bundled, no download
    assert os.environ["ROBUSTPCA_MIRROR"].startswith("http://127.0.0.1:")
