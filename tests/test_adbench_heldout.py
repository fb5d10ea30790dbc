"""benchmarks/adbench_heldout.py: the 18 held-out tables and the 38 embedding tables
download from a mirror, each checked against its pinned SHA-256; a wrong file or an
unknown name is an error."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from .conftest import DataMirror

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import adbench_heldout as heldout


def test_the_sets_partition_the_tables():
    assert len(heldout.SHA256) == 18
    assert set(heldout.PRIMARY) | set(heldout.SECONDARY) == set(heldout.SHA256)
    assert not set(heldout.PRIMARY) & set(heldout.SECONDARY)


#: The pins of the mirror's two files: ``u.npz`` is served tampered
PINS = {"t": hashlib.sha256(b"table").hexdigest(), "u": hashlib.sha256(b"other").hexdigest()}


@pytest.fixture
def mirror(tmp_path):
    """``start(folder)`` serves ``t.npz`` and a tampered ``u.npz`` at ``<url>/<folder>/``
    (conftest's ``DataMirror`` on 127.0.0.1) and returns ``url``."""
    servers = []

    def start(folder: str = "") -> str:
        served = tmp_path / "mirror" / folder
        served.mkdir(parents=True)
        (served / "t.npz").write_bytes(b"table")
        (served / "u.npz").write_bytes(b"tampered")
        servers.append(DataMirror(tmp_path / "mirror"))
        return servers[-1].url.rstrip("/")

    yield start
    for server in servers:
        server.close()


def test_downloads_are_checked(tmp_path, monkeypatch, mirror):
    url = mirror()
    monkeypatch.setattr(heldout, "SHA256", PINS)
    home = tmp_path / "home"
    assert heldout.fetch(home, ["t"], base_url=url) == home
    assert (home / "t.npz").read_bytes() == b"table"
    with pytest.raises(ValueError, match="hash"):  # pooch: the checksum differs
        heldout.fetch(home, ["u"], base_url=url)
    with pytest.raises(ValueError, match="not among the held-out"):
        heldout.fetch(home, ["14_glass"], base_url=url)


def test_the_embedding_sets_partition_the_tables():
    assert len(heldout.EMBEDDINGS) == 38
    assert set(heldout.EMBEDDINGS_PRIMARY) | set(heldout.EMBEDDINGS_SECONDARY) == set(
        heldout.EMBEDDINGS
    )
    assert len(heldout.EMBEDDINGS_PRIMARY) == 22
    assert not set(heldout.EMBEDDINGS_PRIMARY) & set(heldout.EMBEDDINGS_SECONDARY)
    assert heldout.embedding_file("CV_by_ViT/MVTec-AD_wood") == "CV_by_ViT__MVTec-AD_wood.npz"


def test_embedding_downloads_are_checked_and_flattened(tmp_path, monkeypatch, mirror):
    url = mirror("CV_by_ViT")
    monkeypatch.setattr(heldout, "EMBEDDINGS", {f"CV_by_ViT/{t}": h for t, h in PINS.items()})
    home = tmp_path / "home"
    assert heldout.fetch_embeddings(home, ["CV_by_ViT/t"], base_url=url) == home
    assert (home / "CV_by_ViT__t.npz").read_bytes() == b"table"
    with pytest.raises(ValueError, match="hash"):
        heldout.fetch_embeddings(home, ["CV_by_ViT/u"], base_url=url)
    with pytest.raises(ValueError, match="not among the embedding"):
        heldout.fetch_embeddings(home, ["CV_by_ViT/v"], base_url=url)
