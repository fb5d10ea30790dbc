"""The fetchers read ``$ROBUSTPCA_DATA`` where its files have the pinned checksums.

The loaders (``load_orl``, ...) read that folder and the fetchers' offline hint said to
set it, but ``fetch_orl()`` with a complete copy there still went to the network (and
failed offline with the same hint). A verified copy is now read as it is, and nothing is
written to it; an incomplete or altered one is passed over for the cache.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from robustpca.datasets import (
    DatasetDownloadError,
    fetch_adbench,
    fetch_orl,
    fetch_palm,
    load_orl,
    load_palm,
)

from .test_fetch import _dead_url

pytestmark = pytest.mark.realdata


@pytest.fixture(autouse=True)
def _offline(monkeypatch, tmp_path):
    """A mirror on a closed local port and an empty cache: any download fails."""
    monkeypatch.setenv("ROBUSTPCA_MIRROR", _dead_url())
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "cache"))


def test_a_verified_copy_is_read_offline(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUSTPCA_DATA", str(shared_data))
    faces = fetch_orl()
    np.testing.assert_array_equal(faces.data, load_orl(shared_data).data)
    np.testing.assert_array_equal(faces.target, load_orl(shared_data).target)
    folder = fetch_adbench(tables="15_Hepatitis")
    assert folder == shared_data / "adbench"
    assert not (tmp_path / "cache").exists()  # nothing downloaded, nothing cached


def test_an_altered_copy_is_passed_over_for_the_cache(shared_data, tmp_path, monkeypatch):
    """One flipped byte: the copy is not used, and the download it needs fails with the
    hint (the copy itself is left as it was)."""
    copy = tmp_path / "data" / "raw" / "palm"
    copy.mkdir(parents=True)
    target = copy / "Palm_16x16.mat"
    shutil.copy(shared_data / "raw" / "palm" / "Palm_16x16.mat", target)
    monkeypatch.setenv("ROBUSTPCA_DATA", str(tmp_path / "data"))
    np.testing.assert_array_equal(fetch_palm().data, load_palm(shared_data).data)
    content = bytearray(target.read_bytes())
    content[-1] ^= 0xFF
    target.write_bytes(bytes(content))
    with pytest.raises(DatasetDownloadError, match="set ROBUSTPCA_DATA=<folder>"):
        fetch_palm()
    assert target.read_bytes() == bytes(content)
