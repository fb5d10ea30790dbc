"""Fetchers, from the mutation audit: what a user's arguments mean and what a call leaves.

Every download goes to the local mirror of conftest (``http.server`` on 127.0.0.1);
``ROBUSTPCA_MIRROR`` points at a closed port by default, so nothing reaches the internet.
"""

from __future__ import annotations

import logging
import socket

import pytest

from robustpca.datasets import (
    DatasetChecksumError,
    _download,
    fetch_adbench,
    fetch_palm,
    get_cache_home,
)

from .conftest import DataMirror

pytestmark = pytest.mark.realdata


@pytest.fixture(autouse=True)
def _never_the_internet(monkeypatch, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ROBUSTPCA_MIRROR", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "default-cache"))
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)  # a verified copy there is read


@pytest.fixture
def mirror(data_mirror):
    data_mirror.requests.clear()
    return data_mirror


def test_a_data_home_under_the_home_folder_is_expanded(tmp_path, monkeypatch, mirror):
    """``data_home="~/..."`` is the user's home folder, as for ``get_data_home``: the file
    lands there, not in a folder literally named ``~`` below the working directory."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert get_cache_home("~/robustpca") == tmp_path / "home" / "robustpca"
    fetch_palm("~/robustpca", base_url=mirror.url)
    assert (tmp_path / "home" / "robustpca" / "raw" / "palm" / "Palm_16x16.mat").is_file()
    assert not (tmp_path / "~").exists()


def test_fetching_leaves_pooch_logger_level_as_it_was(tmp_path, mirror):
    """The fetchers quiet pooch's logger while they download, then give it back its
    level: a caller's own logging setup survives a fetch."""
    import pooch

    logger = pooch.get_logger()
    before = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        fetch_adbench(tmp_path, tables="14_glass", base_url=mirror.url)
        assert logger.level == logging.DEBUG
    finally:
        logger.setLevel(before)


def test_downloading_whole_data_sets_keeps_a_checksum_error(shared_data, tmp_path):
    """A mirror serving other bytes is a DatasetChecksumError (the bytes differ), not a
    download failure whose hint says to retry online."""
    bad = tmp_path / "mirror" / "palm"
    bad.mkdir(parents=True)
    content = bytearray((shared_data / "raw" / "palm" / "Palm_16x16.mat").read_bytes())
    content[-1] ^= 0xFF
    (bad / "Palm_16x16.mat").write_bytes(bytes(content))
    server = DataMirror(tmp_path / "mirror")
    try:
        with pytest.raises(DatasetChecksumError, match="pinned SHA-256"):
            _download._fetch_data_sets(["palm"], tmp_path / "cache", base_url=server.url)
    finally:
        server.close()
    assert not (tmp_path / "cache" / "raw" / "palm" / "Palm_16x16.mat").exists()
