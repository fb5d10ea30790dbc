"""Fetchers: pinned sources, downloads from a local HTTP mirror, cache, and failures.

No test reaches the internet: every download goes to a ``http.server`` on 127.0.0.1 that
serves the real data (conftest's ``data_mirror``, laid out as ``<mirror>/<name>/<file>``),
and an autouse fixture points ``ROBUSTPCA_MIRROR`` at a closed port by default.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from robustpca.datasets import (
    DATASETS,
    FETCHERS,
    DatasetChecksumError,
    DatasetDownloadError,
    _download,
    _fetch,
    fetch_adbench,
    fetch_dataset,
    fetch_orl,
    fetch_palm,
    fetch_video,
    get_cache_home,
    load_orl,
    load_palm,
)
from robustpca.datasets._download import _fetch_keys, _root
from robustpca.datasets._fetch import _FILES, _FOLDERS, _NEEDS
from robustpca.datasets._sources import _BEYOND_DATA_FOLDER, _OUTSIDE_RAW

from .conftest import REPO, DataMirror

pytestmark = pytest.mark.realdata


def _dead_url() -> str:
    """A local URL on which nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def mirror(data_mirror):
    """The session's local mirror of the real data, its request log cleared."""
    data_mirror.requests.clear()
    return data_mirror


@pytest.fixture
def make_mirror():
    servers = []

    def make(root):
        servers.append(DataMirror(root))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


@pytest.fixture(autouse=True)
def _never_the_internet(monkeypatch, tmp_path):
    """Default mirror: a closed local port; default cache: a temporary folder; no
    ``ROBUSTPCA_DATA`` (``test_fetch_data_env.py``)."""
    monkeypatch.setenv("ROBUSTPCA_MIRROR", _dead_url())
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "default-cache"))
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)  # a verified copy there is read


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _assert_same(a, b):
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.target, b.target)
    assert a.image_shape == b.image_shape and a.name == b.name


# ------------------------------------------------------------------- pinned sources


def _sources_md_rows(path: Path) -> dict[str, list[str]]:
    """The file rows of a SOURCES.md table, by their first cell."""
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) > 5:
            rows[cells[0]] = cells
    return rows


def test_pinned_files_match_the_data_folder(shared_data):
    """Every pinned image file is in the data folder with its pinned SHA-256 (the local
    copy, or the files the fixture downloaded); where the data folder documents its
    sources (SOURCES.md, local copies only), the pins are those of its table."""
    for key, src in _FILES.items():
        name, local = key.split("/", 1)
        if name not in _OUTSIDE_RAW:
            assert _sha256(_root(shared_data, name) / local) == src.sha256, key
    if (shared_data / "SOURCES.md").is_file():
        rows = _sources_md_rows(shared_data / "SOURCES.md")
        for key, src in _FILES.items():
            if key.split("/", 1)[0] not in _OUTSIDE_RAW:
                assert rows[key][1:4] == [src.repo, src.path, src.commit], key
                assert rows[key][5] == src.sha256, key


def test_pinned_folders_match_the_data_folder(shared_data):
    """Every image folder's listing has its pinned hash; where the data folder keeps its
    ``<folder>.sha256`` list and SOURCES.md (local copies), they agree with the pins."""
    sources = shared_data / "SOURCES.md"
    lines = sources.read_text().splitlines() if sources.is_file() else []
    for key, spec in _FOLDERS.items():
        name, folder = key.split("/", 1)
        if name in _OUTSIDE_RAW:
            continue
        root = _root(shared_data, name)
        assert _fetch._listing_sha256(root / folder, folder, spec.files) == spec.listing_sha256
        listing = root / f"{folder}.sha256"
        if listing.is_file():
            assert _sha256(listing) == spec.listing_sha256, key
            listed = sorted(line.split("  ", 1)[1] for line in listing.read_text().splitlines())
            assert listed == sorted(f"{folder}/{rel}" for rel in spec.files), key
        if lines:
            row = next(r for r in lines if r.startswith(f"| `{key}/`"))
            assert spec.repo in row and spec.commit in row and spec.listing_sha256 in row, key


def test_tables_and_clips_pins_match_the_data_folder(shared_data):
    """The ADBench tables and the video clips (kept beside ``raw/``): where the data folder
    has them (local copies; the test fixtures download only the image sets), their pins
    are its files' hashes, its SHA256SUMS and the sources of its SOURCES.md."""
    for name in _OUTSIDE_RAW:
        if not (shared_data / name).is_dir():
            continue
        notes = (shared_data / name / "SOURCES.md").read_text()
        for key, src in _FILES.items():
            if key.startswith(f"{name}/"):
                assert _sha256(shared_data / key) == src.sha256, key
                assert src.repo in notes and src.commit in notes, key
        for key, spec in _FOLDERS.items():
            if key.startswith(f"{name}/") and key not in _BEYOND_DATA_FOLDER:
                folder = shared_data / key
                assert _fetch._listing_sha256(folder, folder.name, spec.files) == (
                    spec.listing_sha256
                ), key
                sums = (folder / "SHA256SUMS").read_text().split()[1::2]
                assert sorted(p.removeprefix("./") for p in sums) == sorted(spec.files), key
                assert spec.repo in notes and spec.commit in notes and spec.prefix in notes
    if (shared_data / "adbench").is_dir():
        sums = (shared_data / "adbench" / "SHA256SUMS").read_text().split()
        assert {f"adbench/{f}": h for h, f in zip(sums[::2], sums[1::2], strict=True)} == {
            k: src.sha256 for k, src in _FILES.items() if k.startswith("adbench/")
        }


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
    # a folder file held in another repository, a table and a frame (beside raw/)
    yale = _FOLDERS["yale/yalefaces"]
    url = _download._folder_url("yale", "yalefaces", "Readme.txt", None, yale)
    assert url.startswith("https://raw.githubusercontent.com/FranFT/")
    url = _download._folder_url("yale", "yalefaces", "subject02.sad", None, yale)
    assert url.endswith(f"pattern_recognition/{yale.commit}/yalefaces/subject02.sad")
    table = _FILES["adbench/14_glass.npz"]
    assert _fetch._url("adbench", "14_glass.npz", None, table, table.path) == (
        "https://raw.githubusercontent.com/Minqi824/ADBench/"
        f"{table.commit}/adbench/datasets/Classical/14_glass.npz"
    )
    clip = _FOLDERS["video/highway"]
    url = _download._folder_url("video", "highway", "input/in000470.jpg", "http://m", clip)
    assert url == "http://m/video/highway/input/in000470.jpg"
    url = _download._folder_url("video", "highway", "input/in000470.jpg", None, clip)
    assert url.endswith("/databases/changedetection/highway/input/in000470.jpg")


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
    # the hint names where a file put by hand is found, and nothing partial is left (it
    # named the process's temporary folder, which stayed with what it had downloaded)
    assert "verified as a whole" in str(info.value)
    assert f"copy all its files by hand into {root / 'orl_faces'}" in str(info.value)
    assert ".partial-" not in str(info.value)
    assert not root.exists() or list(root.iterdir()) == []


def test_a_folder_download_that_fails_midway_leaves_nothing(
    shared_data, tmp_path, make_mirror, monkeypatch
):
    """The mirror holds the first image only: the error names the second's real place,
    and the first, downloaded, does not stay behind in a temporary folder."""
    _small_folder(shared_data, monkeypatch)
    served = tmp_path / "mirror" / "orl" / "orl_faces" / "s1"
    served.mkdir(parents=True)
    shutil.copy(shared_data / "raw" / "orl" / "orl_faces" / "s1" / "1.pgm", served)
    server = make_mirror(tmp_path / "mirror")
    root = tmp_path / "cache" / "raw" / "orl"
    with pytest.raises(DatasetDownloadError, match=r"s1/2\.pgm") as info:
        _fetch._fetch_folder("orl", "orl_faces", root, server.url, False)
    assert str(root / "orl_faces" / "s1" / "2.pgm") in str(info.value)
    assert not root.exists() or list(root.iterdir()) == []


def test_bad_name_and_options_fail_before_any_download(tmp_path):
    with pytest.raises(ValueError, match="resolution must be one of"):
        fetch_orl(tmp_path, resolution="48x48")
    with pytest.raises(ValueError, match="subset must be one of"):
        fetch_dataset("mnist", tmp_path, subset="train")
    with pytest.raises(ValueError, match="subset must be one of"):  # was a TypeError
        fetch_dataset("mnist", tmp_path, subset=["test"])
    with pytest.raises(ValueError, match="name='nope' is not one of"):
        fetch_dataset("nope")
    assert not (tmp_path / "raw").exists()
    assert fetch_dataset("digits").data.shape == (1797, 64)  # bundled, no download
    assert os.environ["ROBUSTPCA_MIRROR"].startswith("http://127.0.0.1:")


# --------------------------------------------- tables and clips, the tests' data folder


def test_tables_and_clips_land_beside_raw(tmp_path, make_mirror, monkeypatch):
    """fetch_adbench and fetch_video put the tables and clips in ``<home>/adbench/`` and
    ``<home>/video/`` (the data folder's layout), from ``<mirror>/adbench/...`` and
    ``<mirror>/video/...``, and return their paths; a second call downloads nothing.
    (Small stand-ins for the pinned files, served by a mirror of their own.)"""
    served = tmp_path / "mirror"
    content = {
        "adbench/t.npz": b"table",
        "video/escalator.mat": b"matrix",
        "video/fall/ROI.bmp": b"roi",
        "video/fall/input/in000001.jpg": b"frame",
    }
    for rel, data in content.items():
        (served / rel).parent.mkdir(parents=True, exist_ok=True)
        (served / rel).write_bytes(data)
    file_type, folder_type = type(_FILES["adbench/14_glass.npz"]), type(_FOLDERS["video/fall"])
    for key in ("adbench/t.npz", "video/escalator.mat"):
        sha = hashlib.sha256(content[key]).hexdigest()
        monkeypatch.setitem(_FILES, key, file_type("o/r", "0" * 40, key, sha))
    monkeypatch.setattr(_fetch, "_ADBENCH_TABLES", ("t",))
    files = ("ROI.bmp", "input/in000001.jpg")
    listing = _fetch._listing_sha256(served / "video" / "fall", "fall", files)
    monkeypatch.setitem(_FOLDERS, "video/fall", folder_type("o/r", "0" * 40, "f/", files, listing))
    server = make_mirror(served)
    home = tmp_path / "home"
    assert fetch_adbench(home, base_url=server.url) == home / "adbench"
    assert fetch_video("fall", home, base_url=server.url) == home / "video" / "fall"
    assert fetch_video("escalator", home, base_url=server.url) == home / "video" / "escalator.mat"
    for rel, data in content.items():
        assert (home / rel).read_bytes() == data, rel
    assert sorted(server.requests) == sorted(f"/{rel}" for rel in content)
    assert not (home / "raw").exists()
    server.requests.clear()
    fetch_adbench(home, tables="t", base_url=server.url)
    fetch_video("fall", home, base_url=server.url)
    assert server.requests == []
    with pytest.raises(ValueError, match="not among"):
        fetch_adbench(home, tables=["nope"])
    with pytest.raises(ValueError, match="name='nope' is not one of"):
        fetch_video("nope", home)
    with pytest.raises(ValueError, match="no pinned source"):
        _fetch_keys(["video/nope"], home)
    with pytest.raises(DatasetDownloadError) as info:  # offline: the autouse dead mirror
        fetch_adbench(tmp_path / "elsewhere")
    assert "<folder>/adbench/ and set ROBUSTPCA_DATA=<folder> or pass data_home=<folder>" in str(
        info.value
    )
    assert "load_adbench" not in str(info.value)


def test_the_clip_beyond_the_data_folder(tmp_path, make_mirror, monkeypatch):
    """CDnet's traffic (camera jitter), fetched for the video benchmark's unseen-category
    row: its temporal ROI's 671 frames and ground truths and no ROI.bmp (the whole frame
    is scored), from the pinned commit of highway and fall; the tests' data-folder
    download (_fetch_data_sets) does not ask for it, as the data folder does not hold it."""
    spec = _FOLDERS["video/traffic"]
    assert spec.commit == _FOLDERS["video/highway"].commit and spec.prefix == "databases/traffic/"
    assert "ROI.bmp" not in spec.files and "temporalROI.txt" in spec.files
    assert len(spec.files) == 1 + 2 * 671
    assert spec.files[1] == "input/in000900.jpg" and spec.files[-1] == "groundtruth/gt001570.png"
    url = _download._folder_url("video", "traffic", spec.files[1], None, spec)
    assert url.endswith(f"mcv-m6-2018-team8/{spec.commit}/databases/traffic/input/in000900.jpg")
    asked = []
    monkeypatch.setattr(_download, "_fetch_keys", lambda keys, *a, **k: asked.extend(keys))
    _download._fetch_data_sets(["video"], tmp_path)
    assert "video/highway" in asked and "video/traffic" not in asked


@pytest.fixture
def harness(monkeypatch, tmp_path):
    """benchmarks/_harness.py as on a machine without the data: ROBUSTPCA_DATA unset, no
    ``../shared/data`` beside the (pretend) repository, an empty cache."""
    import _harness  # on sys.path: conftest puts benchmarks/ there

    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    monkeypatch.setattr(_harness, "REPO", tmp_path / "clone")
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "cache"))
    return _harness


def test_data_home_downloads_what_is_needed_into_the_cache(harness, mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUSTPCA_MIRROR", mirror.url)
    home = harness.data_home("palm", "rrcov")
    assert home == tmp_path / "cache"
    assert mirror.requests == ["/palm/Palm_16x16.mat"]
    assert sorted(p.name for p in (home / "raw").iterdir()) == ["palm"]
    for table in harness.RRCOV_FIXTURES.glob("*.csv"):
        assert (home / "rrcov" / table.name).read_bytes() == table.read_bytes()
    mirror.requests.clear()
    assert harness.data_home("palm", "rrcov") == home  # there with its checksum: no request
    assert mirror.requests == []
    with pytest.raises(ValueError, match="'nope'"):
        harness.data_home("nope")
    # a local folder wins: ROBUSTPCA_DATA, else ../shared/data beside the repository
    monkeypatch.setenv("ROBUSTPCA_DATA", str(tmp_path / "mine"))
    assert harness.data_home("palm") == tmp_path / "mine"
    monkeypatch.delenv("ROBUSTPCA_DATA")
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert harness.data_home() == tmp_path / "shared" / "data"


def test_data_home_offline_says_how_to_get_the_data(harness, tmp_path):
    """Offline (the autouse fixture's dead mirror) and no local copy: an error whose message
    names the three ways to get the data."""
    with pytest.raises(FileNotFoundError) as info:
        harness.data_home("orl")
    message = str(info.value)
    assert "Real data not found" in message and str(tmp_path / "shared" / "data") in message
    for hint in ("ROBUSTPCA_MIRROR", "ROBUSTPCA_DATA to a copy", "run again online"):
        assert hint in message
    assert "/orl/ORL_32x32.mat" in message  # the download that failed
    assert isinstance(info.value.__cause__, DatasetDownloadError)


def test_committed_rrcov_tables_are_the_documented_ones(shared_data):
    """tests/fixtures/rrcov: the five tables with the SHA-256 of PROVENANCE.md, the same
    bytes as the data folder's rrcov/ (a local copy, or the fixtures copied there)."""
    fixtures = REPO / "tests" / "fixtures"
    documented = dict(
        re.findall(r"^\| `(\w+\.csv)` \|.*\| `([0-9a-f]{64})` \|$",
                   (fixtures / "PROVENANCE.md").read_text(), re.M)
    )  # fmt: skip
    tables = sorted(p.name for p in (fixtures / "rrcov").iterdir())
    assert tables == sorted(documented) and len(tables) == 5
    for name in tables:
        assert _sha256(fixtures / "rrcov" / name) == documented[name], name
        assert (shared_data / "rrcov" / name).read_bytes() == (
            fixtures / "rrcov" / name
        ).read_bytes()
